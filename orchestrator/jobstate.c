#include "jobstate.h"

#include <string.h>

static const char *const names[JOB_STATE_COUNT] = {
	"PLANNED", "PENDING", "RUNNING", "COMPLETED", "FAILED", "TIMEOUT", "CANCELLED",
	"NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "REQUEUED", "LOST",
};

const char *job_state_name(enum job_state s)
{
	return (unsigned)s < JOB_STATE_COUNT ? names[s] : "UNKNOWN";
}

int job_state_parse(const char *name)
{
	for (int i = 0; i < JOB_STATE_COUNT; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

int job_state_is_final(enum job_state s)
{
	switch (s) {
	case JOB_COMPLETED: case JOB_FAILED: case JOB_TIMEOUT: case JOB_CANCELLED:
	case JOB_NODE_FAIL: case JOB_OUT_OF_MEMORY: case JOB_LOST:
		return 1;
	default:
		return 0;
	}
}
