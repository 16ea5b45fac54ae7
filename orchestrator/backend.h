/* backend: where jobs run. Each backend submits a run's jobs, brings the
 * store up to date for all of a run's unfinished jobs in one call, and
 * cancels. Deciding the true end state (scheduler state + job.status) is
 * the backend's; recording it is the store's. */
#ifndef CAMPAIGN_BACKEND_H
#define CAMPAIGN_BACKEND_H

#include "run.h"

struct backend_ops {
	const char *name;
	/* Submits every PLANNED job of the run (intent already recorded). */
	int (*submit)(struct run *r);
	/* Starts whatever drives the run to its end (local: the supervisor,
	 * in the foreground when wait is set; slurm: the aggregation job). */
	int (*start)(struct run *r, int wait);
	/* Updates the store for every job that is not final. */
	int (*refresh)(struct run *r);
	int (*cancel)(struct run *r, const char *scenario);
	int start_waits; /* start(r, 1) returns only when the run is done */
};

extern const struct backend_ops backend_local, backend_slurm;

/* The local executor's supervisor loop (`campaign supervise RUN_DIR`). */
int local_supervise(struct run *r);

/* "local", or NULL with err set for an unknown or unavailable backend.
 * "auto" picks slurm when a controller answers, else local; *why says why. */
const struct backend_ops *backend_pick(const char *name, const char **why);
const struct backend_ops *backend_for_run(const struct run *r);

#endif
