/* data_text: where a scenario's step data came from and what was missing, in words:
 * the source and every source read, why it was not analysed, the profilers that left
 * nothing, the ranks without data, what profile.traces missed, the batch's origin and
 * the throughput's unit. The model records these as enums, counts and names.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_WRITE_DATA_TEXT_H
#define ANALYZERS_WRITE_DATA_TEXT_H

#include "analyzers/analysis.h"

/* The step data's source ("trainer telemetry", "PyTorch profiler traces", ...; "" none). */
const char *data_text_source(enum data_source k);
/* Every source read, in order, "; " between them ("" none; malloc'd). */
char *data_text_sources(const struct ana_scenario *s);
/* Why s was not analysed ("" when it was; malloc'd). */
char *data_text_problem(const struct ana_scenario *s, const struct ana_run *run);
/* profile.traces matched no file: its globs, and where trace-like files are ("" when it
 * matched; malloc'd). */
char *data_text_traces_missed(const struct ana_scenario *s, const struct ana_run *run);
/* Launched ranks without step data, or step data of ranks beyond them ("" neither;
 * malloc'd). */
char *data_text_ranks(const struct ana_scenario *s);
/* The profiler of a PROFILE_* bit ("nsys", "perf"). */
const char *data_text_profiler(unsigned bit);
/* Why a scenario has no replay (r->built 0), in words (free it). */
char *data_text_replay_why(const struct replay_result *r);
/* Where the global batch comes from ("the telemetry", ...; "" unknown). */
const char *data_text_batch_from(enum batch_from b);
/* What is said of a p95 of fewer than STATS_P95_MIN_N steps. */
#define DATA_TEXT_P95_ROUGH "rough: fewer than 20 steps"
/* Node monitors with fewer samples a node than this are rough: a glimpse, not an average. */
#define MONITORS_FEW_PER_NODE 10
/* The monitors' samples per node of s. */
double data_text_monitor_per_node(const struct ana_scenario *s);
/* "samples/s", or "steps/s" when the batch is unknown. */
const char *data_text_throughput_unit(const struct ana_scenario *s);

#endif
