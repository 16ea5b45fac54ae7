/* cmd_status: `campaign status [RUN] [SCENARIO]` brings the run's jobs up to
 * date with their backend, runs the analysis if every job is final and none
 * exists, and prints one table (or JSON); with SCENARIO that scenario in
 * full. A lone argument is the run when it names one, else a scenario of the
 * newest run, as `logs` takes it.
 * SPDX-License-Identifier: MIT */
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
	const char *scenario = a->npos > a->nrun ? a->pos[a->nrun] : NULL;
	int shown = js.latest ? statusview_show(r, &js, scenario, stdout, args_has(a, 'j')) : 0;
	snapshot_free(&js);
	if (rc < 0)
		return cmd_exit_of(rc);
	return shown < 0 ? shown : EXIT_OK; /* no such scenario: said by the dispatcher */
}

const struct cmd_entry cmd_status_entry = {
	.name = "status",
	.usage = "[--json] [--results DIR] [RUN] [SCENARIO]",
	.summary = "show where each job of a run is (default: the newest run), or one scenario in full",
	.flags = CMD_RUN | CMD_RUN_NEWEST | CMD_RUN_SCENARIO,
	.min_pos = 0,
	.max_pos = 2,
	.exec = status_exec,
	.opts = (const struct optdef[]){ OPT_JSON("print JSON instead of a table"), OPT_END },
};
