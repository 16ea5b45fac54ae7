/* cmd_aggregate: `campaign aggregate RUN` (re)writes the run's analysis.
 * Normally automatic; safe to run again. */
#include "aggregate.h"
#include "backend.h"
#include "cmd.h"
#include "err.h"

#include <stdio.h>
#include <unistd.h>

static int aggregate_exec(const struct cmd_entry *self, struct args *a)
{
	struct run *r;
	int rc = run_open(cmd_results_root(a), a->pos[0], &r);
	if (rc < 0)
		return cmd_fail(self, rc);
	long wait_s;
	if (args_int(self, a, 'w', 0, 86400, 0, &wait_s)) {
		run_free(r);
		return EXIT_USAGE;
	}
	/* The aggregation job may start while the controller still finishes the
	 * last job: with --wait, poll until every job is final. */
	const struct backend_ops *be = backend_for_run(r);
	double until = store_now() + (double)wait_s;
	for (;;) {
		if (be->refresh(r) < 0)
			fprintf(stderr, "campaign aggregate: warning: %s\n", err_last());
		rc = aggregate_run(r, args_has(a, 'f'));
		if (rc != 1 || store_now() >= until)
			break;
		sleep(2);
	}
	if (rc == 1)
		fprintf(stderr, "campaign aggregate: run %s still has unfinished jobs; use --force to analyse what is there\n", r->id);
	else if (rc == 0)
		printf("%s/BOTTLENECK_ANALYSIS.md\n%s/summary.json\n", r->dir, r->dir);
	run_free(r);
	return rc < 0 ? cmd_fail(self, rc) : rc == 1 ? EXIT_JOBS_FAILED : EXIT_OK;
}

const struct cmd_entry cmd_aggregate_entry = {
	.name = "aggregate",
	.usage = "[--force] [--wait S] [--results DIR] RUN",
	.summary = "run the analyzers on a finished run (normally automatic)",
	.opts = (const struct optdef[]){
		{ 'f', "force", NULL, "analyse even if some jobs are not final" },
		{ 'w', "wait", "S", "wait up to S seconds for every job to be final (default 0)" },
		{ 'R', "results", "DIR", "results root (default ./results)" },
		{ 0 } },
	.min_pos = 1, .max_pos = 1,
	.exec = aggregate_exec,
};
