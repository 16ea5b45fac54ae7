/* local_decide: the local backend's pure decisions (backend_local.h).
 * SPDX-License-Identifier: MIT */
#include "backend_local.h"

#include "util/err.h"
#include "util/proc.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

/* Words recorded once: a decision to say them again is no change. */
static void say_once(const struct local_seen *seen, struct job_decision *d, enum job_state st,
		     const char *why)
{
	decision_set(d, st, why, NULL);
	d->write = !seen->reason || strcmp(seen->reason, why);
}

/* job.status decides: its exit code, its times and detail. */
static void from_status(const struct status_file *js, int cancelled, int say_cancel,
			const char *detail, struct job_decision *d)
{
	enum job_state st = statusfile_decide(js, 0, cancelled);
	char why[64] = "";
	if (st == JS_FAILED || (st != JS_COMPLETED && !say_cancel))
		snprintf(why, sizeof why, "exit status %d", js->exit_code);
	else if (st == JS_CANCELLED)
		snprintf(why, sizeof why, "cancelled");
	decision_set(d, st, why, detail);
	d->exit_code = js->exit_code;
	d->times = 1;
	d->start = js->start;
	d->end = js->end;
}

static void waiting(const struct local_seen *seen, struct job_decision *d)
{
	if (seen->cancel_requested) {
		decision_set(d, JS_CANCELLED, "cancelled before it started", "cancelled");
		return;
	}
	/* Still waiting: nothing is lost, a supervisor can run it. */
	char why[sizeof d->reason];
	snprintf(why, sizeof why,
		 LOCAL_NO_SUPERVISOR " (it was interrupted): `campaign resume %s` starts one",
		 seen->run_id);
	say_once(seen, d, seen->state, why);
}

void local_decide(const struct local_seen *seen, struct job_decision *d)
{
	decision_set(d, seen->state, NULL, NULL);
	d->write = 0;
	if (seen->state == JS_LOST) {
		/* LOST is provisional: a job.status that appears later decides */
		if (seen->js)
			from_status(seen->js, seen->cancel_requested, 0,
				    "job.status appeared after it was taken for lost", d);
	} else if (job_state_is_final(seen->state)) {
		return;
	} else if (seen->state != JS_RUNNING) {
		waiting(seen, d);
	} else if (seen->js) {
		from_status(seen->js, seen->cancel_requested, 1,
			    "decided from job.status (supervisor gone)", d);
	} else if (seen->status_read == ERR_IO) {
		decision_set(
			d, JS_LOST,
			"the local supervisor ended while the job ran, and its job.status is damaged (not the JSON the job script writes)",
			"supervisor gone");
	} else if (seen->alive) {
		say_once(
			seen, d, JS_RUNNING,
			"its supervisor is gone but the job's processes are alive: its end is read from job.status when it comes");
	} else {
		decision_set(
			d, JS_LOST,
			"the local supervisor ended while the job ran and the job left no job.status",
			"supervisor gone");
	}
}

/* Why the job ended as it did, in words ("" when its exit says it all). */
static void end_words(const struct local_end *e, enum job_state st, int code, char *reason,
		      size_t n)
{
	int have = e->status_read == 0;
	reason[0] = '\0';
	if (st == JS_COMPLETED && (e->timed_out || e->cancelled))
		snprintf(reason, n, "completed before the %s reached it",
			 e->timed_out ? "time limit" : "cancel");
	else if (e->timed_out)
		snprintf(reason, n, "time limit reached");
	else if (e->cancelled)
		snprintf(reason, n, "cancelled");
	else if (e->status_read == ERR_IO)
		snprintf(
			reason, n,
			"job.status is damaged (not the JSON the job script writes); decided from the job script's exit status %d",
			code);
	else if (!have)
		snprintf(reason, n, "no job.status: job script killed by %s",
			 WIFSIGNALED(e->wait_status) ? strsignal(WTERMSIG(e->wait_status))
						     : "unknown cause");
	else if (st == JS_FAILED)
		snprintf(reason, n, "exit status %d", code);
}

void local_decide_end(const struct local_end *e, struct job_decision *d)
{
	int have = e->status_read == 0;
	int code = have ? e->js->exit_code : proc_status_code(e->wait_status);
	enum job_state st = statusfile_decide(have ? e->js : NULL, e->timed_out, e->cancelled);
	/* damaged: the job script's own status decides */
	if (e->status_read == ERR_IO && !e->timed_out && !e->cancelled)
		st = code == 0 ? JS_COMPLETED : JS_FAILED;
	char reason[256];
	end_words(e, st, code, reason, sizeof reason);
	decision_set(d, st, reason[0] ? reason : NULL, "job ended");
	d->exit_code = code;
	if (have) {
		d->times = 1;
		d->start = e->js->start;
		d->end = e->js->end;
	}
}
