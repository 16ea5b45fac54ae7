/* cmd_launch: `campaign launch --nodes N --tasks-per-node T -- CMD...`, the
 * project's rank launcher. Inside a SLURM allocation it runs srun; else it
 * starts N x T local processes with the variables srun and torchrun set,
 * and when one rank fails it stops the others (as --kill-on-bad-exit).
 * SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "orchestrator/job/launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int launch_exec(const struct cmd_entry *self, struct args *a)
{
	long nodes, tpn, grace, workers;
	if (args_int(self, a, 'n', 1, 4096, 1, &nodes) ||
	    args_int(self, a, 't', 1, 1024, 1, &tpn) ||
	    args_int(self, a, 'g', 0, 3600, 10, &grace) ||
	    args_int(self, a, 'w', 0, 1024, 0, &workers))
		return EXIT_USAGE;
	if (a->dashdash < 0 || a->dashdash >= a->npos) {
		fprintf(stderr,
			"campaign launch: give the command after '--'\nTry 'campaign launch --help'.\n");
		return EXIT_USAGE;
	}
	char **cmd = a->pos + a->dashdash;
	int ncmd = a->npos - a->dashdash;
	launch_catch_signals();
	if (args_get(a, 'x'))
		return launch_rank_exit(args_get(a, 'x'), cmd, workers);
	launch_set_id();
	const char *ex = getenv("CAMPAIGN_EXECUTOR");
	if (getenv("SLURM_JOB_ID") && !(ex && !strcmp(ex, "local")) && !args_has(a, 'l'))
		return launch_srun(nodes, tpn, args_has(a, 'o'), cmd, ncmd, workers);
	return launch_local(nodes, tpn, (double)grace, cmd, args_has(a, 'o'), workers);
}

const struct cmd_entry cmd_launch_entry = {
	.name = "launch",
	.usage = "--nodes N --tasks-per-node T [--workers-per-node W] [--grace S] [--local] [--overlap] -- CMD [ARG...]",
	.summary = "start N x T ranks of CMD (srun inside SLURM, local processes elsewhere)",
	.flags = CMD_NODE,
	.min_pos = 0,
	.max_pos = -1,
	.exec = launch_exec,
	.opts = (const struct optdef[]){
		{ 'n', "nodes", "N", "nodes to emulate or span (default 1)" },
		{ 't', "tasks-per-node", "T", "ranks per node (default 1)" },
		{ 'w', "workers-per-node", "W",
		  "each task is a per-node launcher (torchrun) starting W workers: the workers are recorded as the ranks (ranks/rank_<RANK>.json), the launchers apart" },
		{ 'g', "grace", "S",
		  "seconds between SIGTERM and SIGKILL when stopping ranks (default 10)" },
		{ 'l', "local", NULL, "start local processes even inside a SLURM allocation" },
		{ 'o', "overlap", NULL,
		  "inside SLURM, let this step share the allocation with others (srun --overlap)" },
		{ 'x', "rank-exit", "DIR",
		  "(used by launch itself inside srun) run CMD as one task, record its status in DIR" },
		OPT_END },
};
