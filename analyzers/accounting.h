/* accounting: the one accounting of a scenario's step time (docs/accounting.md): the
 * step period, the shares of the step, the verdict's candidates and flags, and the
 * outcome they give. Numbers only: the words are write/'s.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_ACCOUNTING_H
#define ANALYZERS_ACCOUNTING_H

#include "analyzers/analysis.h"
#include "analyzers/read/metrics.h"

/* When the GPU's busy time per step outlasts the host's steps and the GPU ends after the
 * host, each step is timed by its GPU window (one without is not timed). */
void accounting_gpu_period(struct ana_scenario *s, struct scenario_metrics *m);
/* Per step, the least communication time over ranks: the transfer once all have arrived;
 * what a rank spends beyond it is waiting for peers. */
void accounting_comm_floor(struct ana_scenario *s, const struct scenario_metrics *m);
/* The host's shares of the step (s->shares) from every rank's active steps. */
void accounting_shares(struct ana_scenario *s, const struct scenario_metrics *m);
/* The GPU view: every rank's active steps with GPU work, shares of the GPU window. */
void accounting_gpu_shares(struct ana_scenario *s, const struct scenario_metrics *m);
/* The verdict from the accounted shares (the GPU timeline's when the traces have
 * kernels, else the host's): the largest share wins, thresholds are flags. */
void accounting_outcome(struct ana_scenario *s, const struct ana_run *run,
			const struct scenario_metrics *m);
/* With no step breakdown: what the node monitors say of saturated resources;
 * undetermined without them. Oversubscribed as ever: more ranks (workers) than
 * the local executor's CPUs. */
void accounting_monitor_verdict(struct ana_scenario *s, const struct ana_run *run);

#endif
