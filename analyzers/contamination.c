/* contamination: see contamination.h.
 * SPDX-License-Identifier: MIT */
#include "analyzers/contamination.h"

#include "analyzers/analysis.h"

#include <stdio.h>
#include <string.h>

void contamination_window(const struct scenario_metrics *m, double *from, double *to)
{
	*from = *to = 0;
	for (size_t r = 0; r < m->n; r++)
		for (size_t i = 0; i < m->ranks[r].n && !m->ranks[r].own_clock; i++) {
			const struct step_rec *st = &m->ranks[r].steps[i];
			if (!st->active || st->start_us <= 0)
				continue;
			double a = (st->start_us + m->ranks[r].clock_base_us) / 1e6,
			       b = a + st->step_ms / 1e3;
			if (*to <= 0 || a < *from)
				*from = a;
			if (b > *to)
				*to = b;
		}
}

void contamination_decide(const struct monitor_foreign *fl, struct ana_foreign *out)
{
	memset(out, 0, sizeof *out);
	if (fl->samples <= 0)
		return;
	out->known = 1;
	out->cpu_pct = fl->pct_sum / (double)fl->samples;
	out->contaminated = out->cpu_pct > ANA_FOREIGN_CPU_PCT;
	int taken[MONITOR_FOREIGN_NAMES] = { 0 };
	while (out->n_what < ANA_FOREIGN_WHAT) {
		int best = -1;
		for (int k = 0; k < fl->n_names && k < MONITOR_FOREIGN_NAMES; k++)
			if (!taken[k] && fl->name_sum[k] > 0 &&
			    (best < 0 || fl->name_sum[k] > fl->name_sum[best]))
				best = k;
		if (best < 0)
			break;
		taken[best] = 1;
		snprintf(out->what[out->n_what++], sizeof out->what[0], "%s", fl->names[best]);
	}
}

void contamination_of(struct ana_scenario *s, const struct scenario_metrics *m)
{
	struct monitor_foreign fl;
	double from, to;
	contamination_window(m, &from, &to);
	if (monitor_foreign_worst(s->in.job_dir, from, to, &fl) == 0)
		contamination_decide(&fl, &s->mon.foreign);
}

int contamination_any(const struct ana_scenario *s)
{
	return s->mon.foreign.contaminated || s->data.contaminated[0];
}
