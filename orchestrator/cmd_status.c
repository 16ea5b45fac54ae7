/* cmd_status: `campaign status [RUN]` brings the run's jobs up to date with
 * their backend, runs the analysis if every job is final and none exists,
 * and prints one table (or JSON). */
#include "aggregate.h"
#include "backend.h"
#include "cmd.h"
#include "err.h"
#include "statusview.h"

#include <stdio.h>

static int status_exec(const struct cmd_entry *self, struct args *a)
{
	struct run *r;
	int rc = run_open(cmd_results_root(a), a->npos ? a->pos[0] : NULL, &r);
	if (rc < 0)
		return cmd_fail(self, rc);
	const struct backend_ops *be = backend_for_run(r);
	if (!be || (rc = be->refresh(r)) < 0 || (rc = aggregate_if_due(r)) < 0) {
		/* Still show what the store knows, then report the problem. */
		fprintf(stderr, "campaign status: %s\n", err_last());
	}
	int prc = statusview_print(r, stdout, args_has(a, 'j'));
	run_free(r);
	if (prc < 0)
		return cmd_fail(self, prc);
	return rc < 0 ? cmd_exit_of(rc) : EXIT_OK;
}

const struct cmd_entry cmd_status_entry = {
	.name = "status",
	.usage = "[--json] [--results DIR] [RUN]",
	.summary = "show where each job of a run is (default: the newest run)",
	.opts = (const struct optdef[]){
		{ 'j', "json", NULL, "print JSON instead of a table" },
		{ 'R', "results", "DIR", "results root (default ./results)" },
		{ 0 } },
	.min_pos = 0, .max_pos = 1,
	.exec = status_exec,
};
