/* shard_result: one file's analysis (a trace_set of one file) as the JSON a shard writes
 * and the reduce reads back, field for field (reals to 17 digits: bit for bit).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_SHARD_RESULT_H
#define ANALYZERS_SHARD_RESULT_H

#include "analyzers/shard_plan.h"
#include "analyzers/torchtrace.h"

#include <jansson.h>

/* The result of plan item it: its trace set ts, read on host. */
json_t *shard_result_json(const struct shard_item *it, const struct trace_set *ts,
			  const char *host);
/* The trace set of plan item it from its result j (ts zeroed first); -1 when j is not one
 * (another item's, or damaged): ts then holds what was read (trace_set_free). */
int shard_result_read(json_t *j, const struct shard_item *it, struct trace_set *ts);

#endif
