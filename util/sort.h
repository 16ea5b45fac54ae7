/* sort: sorting for trace events, which mostly come in order already: a
 * pass that finds them sorted costs n compares and moves nothing; else a
 * stable merge sort (glibc's qsort), so equal elements keep their order. */
#ifndef UTIL_SORT_H
#define UTIL_SORT_H

#include <stddef.h>

void sort_runs(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* 1 when base[0, n) is in cmp's order. */
int sort_is_sorted(const void *base, size_t n, size_t size,
		   int (*cmp)(const void *, const void *));

#endif
