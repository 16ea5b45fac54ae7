/* slurmconf: libslurm's configuration and its one initialisation, for every
 * part that asks the controller (the backend, a job's launcher). libslurm's
 * fatal() ends the process when no configuration exists, so it is looked for
 * first. It asks the controller nothing itself.
 * SPDX-License-Identifier: MIT */
#ifndef UTIL_SLURMCONF_H
#define UTIL_SLURMCONF_H

/* The configuration file libslurm would read, or NULL when none exists. */
const char *slurm_conf_path(void);
/* Initialises libslurm once; ERR_BACKEND (saying what to set) without a
 * configuration file. */
int slurm_ready(void);

#endif
