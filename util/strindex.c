/* SPDX-License-Identifier: MIT */
#include "util/strindex.h"

#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static void rebuild(struct strindex *x, const void *array, size_t n, strindex_name_fn *name_of)
{
	size_t ns = x->nslots ? x->nslots : 64;
	while (2 * (n + 1) > ns)
		ns *= 2;
	free(x->slots);
	x->slots = xcalloc(ns, sizeof *x->slots);
	x->nslots = ns;
	for (size_t i = 0; i < n; i++) {
		size_t h = str_hash(name_of(array, i)) & (ns - 1);
		while (x->slots[h])
			h = (h + 1) & (ns - 1);
		x->slots[h] = i + 1;
	}
}

size_t *strindex_slot(struct strindex *x, const char *name, const void *array, size_t n,
		      strindex_name_fn *name_of)
{
	if (!x->nslots || 2 * (n + 1) > x->nslots)
		rebuild(x, array, n, name_of);
	size_t h = str_hash(name) & (x->nslots - 1);
	while (x->slots[h] && strcmp(name_of(array, x->slots[h] - 1), name))
		h = (h + 1) & (x->nslots - 1);
	return &x->slots[h];
}

void strindex_clear(struct strindex *x)
{
	free(x->slots);
	x->slots = NULL;
	x->nslots = 0;
}
