/* cmd_supervise: `campaign supervise RUN_DIR`, the local executor's
 * supervisor; submit starts it detached. Runs the pending jobs one at a
 * time, then the analysis. */
#include "orchestrator/backend/backend.h"
#include "cmd.h"
#include "util/err.h"

#include <stdio.h>

static int supervise_exec(const struct cmd_entry *self, struct args *a)
{
	(void)self;
	int rc = local_supervise(a->run);
	return rc < 0 ? rc : EXIT_OK;
}

const struct cmd_entry cmd_supervise_entry = {
	"supervise", "RUN_DIR", "run a local run's jobs; submit starts it in the background",
	CMD_RUN | CMD_NODE, 1, 1, supervise_exec, NULL,
};
