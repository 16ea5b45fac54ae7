/* cmd_analyze_shard: `campaign analyze-shard [--shard I] --shards N DIR`,
 * run by the aggregation job's map step (srun, one task per node): analyses
 * the files of DIR/plan.json whose index is I modulo N and writes each one's
 * result, then DIR/shard-<I>.done. I defaults to SLURM_PROCID.
 * SPDX-License-Identifier: MIT */
#include "analyzers/shard.h"
#include "cmd.h"
#include "util/fault.h"
#include "util/env.h"
#include "util/err.h"

#include <stdio.h>
#include <stdlib.h>

static int shard_exec(const struct cmd_entry *self, struct args *a)
{
	long index, count, attempt, jobs;
	if (args_int(self, a, 's', 1, 4096, 1, &count) ||
	    args_int(self, a, 'i', 0, count - 1, env_long("SLURM_PROCID"), &index) ||
	    args_int(self, a, 'a', 1, 2, 1, &attempt) || args_int(self, a, 'j', 0, 4096, 0, &jobs))
		return EXIT_USAGE;
	char which[32];
	snprintf(which, sizeof which, "%ld", index);
	fault_point("analyze-shard", which);
	if (attempt == 1)
		fault_point("analyze-shard-first", which);
	struct shard_plan plan;
	struct shard_done done;
	int rc = shard_plan_read(a->pos[0], &plan);
	if (rc == 0)
		rc = shard_run(&plan, (int)index, (int)count, (int)attempt, (int)jobs, &done);
	shard_plan_free(&plan);
	return rc;
}

const struct cmd_entry cmd_analyze_shard_entry = {
	.name = "analyze-shard",
	.usage = "[--shard I] --shards N [--attempt K] [--jobs N] DIR",
	.summary = "analyse one shard of a map step's plan (the aggregation job's srun tasks)",
	.flags = CMD_NODE,
	.min_pos = 1,
	.max_pos = 1,
	.exec = shard_exec,
	.opts = (const struct optdef[]){
		{ 'i', "shard", "I", "this shard, 0-based (default: SLURM_PROCID)" },
		{ 's', "shards", "N", "how many shards share the plan" },
		{ 'a', "attempt", "K", "1, or 2 for the retry of a failed shard" },
		{ 'j', "jobs", "N", "threads (default 0: every CPU this task may use)" },
		OPT_END },
};
