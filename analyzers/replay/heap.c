/* SPDX-License-Identifier: MIT */
#include "analyzers/replay/heap.h"

#include "util/strbuf.h"

#include <stdlib.h>

static int before(const struct rheap_item *a, const struct rheap_item *b)
{
	return a->key < b->key || (a->key == b->key && a->val < b->val);
}

void rheap_push(struct rheap *h, double key, uint64_t val)
{
	h->items = xgrow(h->items, h->n, &h->cap, sizeof *h->items, 64);
	struct rheap_item it = { key, val };
	size_t i = h->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!before(&it, &h->items[parent]))
			break;
		h->items[i] = h->items[parent];
		i = parent;
	}
	h->items[i] = it;
}

struct rheap_item rheap_pop(struct rheap *h)
{
	struct rheap_item top = h->items[0], last = h->items[--h->n];
	size_t i = 0, n = h->n;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(&h->items[c + 1], &h->items[c]))
			c++;
		if (!before(&h->items[c], &last))
			break;
		h->items[i] = h->items[c];
		i = c;
	}
	if (n)
		h->items[i] = last;
	return top;
}

void rheap_free(struct rheap *h)
{
	free(h->items);
	h->items = NULL;
	h->n = h->cap = 0;
}
