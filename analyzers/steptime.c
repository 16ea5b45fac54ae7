/* steptime: a scenario's step times (steptime.h): the period between consecutive steps'
 * last collectives where the traces give it, else the slowest rank's step.
 * SPDX-License-Identifier: MIT */
#include "analyzers/steptime.h"

#include "analyzers/collective.h"
#include "analyzers/stats.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdlib.h>

/* Per step of r, when its last blocking collective ended (r's clock, µs): from its traces'
 * collectives, else its telemetry's own record of it; NAN when the step has none. */
static double *completions(const struct rank_metrics *r)
{
	double *c = xmalloc((r->n + 1) * sizeof *c);
	for (size_t i = 0; i <= r->n; i++)
		c[i] = i < r->n && !r->ncoll && r->steps[i].coll_end_us > 0
			? r->steps[i].coll_end_us
			: NAN;
	for (size_t k = 0; k < r->ncoll; k++) {
		const struct coll_rec *x = &r->coll[k];
		if (x->step < 0 || (size_t)x->step >= r->n || !coll_blocking(x->op))
			continue;
		if (isnan(c[x->step]) || x->end_us > c[x->step])
			c[x->step] = x->end_us;
	}
	return c;
}

double **steptime_completions(const struct scenario_metrics *m)
{
	double **c = xcalloc(m->n + 1, sizeof *c);
	for (size_t r = 0; r < m->n; r++)
		c[r] = completions(&m->ranks[r]);
	return c;
}

void steptime_completions_free(double **c, const struct scenario_metrics *m)
{
	for (size_t r = 0; c && r < m->n; r++)
		free(c[r]);
	free(c);
}

/* Step i's period on r (ms): from step i - 1's completion to step i's, when both ended
 * with a collective and step i directly follows step i - 1 (a profiler that stopped
 * between two cycles leaves steps unrecorded between them); -1 otherwise. */
static double period_of(const struct rank_metrics *r, const double *c, size_t i)
{
	if (!c || i == 0 || i >= r->n || isnan(c[i]) || isnan(c[i - 1]) ||
	    r->steps[i].step != r->steps[i - 1].step + 1 || !(c[i] > c[i - 1]))
		return -1;
	return (c[i] - c[i - 1]) / 1000;
}

static int by_step(const void *key, const void *elem)
{
	long a = *(const long *)key, b = ((const struct step_rec *)elem)->step;
	return (a > b) - (a < b);
}

/* The position in rank r of m of the step numbered as the first rank's step i (steps are
 * in order of their numbers); r's n when it has none (a line of it was malformed). */
static size_t same_step(const struct scenario_metrics *m, size_t r, size_t i)
{
	const struct rank_metrics *x = &m->ranks[r];
	long want = m->ranks[0].steps[i].step;
	if (i < x->n && x->steps[i].step == want)
		return i;
	const struct step_rec *f = x->n ? bsearch(&want, x->steps, x->n, sizeof *x->steps, by_step)
					: NULL;
	return f ? (size_t)(f - x->steps) : x->n;
}

double steptime_period(const struct scenario_metrics *m, double *const *c, size_t i)
{
	double *buf = xcalloc(m->n + 1, sizeof *buf);
	size_t k = 0;
	for (size_t r = 0; c && r < m->n; r++) {
		double p = period_of(&m->ranks[r], c[r], same_step(m, r, i));
		if (p > 0)
			buf[k++] = p;
	}
	double p = k ? stats_percentile(buf, k, 50) : -1;
	free(buf);
	return p;
}

double steptime_slowest(const struct scenario_metrics *m, size_t i)
{
	double t = m->ranks[0].steps[i].step_ms;
	for (size_t r = 1; r < m->n; r++) {
		size_t j = same_step(m, r, i);
		if (j < m->ranks[r].n && m->ranks[r].steps[j].step_ms > t)
			t = m->ranks[r].steps[j].step_ms;
	}
	return t;
}

void steptime_list(const struct scenario_metrics *m, double *out, size_t *n, size_t *periods)
{
	const struct rank_metrics *r0 = &m->ranks[0];
	double **c = m->n > 1 ? steptime_completions(m) : NULL;
	*n = *periods = 0;
	for (size_t i = 0; i < r0->n; i++) {
		if (!r0->steps[i].active)
			continue;
		double p = steptime_period(m, c, i);
		*periods += p > 0;
		out[(*n)++] = p > 0 ? p : steptime_slowest(m, i);
	}
	steptime_completions_free(c, m);
}
