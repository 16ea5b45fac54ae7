/* cmd_watch: `campaign watch [RUN]` follows a run until every job is final
 * and the analysis is written; redraws in place on a terminal.
 * SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "orchestrator/backend/backend_pick.h"
#include "util/err.h"
#include "orchestrator/statusview.h"
#include "orchestrator/watch.h"

#include <stdio.h>
#include <unistd.h>

static int watch_exec(const struct cmd_entry *self, struct args *a)
{
	long min_s, max_s;
	if (args_int(self, a, 'i', 1, 3600, 2, &min_s) ||
	    args_int(self, a, 'm', 1, 3600, 60, &max_s))
		return EXIT_USAGE;
	struct watch_opts o = { .min_s = (double) min_s,
				.max_s = (double) (max_s < min_s ? min_s : max_s),
				.redraw = isatty(STDOUT_FILENO) && !args_has(a, 'p'),
				.out = stdout };
	struct snapshot js = SNAPSHOT_INIT;
	int failed = 0, rc = watch_run(a->run, backend_for_run(a->run), &o, &js);
	run_is_done(&js, &failed);
	snapshot_free(&js);
	return rc < 0 ? rc : failed ? EXIT_JOBS_FAILED : EXIT_OK;
}

const struct cmd_entry cmd_watch_entry = {
	.name = "watch",
	.usage = "[--interval S] [--max-interval S] [--plain] [--results DIR] [RUN]",
	.summary = "follow a run until every job is final and the analysis is written",
	.flags = CMD_RUN | CMD_RUN_NEWEST,
	.min_pos = 0,
	.max_pos = 1,
	.exec = watch_exec,
	.opts = (const struct optdef[]){
		{ 'i', "interval", "S", "shortest poll interval, after a change (default 2)" },
		{ 'm', "max-interval", "S",
		  "longest poll interval while nothing changes (default 60)" },
		{ 'p', "plain", NULL, "print lines on change instead of redrawing the screen" },
		OPT_END },
};
