/* backend_pick: choosing a backend by name, and the one a run was submitted to.
 * SPDX-License-Identifier: MIT */
#include "backend_pick.h"

#include "backend_slurm.h"
#include "util/err.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct backend_ops *backend_pick(const char *name, const char **why)
{
	*why = "";
	if (!name || !strcmp(name, "auto")) {
		const char *conf = slurm_conf_path();
		if (!conf) {
			*why = "no SLURM configuration ($SLURM_CONF, /etc/slurm/slurm.conf): using the local executor";
			return &backend_local;
		}
		if (!slurm_controller_answers(conf, 2000)) {
			*why = "the SLURM controller does not answer: using the local executor";
			return &backend_local;
		}
		*why = "using SLURM";
		return &backend_slurm;
	}
	if (!strcmp(name, "local"))
		return &backend_local;
	if (!strcmp(name, "slurm"))
		return &backend_slurm;
	err_set(ERR_USAGE, "unknown backend '%s' (expected auto, local or slurm)", name);
	return NULL;
}

const struct backend_ops *backend_for_run(const struct run *r)
{
	if (r->row.backend && !strcmp(r->row.backend, "slurm"))
		return &backend_slurm;
	return &backend_local;
}
