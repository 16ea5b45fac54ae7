/* cmd_watch: `campaign watch [RUN]` follows a run until every job is final
 * and the analysis is written; redraws in place on a terminal. */
#include "cmd.h"
#include "err.h"
#include "statusview.h"
#include "watch.h"

#include <stdio.h>
#include <unistd.h>

static int watch_exec(const struct cmd_entry *self, struct args *a)
{
	long min_s, max_s;
	if (args_int(self, a, 'i', 1, 3600, 2, &min_s) || args_int(self, a, 'm', 1, 3600, 60, &max_s))
		return EXIT_USAGE;
	struct run *r;
	int rc = run_open(cmd_results_root(a), a->npos ? a->pos[0] : NULL, &r);
	if (rc < 0)
		return cmd_fail(self, rc);
	struct watch_opts o = { (double)min_s, (double)(max_s < min_s ? min_s : max_s), 0,
				isatty(STDOUT_FILENO) && !args_has(a, 'p'), stdout };
	rc = watch_run(r, backend_for_run(r), &o);
	int failed = 0;
	statusview_done(r, &failed);
	run_free(r);
	if (rc < 0)
		return cmd_fail(self, rc);
	return failed ? EXIT_JOBS_FAILED : EXIT_OK;
}

const struct cmd_entry cmd_watch_entry = {
	.name = "watch",
	.usage = "[--interval S] [--max-interval S] [--plain] [--results DIR] [RUN]",
	.summary = "follow a run until every job is final and the analysis is written",
	.opts = (const struct optdef[]){
		{ 'i', "interval", "S", "shortest poll interval, after a change (default 2)" },
		{ 'm', "max-interval", "S", "longest poll interval while nothing changes (default 60)" },
		{ 'p', "plain", NULL, "print lines on change instead of redrawing the screen" },
		{ 'R', "results", "DIR", "results root (default ./results)" },
		{ 0 } },
	.min_pos = 0, .max_pos = 1,
	.exec = watch_exec,
};
