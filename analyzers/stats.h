/* stats: order statistics and means over arrays of doubles. */
#ifndef ANALYZERS_STATS_H
#define ANALYZERS_STATS_H

#include <stddef.h>

/* Percentile p in [0,100] with linear interpolation (numpy's default);
 * sorts v in place. 0 for an empty array. */
double stats_percentile(double *v, size_t n, double p);
double stats_mean(const double *v, size_t n);

#endif
