/* SPDX-License-Identifier: MIT */
#include "submission.h"
#include "aggregate.h"

#include "util/err.h"
#include "util/fault.h"
#include "orchestrator/store/snapshot.h"
#include "util/fsio.h"
#include "util/run_layout.h"
#include "statusview.h"
#include "watch.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The intent for every scenario without an attempt, recorded before any
 * submit call, so that nothing is forgotten whatever happens next. */
static int plan_missing(struct run *r)
{
	struct snapshot js = SNAPSHOT_INIT;
	int rc = snapshot_load(r->st, &js);
	for (size_t i = 0; rc == 0 && i < r->c.n_scenarios; i++) {
		const struct scenario *s = &r->c.scenarios[i];
		int known = 0, attempt;
		for (size_t k = 0; k < js.n && !known; k++)
			known = !strcmp(js.latest[k]->scenario, s->name);
		if (!known)
			rc = store_job_plan(r->st, s->name, s->nodes, s->nodes * s->tasks_per_node,
					    &attempt);
	}
	snapshot_free(&js);
	return rc;
}

int submission_check_env(const struct campaign *c)
{
	char *missing = campaign_env_missing(c);
	if (!missing)
		return 0;
	int many = strchr(missing, ',') != NULL;
	int rc = err_set(
		ERR_USAGE,
		"%s %s not set in this environment, and %s passes %s through to the jobs (from_env: true): export %s and run the command again; nothing was submitted",
		missing, many ? "are" : "is", c->path, many ? "them" : "it", many ? "them" : "it");
	free(missing);
	return rc;
}

int submission_run(struct run *r, const struct backend_ops *be, const struct submission_opts *o)
{
	/* the jobs (and a local supervisor started here) get this environment */
	int rc = submission_check_env(&r->c);
	if (rc < 0)
		return rc;
	int lock = fsio_lock(r->dir, RUN_SUBMIT_LOCK, 0);
	if (lock < 0)
		return lock;
	rc = o->prepare ? o->prepare(r, o->ctx) : 0;
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
	struct snapshot js = SNAPSHOT_INIT;
	int failed = 0, rc = run_reload_row(r);
	if (rc == 0)
		rc = snapshot_load(r->st, &js);
	if (rc == 0 && run_is_done(&js, &failed) && r->row.aggregated_at <= 0) {
		/* the jobs ran in the foreground (local): only the analysis is left */
		rc = aggregate_if_due(r);
		rc = rc < 0 ? rc : 0;
	} else if (rc == 0 && (!run_is_done(&js, &failed) || r->row.aggregated_at <= 0)) {
		/* a terminal sees the live table, anything else one line per state change */
		int tty = isatty(fileno(out));
		struct watch_opts wo = { .min_s = 1,
					 .max_s = 30,
					 .quiet = !tty,
					 .redraw = tty,
					 .lines = !tty,
					 .out = out };
		rc = watch_run(r, be, &wo, &js);
	}
	if (rc == 0) {
		statusview_print(r, &js, out, 0);
		rc = !run_is_done(&js, &failed) || failed ? 1 : 0;
	}
	snapshot_free(&js);
	return rc;
}
