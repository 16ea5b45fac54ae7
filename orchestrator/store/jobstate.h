/* jobstate: the states a job goes through and which of them are final.
 * PLANNED is the submit intent recorded before the backend is called. A job's
 * status file is statusfile.h's (backend/), a snapshot of job rows snapshot.h's.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_JOBSTATE_H
#define CAMPAIGN_JOBSTATE_H

enum job_state {
	JS_PLANNED, JS_PENDING, JS_RUNNING, JS_COMPLETED, JS_FAILED, JS_TIMEOUT,
	JS_CANCELLED, JS_NODE_FAIL, JS_OUT_OF_MEMORY, JS_PREEMPTED, JS_REQUEUED,
	JS_LOST, JS_COUNT
};

const char *job_state_name(enum job_state s);
/* Returns -1 for an unknown name. */
int job_state_parse(const char *name);
int job_state_is_final(enum job_state s);

#endif
