#include "stats.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double stats_percentile(double *v, size_t n, double p)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, cmp_double);
	double pos = p / 100.0 * (double)(n - 1);
	size_t lo = (size_t)pos;
	if (lo + 1 >= n)
		return v[n - 1];
	double frac = pos - (double)lo;
	return v[lo] + (v[lo + 1] - v[lo]) * frac;
}

double stats_mean(const double *v, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : 0;
}
