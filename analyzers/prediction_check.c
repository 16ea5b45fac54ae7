/* SPDX-License-Identifier: MIT */
#include "analyzers/prediction_check.h"

#include "analyzers/advice.h"
#include "analyzers/analysis.h"
#include "analyzers/contamination.h"
#include "analyzers/replay_build.h"
#include "analyzers/stats.h"
#include "analyzers/summary_keys.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const check_share_names[CHECK_SHARES] = { SK_COMPUTE, SK_COMMUNICATION, SK_DATA_LOADING,
						      SK_IO,      SK_PEER_WAIT,     SK_OTHER };

/* The variant's own share k of its step (as summary.json's shares_pct); -1 unknown. */
static double own_pct(const struct ana_scenario *s, int k)
{
	const struct ana_shares *h = &s->shares;
	if (!h->shares_known)
		return -1;
	const double v[CHECK_SHARES] = { h->compute_pct, h->comm_pct,      h->data_pct,
					 h->io_pct,      h->sync_wait_pct, h->other_pct };
	return v[k];
}

/* The share a recommendation of kind takes off the step; -1: none of these. */
static int target_share(const char *kind)
{
	const char *name = rec_kind_step_share(kind);
	for (int k = 0; name && k < CHECK_SHARES; k++)
		if (!strcmp(check_share_names[k], name))
			return k;
	return -1;
}

static const struct ana_scenario *find(const struct ana_run *run, const char *name)
{
	for (size_t i = 0; i < run->n; i++)
		if (!strcmp(run->sc[i].in.name, name))
			return &run->sc[i];
	return NULL;
}

static double median_of(const double *v, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof *c);
	memcpy(c, v, n * sizeof *c);
	double m = stats_percentile(c, n, STATS_MEDIAN);
	free(c);
	return m;
}

/* The variant's step times at the parent's batch: a knob that changes the
 * batch changes the work of a step, so its steps are compared per sample
 * (scaled by *scale; c->variant_batch set when they are). */
