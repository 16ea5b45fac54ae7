/* cmd_supervise: `campaign supervise RUN_DIR`, the local executor's
 * supervisor; submit starts it detached. Runs the pending jobs one at a
 * time (the local backend), then the analysis.
 * SPDX-License-Identifier: MIT */
#include "orchestrator/aggregate.h"
#include "orchestrator/backend/backend.h"
#include "cmd.h"
#include "util/clock.h"
#include "util/err.h"

#include <stdio.h>
#include <time.h>

static int supervise_exec(const struct cmd_entry *self, struct args *a)
{
	(void)self;
	int rc = local_supervise(a->run);
	if (rc == 0) { /* into supervisor.log, as the jobs' lines before it */
		char stamp[16];
		clock_hms(stamp, sizeof stamp);
		printf("[%s] run: every job ended (analysing)\n", stamp);
		fflush(stdout);
		rc = aggregate_run(a->run, 0, 0, 1);
	}
	return rc < 0 ? rc : EXIT_OK;
}

const struct cmd_entry cmd_supervise_entry = {
	.name = "supervise",
	.usage = "RUN_DIR",
	.summary = "run a local run's jobs; submit starts it in the background",
	.flags = CMD_RUN | CMD_NODE,
	.min_pos = 1,
	.max_pos = 1,
	.exec = supervise_exec,
};
