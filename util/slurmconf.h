/* slurmconf: libslurm's configuration and its one initialisation, for every
 * part that asks the controller (the backend, a job's launcher). libslurm's
 * fatal() ends the process when no configuration exists, so it is looked for
 * first, and the controller's address from it. It asks the controller nothing itself.
 * SPDX-License-Identifier: MIT */
#ifndef UTIL_SLURMCONF_H
#define UTIL_SLURMCONF_H

#include <stddef.h>

/* The configuration file libslurm would read, or NULL when none exists. */
const char *slurm_conf_path(void);
/* Initialises libslurm once; ERR_BACKEND (saying what to set) without a
 * configuration file. */
int slurm_ready(void);
/* The controller's address in slurm.conf conf (SlurmctldHost's address, else its name;
 * SlurmctldPort): localhost:6817 where conf names neither or cannot be read. */
void slurm_controller_addr(const char *conf, char *host, size_t hn, int *port);

#endif
