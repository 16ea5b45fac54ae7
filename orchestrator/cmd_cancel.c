/* cmd_cancel: `campaign cancel RUN [SCENARIO...]` cancels unfinished jobs. */
#include "backend.h"
#include "cmd.h"
#include "err.h"
#include "statusview.h"

#include <stdio.h>

static int cancel_exec(const struct cmd_entry *self, struct args *a)
{
	struct run *r;
	int rc = run_open(cmd_results_root(a), a->pos[0], &r);
	if (rc < 0)
		return cmd_fail(self, rc);
	for (int i = 1; i < a->npos; i++) {
		if (!campaign_find(&r->c, a->pos[i])) {
			err_set(ERR_NOTFOUND, "run %s has no scenario '%s'", r->id, a->pos[i]);
			run_free(r);
			return cmd_fail(self, ERR_NOTFOUND);
		}
	}
	const struct backend_ops *be = backend_for_run(r);
	if (!be)
		rc = ERR_BACKEND;
	for (int i = 1; rc == 0 && i < a->npos; i++)
		rc = be->cancel(r, a->pos[i]);
	if (rc == 0 && a->npos == 1)
		rc = be->cancel(r, NULL);
	if (rc == 0)
		statusview_print(r, stdout, 0);
	run_free(r);
	return rc < 0 ? cmd_fail(self, rc) : EXIT_OK;
}

const struct cmd_entry cmd_cancel_entry = {
	.name = "cancel",
	.usage = "[--results DIR] RUN [SCENARIO...]",
	.summary = "cancel a run's unfinished jobs (all, or the scenarios named)",
	.opts = (const struct optdef[]){
		{ 'R', "results", "DIR", "results root (default ./results)" },
		{ 0 } },
	.min_pos = 1, .max_pos = -1,
	.exec = cancel_exec,
};
