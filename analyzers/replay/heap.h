/* replay heap: a binary min-heap of (key, value) pairs, the replay's priority queues (the
 * simulator's events by time, a host's running operations by the work they finish at).
 * Equal keys come out in the order of their values, so that a replay is the same from run to
 * run. It owns its array; allocation failure aborts (util/strbuf.h's xgrow).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_REPLAY_HEAP_H
#define ANALYZERS_REPLAY_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct rheap_item {
	double key;
	uint64_t val;
};

struct rheap {
	struct rheap_item *items;
	size_t n, cap;
};

#define RHEAP_INIT { NULL, 0, 0 }

void rheap_push(struct rheap *h, double key, uint64_t val);
/* The least item; h must not be empty. */
static inline struct rheap_item rheap_top(const struct rheap *h)
{
	return h->items[0];
}
/* Removes and returns the least item; h must not be empty. */
struct rheap_item rheap_pop(struct rheap *h);
void rheap_free(struct rheap *h);

#endif
