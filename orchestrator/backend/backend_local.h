/* backend_local: what the local backend exposes beyond struct backend_ops:
 * the pure decisions of a job's state from what the executor observed
 * (unit-tested on their own, as slurm_decide). They read and write nothing;
 * decision.h records what they return.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_BACKEND_LOCAL_H
#define CAMPAIGN_BACKEND_LOCAL_H

#include "decision.h"
#include "statusfile.h"

/* What a status without a live supervisor observed of one job. */
/* How a waiting job's reason begins while no supervisor runs its run. */
#define LOCAL_NO_SUPERVISOR "no local supervisor is running"

struct local_seen {
	const char *run_id;
	enum job_state state;        /* as recorded */
	const char *reason;          /* as recorded; NULL none */
	int cancel_requested;
	int status_read;             /* statusfile_read's answer: 0, ERR_NOTFOUND or ERR_IO */
	const struct status_file *js; /* the job's own job.status (of its job id); NULL none */
	int alive;                   /* the job's processes are alive */
};

/* The job's state when no supervisor runs: job.status decides a job that
 * ran (a LOST one too, when its file appears later), a waiting one waits
 * for `campaign resume`; d->write is 0 when nothing changed. */
void local_decide(const struct local_seen *seen, struct job_decision *d);

/* What the supervisor observed when a job's process group ended. */
struct local_end {
	int status_read;             /* statusfile_read's answer: 0, ERR_NOTFOUND or ERR_IO */
	const struct status_file *js; /* job.status when status_read is 0 */
	int wait_status;             /* the job script's, from waitpid */
	int timed_out, cancelled;    /* what the supervisor did to it */
};

/* The end state of a job the supervisor ran. */
void local_decide_end(const struct local_end *e, struct job_decision *d);

#endif
