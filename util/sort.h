/* sort: stable sorting for trace events, which mostly come in runs already
 * in order (a thread's ranges, a stream's kernels, each written in time
 * order; a parent range written after its children): the runs are found and
 * merged, so the cost follows the number of runs, not the elements'.
 * SPDX-License-Identifier: MIT */
#ifndef UTIL_SORT_H
#define UTIL_SORT_H

#include <stddef.h>

/* Sorts base[0, n) by cmp, equal elements in their original order (what a
 * stable merge sort gives, whatever the C library's qsort is). */
void sort_runs(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* 1 when base[0, n) is in cmp's order. */
int sort_is_sorted(const void *base, size_t n, size_t size,
		   int (*cmp)(const void *, const void *));

#endif
