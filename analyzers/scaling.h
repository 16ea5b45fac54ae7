/* scaling: speedup and efficiency of each scenario against its series' baseline, and
 * per series a fitted model of the step (compute / N + constant + c log2 N) with its
 * quality, contention and the efficiency it predicts.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_SCALING_H
#define ANALYZERS_SCALING_H

#include "analyzers/analysis.h"

/* Every analysed scenario's speedup and efficiency against its series' baseline. */
void scaling_run(struct ana_run *run);
/* The model of the series whose baseline is base, into run->models. */
void scaling_fit_series(struct ana_run *run, const struct ana_scenario *base);

#endif
