/* backend: what every backend shares: the refresh of a run's snapshot.
 * SPDX-License-Identifier: MIT */
#include "backend.h"

int backend_refresh(const struct backend_ops *be, struct run *r, struct snapshot *jobs)
{
	int rc = jobs->latest ? 0 : snapshot_load(r->st, jobs);
	if (rc < 0)
		return rc;
	jobs->dirty = 0;
	jobs->idle = 0;
	rc = be->refresh(r, jobs);
	if (jobs->dirty) {
		int idle = jobs->idle;
		int lrc = snapshot_load(r->st, jobs);
		jobs->idle = idle;
		if (rc == 0)
			rc = lrc;
	}
	return rc;
}
