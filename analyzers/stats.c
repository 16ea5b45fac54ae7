#include "analyzers/stats.h"

#include "util/strbuf.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void stats_sort(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
}

double stats_percentile(double *v, size_t n, double p)
{
	if (n == 0)
		return 0;
	stats_sort(v, n);
	double pos = p / 100.0 * (double)(n - 1);
	size_t lo = (size_t)pos;
	if (lo + 1 >= n)
		return v[n - 1];
	double frac = pos - (double)lo;
	return v[lo] + (v[lo + 1] - v[lo]) * frac;
}

/* The k-th smallest of v[0, n) (quickselect; v is reordered). */
static double select_kth(double *v, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, want = (ptrdiff_t)k;
	while (lo < hi) {
		double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
		double pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		ptrdiff_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				double x = v[i];
				v[i++] = v[j];
				v[j--] = x;
			}
		}
		if (want <= j)
			hi = j;
		else if (want >= i)
			lo = i;
		else
			return v[want];
	}
	return v[want];
}

double stats_percentile_unordered(double *v, size_t n, double p)
{
	if (n == 0)
		return 0;
	double pos = p / 100.0 * (double)(n - 1);
	size_t lo = (size_t)pos;
	double below = select_kth(v, n, lo);
	if (lo + 1 >= n)
		return below;
	double next = v[lo + 1]; /* everything after lo is at least v[lo]: the smallest of it */
	for (size_t i = lo + 2; i < n; i++)
		if (v[i] < next)
			next = v[i];
	return below + (next - below) * (pos - (double)lo);
}

double stats_mean(const double *v, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : 0;
}

/* splitmix64: a small deterministic generator for resampling. */
static unsigned long long next_rand(unsigned long long *state)
{
	unsigned long long z = (*state += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static double resampled(const double *v, size_t n, double p, double *buf, unsigned long long *state)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = v[next_rand(state) % n];
	return stats_percentile(buf, n, p);
}

double stats_bootstrap_ratio(const double *a, size_t na, const double *b, size_t nb, double p,
			     int rounds, double level, double *lo, double *hi)
{
	*lo = *hi = 0;
	if (!na || !nb || rounds < 1)
		return 0;
	double *buf = xmalloc((na > nb ? na : nb) * sizeof *buf),
	       *ratios = xmalloc((size_t) rounds * sizeof *ratios);
	memcpy(buf, a, na * sizeof *buf);
	double pa = stats_percentile(buf, na, p);
	memcpy(buf, b, nb * sizeof *buf);
	double pb = stats_percentile(buf, nb, p), ratio = pa != 0 ? pb / pa : 0;
	unsigned long long state = 0x5EEDULL;
	int k = 0;
	for (int i = 0; i < rounds && pa != 0; i++) {
		double ra = resampled(a, na, p, buf, &state), rb = resampled(b, nb, p, buf, &state);
		if (ra != 0)
			ratios[k++] = rb / ra;
	}
	if (k) {
		*lo = stats_percentile(ratios, (size_t)k, 100 * (1 - level) / 2);
		*hi = stats_percentile(ratios, (size_t)k, 100 * (1 + level) / 2);
	}
	free(buf);
	free(ratios);
	return ratio;
}
