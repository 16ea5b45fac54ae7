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

int decision_apply(struct store *st, const struct job_row *j, const struct job_decision *d)
{
	if (!d->write)
		return 0;
	int rc = store_job_update(st, j->scenario, j->attempt, d->state,
				  d->keep_reason ? NULL : d->reason, d->exit_code, d->nodelist,
				  d->detail);
	if (rc == 0 && d->times)
		rc = store_job_set_times(st, j->scenario, j->attempt, d->start, d->end);
	return rc;
}

int decision_apply_requeue(struct store *st, const struct job_requeue *q, int *added)
{
	return store_job_requeued(st, q, added);
}
