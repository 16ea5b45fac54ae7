/* SPDX-License-Identifier: MIT */
#include "jobstate.h"

#include <string.h>

static const char *const names[JS_COUNT] = {
	"PLANNED", "PENDING", "RUNNING", "COMPLETED", "FAILED", "TIMEOUT", "CANCELLED",
	"NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "REQUEUED", "LOST",
};

const char *job_state_name(enum job_state s)
{
	return (unsigned)s < JS_COUNT ? names[s] : "UNKNOWN";
}

int job_state_parse(const char *name)
{
	for (int i = 0; i < JS_COUNT; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

int job_state_is_final(enum job_state s)
{
	switch (s) {
	case JS_COMPLETED: case JS_FAILED: case JS_TIMEOUT: case JS_CANCELLED:
	case JS_NODE_FAIL: case JS_OUT_OF_MEMORY: case JS_LOST:
		return 1;
	default:
		return 0;
	}
}
