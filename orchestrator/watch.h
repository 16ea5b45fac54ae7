/* watch: following a run until every job is final and its analysis exists:
 * one backend refresh (one controller RPC) per poll, an interval that is
 * short after a change and backs off while nothing moves (with jitter, so
 * many watchers do not poll in step), retries with backoff while the
 * controller is unreachable.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_WATCH_H
#define CAMPAIGN_WATCH_H

#include "orchestrator/backend/backend.h"

#include <stdio.h>

struct watch_opts {
	double min_s, max_s; /* poll interval bounds */
	int quiet;           /* print no table until the end */
	int redraw;          /* redraw in place (a terminal) */
	int lines;           /* one line per job state change (not a terminal) */
	FILE *out;
};

/* Returns 0 when the run is done and analysed, or a negative code; *jobs
 * (owned by the caller) holds the last poll's snapshot. */
int watch_run(struct run *r, const struct backend_ops *be, const struct watch_opts *o,
	      struct snapshot *jobs);

#endif
