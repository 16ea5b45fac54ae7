/* sort: stable sorting for trace events, which mostly come in order already
 * (a parent range written after its children, a step marker at the step's
 * end): the elements already in order stay where they are, the few others
 * are sorted apart and merged back, so the cost follows the disorder. */
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
