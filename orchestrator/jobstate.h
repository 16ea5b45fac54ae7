/* jobstate: the states a job goes through and which of them are final.
 * PLANNED is the submit intent recorded before the backend is called. */
#ifndef CAMPAIGN_JOBSTATE_H
#define CAMPAIGN_JOBSTATE_H

enum job_state {
	JOB_PLANNED, JOB_PENDING, JOB_RUNNING, JOB_COMPLETED, JOB_FAILED, JOB_TIMEOUT,
	JOB_CANCELLED, JOB_NODE_FAIL, JOB_OUT_OF_MEMORY, JOB_PREEMPTED, JOB_REQUEUED,
	JOB_LOST, JOB_STATE_COUNT
};

const char *job_state_name(enum job_state s);
/* Returns -1 for an unknown name. */
int job_state_parse(const char *name);
int job_state_is_final(enum job_state s);

#endif
