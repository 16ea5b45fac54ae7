/* op_table: operators (or kernels) by name with their summed self time and count, for the
 * top lists: what each trace's operators add, merged over a scenario's files in file order
 * (the sums add up in the same order whatever the threads did).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_OP_TABLE_H
#define ANALYZERS_OP_TABLE_H

#include "util/strindex.h"

#include <stddef.h>

struct op_stat {
	char *name;
	double self_ms; /* summed over ranks and steps */
	long count;
};

struct op_table {
	struct op_stat *v;
	size_t n, cap;
	double total_ms;       /* self time of every operator */
	struct strindex index; /* of v by name (rebuilt after a sort) */
};

/* ms of self time and count more calls of name. */
void op_table_add(struct op_table *ops, const char *name, double ms, long count);
/* Every row of from added to into, in from's order. */
void op_table_merge(struct op_table *into, const struct op_table *from);
/* By time, descending (then name); drops the name index. */
void op_table_sort(struct op_table *ops);
void op_table_free(struct op_table *ops);

#endif
