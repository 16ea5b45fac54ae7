/* cmd_resume: `campaign resume RUN` finishes a submission that was
 * interrupted (a crash, a lost connection, a controller outage): jobs the
 * controller already has are adopted, only what is missing is submitted. */
#include "cmd.h"
#include "err.h"
#include "statusview.h"
#include "submission.h"

#include <stdio.h>
#include <string.h>

/* Scenarios with no job yet: planned, or never recorded at all. */
static int count_missing(struct run *r, size_t *missing)
{
	struct job_row *rows;
	size_t n;
	int rc = store_jobs_latest(r->st, &rows, &n);
	if (rc < 0)
		return rc;
	*missing = r->c.n_scenarios > n ? r->c.n_scenarios - n : 0;
	for (size_t i = 0; i < n; i++)
		*missing += rows[i].state == JS_PLANNED;
	job_rows_free(rows, n);
	return 0;
}

static int resume_exec(const struct cmd_entry *self, struct args *a)
{
	struct run *r;
	int rc = run_open(cmd_results_root(a), a->pos[0], &r);
	if (rc < 0)
		return cmd_fail(self, rc);
	const struct backend_ops *be = backend_for_run(r);
	struct submission_opts so = { .wait = args_has(a, 'w'), .no_aggregation_job = args_has(a, 'n') };
	size_t before = 0, after = 0;
	if ((rc = count_missing(r, &before)) == 0 && (rc = submission_run(r, be, &so)) == 0)
		rc = count_missing(r, &after);
	if (rc < 0) {
		int code = cmd_fail(self, rc);
		run_free(r);
		return code;
	}
	printf("run %s: %zu of %zu scenario%s had no recorded job; %s\n", r->id, before, r->c.n_scenarios,
	       r->c.n_scenarios == 1 ? "" : "s", after ? "some still have none (see above)" : "every scenario has one now");
	int exit = after ? EXIT_BACKEND : EXIT_OK;
	if (so.wait && !after)
		exit = submission_wait(r, be, stdout);
	else if (be->refresh(r) == 0)
		statusview_print(r, stdout, 0);
	run_free(r);
	return exit < 0 ? cmd_fail(self, exit) : exit;
}

const struct cmd_entry cmd_resume_entry = {
	.name = "resume",
	.usage = "[--wait] [--no-aggregation-job] [--results DIR] RUN",
	.summary = "finish an interrupted submission: adopt jobs already submitted, submit the rest",
	.opts = (const struct optdef[]){
		{ 'w', "wait", NULL, "return when the run is finished and analysed (exit 1 if a job failed)" },
		{ 'n', "no-aggregation-job", NULL, "slurm: submit no aggregation job (status/watch/aggregate analyse instead)" },
		{ 'R', "results", "DIR", "results root (default ./results)" },
		{ 0 } },
	.min_pos = 1, .max_pos = 1,
	.exec = resume_exec,
};
