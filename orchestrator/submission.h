/* submission: bringing every scenario of a run to the backend exactly once,
 * whatever interrupted an earlier try: plans an attempt for each scenario
 * that has none, lets the backend submit (or adopt) every planned attempt,
 * and starts what drives the run to its end. submit, resume and resubmit all
 * go through it, one process at a time per run (<run>/.submit.lock).
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_SUBMISSION_H
#define CAMPAIGN_SUBMISSION_H

#include "orchestrator/backend/backend.h"

#include <stdio.h>

struct submission_opts {
	int wait;               /* return when the run is finished and analysed */
	int no_aggregation_job; /* slurm: submit no aggregation job */
	/* Run under the lock before planning (resubmit plans its new attempts
	 * here); may be NULL. */
	int (*prepare)(struct run *r, void *ctx);
	void *ctx;
};

/* Whether every variable c passes through to its jobs (env: { NAME:
 * { from_env: true } }) is set here, where the jobs get their environment
 * from: ERR_USAGE naming the missing ones (never a value) otherwise. */
int submission_check_env(const struct campaign *c);
/* Plans, submits and starts (after submission_check_env). Returns 0 or a
 * negative err code. */
int submission_run(struct run *r, const struct backend_ops *be, const struct submission_opts *o);
/* After submission_run with wait: follows the run to its end if the backend
 * did not, prints the status table, and returns the exit status
 * 1 when a job did not complete, 0 when all did, or a negative err code. */
int submission_wait(struct run *r, const struct backend_ops *be, FILE *out);

#endif
