/* steptime: a scenario's step times, one per active step (docs/analysis.md, "What a step's
 * time is"): with two ranks or more and collectives in the traces (or their ends in the
 * reference trainer's telemetry, step_rec's coll_end_us), the period between the
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

/* Per rank of m (by index), per step, when the step's last blocking collective ended (µs,
 * the rank's clock; NAN where none): free with steptime_completions_free. */
double **steptime_completions(const struct scenario_metrics *m);
void steptime_completions_free(double **c, const struct scenario_metrics *m);
/* Step i's period (ms) from completions c, per rank of m and step (steptime_completions', or
 * a replay's): the median over the ranks that have one; -1 when none has (or c is NULL).
 * Here and below, i is the first rank's position; every rank's step of the same number. */
double steptime_period(const struct scenario_metrics *m, double *const *c, size_t i);
/* Step i's slowest rank's own duration (ms). */
double steptime_slowest(const struct scenario_metrics *m, size_t i);

#endif
