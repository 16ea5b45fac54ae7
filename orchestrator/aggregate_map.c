/* SPDX-License-Identifier: MIT */
#include "aggregate_map.h"

#include "util/clock.h"
#include "util/env.h"
#include "util/err.h"
#include "util/proc.h"
#include "util/run_layout.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Inside a batch job of more than one node: its node count; else 0. */
static long batch_nodes(void)
{
	if (!getenv("SLURM_JOB_ID"))
		return 0;
	long n = env_long("SLURM_JOB_NUM_NODES");
	return n > 1 ? n : 0;
}

int aggregate_map_shards(int requested)
{
	if (requested > 0)
		return requested;
	long n = batch_nodes();
	return n > 1 ? (int)(n > 4096 ? 4096 : n) : 1;
}

static void push_opt(struct argv *a, const char *opt, long v)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%s=%ld", opt, v);
	argv_push(a, buf);
}

/* srun for `tasks` tasks on up to `nodes` nodes of the allocation (nodes 0:
 * not in SLURM, no srun), then `campaign analyze-shard`; index < 0 leaves the
 * shard to SLURM_PROCID. a->v ends with NULL, for exec. */
static void shard_argv(struct argv *a, const char *self, long nodes, int tasks, int index,
		       int count, int attempt, const char *dir)
{
	memset(a, 0, sizeof *a);
	if (nodes > 0) {
		argv_push(a, "srun");
		push_opt(a, "--nodes", tasks < nodes ? tasks : nodes);
		push_opt(a, "--ntasks", tasks);
		/* one failed shard leaves the others running */
		argv_push(a, "--kill-on-bad-exit=0");
		/* srun does not inherit it since 22.05 */
		if (env_long("SLURM_CPUS_PER_TASK") > 0)
			push_opt(a, "--cpus-per-task", env_long("SLURM_CPUS_PER_TASK"));
	}
	argv_push(a, self);
	argv_push(a, "analyze-shard");
	if (index >= 0)
		push_opt(a, "--shard", index);
	push_opt(a, "--shards", count);
	push_opt(a, "--attempt", attempt);
	argv_push(a, dir);
}

/* Starts one command of shard_argv. */
static pid_t spawn_shard(const char *self, long nodes, int tasks, int index, int count, int attempt,
			 const char *dir)
{
	struct argv a;
	shard_argv(&a, self, nodes, tasks, index, count, attempt, dir);
	pid_t pid = proc_spawn(a.v);
	argv_free(&a);
	return pid;
}

/* Runs shards [0, count) (all of them with one srun in SLURM, else one
 * local process each) and waits for them. */
static int run_all(const char *self, long nodes, int count, const char *dir)
{
	if (nodes > 0) {
		pid_t pid = spawn_shard(self, nodes, count, -1, count, 1, dir);
		if (pid < 0)
			return err_set(ERR_BACKEND, "cannot start srun for the map step");
		proc_wait(pid);
		return 0;
	}
	pid_t *pids = xcalloc((size_t)count, sizeof *pids);
	for (int i = 0; i < count; i++)
		pids[i] = spawn_shard(self, 0, 1, i, count, 1, dir);
	for (int i = 0; i < count; i++)
		proc_wait(pids[i]);
	free(pids);
	return 0;
}

/* Runs shard i again, alone; 1 when it then finished, with *d its account. */
static int retry(const char *self, long nodes, const struct shard_plan *plan, int i, int count,
		 struct shard_done *d)
{
	fprintf(stderr, "campaign aggregate: shard-%d of %d failed; running it once more\n", i,
		count);
	proc_wait(spawn_shard(self, nodes, 1, i, count, 2, plan->dir));
	return shard_done_read(plan, i, d);
}

static size_t files_of(const struct shard_plan *plan, int i, int count)
{
	return plan->n > (size_t)i ? (plan->n - (size_t)i + (size_t)count - 1) / (size_t)count : 0;
}

int aggregate_map_run(const struct ana_run *in, const char *run_dir, int shards,
		      struct shard_plan *plan)
{
	struct strbuf dir = STRBUF_INIT;
	strbuf_addf(&dir, "%s/" RUN_PARTIAL, run_dir);
	shard_plan_build(in, dir.buf, plan);
	strbuf_free(&dir);
	int rc = shard_plan_write(plan);
	if (rc < 0 || plan->n == 0)
		return rc;
	char *self = realpath("/proc/self/exe", NULL);
	if (!self)
		return err_set(ERR_IO,
			       "cannot find this program's path (/proc/self/exe) for the map step");
	long nodes = batch_nodes();
	double t0 = clock_mono_s();
	fprintf(stderr, "campaign aggregate: map step: %zu file%s on %d shard%s (%s)\n", plan->n,
		plan->n == 1 ? "" : "s", shards, shards == 1 ? "" : "s",
		nodes ? "srun, one task per node" : "local processes");
	if ((rc = run_all(self, nodes, shards, plan->dir)) == 0)
		for (int i = 0; i < shards; i++) {
			struct shard_done d;
			if (!shard_done_read(plan, i, &d) &&
			    !retry(self, nodes, plan, i, shards, &d)) {
				fprintf(stderr,
					"campaign aggregate: shard-%d of %d failed twice: its %zu file%s are reported as not analysed\n",
					i, shards, files_of(plan, i, shards),
					files_of(plan, i, shards) == 1 ? "" : "s");
				continue;
			}
			fprintf(stderr,
				"campaign aggregate: shard-%d of %d on %s: %zu file%s, %.1f MB in %.2f s%s\n",
				i, shards, d.host, d.files, d.files == 1 ? "" : "s", d.bytes / 1e6,
				d.seconds, d.attempt > 1 ? " (second attempt)" : "");
		}
	fprintf(stderr, "campaign aggregate: map step took %.2f s; reducing\n",
		clock_mono_s() - t0);
	free(self);
	return rc;
}
