/* SPDX-License-Identifier: MIT */
#include "analyzers/op_table.h"

#include "util/sort.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static const char *op_name(const void *v, size_t i)
{
	return ((const struct op_stat *)v)[i].name;
}

void op_table_add(struct op_table *ops, const char *name, double ms, long count)
{
	size_t *slot = strindex_slot(&ops->index, name, ops->v, ops->n, op_name);
	ops->total_ms += ms;
	if (*slot) {
		ops->v[*slot - 1].self_ms += ms;
		ops->v[*slot - 1].count += count;
		return;
	}
	XGROW(ops->v, ops->n, ops->cap, 64);
	ops->v[ops->n] = (struct op_stat){ xstrdup(name), ms, count };
	*slot = ++ops->n;
}

void op_table_merge(struct op_table *into, const struct op_table *from)
{
	/* in the order they were added: the sums add up in the same order */
	for (size_t i = 0; i < from->n; i++)
		op_table_add(into, from->v[i].name, from->v[i].self_ms, from->v[i].count);
}

static int by_self(const void *pa, const void *pb)
{
	const struct op_stat *a = pa, *b = pb;
	if (a->self_ms != b->self_ms)
		return a->self_ms > b->self_ms ? -1 : 1;
	return strcmp(a->name, b->name);
}

void op_table_sort(struct op_table *ops)
{
	if (ops->n)
		sort_runs(ops->v, ops->n, sizeof *ops->v, by_self);
	strindex_clear(&ops->index);
}

void op_table_free(struct op_table *ops)
{
	for (size_t i = 0; i < ops->n; i++)
		free(ops->v[i].name);
	free(ops->v);
	strindex_clear(&ops->index);
	memset(ops, 0, sizeof *ops);
}
