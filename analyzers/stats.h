/* stats: order statistics and means over arrays of doubles. */
#ifndef ANALYZERS_STATS_H
#define ANALYZERS_STATS_H

#include <stddef.h>

/* Percentile p in [0,100] with linear interpolation (numpy's default);
 * sorts v in place. 0 for an empty array. */
double stats_percentile(double *v, size_t n, double p);
/* v in ascending order. */
void stats_sort(double *v, size_t n);
/* The same value without sorting (a selection in linear time): v is left in
 * no particular order. */
double stats_percentile_unordered(double *v, size_t n, double p);
double stats_mean(const double *v, size_t n);
/* A bootstrap confidence interval of percentile p of b over percentile p of
 * a: `rounds` resamples of each (a fixed-seed generator, so the same inputs
 * give the same interval), the (1 - level)/2 and (1 + level)/2 quantiles of
 * the ratios into lo and hi. Returns the ratio of the samples themselves,
 * or 0 (lo = hi = 0) when either is empty or a's percentile is 0. */
double stats_bootstrap_ratio(const double *a, size_t na, const double *b, size_t nb, double p,
			     int rounds, double level, double *lo, double *hi);
/* The intervals reported (checked predictions, compare): resamples and confidence level. */
#define STATS_BOOTSTRAP_ROUNDS 2000
#define STATS_CI_LEVEL 0.95
/* The percentile that is the median. */
#define STATS_MEDIAN 50

#endif
