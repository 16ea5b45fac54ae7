/* strindex: an open-addressed index from names to their positions in an array the caller owns
 * (the array keeps the names, the index only positions), at most half full: the operator
 * tables of a scenario's traces, the communicators of NCCL Inspector dumps.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_STRINDEX_H
#define CAMPAIGN_STRINDEX_H

#include <stddef.h>

struct strindex {
	size_t *slots; /* position + 1; 0: empty */
	size_t nslots;
};

#define STRINDEX_INIT { NULL, 0 }

/* The name of array's entry i. */
typedef const char *strindex_name_fn(const void *array, size_t i);

/* The slot of name in the index of array[0, n), which is built from the array first when it
 * is empty (new, or cleared) or would be over half full with one more entry. *slot is name's
 * position + 1, or 0 when name is absent: the caller then appends entry n and sets *slot to
 * n + 1 before the next call. */
size_t *strindex_slot(struct strindex *x, const char *name, const void *array, size_t n,
		      strindex_name_fn *name_of);
/* Frees the index; the next strindex_slot rebuilds it (after the array was reordered). */
void strindex_clear(struct strindex *x);

#endif
