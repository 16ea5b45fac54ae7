/* Unit tests of the SLURM end-state decision: every controller state, with
 * and without the job's own job.status, and purged jobs; what ended an
 * attempt SLURM requeued (job log, controller state), the sentence that
 * tells it, and the words on a running job's unhealthy nodes.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "orchestrator/backend/backend_slurm.h"
#include "orchestrator/backend/requeue.h"
#include "orchestrator/backend/slurm_health.h"

#include "util/clock.h"

#include <slurm/slurm.h>
#include <stdio.h>
#include <string.h>

static enum job_state decide(int found, uint32_t state, uint32_t ws, const struct status_file *js,
			     int *code, char *why)
{
	struct slurm_seen s = { found, state, ws, "Resources", 0 };
	return slurm_decide(&s, js, code, why, 512);
}

static void test_controller_states(void)
{
	char why[512];
	int code;
	struct status_file ok = { .exit_code = 0 }, bad = { .exit_code = 3 },
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
	struct status_file at_limit = { .exit_code = 0, .end = 1061 }, early = { .end = 1030 };
	CHECK(slurm_decide(&lim, &at_limit, &code, why, 512) == JS_TIMEOUT && code == 143);
	CHECK_STR(why, "time limit reached");
	CHECK(slurm_decide(&lim, &early, &code, why, 512) == JS_COMPLETED && code == 0);
	CHECK(statusfile_decide(&ok, 0, 1) == JS_COMPLETED &&
	      statusfile_decide(&term, 0, 1) == JS_CANCELLED);
	CHECK(statusfile_decide(&ok, 1, 0) == JS_COMPLETED &&
	      statusfile_decide(&term, 1, 0) == JS_TIMEOUT);
	CHECK(statusfile_decide(NULL, 0, 1) == JS_CANCELLED);
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
	struct status_file ok = { .exit_code = 0 }, bad = { .exit_code = 5 },
			  term = { .exit_code = 143 };
	CHECK(decide(0, 0, 0, &ok, &code, why) == JS_COMPLETED && code == 0);
	CHECK(decide(0, 0, 0, &bad, &code, why) == JS_FAILED && code == 5);
	CHECK(strstr(why, "decided from job.status") != NULL);
	CHECK(decide(0, 0, 0, &term, &code, why) == JS_FAILED && code == 143);
	CHECK(strstr(why, "signal 15") != NULL);
	CHECK(decide(0, 0, 0, NULL, &code, why) == JS_LOST && code == -1);
	CHECK(strstr(why, "no longer knows the job") != NULL);
}

/* slurmstepd's lines as the test cluster (22.05) wrote them */
static void test_requeue_cause(void)
{
	const char *rq = "campaign: scenario one starting on n1\n"
			 "slurmstepd-n1: error: *** JOB 271 ON n1 CANCELLED AT 2026-11-24T17:28:20 DUE TO JOB REQUEUE ***\n"
			 "campaign: job received signal 15; stopping the ranks\n";
	const char *nf = "slurmstepd-n1: error: *** JOB 272 ON n1 CANCELLED AT 2026-11-24T17:32:14 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***\n";
	CHECK(requeue_cause_from_log(rq, "271") == JS_REQUEUED);
	CHECK(requeue_cause_from_log(rq, "27") == -1); /* another job's line */
	CHECK(requeue_cause_from_log(nf, "272") == JS_NODE_FAIL);
	CHECK(requeue_cause_from_log("*** JOB 9 ON n3 CANCELLED AT 2026-01-01T00:00:00 DUE TO PREEMPTION ***", "9") == JS_PREEMPTED);
	CHECK(requeue_cause_from_log("*** JOB 9 ON n3 CANCELLED AT 2026-01-01T00:00:00 ***",
				     "9") == JS_CANCELLED);
	CHECK(requeue_cause_from_log("", "9") == -1 && requeue_cause_from_log(NULL, "9") == -1);
}

