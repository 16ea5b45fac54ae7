/* SPDX-License-Identifier: MIT */
#include "analyzers/stats.h"

#include "util/sort.h"
#include "util/strbuf.h"

#include <math.h>
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
	sort_runs(v, n, sizeof *v, cmp_double);
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

/* The statistic p (a percentile, or STATS_MEAN) of v; sorts or reorders v. */
static double statistic(double *v, size_t n, double p)
{
	return p == STATS_MEAN ? stats_mean(v, n) : stats_percentile_unordered(v, n, p);
}

/* s resampled in circular blocks of `block` values from random starts (1: value by value),
 * and its statistic p. */
static double resampled(const struct stats_sample *s, size_t block, double p, double *buf,
			unsigned long long *state)
{
	for (size_t i = 0; i < s->n;) {
		size_t at = (size_t)(next_rand(state) % s->n);
		for (size_t k = 0; k < block && i < s->n; k++, i++)
			buf[i] = s->v[(at + k) % s->n];
	}
	return statistic(buf, s->n, p);
}

/* The period v's values repeat with, for a bootstrap of its mean: the lag (2 to n / 3, at
 * most STATS_PERIOD_MAX) of
 * the strongest autocorrelation, where it is STATS_PERIOD_R or more (a checkpoint every 4th
 * step, a loader that stalls every few), so that each resampled block holds a whole period
 * and the slow steps are drawn as often as they ran; 1 where there is none. */
static size_t period_of(const double *v, size_t n)
{
	double m = n ? stats_mean(v, n) : 0, den = 0, best_r = STATS_PERIOD_R;
	size_t best = 1;
	for (size_t i = 0; i < n; i++)
		den += (v[i] - m) * (v[i] - m);
	for (size_t lag = 2; n >= 6 && den > 0 && lag <= n / 3 && lag <= STATS_PERIOD_MAX; lag++) {
		double num = 0;
		for (size_t i = 0; i + lag < n; i++)
			num += (v[i] - m) * (v[i + lag] - m);
		double r = num / den * (double)n / (double)(n - lag);
		if (r > best_r + 1e-12)
			best_r = r, best = lag;
	}
	return best;
}

/* The product of the statistics of k samples; resampled (with state, sample i in blocks of
 * block[i] values) when state is not NULL, else of the samples themselves. */
static double product(const struct stats_sample *s, size_t k, double p, double *buf,
		      unsigned long long *state, const size_t *block)
{
	double x = 1;
	for (size_t i = 0; i < k; i++) {
		if (state)
			x *= resampled(&s[i], block[i], p, buf, state);
		else {
			memcpy(buf, s[i].v, s[i].n * sizeof *buf);
			x *= statistic(buf, s[i].n, p);
		}
	}
	return x;
}

static size_t largest(const struct stats_sample *s, size_t k, size_t n)
{
	for (size_t i = 0; i < k; i++)
		n = s[i].n > n ? s[i].n : n;
	return n;
}

void stats_bootstrap(const struct stats_sample *num, size_t nnum, const struct stats_sample *den,
		     size_t nden, double p, struct stats_interval *out)
{
	memset(out, 0, sizeof *out);
	if (!nnum && !nden)
		return;
	for (size_t i = 0; i < nnum + nden; i++)
		if (!(i < nnum ? num[i].n : den[i - nnum].n))
			return;
	double *buf = xmalloc((largest(num, nnum, largest(den, nden, 0)) + 1) * sizeof *buf),
	       *q = xmalloc(STATS_BOOTSTRAP_ROUNDS * sizeof *q);
	size_t *bn = xcalloc(nnum + 1, sizeof *bn), *bd = xcalloc(nden + 1, sizeof *bd);
	for (size_t i = 0; i < nnum + nden; i++) { /* the mean's blocks: each sample's period */
		const struct stats_sample *s = i < nnum ? &num[i] : &den[i - nnum];
		*(i < nnum ? &bn[i] : &bd[i - nnum]) = p == STATS_MEAN ? period_of(s->v, s->n) : 1;
	}
	double d = product(den, nden, p, buf, NULL, bd);
	unsigned long long state = 0x5EEDULL;
	size_t k = 0;
	for (int i = 0; i < STATS_BOOTSTRAP_ROUNDS && d != 0; i++) {
		double rd = product(den, nden, p, buf, &state, bd);
		double rn = product(num, nnum, p, buf, &state, bn);
		if (rd != 0)
			q[k++] = rn / rd;
	}
	free(bn);
	free(bd);
	if (k) {
		out->value = product(num, nnum, p, buf, NULL, NULL) / d;
		out->lo = stats_percentile(q, k, 100 * (1 - STATS_CI_LEVEL) / 2);
		out->hi = stats_percentile(q, k, 100 * (1 + STATS_CI_LEVEL) / 2);
		out->known = 1;
	}
	free(buf);
	free(q);
}

int stats_interval_holds(const struct stats_interval *ci, double x)
{
	return ci->known && ci->lo <= x && x <= ci->hi;
}

int stats_unalike(double median, double mean)
{
	return median > 0 && mean > 0 && 100 * fabs(mean / median - 1) > STATS_UNALIKE_PCT;
}

/* The median of sorted x[0..n), n > 0. */
static double median_sorted(const double *x, size_t n)
{
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* stats_median_fragile of sorted x[0..n) whose median is med. */
static int fragile_sorted(const double *x, size_t n, double med)
{
	return n >= 4 && med > 0 &&
	       100 * (x[n / 2 + 1] - x[(n - 1) / 2 - 1]) / med > STATS_FRAGILE_PCT;
}

int stats_median_fragile(const double *v, size_t n)
{
	if (n < 4)
		return 0;
	double *x = xmalloc(n * sizeof *x);
	memcpy(x, v, n * sizeof *x);
	stats_sort(x, n);
	int r = fragile_sorted(x, n, median_sorted(x, n));
	free(x);
	return r;
}

int stats_median_misleads(const double *v, size_t n)
{
	if (n == 0)
		return 0;
	double *x = xmalloc(n * sizeof *x);
	memcpy(x, v, n * sizeof *x);
	stats_sort(x, n);
	double med = median_sorted(x, n);
	int r = stats_unalike(med, stats_mean(v, n)) || fragile_sorted(x, n, med);
	free(x);
	return r;
}

int stats_rate_decimals(double rate)
{
	return rate >= 100 ? 0 : 1;
}

int stats_sig_decimals(double v, int sig)
{
	if (!(fabs(v) > 0) || !isfinite(v))
		return 0;
	int d = sig - 1 - (int)floor(log10(fabs(v)));
	/* 99.96 to 3 figures rounds up to 100.0: one digit fewer */
	if (d > 0 && fabs(v) >= pow(10, sig - d) - 0.5 * pow(10, -d))
		d--;
	return d < 0 ? 0 : d > 9 ? 9 : d;
}

int stats_bound_decimals(double x, double ref, int d)
{
	while (d < 6 && x != ref && fabs(x - ref) < 0.5 * pow(10, -d))
		d++;
	return d;
}
