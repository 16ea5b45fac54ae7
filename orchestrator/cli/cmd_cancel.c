/* cmd_cancel: `campaign cancel RUN [SCENARIO...]` cancels unfinished jobs.
 * SPDX-License-Identifier: MIT */
#include "orchestrator/backend/backend_pick.h"
#include "cmd.h"
#include "util/err.h"
#include "orchestrator/statusview.h"

#include <stdio.h>

static int cancel_exec(const struct cmd_entry *self, struct args *a)
{
	struct run *r = a->run;
	(void)self;
	for (int i = 1; i < a->npos; i++)
		if (!campaign_find(&r->c, a->pos[i]))
			return err_set(ERR_NOTFOUND, "run %s has no scenario '%s'", r->id,
				       a->pos[i]);
	const struct backend_ops *be = backend_for_run(r);
	int rc = 0;
	for (int i = 1; rc == 0 && i < a->npos; i++)
		rc = be->cancel(r, a->pos[i]);
	if (rc == 0 && a->npos == 1)
		rc = be->cancel(r, NULL);
	struct snapshot js = SNAPSHOT_INIT;
	if (rc == 0 && (rc = snapshot_load(r->st, &js)) == 0)
		statusview_print(r, &js, stdout, 0);
	snapshot_free(&js);
	return rc;
}

const struct cmd_entry cmd_cancel_entry = {
	.name = "cancel",
	.usage = "[--results DIR] RUN [SCENARIO...]",
	.summary = "cancel a run's unfinished jobs (all, or the scenarios named)",
	.flags = CMD_RUN,
	.min_pos = 1,
	.max_pos = -1,
	.exec = cancel_exec,
};
