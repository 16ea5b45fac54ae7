/* cmd_supervise: `campaign supervise RUN_DIR`, the local executor's
 * supervisor; submit starts it detached. Runs the pending jobs one at a
 * time, then the analysis. */
#include "backend.h"
#include "cmd.h"
#include "err.h"

#include <stdio.h>

static int supervise_exec(const struct cmd_entry *self, struct args *a)
{
	struct run *r;
	int rc = run_open(".", a->pos[0], &r);
	if (rc < 0)
		return cmd_fail(self, rc);
	rc = local_supervise(r);
	run_free(r);
	return rc < 0 ? cmd_fail(self, rc) : EXIT_OK;
}

const struct cmd_entry cmd_supervise_entry = {
	.name = "supervise",
	.usage = "RUN_DIR",
	.summary = "(internal) run a local run's jobs; submit starts it in the background",
	.opts = (const struct optdef[]){ { 0 } },
	.min_pos = 1, .max_pos = 1,
	.exec = supervise_exec,
};
