/* aggregate_map: the map step of an aggregation. Inside a SLURM allocation of more
 * than one node (the aggregation job with analysis.nodes > 1), srun runs
 * `campaign analyze-shard` once per node; with --shards N elsewhere, N local
 * processes do. A shard that fails runs once more; the reduce then takes
 * every file's result from the shards (analyzers/shard.h).
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_AGGMAP_H
#define CAMPAIGN_AGGMAP_H

#include "analyzers/shard.h"

/* The shards to map over: requested when > 0; else, inside a batch job of
 * more than one node, its node count; else 1 (no map step). */
int aggregate_map_shards(int requested);
/* Plans run_dir/.partial for in, runs the shards, retries a failed one once,
 * and says on stderr where each ran. *plan is then the reduce's source (its
 * files without a result are reported by name). A negative err code when
 * no shard could be started. */
int aggregate_map_run(const struct ana_run *in, const char *run_dir, int shards,
		      struct shard_plan *plan);

#endif
