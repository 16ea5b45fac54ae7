/* decision: see decision.h.
 * SPDX-License-Identifier: MIT */
#include "decision.h"
#include "failure_line.h"

#include <stdio.h>

void decision_set(struct job_decision *d, enum job_state state, const char *reason,
		  const char *detail)
{
	*d = (struct job_decision){ .write = 1, .state = state, .exit_code = -1, .detail = detail };
	d->keep_reason = !reason;
	snprintf(d->reason, sizeof d->reason, "%s", reason ? reason : "");
}

void decision_explain_failure(struct job_decision *d, const char *job_dir)
{
	struct strbuf line = STRBUF_INIT;
	if (d->write && d->state == JS_FAILED && job_dir && failure_line_read(job_dir, &line)) {
		snprintf(d->reason, sizeof d->reason, "%s", line.buf);
		d->keep_reason = 0;
	}
	strbuf_free(&line);
}

static int apply_from(struct store *st, const struct job_row *j, int from,
		      const struct job_decision *d)
{
	if (!d->write)
		return 0;
	struct job_change c = { .scenario = j->scenario,
				.attempt = j->attempt,
				.from = from,
				.state = d->state,
				.reason = d->keep_reason ? NULL : d->reason,
				.exit_code = d->exit_code,
				.nodelist = d->nodelist,
				.detail = d->detail,
				.start = d->times ? d->start : 0,
				.end = d->times ? d->end : 0 };
	return store_job_change(st, &c);
}

int decision_apply(struct store *st, const struct job_row *j, const struct job_decision *d)
{
	return apply_from(st, j, -1, d);
}

int decision_apply_seen(struct store *st, const struct job_row *j, const struct job_decision *d)
{
	return apply_from(st, j, (int)j->state, d);
}

int decision_apply_requeue(struct store *st, const struct job_requeue *q, int *added)
{
	return store_job_requeued(st, q, added);
}
