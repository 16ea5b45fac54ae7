/* report: what an analysed run says, written: BOTTLENECK_ANALYSIS.md and
 * summary.json in the run's folder, analysis.json and report.txt in every
 * analysed scenario's, and (through timeline.c) timeline.json. All prose of
 * the analysis lives in write/; the model above decides, this writes. */
#ifndef ANALYZERS_WRITE_REPORT_H
#define ANALYZERS_WRITE_REPORT_H

#include "analyzers/analysis.h"

/* Writes BOTTLENECK_ANALYSIS.md and summary.json in run_dir, and
 * analysis.json and report.txt in every analysed scenario's directory. */
int ana_run_write(const struct ana_run *run);
/* Writes run_dir/timeline.json: every analysed scenario's ranks and steps as
 * Chrome-trace events (Perfetto, chrome://tracing), streamed. */
int timeline_write(const struct ana_run *run);

#endif
