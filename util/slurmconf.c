/* slurmconf: see slurmconf.h.
 * SPDX-License-Identifier: MIT */
#include "slurmconf.h"

#include "err.h"

#include <pthread.h>
#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

void slurm_controller_addr(const char *conf, char *host, size_t hn, int *port)
{
	snprintf(host, hn, "localhost");
	*port = 6817;
	FILE *f = conf ? fopen(conf, "r") : NULL;
	char line[1024];
	int have_host = 0;
	while (f && fgets(line, sizeof line, f)) {
		char *v;
		if (!have_host &&
		    (!strncasecmp(line, "SlurmctldHost=", 14) ||
		     !strncasecmp(line, "ControlMachine=", 15))) {
			v = strchr(line, '=') + 1;
			/* name(address): the address is what to reach */
			char *paren = strchr(v, '(');
			if (paren)
				v = paren + 1;
			v[strcspn(v, "() \t\r\n#")] = '\0';
			snprintf(host, hn, "%s", v);
			have_host = 1;
		} else if (!strncasecmp(line, "SlurmctldPort=", 14)) {
			*port = atoi(line + 14);
		}
	}
	if (f)
		fclose(f);
}
