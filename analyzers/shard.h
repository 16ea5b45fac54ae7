/* shard: the per-file analysis of a run mapped over several processes or
 * nodes. A plan (DIR/plan.json) lists the run's trace files and Nsight
 * Systems exports in one fixed order; shard i of N analyses the files k with
 * k % N == i and writes each one's result atomically as DIR/<k>.json (reals
 * to 17 digits: read back bit for bit). The reduce reads them in plan order
 * through a trace_source, so it writes what one process reading every file
 * writes. A file without a result is reported by name, never dropped. The
 * files the timeline shows also leave their timeline fragment
 * (analyzers/timeline_fragment.h) in DIR/timeline/, from the same reading.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_SHARD_H
#define ANALYZERS_SHARD_H

#include "analyzers/analysis.h"
#include "analyzers/torchtrace.h"

#include "util/words.h"

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

/* What one shard did, for its done file and the map step's report. */
struct shard_done {
	int index, count, attempt;
	char host[128];
	size_t files;
	double bytes, seconds;
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
/* Shard index of count: analyses its files on up to `jobs` threads, writes
 * their results, then dir/shard-<index>.done (the shard_done as JSON). A
 * negative error code when a result could not be written. */
int shard_run(const struct shard_plan *p, int index, int count, int attempt, int jobs,
	      struct shard_done *done);
/* 1 when shard index's done file is there (its results are complete), with
 * *done read from it. */
int shard_done_read(const struct shard_plan *p, int index, struct shard_done *done);
/* The folder of the shards' timeline fragments: DIR/timeline. */
void shard_timeline_dir(const struct shard_plan *p, struct strbuf *out);
/* The reduce's source: a file of the plan comes from its result; one
 * without a result is counted as not analysed, by name; a file the plan does
 * not list is read. ctx is the plan. */
int shard_part(void *plan, const char *dir, const char *name, struct trace_set *out);

#endif
