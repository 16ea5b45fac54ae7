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

/* The elements out of order, each with its place in the input. */
struct apart {
	const char *base;
	size_t size;
	int (*cmp)(const void *, const void *);
	size_t *at; /* positions in the input */
};

/* qsort_r's order for the positions: by element, then by position (a total
 * order, so any qsort gives the one stable result). */
static int by_element(const void *pa, const void *pb, void *ctx)
{
	const struct apart *a = ctx;
	size_t x = *(const size_t *)pa, y = *(const size_t *)pb;
	int c = a->cmp(a->base + x * a->size, a->base + y * a->size);
	return c ? c : (x > y) - (x < y);
}

void sort_runs(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (sort_is_sorted(base, n, size, cmp))
		return;
	char *b = base, *copy = xmalloc(n * size);
	memcpy(copy, b, n * size);
	/* keep: each element not below the last kept one (in order by construction) */
	size_t *keep = xmalloc(n * sizeof *keep), *rest = xmalloc(n * sizeof *rest);
	size_t nk = 0, nr = 0;
	for (size_t i = 0; i < n; i++) {
		if (nk && cmp(copy + keep[nk - 1] * size, copy + i * size) > 0)
			rest[nr++] = i;
		else
			keep[nk++] = i;
	}
	struct apart a = { copy, size, cmp, rest };
	qsort_r(rest, nr, sizeof *rest, by_element, &a);
	/* merge by element, then by position */
	size_t i = 0, j = 0, k = 0;
	while (i < nk || j < nr) {
		int take_rest = i == nk || (j < nr && by_element(&rest[j], &keep[i], &a) < 0);
		size_t from = take_rest ? rest[j++] : keep[i++];
		memcpy(b + k++ * size, copy + from * size, size);
	}
	free(rest);
	free(keep);
	free(copy);
}
