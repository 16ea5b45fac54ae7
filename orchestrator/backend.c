/* backend: choosing a backend by name, and the one a run was submitted to. */
#include "backend.h"

#include "err.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A SLURM configuration exists ($SLURM_CONF or /etc/slurm/slurm.conf). */
static const char *slurm_conf_path(void)
{
	const char *env = getenv("SLURM_CONF");
	if (env && *env)
		return access(env, R_OK) == 0 ? env : NULL;
	return access("/etc/slurm/slurm.conf", R_OK) == 0 ? "/etc/slurm/slurm.conf" : NULL;
}

const struct backend_ops *backend_pick(const char *name, const char **why)
{
	*why = "";
	if (!name || !strcmp(name, "auto")) {
		if (!slurm_conf_path()) {
			*why = "no SLURM configuration found ($SLURM_CONF, /etc/slurm/slurm.conf): using the local executor";
			return &backend_local;
		}
		*why = "a SLURM configuration exists but this build has no SLURM backend yet: using the local executor";
		return &backend_local;
	}
	if (!strcmp(name, "local"))
		return &backend_local;
	if (!strcmp(name, "slurm")) {
		err_set(ERR_BACKEND, "the slurm backend is not available in this build");
		return NULL;
	}
	err_set(ERR_USAGE, "unknown backend '%s' (expected auto, local or slurm)", name);
	return NULL;
}

const struct backend_ops *backend_for_run(const struct run *r)
{
	const char *why;
	return backend_pick(r->row.backend, &why);
}
