/* run_input: RUN/analysis_input.json, what the orchestrator hands the
 * analysis of a run (its scenarios' states, sizes and job folders, the
 * campaign's analysis settings, a variant's predictions), so that
 * campaign-analyze RUN analyses the run again without the store or the
 * campaign loader. Owns that file's format (docs/formats.md); nothing else.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_RUN_INPUT_H
#define ANALYZERS_RUN_INPUT_H

#include "analyzers/analysis.h"

#define RUN_INPUT_VERSION 1

/* Writes run's input (not its results) to run->run_dir/analysis_input.json,
 * atomically; job folders are written relative to the run directory. */
int run_input_write(const struct ana_run *run);

/* Fills run (zeroed first) from run_dir/analysis_input.json, with run_dir as
 * its directory. ERR_NOTFOUND when the file is absent, ERR_IO when it is
 * damaged or names a job folder outside the run directory. */
int run_input_read(const char *run_dir, struct ana_run *run);
/* The same from the file's text (len bytes), for a run in run_dir: ERR_IO
 * when it is damaged or a value is beyond its bound (run_input_bounds.h). */
int run_input_parse(const char *run_dir, const char *text, size_t len, struct ana_run *run);

#endif
