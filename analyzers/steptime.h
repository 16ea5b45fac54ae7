/* steptime: a scenario's step times, one per active step (docs/analysis.md, "What a step's
 * time is"): with two ranks or more and collectives in the traces, the period between the
 * completions of consecutive steps' last blocking collective (every rank leaves it at once,
 * so the period is the same on every rank's clock; the median over ranks); a step without
 * one (the first traced, one with no collective, or after an unrecorded gap) is the slowest
 * rank's own step duration, as is every step of a scenario without collectives.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_STEPTIME_H
#define ANALYZERS_STEPTIME_H

#include "analyzers/read/metrics.h"

#include <stddef.h>

/* The active steps' times into out (*n of them, in step order; out holds rank 0's step
 * count); *periods: how many of them are collective periods (0: every one is the
 * slowest rank's step, the estimator "rank_step"). */
void steptime_list(const struct scenario_metrics *m, double *out, size_t *n, size_t *periods);

#endif
