/* Unit tests of the SLURM end-state decision: every controller state, with
 * and without the job's own job.status, and purged jobs. */
#include "harness.h"

#include "orchestrator/backend/backend_slurm.h"

#include <slurm/slurm.h>

static enum job_state decide(int found, uint32_t state, uint32_t ws, const struct job_status *js,
			     int *code, char *why)
{
	struct slurm_seen s = { found, state, ws, "Resources", 0 };
	return slurm_decide(&s, js, code, why, 512);
}

static void test_controller_states(void)
{
	char why[512];
	int code;
	struct job_status ok = { .exit_code = 0 }, bad = { .exit_code = 3 },
			  term = { .exit_code = 143 };
	CHECK(decide(1, JOB_PENDING, 0, NULL, &code, why) == JS_PENDING && code == -1);
	CHECK_STR(why, "Resources");
	CHECK(decide(1, JOB_RUNNING, 0, NULL, &code, why) == JS_RUNNING);
	CHECK(decide(1, JOB_SUSPENDED, 0, NULL, &code, why) == JS_RUNNING);
	CHECK(decide(1, JOB_COMPLETE, 0, &ok, &code, why) == JS_COMPLETED && code == 0);
	CHECK(decide(1, JOB_FAILED, 3 << 8, &bad, &code, why) == JS_FAILED && code == 3);
	CHECK_STR(why, "exit status 3");
	/* signal 9, no file */
	CHECK(decide(1, JOB_FAILED, 9, NULL, &code, why) == JS_FAILED && code == 137);
	CHECK(decide(1, JOB_TIMEOUT, 15, &term, &code, why) == JS_TIMEOUT && code == 143);
	CHECK(decide(1, JOB_CANCELLED, 15, &term, &code, why) == JS_CANCELLED && code == 143);
	/* cancel racing the job's end: the job's own completion wins */
	CHECK(decide(1, JOB_CANCELLED, 15, &ok, &code, why) == JS_COMPLETED && code == 0);
	CHECK_STR(why, "completed before the cancel reached it");
	CHECK(decide(1, JOB_TIMEOUT, 15, &ok, &code, why) == JS_COMPLETED);
	/* a script that left with 0 only when the limit stopped its step: TIMEOUT, with
	 * the controller's exit status; one that ended before the limit completed */
	struct slurm_seen lim = { 1, JOB_TIMEOUT, 15, NULL, 1000.0 + 60 };
	struct job_status at_limit = { .exit_code = 0, .end = 1061 }, early = { .end = 1030 };
	CHECK(slurm_decide(&lim, &at_limit, &code, why, 512) == JS_TIMEOUT && code == 143);
	CHECK_STR(why, "time limit reached");
	CHECK(slurm_decide(&lim, &early, &code, why, 512) == JS_COMPLETED && code == 0);
	CHECK(jobstatus_decide(&ok, 0, 1) == JS_COMPLETED &&
	      jobstatus_decide(&term, 0, 1) == JS_CANCELLED);
	CHECK(jobstatus_decide(&ok, 1, 0) == JS_COMPLETED &&
	      jobstatus_decide(&term, 1, 0) == JS_TIMEOUT);
	CHECK(jobstatus_decide(NULL, 0, 1) == JS_CANCELLED);
	CHECK(decide(1, JOB_NODE_FAIL, 0, NULL, &code, why) == JS_NODE_FAIL);
	CHECK(decide(1, JOB_BOOT_FAIL, 0, NULL, &code, why) == JS_NODE_FAIL);
	CHECK(decide(1, JOB_OOM, 9, &term, &code, why) == JS_OUT_OF_MEMORY && code == 143);
	CHECK(strstr(why, "out of memory") != NULL);
	CHECK(decide(1, JOB_DEADLINE, 0, NULL, &code, why) == JS_TIMEOUT);
	CHECK(decide(1, JOB_PREEMPTED, 0, NULL, &code, why) == JS_PREEMPTED &&
	      !job_state_is_final(JS_PREEMPTED));
	CHECK(decide(1, JOB_PENDING | JOB_REQUEUE, 0, NULL, &code, why) == JS_REQUEUED &&
	      !job_state_is_final(JS_REQUEUED));
	/* completing: final on the controller, but the job's own record is not there yet */
	CHECK(decide(1, JOB_COMPLETE | JOB_COMPLETING, 0, NULL, &code, why) == JS_RUNNING);
	CHECK(decide(1, JOB_COMPLETE | JOB_COMPLETING, 0, &ok, &code, why) == JS_COMPLETED);
}

static void test_purged(void)
{
	char why[512];
	int code;
	struct job_status ok = { .exit_code = 0 }, bad = { .exit_code = 5 },
			  term = { .exit_code = 143 };
	CHECK(decide(0, 0, 0, &ok, &code, why) == JS_COMPLETED && code == 0);
	CHECK(decide(0, 0, 0, &bad, &code, why) == JS_FAILED && code == 5);
	CHECK(strstr(why, "decided from job.status") != NULL);
	CHECK(decide(0, 0, 0, &term, &code, why) == JS_FAILED && code == 143);
	CHECK(strstr(why, "signal 15") != NULL);
	CHECK(decide(0, 0, 0, NULL, &code, why) == JS_LOST && code == -1);
	CHECK(strstr(why, "no longer knows the job") != NULL);
}

int main(void)
{
	RUN(test_controller_states);
	RUN(test_purged);
	HARNESS_END();
}
