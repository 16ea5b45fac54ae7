/* env: the process environment read as numbers, as SLURM and the launchers
 * pass them (SLURM_PROCID, SLURM_JOB_NUM_NODES ...).
 * SPDX-License-Identifier: MIT */
#ifndef UTIL_ENV_H
#define UTIL_ENV_H

/* The variable as a base-10 number; 0 when it is unset or does not start
 * with one. */
long env_long(const char *name);

#endif
