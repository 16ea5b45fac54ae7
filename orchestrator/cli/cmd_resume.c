/* cmd_resume: `campaign resume RUN` finishes a submission that was
 * interrupted (a crash, a lost connection, a controller outage): jobs the
 * controller already has are adopted, only what is missing is submitted.
 * SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "orchestrator/backend/backend_pick.h"
#include "util/err.h"
#include "orchestrator/statusview.h"
#include "orchestrator/store/snapshot.h"
#include "orchestrator/submission.h"

#include <stdio.h>
#include <string.h>

/* Scenarios with no job yet: planned, or never recorded at all. */
static int count_missing(struct run *r, size_t *missing)
{
	struct snapshot js = SNAPSHOT_INIT;
	int rc = snapshot_load(r->st, &js);
	if (rc < 0)
		return rc;
	*missing = r->c.n_scenarios > js.n ? r->c.n_scenarios - js.n : 0;
	for (size_t i = 0; i < js.n; i++)
		*missing += js.latest[i]->state == JS_PLANNED;
	snapshot_free(&js);
	return 0;
}

static int resume_exec(const struct cmd_entry *self, struct args *a)
{
	struct run *r = a->run;
	const struct backend_ops *be = backend_for_run(r);
	struct submission_opts so = { .wait = args_has(a, 'w'),
				      .no_aggregation_job = args_has(a, 'n') };
	size_t before = 0, after = 0;
	int rc;
	(void)self;
	if ((rc = count_missing(r, &before)) < 0 || (rc = submission_run(r, be, &so)) < 0 ||
	    (rc = count_missing(r, &after)) < 0)
		return rc;
	printf("run %s: %zu of %zu scenario%s had no recorded job; %s\n", r->id, before,
	       r->c.n_scenarios, r->c.n_scenarios == 1 ? "" : "s",
	       after ? "some still have none (see above)" : "every scenario has one now");
	if (so.wait && !after)
		return submission_wait(r, be, stdout);
	struct snapshot js = SNAPSHOT_INIT;
	if (backend_refresh(be, r, &js) == 0)
		statusview_print(r, &js, stdout, 0);
	snapshot_free(&js);
	return after ? EXIT_BACKEND : EXIT_OK;
}

const struct cmd_entry cmd_resume_entry = {
	.name = "resume",
	.usage = "[--wait] [--no-aggregation-job] [--results DIR] RUN",
	.summary = "finish an interrupted submission: adopt jobs already submitted, submit the rest",
	.flags = CMD_RUN | CMD_OUTLIVES_OUTPUT,
	.min_pos = 1,
	.max_pos = 1,
	.exec = resume_exec,
	.opts = (const struct optdef[]){ OPT_WAIT, OPT_NO_AGGREGATION_JOB, OPT_END },
};
