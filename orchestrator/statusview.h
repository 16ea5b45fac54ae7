/* statusview: the status table of a run (text or JSON), shared by status,
 * watch and submit --wait, so every view of a run says the same thing.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_STATUSVIEW_H
#define CAMPAIGN_STATUSVIEW_H

#include "orchestrator/store/snapshot.h"
#include "run.h"

#include <stdio.h>

/* Prints the snapshot's jobs (the latest attempt of each scenario; in JSON
 * with the earlier ones) and where the analysis is. */
/* "slurm controller at HOST:PORT not answering since HH:MM:SS" while the
 * last poll found the backend's controller down; nothing otherwise. */
void statusview_outage(const struct run *r, FILE *out);
void statusview_print(const struct run *r, const struct snapshot *jobs, FILE *out, int json);
/* The same, or with scenario (not NULL) that scenario alone: in text one
 * field a line (state, reason, job id, nodes, ranks, elapsed, folder, the
 * `campaign logs` of its job log and of the rank that failed, its earlier
 * attempts), in JSON the run's document with that one job. ERR_NOTFOUND
 * (nothing printed) when the run has no such scenario. */
int statusview_show(const struct run *r, const struct snapshot *jobs, const char *scenario,
		    FILE *out, int json);

#endif
