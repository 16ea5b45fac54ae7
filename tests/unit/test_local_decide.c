/* Unit tests of the local executor's state decisions, as test_slurm_decide.c
 * for SLURM: a job without a live supervisor (waiting, running with or
 * without job.status, alive, LOST and found again, damaged file), and the
 * end of a job the supervisor ran (exit, signal, time limit, cancel).
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "orchestrator/backend/backend_local.h"
#include "util/err.h"

#include <signal.h>
#include <string.h>

static struct job_decision seen_as(enum job_state st, const char *reason, int cancel, int read,
				   const struct status_file *js, int alive)
{
	struct local_seen s = { "r1", st, reason, cancel, read, js, alive };
	struct job_decision d;
	local_decide(&s, &d);
	return d;
}

static void test_without_supervisor(void)
{
	struct status_file ok = { .exit_code = 0, .start = 10, .end = 20 },
			  bad = { .exit_code = 3, .start = 10, .end = 20 },
			  term = { .exit_code = 143 };
	struct job_decision d = seen_as(JS_COMPLETED, NULL, 0, 0, &ok, 0);
	CHECK(!d.write); /* final: nothing to decide */
	d = seen_as(JS_RUNNING, NULL, 0, 0, &ok, 0);
	CHECK(d.write && d.state == JS_COMPLETED && d.exit_code == 0 && !d.keep_reason);
	CHECK_STR(d.reason, "");
	CHECK(d.times && d.start == 10 && d.end == 20);
	CHECK_STR(d.detail, "decided from job.status (supervisor gone)");
	d = seen_as(JS_RUNNING, NULL, 0, 0, &bad, 0);
	CHECK(d.state == JS_FAILED && d.exit_code == 3);
	CHECK_STR(d.reason, "exit status 3");
	d = seen_as(JS_RUNNING, NULL, 1, 0, &term, 0);
	CHECK(d.state == JS_CANCELLED);
	CHECK_STR(d.reason, "cancelled");
	/* no file: the processes decide between waiting and LOST */
	d = seen_as(JS_RUNNING, NULL, 0, ERR_NOTFOUND, NULL, 1);
	CHECK(d.write && d.state == JS_RUNNING && strstr(d.reason, "processes are alive"));
	CHECK(d.detail == NULL && d.exit_code == -1 && !d.times);
	char said[512];
	snprintf(said, sizeof said, "%s", d.reason);
	d = seen_as(JS_RUNNING, said, 0, ERR_NOTFOUND, NULL, 1);
	CHECK(!d.write); /* said once, not rewritten */
	d = seen_as(JS_RUNNING, NULL, 0, ERR_NOTFOUND, NULL, 0);
	CHECK(d.state == JS_LOST && strstr(d.reason, "left no job.status"));
	CHECK_STR(d.detail, "supervisor gone");
	d = seen_as(JS_RUNNING, NULL, 0, ERR_IO, NULL, 1);
	CHECK(d.state == JS_LOST && strstr(d.reason, "is damaged"));
}

static void test_waiting_and_lost(void)
{
	struct job_decision d = seen_as(JS_PENDING, NULL, 0, ERR_NOTFOUND, NULL, 0);
	CHECK(d.write && d.state == JS_PENDING);
	CHECK_STR(d.reason, "no local supervisor is running (it was interrupted): `campaign resume r1` starts one");
	char said[512];
	snprintf(said, sizeof said, "%s", d.reason);
	CHECK(!seen_as(JS_PENDING, said, 0, ERR_NOTFOUND, NULL, 0).write);
	d = seen_as(JS_PLANNED, NULL, 1, ERR_NOTFOUND, NULL, 0);
	CHECK(d.state == JS_CANCELLED);
	CHECK_STR(d.reason, "cancelled before it started");
	/* LOST is provisional: a job.status found later decides, none keeps it */
	CHECK(!seen_as(JS_LOST, "gone", 0, ERR_NOTFOUND, NULL, 0).write);
	struct status_file ok = { .exit_code = 0 }, term = { .exit_code = 143 };
	d = seen_as(JS_LOST, "gone", 0, 0, &ok, 0);
	CHECK(d.write && d.state == JS_COMPLETED && d.times);
	CHECK_STR(d.reason, "");
	CHECK_STR(d.detail, "job.status appeared after it was taken for lost");
	d = seen_as(JS_LOST, "gone", 1, 0, &term, 0);
	CHECK(d.state == JS_CANCELLED);
	CHECK_STR(d.reason, "exit status 143");
}

static struct job_decision ended(int read, const struct status_file *js, int ws, int limit,
				 int cancel)
{
	struct local_end e = { read, js, ws, limit, cancel };
	struct job_decision d;
	local_decide_end(&e, &d);
	return d;
}

static void test_end_of_a_supervised_job(void)
{
	struct status_file ok = { .exit_code = 0, .start = 1, .end = 2 }, bad = { .exit_code = 3 },
			  term = { .exit_code = 143 };
	struct job_decision d = ended(0, &ok, 0, 0, 0);
	CHECK(d.state == JS_COMPLETED && d.exit_code == 0 && d.keep_reason && d.times);
	CHECK_STR(d.detail, "job ended");
	d = ended(0, &bad, 3 << 8, 0, 0);
	CHECK(d.state == JS_FAILED && d.exit_code == 3);
	CHECK_STR(d.reason, "exit status 3");
	d = ended(0, &term, 15, 1, 0);
	CHECK(d.state == JS_TIMEOUT);
	CHECK_STR(d.reason, "time limit reached");
	d = ended(0, &ok, 0, 0, 1); /* the job's own completion wins over the cancel */
	CHECK(d.state == JS_COMPLETED);
	CHECK_STR(d.reason, "completed before the cancel reached it");
	d = ended(ERR_NOTFOUND, NULL, SIGKILL, 0, 0);
	CHECK(d.state == JS_FAILED && d.exit_code == 137 && !d.times);
	CHECK(strstr(d.reason, "no job.status: job script killed by ") != NULL);
	d = ended(ERR_IO, NULL, 0, 0, 0); /* damaged: the script's own exit decides */
	CHECK(d.state == JS_COMPLETED && d.exit_code == 0);
	CHECK(strstr(d.reason, "job.status is damaged") != NULL);
	d = ended(ERR_IO, NULL, 2 << 8, 0, 0);
	CHECK(d.state == JS_FAILED && d.exit_code == 2);
}

int main(void)
{
	RUN(test_without_supervisor);
	RUN(test_waiting_and_lost);
	RUN(test_end_of_a_supervised_job);
	HARNESS_END();
}
