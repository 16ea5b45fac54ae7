/* report: what an analysed run says, written: BOTTLENECK_ANALYSIS.md and
 * summary.json in the run's folder, analysis.json and report.txt in every
 * analysed scenario's, and (through timeline.c) timeline.json. All prose of
 * the analysis lives in write/; the model above decides, this writes.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_WRITE_REPORT_H
#define ANALYZERS_WRITE_REPORT_H

#include "analyzers/analysis.h"

/* Writes BOTTLENECK_ANALYSIS.md and summary.json in run_dir, and
 * analysis.json and report.txt in every analysed scenario's directory. */
int ana_run_write(const struct ana_run *run);
struct trace_source;
/* Analyses run and writes it (ana_run_analyse, ana_run_write), the timeline's
 * fragment of each trace kept meanwhile in run_dir/.partial/timeline/ by the
 * pass that reads it (when that folder can be made; else the timeline reads
 * those traces itself) and removed after. map: the map step's results
 * (part and ctx; NULL: none, every file is read here). */
int ana_run_analyse_write(struct ana_run *run, const struct trace_source *map);
/* Writes run_dir/timeline.json: every analysed scenario's ranks and steps as
 * Chrome-trace events (Perfetto, chrome://tracing), streamed. */
int timeline_write(const struct ana_run *run);

#endif
