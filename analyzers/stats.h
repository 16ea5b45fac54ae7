/* stats: order statistics and means over arrays of doubles.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_STATS_H
#define ANALYZERS_STATS_H

#include <stddef.h>

/* Percentile p in [0,100] with linear interpolation (numpy's default);
 * sorts v in place. 0 for an empty array. */
double stats_percentile(double *v, size_t n, double p);
/* The mean of v; 0 for an empty array. */
double stats_mean(const double *v, size_t n);
/* Steps whose mean lies over this many percent from their median are not alike (a checkpoint
 * every few steps, a loader that stalls): the median leaves the slow ones out, and the time
 * per sample over the run is the mean's. */
#define STATS_UNALIKE_PCT 25.0
/* Whether steps of this median and mean are not alike (both known, STATS_UNALIKE_PCT). */
int stats_unalike(double median, double mean);
/* A median that a step or two move far: the steps ranked one either side of its own (n of
 * them, in any order) span more than STATS_FRAGILE_PCT of it, as where it falls in the gap
 * between two modes (steps of 3-4 ms and of 8 ms, half of each). */
#define STATS_FRAGILE_PCT 20.0
int stats_median_fragile(const double *v, size_t n);
/* A median of v[0..n) (in any order) that misleads: the steps not alike (stats_unalike of
 * their median and mean) or the median fragile (stats_median_fragile), from one sorted copy. */
int stats_median_misleads(const double *v, size_t n);
/* The decimals a rate (samples/s, steps/s) is printed with: none from 100 up, where a tenth
 * is below any step's noise (10268.5 beside a 75 % spread claims five figures), else one. */
int stats_rate_decimals(double rate);
/* The decimals, d or more, that print an interval's bound x apart from the reference it is
 * set against (1 for a ratio, 100 for a percentage), unless it is that reference: a bound of
 * 0.996 beside "no measurable speedup" printed as 1.00 would read as 1. */
int stats_bound_decimals(double x, double ref, int d);
/* The decimals that print v to sig significant figures (none from 10^(sig - 1) up; at most
 * 9): a measured rate such as 0.0776 GFLOP/s, which one decimal would print as 0.1. */
int stats_sig_decimals(double v, int sig);
/* v in ascending order. */
void stats_sort(double *v, size_t n);
/* The same value without sorting (a selection in linear time): v is left in
 * no particular order. */
double stats_percentile_unordered(double *v, size_t n, double p);
/* One sample of a bootstrap: n values. */
struct stats_sample {
	const double *v;
	size_t n;
};
/* What a bootstrap gives: the statistic of the samples themselves and its interval. */
struct stats_interval {
	double value, lo, hi;
	int known; /* 0: none could be computed (lo = hi = value = 0) */
};
/* The statistic stats_bootstrap takes of each sample, instead of a percentile. */
#define STATS_MEAN -1.0
/* The autocorrelation at which a sample's values are taken to repeat with that lag. */
#define STATS_PERIOD_R 0.5
/* The longest period looked for (steps). */
#define STATS_PERIOD_MAX 64
/* A bootstrap confidence interval of a quotient of statistics: the product of
 * stat(num[i]) over the product of stat(den[j]), stat the percentile p of a sample
 * (STATS_MEAN: its mean). STATS_BOOTSTRAP_ROUNDS times every sample is resampled
 * with replacement (for the mean, in circular blocks of the sample's period where its values
 * repeat with one: autocorrelation of STATS_PERIOD_R or more at a lag of 2 to n / 3; else
 * value by value) (the den[] first, then the num[], in order, from one fixed-seed
 * generator: the same inputs give the same interval, to the bit), and the
 * (1 - STATS_CI_LEVEL)/2 and (1 + STATS_CI_LEVEL)/2 quantiles of the quotients are
 * lo and hi; value is the quotient of the samples themselves. Not known when a
 * sample is empty or the denominator is 0. */
void stats_bootstrap(const struct stats_sample *num, size_t nnum, const struct stats_sample *den,
		     size_t nden, double p, struct stats_interval *out);
/* Whether x lies in a known interval (its ends included). */
int stats_interval_holds(const struct stats_interval *ci, double x);
/* The intervals reported (speedup, efficiency, checked predictions, compare):
 * resamples and confidence level. */
#define STATS_BOOTSTRAP_ROUNDS 2000
#define STATS_CI_LEVEL 0.95
/* A sample with fewer values than this gives no interval in the report or compare. */
#define STATS_BOOTSTRAP_MIN_N 5
/* A p95 from fewer values (steps) than this is said to be rough (DATA_TEXT_P95_ROUGH). */
#define STATS_P95_MIN_N 20
/* The percentile that is the median. */
#define STATS_MEDIAN 50

#endif
