/* contamination: whether a scenario was measured beside other load. From
 * the node monitors' foreign columns (the CPU of processes outside the job:
 * a second user, a build, another run's job) over the wall-clock window of
 * its active steps: above ANA_FOREIGN_CPU_PCT of one core on average, its
 * step times are not its workload's alone. Reads the monitor files; the
 * decision itself is pure (contamination_decide).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_CONTAMINATION_H
#define ANALYZERS_CONTAMINATION_H

#include "analyzers/read/metrics.h"
#include "analyzers/read/monitor.h"

struct ana_foreign;
struct ana_scenario;

/* The active steps' wall-clock window over every rank (Unix seconds); 0 and 0
 * when their steps carry no start times. */
void contamination_window(const struct scenario_metrics *m, double *from, double *to);
/* The decision on one node's samples: the mean, whether it is above the threshold,
 * and the commands that used most (mean % over the samples, most first). */
void contamination_decide(const struct monitor_foreign *fl, struct ana_foreign *out);
/* s->mon.foreign from s's monitor files over the window of m's active steps. */
void contamination_of(struct ana_scenario *s, const struct scenario_metrics *m);
/* Measured beside other load: foreign CPU, or another scenario on its nodes. */
int contamination_any(const struct ana_scenario *s);

#endif
