/* shard: the per-file analysis of a run mapped over several processes or nodes: shard i of
 * N analyses the files k of the plan (shard_plan.h) with k % N == i and writes each one's
 * result atomically as DIR/<k>.json (shard_result.h); the reduce reads them in plan order
 * through a trace_source, so it writes what one process reading every file writes. A file
 * without a result is reported by name, never dropped. The files the timeline shows also
 * leave their timeline fragment (analyzers/timeline_fragment.h) in DIR/timeline/, from the
 * same reading.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_SHARD_H
#define ANALYZERS_SHARD_H

#include "analyzers/shard_plan.h"
#include "analyzers/torchtrace.h"

#include "util/words.h"

struct strbuf;

/* What one shard did, for its done file and the map step's report. */
struct shard_done {
	int index, count, attempt;
	char host[128];
	size_t files;
	double bytes, seconds;
};

/* Shard index of count: analyses its files on up to `jobs` threads, writes
 * their results, then dir/shard-<index>.done (the shard_done as JSON). A
 * negative error code when a result could not be written. */
int shard_run(const struct shard_plan *p, int index, int count, int attempt, int jobs,
	      struct shard_done *done);
/* 1 when shard index's done file is there (its results are complete), with
 * *done read from it. */
int shard_done_read(const struct shard_plan *p, int index, struct shard_done *done);
/* The reduce's source: a file of the plan comes from its result; one
 * without a result is counted as not analysed, by name; a file the plan does
 * not list is read. ctx is the plan. */
int shard_part(void *plan, const char *dir, const char *name, struct trace_set *out);

#endif
