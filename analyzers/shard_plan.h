/* shard_plan: the plan of a run's per-file analysis (DIR/plan.json): the run's trace files
 * and Nsight Systems exports in one fixed order, and the campaign's phase rules, written
 * once and read by every shard; and the atomic JSON writes the shards' results use (reals
 * to 17 digits: read back bit for bit).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_SHARD_PLAN_H
#define ANALYZERS_SHARD_PLAN_H

#include "analyzers/analysis.h"

#include "util/words.h"

#include <jansson.h>

struct strbuf;

struct shard_item {
	char *dir, *name; /* the file dir/name */
	int nsys;         /* an Nsight Systems export (else a PyTorch-profiler trace) */
	int order;        /* its index in its directory's listing */
};

struct shard_plan {
	char *dir;                            /* where the plan and the results live */
	struct argv phase_names, phase_patterns; /* the campaign's phase rules */
	struct shard_item *v;
	size_t n, cap;
};

/* The plan of run's completed scenarios (traces/ and nsys/ of each job
 * directory), to live in dir. */
void shard_plan_build(const struct ana_run *run, const char *dir, struct shard_plan *p);
/* Writes dir/plan.json, having removed every earlier result of dir (and
 * emptied dir/timeline). */
int shard_plan_write(const struct shard_plan *p);
/* Reads dir/plan.json. ERR_NOTFOUND / ERR_IO with a message naming it. */
int shard_plan_read(const char *dir, struct shard_plan *p);
void shard_plan_free(struct shard_plan *p);
/* The folder of the shards' timeline fragments: DIR/timeline. */
void shard_timeline_dir(const struct shard_plan *p, struct strbuf *out);
/* Writes j (taken) to path atomically, compact, reals to 17 digits. */
int shard_json_write(const char *path, json_t *j);

#endif
