/* snapshot: one snapshot of a run's job rows, read once per poll and passed to
 * everything that needs it (the backend's refresh, change detection, the
 * done test, the status view), and the one answer to "is the run done?".
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_SNAPSHOT_H
#define CAMPAIGN_SNAPSHOT_H

#include "store.h"

struct snapshot {
	struct job_row *all;     /* every attempt: scenarios in order, attempts ascending */
	size_t n_all;
	struct job_row **latest; /* the latest attempt of each scenario, into all */
	size_t n;
	int dirty;               /* a refresh wrote to the store since the load */
	int idle;                /* a refresh found jobs waiting that nothing will start */
};

#define SNAPSHOT_INIT { NULL, 0, NULL, 0, 0, 0 }

/* Reads every job row of the store (one query); frees what js held. */
int snapshot_load(struct store *st, struct snapshot *js);
void snapshot_free(struct snapshot *js);
/* 1 when every scenario's latest attempt is final; *failed counts those that
 * did not complete (vacuously 1 for a run with no job). */
int run_is_done(const struct snapshot *js, int *failed);

#endif
