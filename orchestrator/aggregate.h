/* aggregate: runs the analyzers over a finished run: gathers each scenario's
 * latest attempt from the store, hands them to the analysis library, and
 * records that the analysis was written. Safe to run again and from several
 * processes at once (one at a time, under <run>/.aggregate.lock).
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_AGGREGATE_H
#define CAMPAIGN_AGGREGATE_H

#include "run.h"

/* Writes BOTTLENECK_ANALYSIS.md and summary.json, the per-rank work on up to
 * `jobs` threads (< 1: every CPU this process may use) and, with shards > 1
 * (aggregate_map.h), mapped over that many processes or nodes first: the output is
 * the same whatever jobs and shards are. Unless force is set, does nothing
 * when some job is not final yet (returns 1 then). */
int aggregate_run(struct run *r, int force, int jobs, int shards);
/* Aggregates when every job is final and no analysis exists yet (once,
 * whoever gets there first); r->row.aggregated_at follows the store. */
int aggregate_if_due(struct run *r);

#endif