static void test_requeue_decide(void)
{
	char why[512];
	CHECK(requeue_decide(JS_NODE_FAIL, JOB_PENDING, "n2", why, sizeof why) == JS_NODE_FAIL);
	CHECK_STR(why, "node failure on n2: the controller requeued the job");
	CHECK(requeue_decide(JS_REQUEUED, JOB_PENDING, "", why, sizeof why) == JS_REQUEUED);
	CHECK_STR(why,
		  "the controller requeued the job (a requeue request, e.g. scontrol requeue)");
	/* no log line: the controller's state while requeuing, if seen */
	CHECK(requeue_decide(-1, JOB_NODE_FAIL | JOB_REQUEUE, NULL, why, sizeof why) ==
	      JS_NODE_FAIL);
	CHECK_STR(why, "node failure: the controller requeued the job");
	CHECK(requeue_decide(-1, JOB_PREEMPTED, NULL, why, sizeof why) == JS_PREEMPTED);
	CHECK(requeue_decide(-1, JOB_PENDING, "n1", why, sizeof why) == JS_NODE_FAIL);
	CHECK_STR(why, "node failure on n1: the controller requeued the job");
	CHECK(requeue_decide(-1, JOB_PENDING, NULL, why, sizeof why) == JS_REQUEUED);
	CHECK_STR(why, "the controller requeued the job (no cause recorded)");
	/* recorded before slurmstepd wrote its line: the only reason told again later */
	struct job_row e = { .state = JS_REQUEUED, .reason = why };
	CHECK(requeue_unexplained(&e) == 1);
	char known[200];
	requeue_decide(JS_REQUEUED, JOB_PENDING, NULL, known, sizeof known);
	e.reason = known;
	CHECK(requeue_unexplained(&e) == 0);
	e.reason = why;
	e.state = JS_NODE_FAIL;
	CHECK(requeue_unexplained(&e) == 0);
	e.state = JS_REQUEUED;
	e.reason = NULL;
	CHECK(requeue_unexplained(&e) == 0);
}

static void test_requeue_sentence(void)
{
	struct job_row rows[4] = {
		{ .scenario = "s", .attempt = 1, .job_id = "10", .state = JS_FAILED },
		{ .scenario = "s", .attempt = 2, .job_id = "11", .state = JS_NODE_FAIL,
		  .nodelist = "n[1-2]", .failed_nodes = "n2" },
		{ .scenario = "s", .attempt = 3, .job_id = "11", .state = JS_REQUEUED,
		  .nodelist = "n[3-4]" },
		{ .scenario = "s", .attempt = 4, .job_id = "11", .state = JS_RUNNING,
		  .nodelist = "n[1,3]", .started_at = 5 },
	};
	struct strbuf sb = STRBUF_INIT;
	requeue_sentence(rows, 0, 1, &sb); /* attempt 2 was resubmitted, not requeued */
	CHECK_STR(sb.len ? sb.buf : "", "");
	requeue_sentence(rows, 0, 2, &sb);
	CHECK_STR(sb.buf, "requeued after NODE_FAIL on n2; attempt 3 has not started yet");
	strbuf_reset(&sb);
	requeue_sentence(rows, 0, 3, &sb);
	CHECK_STR(sb.buf, "requeued after NODE_FAIL on n2, then after REQUEUED on n[3-4]; measured on n[1,3]");
	strbuf_free(&sb);
}

static void test_node_health(void)
{
	node_info_t nodes[3] = {
		{ .name = "n1", .node_state = NODE_STATE_ALLOCATED },
		{ .name = "n2", .node_state = NODE_STATE_ALLOCATED | NODE_STATE_NO_RESPOND },
		{ .name = "n3", .node_state = NODE_STATE_DOWN, .reason = "test",
		  .reason_time = 1000 },
	};
	node_info_msg_t msg = { .record_count = 3, .node_array = nodes };
	char out[256], hms[16], want[256];
	slurm_nodes_health(&msg, "n[1-2]", "n2 not responding since 04:42:07", 5000, out,
			   sizeof out);
	CHECK_STR(out, "n2 not responding since 04:42:07"); /* since kept */
	slurm_nodes_health(&msg, "n[1-3]", NULL, 5000, out, sizeof out);
	clock_hms_at(5000, hms, sizeof hms);
	snprintf(want, sizeof want, "n2 not responding since %s; n3 down since ", hms);
	CHECK(!strncmp(out, want, strlen(want)) && strstr(out, " (test)"));
	slurm_nodes_health(&msg, "n1", NULL, 5000, out, sizeof out);
	CHECK_STR(out, "");
	slurm_nodes_failed(&msg, "n[1-3]", NULL, out, sizeof out);
	CHECK_STR(out, "n2,n3");
	nodes[1].node_state = NODE_STATE_ALLOCATED; /* back: the words seen while it ran */
	slurm_nodes_failed(&msg, "n[1-2]", "n2 not responding since 04:42:07", out, sizeof out);
	CHECK_STR(out, "n2");
}

int main(void)
{
	RUN(test_controller_states);
	RUN(test_purged);
	RUN(test_requeue_cause);
	RUN(test_requeue_decide);
	RUN(test_requeue_sentence);
	RUN(test_node_health);
	HARNESS_END();
}
