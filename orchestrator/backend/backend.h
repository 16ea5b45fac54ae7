/* backend: where jobs run. Each backend submits a run's jobs, brings the
 * store up to date for all of a run's unfinished jobs in one call, and
 * cancels. Deciding the true end state (scheduler state + job.status) is
 * the backend's; recording it is the store's.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_BACKEND_H
#define CAMPAIGN_BACKEND_H

#include "orchestrator/store/snapshot.h"
#include "orchestrator/run.h"

struct backend_ops {
	const char *name;
	/* Submits every PLANNED job of the run (intent already recorded). */
	int (*submit)(struct run *r);
	/* Starts whatever drives the run to its end (local: the supervisor,
	 * in the foreground when wait is set; slurm: the aggregation job). */
	int (*start)(struct run *r, int wait);
	/* Updates the store for every job of the snapshot that is not final;
	 * sets jobs->dirty when it wrote (backend_refresh then reloads). */
	int (*refresh)(struct run *r, struct snapshot *jobs);
	int (*cancel)(struct run *r, const char *scenario);
	int start_waits; /* start(r, 1) returns only when the run is done */
};

extern const struct backend_ops backend_local, backend_slurm;

/* The local executor's supervisor loop: runs the pending jobs one at a time
 * and returns when none is left (the analysis is the caller's). */
int local_supervise(struct run *r);

/* Brings the store up to date with the backend and leaves *jobs (loaded
 * here when empty) a snapshot of what the store holds after that: one read
 * when nothing changed. On a backend error *jobs still holds the rows. */
int backend_refresh(const struct backend_ops *be, struct run *r, struct snapshot *jobs);

#endif
