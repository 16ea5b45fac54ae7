/* summary_objects: the objects of summary.json that `campaign-analyze --json` prints too (a
 * scenario's collectives, its stragglers, what its NCCL Inspector dumps held): one writer for
 * both programs, so that the two agree key for key, in rounding and in their nulls.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_WRITE_SUMMARY_OBJECTS_H
#define ANALYZERS_WRITE_SUMMARY_OBJECTS_H

#include "analyzers/analysis.h"
#include "analyzers/collective.h"
#include "analyzers/inspector.h"
#include "analyzers/replay_scenario.h"
#include "analyzers/straggler.h"

#include <jansson.h>
#include <stddef.h>

/* summary_json.c: the collectives' rows, one per operation and size class */
json_t *summary_collectives_json(const struct collective *c, size_t n);
/* summary_json.c: the stragglers, in their order (a group's ranks named together) */
json_t *summary_stragglers_json(const struct straggler *g, size_t n);
/* summary_json.c: a replay (built) against what was measured, and each change's prediction
 * (null, with why, where none was made: where r->predicted is 0, none was asked for); the
 * data-loading change's loader threads and prefetch depth */
json_t *summary_replay_json(const struct replay_result *r, int loader_workers,
			    int loader_prefetch);
/* summary_json.c: one rank's replay against its own steps (summary_replay_json's ranks) */
json_t *summary_replay_rank_json(const struct replay_rank_result *r);
/* summary_json.c: into o, what a scenario of trace files alone (ana_scenario_of_traces) has
 * of a run's scenario: top_operators, gpu_breakdown, analysed and, where analysed, its
 * steps (active_steps ... throughput_samples_per_s) and shares (shares_pct ...
 * allreduce_gbps) */
void summary_traces_json(json_t *o, const struct ana_scenario *s);
/* inspector_text.c: what NCCL Inspector dumps held (summary.json's nccl_inspector) */
json_t *summary_inspector_json(const struct insp_summary *s);

#endif
