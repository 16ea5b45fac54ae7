/* trace_same: two loaded traces hold the same events, names and counts, field
 * by field (a struct's padding is not read data; times compared bit for bit,
 * so NaN equals NaN). Shared by test_kineto_chunks and the fuzz_chunks target.
 * SPDX-License-Identifier: MIT */
#ifndef TESTS_TRACE_SAME_H
#define TESTS_TRACE_SAME_H

#include "analyzers/read/kineto.h"

#include <string.h>

#define TRACE_SAME_D(x, y) (!memcmp(&(x), &(y), sizeof(double)))

static inline int trace_same(const struct gpu_trace *a, const struct gpu_trace *b)
{
	int ok = a->n == b->n && a->nrt == b->nrt && a->ncpu == b->ncpu && a->ncomm == b->ncomm &&
		a->nnames == b->nnames && a->rank == b->rank && a->base_us == b->base_us &&
		a->legacy == b->legacy && a->steps == b->steps && a->malformed == b->malformed &&
		a->dropped == b->dropped && TRACE_SAME_D(a->last_step_ts, b->last_step_ts);
	for (size_t i = 0; ok && i < a->nnames; i++)
		ok = !strcmp(a->names[i], b->names[i]);
	for (size_t i = 0; ok && i < a->n; i++)
		ok = TRACE_SAME_D(a->ev[i].start, b->ev[i].start) &&
			TRACE_SAME_D(a->ev[i].end, b->ev[i].end) &&
			a->ev[i].name == b->ev[i].name && a->ev[i].stream == b->ev[i].stream &&
			a->ev[i].corr == b->ev[i].corr;
	for (size_t i = 0; ok && i < a->nrt; i++)
		ok = a->rt[i].corr == b->rt[i].corr &&
			TRACE_SAME_D(a->rt[i].start, b->rt[i].start) &&
			TRACE_SAME_D(a->rt[i].dur, b->rt[i].dur) &&
			a->rt[i].launch == b->rt[i].launch;
	for (size_t i = 0; ok && i < a->ncpu; i++)
		ok = TRACE_SAME_D(a->cpu[i].start, b->cpu[i].start) &&
			TRACE_SAME_D(a->cpu[i].end, b->cpu[i].end) &&
			a->cpu[i].name == b->cpu[i].name && a->cpu[i].tid == b->cpu[i].tid &&
			TRACE_SAME_D(a->cpu[i].flops, b->cpu[i].flops) &&
			TRACE_SAME_D(a->cpu[i].grad_bytes, b->cpu[i].grad_bytes) &&
			a->cpu[i].step_arg == b->cpu[i].step_arg;
	for (size_t i = 0; ok && i < a->ncomm; i++)
		ok = TRACE_SAME_D(a->comm[i].start, b->comm[i].start) &&
			TRACE_SAME_D(a->comm[i].end, b->comm[i].end) &&
			a->comm[i].coll == b->comm[i].coll && a->comm[i].pg == b->comm[i].pg &&
			TRACE_SAME_D(a->comm[i].bytes, b->comm[i].bytes) &&
			a->comm[i].group_size == b->comm[i].group_size &&
			a->comm[i].gpu == b->comm[i].gpu;
	return ok;
}

#endif
