/* cmd_status: `campaign status [RUN]` brings the run's jobs up to date with
 * their backend, runs the analysis if every job is final and none exists,
 * and prints one table (or JSON). */
#include "orchestrator/aggregate.h"
#include "orchestrator/backend/backend_pick.h"
#include "cmd.h"
#include "util/err.h"
#include "orchestrator/statusview.h"

#include <stdio.h>

static int status_exec(const struct cmd_entry *self, struct args *a)
{
	struct run *r = a->run;
	struct snapshot js = SNAPSHOT_INIT;
	int failed, rc = backend_refresh(backend_for_run(r), r, &js);
	if (rc == 0 && run_is_done(&js, &failed))
		rc = aggregate_if_due(r);
	if (rc < 0) /* still show what the store knows, then report the problem */
		fprintf(stderr, "campaign %s: %s\n", self->name, err_last());
	if (js.latest)
		statusview_print(r, &js, stdout, args_has(a, 'j'));
	snapshot_free(&js);
	return rc < 0 ? cmd_exit_of(rc) : EXIT_OK;
}

const struct cmd_entry cmd_status_entry = {
	.name = "status",
	.usage = "[--json] [--results DIR] [RUN]",
	.summary = "show where each job of a run is (default: the newest run)",
	.flags = CMD_RUN | CMD_RUN_NEWEST,
	.min_pos = 0,
	.max_pos = 1,
	.exec = status_exec,
	.opts = (const struct optdef[]){ OPT_JSON("print JSON instead of a table"), OPT_END },
};
