/* analyze_traces: campaign-analyze's trace mode (docs/formats.md, "campaign-analyze"): the
 * files given, one per rank, analysed on `jobs` threads and replayed together.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_ANALYZE_TRACES_H
#define ANALYZERS_ANALYZE_TRACES_H

#include <stddef.h>

/* The n files: each rank's GPU time breakdown (kernel categories by the rules at rules_path,
 * NULL: the default), its steps and top operators (top of each), and the replay, printed as
 * one JSON document (as_json) or in words. Negative after err_set. */
int analyze_traces_run(char **files, size_t n, int as_json, const char *rules_path, int top,
		       int jobs);

#endif
