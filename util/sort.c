#include "sort.h"

#include <stdlib.h>

int sort_is_sorted(const void *base, size_t n, size_t size,
		   int (*cmp)(const void *, const void *))
{
	const char *b = base;
	for (size_t i = 1; i < n; i++)
		if (cmp(b + (i - 1) * size, b + i * size) > 0)
			return 0;
	return 1;
}

void sort_runs(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (!sort_is_sorted(base, n, size, cmp))
		qsort(base, n, size, cmp);
}
