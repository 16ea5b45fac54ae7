/* decision: what a backend decided of one job, and the one place that
 * records decisions in the store. Backends observe and decide (the pure
 * slurm_decide and local_decide); they do not write a job's state
 * themselves. Submission's intent records (store_job_plan, _submitting,
 * _submitted) stay with the submit calls they surround.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_DECISION_H
#define CAMPAIGN_DECISION_H

#include "orchestrator/store/store.h"

struct job_decision {
	int write;             /* 0: nothing changed, nothing to record */
	enum job_state state;
	char reason[512];
	int keep_reason;       /* 1: the recorded reason stays (reason unused) */
	int exit_code;         /* -1: unknown, the recorded one stays */
	const char *nodelist;  /* NULL: the recorded one stays */
	const char *detail;    /* the transition's words; NULL: none */
	int times;             /* 1: start and end are the job's real times (> 0: known) */
	double start, end;
};

/* A decision to record state with these words (reason NULL: keep the
 * recorded one), no exit code, nodes or times. */
void decision_set(struct job_decision *d, enum job_state state, const char *reason,
		  const char *detail);
/* A FAILED decision says why in the words of the job's own output
 * ("rank 2: FileNotFoundError: ...", failure_line.h) when its logs in
 * job_dir, the attempt's folder, say it; any other decision is kept. */
void decision_explain_failure(struct job_decision *d, const char *job_dir);
/* Records d for job j's attempt (nothing when !d->write). */
int decision_apply(struct store *st, const struct job_row *j, const struct job_decision *d);
/* decision_apply for a decision taken from what a reader saw (j): recorded
 * only while the job is still in j->state, so that a refresh never writes
 * back a state another process has moved on from. */
int decision_apply_seen(struct store *st, const struct job_row *j, const struct job_decision *d);
/* Records that the scheduler requeued an attempt (store_job_requeued). */
int decision_apply_requeue(struct store *st, const struct job_requeue *q, int *added);

#endif
