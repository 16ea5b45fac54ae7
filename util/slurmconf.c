/* slurmconf: see slurmconf.h.
 * SPDX-License-Identifier: MIT */
#include "slurmconf.h"

#include "err.h"

#include <pthread.h>
#include <slurm/slurm.h>
#include <stdlib.h>
#include <unistd.h>

const char *slurm_conf_path(void)
{
	const char *env = getenv("SLURM_CONF");
	if (env && *env)
		return access(env, R_OK) == 0 ? env : NULL;
	return access("/etc/slurm/slurm.conf", R_OK) == 0 ? "/etc/slurm/slurm.conf" : NULL;
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void do_init(void)
{
	slurm_init(NULL);
}

int slurm_ready(void)
{
	const char *conf = slurm_conf_path();
	if (!conf)
		return err_set(ERR_BACKEND,
			       "no SLURM configuration: set SLURM_CONF to your slurm.conf, or install one at /etc/slurm/slurm.conf");
	pthread_once(&init_once, do_init);
	return 0;
}
