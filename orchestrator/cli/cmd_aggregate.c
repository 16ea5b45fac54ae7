/* cmd_aggregate: `campaign aggregate RUN` (re)writes the run's analysis.
 * Normally automatic; safe to run again.
 * SPDX-License-Identifier: MIT */
#include "orchestrator/aggregate_map.h"
#include "util/run_layout.h"
#include "orchestrator/aggregate.h"
#include "orchestrator/backend/backend_pick.h"
#include "cmd.h"
#include "util/err.h"

#include <stdio.h>
#include <unistd.h>

static int aggregate_exec(const struct cmd_entry *self, struct args *a)
{
	struct run *r = a->run;
	long wait_s, jobs, shards;
	int rc;
	if (args_int(self, a, 'w', 0, 86400, 0, &wait_s) ||
	    args_int(self, a, 'j', 0, 4096, 0, &jobs) ||
	    args_int(self, a, 's', 0, 4096, 0, &shards))
		return EXIT_USAGE;
	/* The aggregation job may start while the controller still finishes the
	 * last job: with --wait, poll until every job is final. */
	const struct backend_ops *be = backend_for_run(r);
	double until = store_now() + (double)wait_s;
	for (;;) {
		struct snapshot js = SNAPSHOT_INIT;
		if (backend_refresh(be, r, &js) < 0)
			fprintf(stderr, "campaign aggregate: warning: %s\n", err_last());
		snapshot_free(&js);
		rc = aggregate_run(r, args_has(a, 'f'), (int) jobs,
				   aggregate_map_shards((int) shards));
		if (rc != 1 || store_now() >= until)
			break;
		sleep(2);
	}
	if (rc == 1)
		fprintf(stderr,
			"campaign aggregate: run %s still has unfinished jobs; use --force to analyse what is there\n",
			r->id);
	else if (rc == 0)
		printf("%s/" RUN_REPORT "\n%s/" RUN_SUMMARY "\n", r->dir, r->dir);
	return rc == 1 ? EXIT_JOBS_FAILED : rc;
}

const struct cmd_entry cmd_aggregate_entry = {
	.name = "aggregate",
	.usage = "[--force] [--wait S] [--jobs N] [--shards N] [--results DIR] RUN",
	.summary = "run the analyzers on a finished run (normally automatic)",
	.flags = CMD_RUN,
	.min_pos = 1,
	.max_pos = 1,
	.exec = aggregate_exec,
	.opts =
		(const struct optdef[]){
			{ 'f', "force", NULL, "analyse even if some jobs are not final" },
			{ 'w', "wait", "S",
			  "wait up to S seconds for every job to be final (default 0)" },
			{ 'j', "jobs", "N",
			  "threads for the per-rank work (default 0: every CPU this process may use)" },
			{ 's', "shards", "N",
			  "map the per-file work over N processes first (default 0: in a batch job of several nodes, srun on each node; else none)" },
			OPT_END },
};
