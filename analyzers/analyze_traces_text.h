/* analyze_traces_text: campaign-analyze's trace mode in words (analyze_traces.h makes the
 * JSON objects these print): what a terminal shows of a rank, and of the replay.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_ANALYZE_TRACES_TEXT_H
#define ANALYZERS_ANALYZE_TRACES_TEXT_H

#include <jansson.h>

/* A rank's object (its file, steps, GPU breakdown, kernels; the first top host operators),
 * control characters of the trace's names shown as '?'. */
void analyze_traces_print_rank(json_t *rank, int top);
/* The replay's line: the replayed median step against the measured, or why there is none
 * (rep holds "replay" and "replay_why"). */
void analyze_traces_print_replay(json_t *rep);

#endif
