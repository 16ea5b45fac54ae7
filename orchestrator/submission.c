#include "submission.h"

#include "cmd.h"
#include "err.h"
#include "fault.h"
#include "fsio.h"
#include "statusview.h"
#include "watch.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The intent for every scenario without an attempt, recorded before any
 * submit call, so that nothing is forgotten whatever happens next. */
static int plan_missing(struct run *r)
{
	struct job_row *rows;
	size_t n;
	int rc = store_jobs_latest(r->st, &rows, &n);
	for (size_t i = 0; rc == 0 && i < r->c.n_scenarios; i++) {
		const struct scenario *s = &r->c.scenarios[i];
		int known = 0, attempt;
		for (size_t k = 0; k < n && !known; k++)
			known = !strcmp(rows[k].scenario, s->name);
		if (!known)
			rc = store_job_plan(r->st, s->name, s->nodes, s->nodes * s->tasks_per_node, &attempt);
	}
	job_rows_free(rows, n);
	return rc;
}

int submission_run(struct run *r, const struct backend_ops *be, const struct submission_opts *o)
{
	int lock = fsio_lock(r->dir, ".submit.lock", 0);
	if (lock < 0)
		return lock;
	int rc = o->prepare ? o->prepare(r, o->ctx) : 0;
	if (rc == 0)
		rc = plan_missing(r);
	if (rc == 0) {
		fault_point("after-plan", NULL);
		rc = be->submit(r);
	}
	close(lock);
	int skip_start = o->no_aggregation_job && !be->start_waits;
	if (rc == 0 && !skip_start)
		rc = be->start(r, o->wait);
	return rc < 0 ? rc : 0;
}

int submission_wait(struct run *r, const struct backend_ops *be, FILE *out)
{
	int failed = 0;
	int rc = run_reload_row(r);
	if (rc < 0)
		return rc;
	if (!statusview_done(r, &failed) || r->row.aggregated_at <= 0) {
		struct watch_opts wo = { 1, 30, 1, 0, out };
		rc = watch_run(r, be, &wo);
		if (rc < 0)
			return rc;
	}
	statusview_print(r, out, 0);
	return !statusview_done(r, &failed) || failed ? EXIT_JOBS_FAILED : EXIT_OK;
}
