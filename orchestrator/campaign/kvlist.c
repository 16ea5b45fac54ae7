/* SPDX-License-Identifier: MIT */
#include "campaign.h"

#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

struct kv *kvlist_find(const struct kvlist *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i].key, key))
			return &l->items[i];
	return NULL;
}

const char *kvlist_get(const struct kvlist *l, const char *key)
{
	const struct kv *kv = kvlist_find(l, key);
	return kv ? kv->value : NULL;
}

void kvlist_set(struct kvlist *l, const char *key, const char *value)
{
	struct kv *kv = kvlist_find(l, key);
	if (kv) {
		free(kv->value);
		kv->value = value ? xstrdup(value) : NULL;
		return;
	}
	l->items = xrealloc(l->items, (l->n + 1) * sizeof *l->items);
	l->items[l->n].key = xstrdup(key);
	l->items[l->n].value = value ? xstrdup(value) : NULL;
	l->n++;
}

void kvlist_free(struct kvlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].key);
		free(l->items[i].value);
	}
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

void kvlist_copy(struct kvlist *dst, const struct kvlist *src)
{
	memset(dst, 0, sizeof *dst);
	for (size_t i = 0; i < src->n; i++)
		kvlist_set(dst, src->items[i].key, src->items[i].value);
}
