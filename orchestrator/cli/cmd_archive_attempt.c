/* cmd_archive_attempt: `campaign archive-attempt --dir JOB_DIR --attempt N
 * [--log NAME]`, run by the job script when SLURM has requeued its job
 * (SLURM_RESTART_COUNT > 0): the same batch script runs again under the same
 * job id, so the previous attempt's outputs move to JOB_DIR/attempts/N/
 * before this attempt writes anything (the orchestrator may not be running).
 * The job log NAME is kept open by SLURM in append mode: copied, then emptied.
 * SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "orchestrator/run.h"
#include "util/err.h"

#include <stdio.h>
#include <string.h>

static int archive_attempt_exec(const struct cmd_entry *self, struct args *a)
{
	long attempt;
	const char *log = args_get(a, 'l');
	if (!args_has(a, 'd') || !args_has(a, 'a')) {
		fprintf(stderr, "campaign %s: --dir and --attempt are required\n", self->name);
		return EXIT_USAGE;
	}
	if (args_int(self, a, 'a', 1, 1000000, 1, &attempt) != 0)
		return EXIT_USAGE;
	if (log && strchr(log, '/')) {
		fprintf(stderr, "campaign %s: --log names a file of JOB_DIR, not a path: %s\n",
			self->name, log);
		return EXIT_USAGE;
	}
	int rc = run_archive_job_dir(args_get(a, 'd'), (int)attempt, log);
	if (rc < 0)
		return rc;
	fprintf(stderr,
		"campaign: the scheduler requeued this job: attempt %ld's outputs are kept in attempts/%ld/\n",
		attempt, attempt);
	return EXIT_OK;
}

const struct cmd_entry cmd_archive_attempt_entry = {
	.name = "archive-attempt",
	.usage = "--dir JOB_DIR --attempt N [--log NAME]",
	.summary = "move a requeued job's previous attempt's outputs to JOB_DIR/attempts/N/",
	.flags = CMD_NODE,
	.min_pos = 0,
	.max_pos = 0,
	.exec = archive_attempt_exec,
	.opts = (const struct optdef[]){
		OPT_DIR("the job directory"),
		{ 'a', "attempt", "N", "the number of the attempt that ended (the store's)" },
		{ 'l', "log", "NAME", "the job log SLURM keeps open: copied, then emptied" },
		OPT_END },
};