static double *at_parent_batch(struct ana_check *c, const struct ana_scenario *s, double *scale)
{
	size_t n = s->steps.active_steps;
	long vb = s->steps.global_batch;
	c->variant_global = vb > 0 ? vb : 0;
	*scale = 1;
	if (c->parent_batch > 0 && vb > 0 && vb != c->parent_batch) {
		*scale = (double)c->parent_batch / (double)vb;
		c->variant_batch = vb;
	}
	double *v = malloc(n * sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = s->steps.step_ms[i] * *scale;
	return v;
}

/* A batch prediction is for the batch REPLAY_BATCH_X times the parent's: a variant whose
 * knob made it another size has none to check. */
static int other_batch(const struct ana_check *c, const char *kind)
{
	return !strcmp(kind, rec_kind_name(REC_BATCH)) &&
	       (c->parent_batch <= 0 || c->variant_batch != REPLAY_BATCH_X * c->parent_batch);
}


static void decide_by_means(struct ana_check *c, const struct ana_scenario *s, double scale,
			    int dirty);
static void mean_interval(struct ana_check *c, const struct ana_scenario *s, double scale);

/* Whether c's bootstrap ci is one to give: STATS_BOOTSTRAP_MIN_N steps or more on each side
 * (the control's too, where it is what the variant is set against). */
static int with_interval(const struct ana_check *c, const struct ana_scenario *s,
			 const struct stats_interval *ci)
{
	return ci->known && c->n_parent >= STATS_BOOTSTRAP_MIN_N &&
	       s->steps.active_steps >= STATS_BOOTSTRAP_MIN_N &&
	       (!c->n_control || c->n_control >= STATS_BOOTSTRAP_MIN_N);
}

/* What the variant's steps are set against: the control's where there is one, else the
 * parent's. */
static struct stats_sample reference_of(const struct ana_check *c)
{
	return c->n_control ? (struct stats_sample){ c->control_steps, c->n_control }
			    : (struct stats_sample){ c->parent_steps, c->n_parent };
}

/* A variant's statistic v (its median or mean) in ms of the parent's (p): over the
 * control's (r) times the parent's where there is a control, else itself. */
static double at_parent(const struct ana_check *c, double v, double p, double r)
{
	return c->n_control && r > 0 ? v / r * p : v;
}

static void decide(struct ana_check *c, const struct ana_scenario *s, const char *kind)
{
	double lo, hi, scale;
	c->by_means = 0;
	c->mean_lo_ms = c->mean_hi_ms = -1;
	if (!s || !c->n_parent || s->steps.no_steps || !s->steps.active_steps) {
		c->outcome = CHECK_UNMEASURED;
		return;
	}
	c->n_variant = s->steps.active_steps;
	c->own_median_ms = s->steps.step_med_ms;
	double base = median_of(c->parent_steps, c->n_parent);
	if (c->n_control) /* (from its steps, as the parent's are) */
		c->control_median_ms = median_of(c->control_steps, c->n_control),
		c->control_mean_ms = stats_mean(c->control_steps, c->n_control);
	double *steps = at_parent_batch(c, s, &scale);
	if ((c->batch_not_predicted = other_batch(c, kind)))
		c->predicted_ms = c->pred_lo_ms = c->pred_hi_ms = -1;
	struct stats_sample ps = reference_of(c), vs = { steps, s->steps.active_steps };
	struct stats_interval ci;
	stats_bootstrap(&vs, 1, &ps, 1, STATS_MEDIAN, &ci);
	c->parent_mean_ms = stats_mean(c->parent_steps, c->n_parent);
	c->measured_mean_ms = at_parent(c, stats_mean(steps, s->steps.active_steps),
					c->parent_mean_ms, c->control_mean_ms);
	free(steps);
	lo = ci.lo;
	hi = ci.hi;
	c->measured_ms = at_parent(c, s->steps.step_med_ms * scale, base, c->control_median_ms);
	c->lo_ms = c->hi_ms = -1; /* none from too few steps, as every interval of the report */
	if (with_interval(c, s, &ci))
		c->lo_ms = base * lo, c->hi_ms = base * hi;
	int dirty = contamination_any(s) || c->parent_contaminated || c->control_contaminated;
	c->outcome = base > 0 ? check_decide(c->predicted_ms, c->measured_ms, base, c->lo_ms,
					      c->hi_ms, c->pred_lo_ms, c->pred_hi_ms, dirty)
			      : CHECK_UNPREDICTED;
	if (c->side && dirty) /* a side effect measured beside other load: none to say */
		c->outcome = CHECK_CONTAMINATED;
	/* a side effect of steps not alike (on either side) by the means, as a check's */
	if (c->side && c->outcome == CHECK_UNPREDICTED && c->parent_mean_ms > 0 &&
	    (stats_unalike(base, c->parent_mean_ms) ||
	     stats_unalike(c->measured_ms, c->measured_mean_ms)))
		mean_interval(c, s, scale);
	/* (a check of nothing -- measured beside other load -- stays as it is); by the means
	 * where the variant's steps or the predicted ones are not alike, or the parent's were:
	 * the recommendation then predicted by the means (advice.c's by_means_of), and a
	 * prediction is checked as it was made */
	if (c->outcome != CHECK_UNPREDICTED && c->outcome != CHECK_CONTAMINATED &&
	    c->pred_mean_ms > 0 && c->parent_mean_ms > 0 &&
	    (stats_unalike(c->measured_ms, c->measured_mean_ms) ||
	     stats_unalike(c->predicted_ms, c->pred_mean_ms) ||
	     stats_unalike(base, c->parent_mean_ms)))
		decide_by_means(c, s, scale, dirty);
}

/* c's measured interval by the means (c->by_means, mean_lo_ms, mean_hi_ms): the 95 %
 * bootstrap interval of the variant's mean step (at the parent's batch: scale) over the
 * parent's, in ms of the parent's mean. */
static void mean_interval(struct ana_check *c, const struct ana_scenario *s, double scale)
{
	size_t n = s->steps.active_steps;
	double *steps = malloc((n ? n : 1) * sizeof *steps);
	for (size_t i = 0; i < n; i++)
		steps[i] = s->steps.step_ms[i] * scale;
	struct stats_sample ps = reference_of(c), vs = { steps, n };
	struct stats_interval ci;
	stats_bootstrap(&vs, 1, &ps, 1, STATS_MEAN, &ci);
	free(steps);
	c->by_means = 1;
	c->mean_lo_ms = c->mean_hi_ms = -1;
	if (with_interval(c, s, &ci))
		c->mean_lo_ms = c->parent_mean_ms * ci.lo,
		c->mean_hi_ms = c->parent_mean_ms * ci.hi;
}

/* The outcome of c by the means (c->by_means): the variant's steps or the predicted ones
 * are not alike, so a median leaves out the slow steps that set the time per sample. */
static void decide_by_means(struct ana_check *c, const struct ana_scenario *s, double scale,
			    int dirty)
{
	mean_interval(c, s, scale);
	c->outcome = check_decide(c->pred_mean_ms, c->measured_mean_ms, c->parent_mean_ms,
				  c->mean_lo_ms, c->mean_hi_ms, c->pmean_lo_ms, c->pmean_hi_ms,
				  dirty);
}

enum check_outcome check_decide(double predicted, double measured, double parent, double lo,
				double hi, double plo, double phi, int contaminated)
{
	if (predicted < 0)
		return CHECK_UNPREDICTED;
	if (contaminated)
		return CHECK_CONTAMINATED;
	if (predicted > 0 && 100 * fabs(measured / predicted - 1) <= CHECK_TOLERANCE_PCT)
		return CHECK_CONFIRMED;
	/* an interval that holds the parent's step too predicts no change as well as one: it
	 * confirms nothing (only the 10 % does) */
	if (plo >= 0 && phi >= plo && plo <= measured && measured <= phi &&
	    !(plo <= parent && parent <= phi))
		return CHECK_CONFIRMED;
	/* "no gain predicted" (advice.h) confirmed by a step that gained no more, or no
	 * measurable change: the advice held, whatever the number (its error is said apart) */
	if (advice_no_gain(predicted, parent) &&
	    (measured >= parent * (1 - ADVICE_NO_GAIN_PCT / 100) ||
	     (lo >= 0 && lo <= parent && parent <= hi)))
		return CHECK_CONFIRMED;
	if (lo < 0 || hi < lo) /* no interval: too few steps */
		return CHECK_FEW_STEPS;
	if (lo <= parent && parent <= hi)
		return CHECK_NOISE;
	return measured < predicted ? CHECK_BETTER : CHECK_WORSE;
}

/* Where a miss's predicted time went: the share the prediction took off, and the shares
 * that grew and fell most, in ms per step of each run. */
static void where_went(struct check_miss *w, const struct ana_check *c,
		       const struct ana_scenario *s, const char *kind)
{
	double pm = c->parent_median_ms;
	memset(w, 0, sizeof *w);
	w->target = w->grew = w->shrank = -1;
	for (int k = 0; k < CHECK_SHARES; k++) {
		double p = c->parent_share_pct[k], o = own_pct(s, k);
		if (p < 0 || o < 0 || pm <= 0)
			return;
		w->before_ms[k] = p / 100 * pm;
		w->after_ms[k] = o / 100 * c->measured_ms;
	}
	w->known = 1;
	int t = target_share(kind), grew = -1, fell = -1;
	const double *before = w->before_ms, *after = w->after_ms;
	for (int k = 0; k < CHECK_SHARES; k++) {
		double d = after[k] - before[k];
		if (k != t && d > 0.01 * pm && (grew < 0 || d > after[grew] - before[grew]))
			grew = k;
		if (k != t && d < -0.01 * pm && (fell < 0 || d < after[fell] - before[fell]))
			fell = k;
	}
	w->target = t;
	w->grew = grew;
	w->shrank = fell;
}

struct ana_check check_as_decided(const struct ana_check *c)
{
	struct ana_check v = *c;
	if (c->by_means)
		v.parent_median_ms = c->parent_mean_ms, v.predicted_ms = c->pred_mean_ms,
		v.measured_ms = c->measured_mean_ms, v.lo_ms = c->mean_lo_ms,
		v.hi_ms = c->mean_hi_ms, v.pred_lo_ms = c->pmean_lo_ms,
		v.pred_hi_ms = c->pmean_hi_ms;
	return v;
}

/* check_side_changed's rule, whatever the unchanged runs say. */
static int side_moved(const struct ana_check *o)
{
	struct ana_check c = check_as_decided(o);
	double p = c.parent_median_ms;
	return c.side && c.outcome == CHECK_UNPREDICTED && !c.estimator_differs && p > 0 &&
	       c.lo_ms > 0 && (c.hi_ms < p || c.lo_ms > p) &&
	       100 * fabs(c.measured_ms / p - 1) > CHECK_TOLERANCE_PCT;
}

int check_side_changed(const struct ana_check *c)
{
	return !c->side_drift && side_moved(c);
}

/* A prediction confirmed or refuted (not one of nothing, or of too few steps). */
static int is_checked(enum check_outcome o)
{
	return o == CHECK_CONFIRMED || o == CHECK_NOISE || o == CHECK_BETTER || o == CHECK_WORSE;
}

/* The control's drift from the parent (c->drift_*), by the statistic c was decided by. */
static void drift_of(struct ana_check *c)
{
	struct stats_sample cs = { c->control_steps, c->n_control },
			    ps = { c->parent_steps, c->n_parent };
	struct stats_interval ci = { 0 };
	if (c->n_control >= STATS_BOOTSTRAP_MIN_N && c->n_parent >= STATS_BOOTSTRAP_MIN_N)
		stats_bootstrap(&cs, 1, &ps, 1, c->by_means ? STATS_MEAN : STATS_MEDIAN, &ci);
	c->drift_known = ci.known, c->drift_by_means = c->by_means;
	c->drift_lo = ci.known ? ci.lo : -1, c->drift_hi = ci.known ? ci.hi : -1;
}

/* With a control (c decided against it): kept so where the control's drift is measurable
 * (c->uncorrected_* then say what the parent as it ran would give), else decided again
 * against the parent as it ran, the control's drift kept for the report. */
static void against_control_or_parent(struct ana_check *c, const struct ana_scenario *s,
				      const char *kind)
{
	c->uncorrected_outcome = c->control_outcome = -1, c->uncorrected_ms = 0;
	c->against_control = c->side_drift = 0;
	if (!c->n_control)
		return;
	drift_of(c);
	struct ana_check u = *c;
	u.n_control = 0, u.control_steps = NULL, u.control_contaminated = 0;
	decide(&u, s, kind);
	u.n_control = c->n_control, u.control_steps = c->control_steps;
	u.control_contaminated = c->control_contaminated;
	/* (a control measured beside other load is not what the machine is now: not used) */
	if (!c->control_contaminated && c->drift_known && (c->drift_lo > 1 || c->drift_hi < 1)) {
		struct ana_check d = check_as_decided(&u);
		c->uncorrected_outcome = (int)u.outcome, c->uncorrected_ms = d.measured_ms;
		c->against_control = 1;
		if (is_checked(c->outcome) && is_checked(u.outcome) &&
		    (c->outcome == CHECK_CONFIRMED) != (u.outcome == CHECK_CONFIRMED))
			c->control_outcome = (int)c->outcome, c->outcome = CHECK_DRIFT;
		c->side_drift = c->side && side_moved(c) != side_moved(&u);
		return;
	}
	*c = u;
}

void prediction_check_run(struct ana_run *run)
{
	struct ana_variant *v = &run->variant;
	for (size_t i = 0; i < v->n; i++) {
		struct ana_check *c = &v->checks[i];
		const struct ana_scenario *s = find(run, c->scenario);
		decide(c, s, v->kind);
		against_control_or_parent(c, s, v->kind);
		c->load_unknown = s && !s->mon.foreign.known && !contamination_any(s);
		c->estimator_differs = s && s->steps.active_steps && c->parent_periods >= 0 &&
				       c->parent_periods != (s->steps.step_periods > 0);
		/* a predicted gain that did not come (slower, or no measurable change), or a
		 * step faster than predicted: by the numbers it was decided by */
		struct ana_check d = check_as_decided(c);
		c->missed = c->outcome == CHECK_WORSE || c->outcome == CHECK_BETTER ||
			(c->outcome == CHECK_NOISE && d.hi_ms > 0 && d.predicted_ms < d.lo_ms);
		if (s && (c->missed || c->side)) /* a side effect: what the knob changed there */
			where_went(&c->miss, &d, s, v->kind);
	}
}

void prediction_check_free(struct ana_variant *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free(v->checks[i].scenario);
		free(v->checks[i].parent_steps);
		free(v->checks[i].control_steps);
	}
	free(v->checks);
	free(v->of);
	free(v->control);
	free(v->control_pending);
	free(v->kind);
	free(v->knob);
	memset(v, 0, sizeof *v);
}
