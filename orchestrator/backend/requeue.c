/* SPDX-License-Identifier: MIT */
#include "requeue.h"

#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* requeue_decide's words when neither the log nor the controller gave a cause. */
static const char no_cause[] = "(no cause recorded)";

static const struct {
	const char *words;
	enum job_state state;
} causes[] = {
	{ "NODE FAILURE", JS_NODE_FAIL }, { "PREEMPTION", JS_PREEMPTED },
	{ "JOB REQUEUE", JS_REQUEUED },   { "TIME LIMIT", JS_TIMEOUT },
};

/* The cause one "*** JOB <id> ON <host> CANCELLED AT <t>[ DUE TO <x>] ***"
 * line gives, or -1 when the line says no cancel. */
static int line_cause(const char *line)
{
	const char *c = strstr(line, " CANCELLED AT ");
	if (!c)
		return -1;
	const char *due = strstr(c, " DUE TO ");
	if (!due)
		return JS_CANCELLED;
	for (size_t i = 0; i < sizeof causes / sizeof *causes; i++)
		if (!strncmp(due + 8, causes[i].words, strlen(causes[i].words)))
			return causes[i].state;
	return JS_CANCELLED;
}

int requeue_cause_from_log(const char *log, const char *job_id)
{
	char want[64], line[512];
	int cause = -1;
	if (!log || !job_id || !*job_id)
		return -1;
	snprintf(want, sizeof want, "*** JOB %s ON ", job_id);
	for (const char *p = strstr(log, want); p; p = strstr(p + 1, want)) {
		size_t len = strcspn(p, "\n");
		snprintf(line, sizeof line, "%.*s",
			 (int) (len < sizeof line ? len : sizeof line - 1), p);
		int c = line_cause(line);
		cause = c >= 0 ? c : cause;
	}
	return cause;
}

enum job_state requeue_decide(int log_cause, uint32_t job_state, const char *failed_nodes,
			      char *reason, size_t n)
{
	uint32_t base = job_state & JOB_STATE_BASE;
	enum job_state st = JS_REQUEUED;
	if (log_cause == JS_NODE_FAIL || log_cause == JS_PREEMPTED)
		st = (enum job_state)log_cause;
	else if (log_cause < 0 && (job_state & JOB_REQUEUE) && base == JOB_NODE_FAIL)
		st = JS_NODE_FAIL;
	else if (log_cause < 0 && base == JOB_PREEMPTED)
		st = JS_PREEMPTED;
	/* no slurmstepd line (the batch node itself died): one of its nodes is down */
	else if (log_cause < 0 && failed_nodes && *failed_nodes)
		st = JS_NODE_FAIL;
	const char *has = failed_nodes && *failed_nodes ? failed_nodes : NULL;
	if (st == JS_NODE_FAIL)
		snprintf(reason, n, "node failure%s%s: the controller requeued the job",
			 has ? " on " : "", has ? has : "");
	else if (st == JS_PREEMPTED)
		snprintf(reason, n, "preempted: the controller requeued the job");
	else
		snprintf(reason, n, "the controller requeued the job %s",
			 log_cause == JS_REQUEUED ? "(a requeue request, e.g. scontrol requeue)"
			 : log_cause >= 0 ? "(its job log says it was cancelled)"
					  : no_cause);
	return st;
}

int requeue_unexplained(const struct job_row *ended)
{
	size_t have = ended->reason ? strlen(ended->reason) : 0, len = strlen(no_cause);
	return ended->state == JS_REQUEUED && have >= len &&
	       !strcmp(ended->reason + have - len, no_cause);
}

void requeue_sentence(const struct job_row *rows, size_t first, size_t last,
		      struct strbuf *out)
{
	const struct job_row *j = &rows[last];
	size_t from = last;
	while (from > first && j->job_id && rows[from - 1].job_id &&
	       !strcmp(rows[from - 1].job_id, j->job_id))
		from--;
	for (size_t i = from; i < last; i++) {
		const struct job_row *p = &rows[i];
		const char *where = p->failed_nodes && *p->failed_nodes ? p->failed_nodes
				    : p->nodelist && *p->nodelist     ? p->nodelist
								      : NULL;
		strbuf_addf(out, "%s%s", i == from ? "requeued after " : ", then after ",
			    job_state_name(p->state));
		if (where)
			strbuf_addf(out, " on %s", where);
	}
	if (from == last)
		return;
	if (j->nodelist && *j->nodelist && j->started_at > 0)
		strbuf_addf(out, "; measured on %s", j->nodelist);
	else
		strbuf_addf(out, "; attempt %d has not started yet", j->attempt);
}
