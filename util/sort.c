/* SPDX-License-Identifier: MIT */
#include "sort.h"

#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

int sort_is_sorted(const void *base, size_t n, size_t size,
		   int (*cmp)(const void *, const void *))
{
	const char *b = base;
	for (size_t i = 1; i < n; i++)
		if (cmp(b + (i - 1) * size, b + i * size) > 0)
			return 0;
	return 1;
}

/* A run's place: base[from, to) of some buffer, in order. */
struct run {
	size_t from, to;
};

/* The end of the stretch of v[from, n) that goes before pivot (v[from]
 * does): the elements below it, and with ties those equal too. Galloping
 * (1, 2, 4 ... ahead, then halving), so that a long stretch costs the log
 * of its length in comparisons. */
static size_t stretch_end(const char *v, size_t from, size_t n, const char *pivot, size_t size,
			  int (*cmp)(const void *, const void *), int ties)
{
	size_t lo = from, hi = n, step = 1;
	while (lo + step < n) {
		int c = cmp(v + (lo + step) * size, pivot);
		if (ties ? c > 0 : c >= 0) {
			hi = lo + step;
			break;
		}
		lo += step, step *= 2;
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp(v + mid * size, pivot);
		if (ties ? c > 0 : c >= 0)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* Merges a[0, na) and b[0, nb) (each in order, a first in the input) into
 * out: on ties a's element first, so equal elements keep their order. Each
 * stretch taken from one side is found by galloping and copied at once:
 * runs of trace events interleave in long stretches (a thread's ranges, a
 * stream's kernels, a copy of a time span). */
static void merge_two(const char *a, size_t na, const char *b, size_t nb, char *out,
		      size_t size, int (*cmp)(const void *, const void *))
{
	size_t i = 0, j = 0, k;
	while (i < na && j < nb) {
		if (cmp(b + j * size, a + i * size) < 0) {
			k = stretch_end(b, j, nb, a + i * size, size, cmp, 0);
			memcpy(out, b + j * size, (k - j) * size);
			out += (k - j) * size, j = k;
		} else {
			k = stretch_end(a, i, na, b + j * size, size, cmp, 1);
			memcpy(out, a + i * size, (k - i) * size);
			out += (k - i) * size, i = k;
		}
	}
	memcpy(out, a + i * size, (na - i) * size);
	memcpy(out + (na - i) * size, b + j * size, (nb - j) * size);
}

/* The maximal runs in order of base[0, n); how many. */
static size_t find_runs(const char *b, size_t n, size_t size,
			int (*cmp)(const void *, const void *), struct run *runs)
{
	size_t nr = 0, from = 0;
	for (size_t i = 1; i <= n; i++)
		if (i == n || cmp(b + (i - 1) * size, b + i * size) > 0) {
			runs[nr++] = (struct run){ from, i };
			from = i;
		}
	return nr;
}

/* A natural merge sort: the runs already in order, merged two by two until
 * one is left, so the cost is n times the log of the number of runs (a trace
 * written in time order: one pass). Merging keeps equal elements in order. */
void sort_runs(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n < 2 || sort_is_sorted(base, n, size, cmp))
		return;
	struct run *runs = xmalloc(n * sizeof *runs);
	size_t nr = find_runs(base, n, size, cmp, runs);
	char *src = base, *dst = xmalloc(n * size), *spare = dst;
	while (nr > 1) {
		size_t k = 0;
		for (size_t r = 0; r < nr; r += 2) {
			struct run x = runs[r], none = { x.to, x.to },
				   y = r + 1 < nr ? runs[r + 1] : none;
			merge_two(src + x.from * size, x.to - x.from, src + y.from * size,
				  y.to - y.from, dst + x.from * size, size, cmp);
			runs[k++] = (struct run){ x.from, y.to };
		}
		nr = k;
		char *was = src;
		src = dst, dst = was;
	}
	if (src != base)
		memcpy(base, src, n * size);
	free(spare);
	free(runs);
}
