/* SPDX-License-Identifier: MIT */
#include "analyzers/advice.h"
#include "analyzers/stats.h"
#include "analyzers/write/prediction_check_text.h"
#include "analyzers/write/prose.h"

#include "analyzers/summary_keys.h"
#include "util/jsonio.h"
#include "util/strbuf.h"

#include <math.h>
#include <string.h>
#include <stdlib.h>

const char *check_outcome_name(enum check_outcome o)
{
	switch (o) {
	case CHECK_CONFIRMED:
		return "confirmed";
	case CHECK_BETTER:
		return "better than predicted";
	case CHECK_WORSE:
		return "worse than predicted";
	case CHECK_NOISE:
		return "within noise";
	case CHECK_UNPREDICTED:
		return "no prediction";
	case CHECK_UNMEASURED:
		return "not measured";
	case CHECK_CONTAMINATED:
		return "not checked (measured beside other load)";
	case CHECK_FEW_STEPS:
		return "too few steps to tell";
	case CHECK_DRIFT:
		return "undecided (the runs drift)";
	}
	return "?";
}

void prediction_check_change_write(struct strbuf *sb, double parent, double measured, double lo,
				   double hi, int per_sample)
{
	const char *per = per_sample ? " per sample" : "";
	if (parent > 0 && measured > 0 && lo < 0) {
		strbuf_addf(sb, "no interval (fewer than %d steps on a side)",
			    STATS_BOOTSTRAP_MIN_N);
		return;
	}
	if (!(parent > 0 && measured > 0 && lo > 0 && hi >= lo)) {
		strbuf_adds(sb, "not measured");
		return;
	}
	/* the interval as a ratio to the parent, its bounds printed apart from 1: a speedup or a
	 * slowdown where it lies on one side, else the variant's step over the parent's */
	double a = hi < parent ? parent / hi : lo / parent,
	       b = hi < parent ? parent / lo : hi / parent;
	int da = stats_bound_decimals(a, 1, 2), db = stats_bound_decimals(b, 1, 2);
	if (hi < parent)
		strbuf_addf(sb, "%.2fx faster%s (95 %% CI %.*f-%.*fx)", parent / measured, per, da,
			    a, db, b);
	else if (lo > parent)
		strbuf_addf(sb, "%.2fx slower%s (95 %% CI %.*f-%.*fx)", measured / parent, per, da,
			    a, db, b);
	else
		strbuf_addf(sb, "no measurable change%s (95 %% CI %.*f-%.*fx the parent's)", per,
			    da, a, db, b);
}

/* The check shares (check_share_names: summary.json's keys) in the words of report.txt's
 * shares line, the one vocabulary of every sentence of the checks. */
static const char *const share_words[CHECK_SHARES] = { "compute",   "communication",
							"data loading", "I/O",
							"waiting for peers", "other host time" };

/* A step faster than predicted: what fell beyond the prediction. */
static void better_write(struct strbuf *sb, const struct ana_check *c)
{
	const struct check_miss *w = &c->miss;
	int t = w->target, f = w->shrank;
	if (t >= 0)
		strbuf_addf(sb, " %s went from %.2f to %.2f ms per step", share_words[t],
			    w->before_ms[t], w->after_ms[t]);
	if (f >= 0)
		strbuf_addf(sb, "%s %s fell from %.2f to %.2f ms per step%s", t >= 0 ? ", and" : "",
			    share_words[f], w->before_ms[f], w->after_ms[f],
			    c->by_ceiling ? ", which the ceiling kept as it was" : " as well");
	if (f < 0)
		strbuf_addf(sb, "%s no other share of the step fell by more than 1 %% of it",
			    t >= 0 ? ";" : "");
	if (c->by_ceiling && f >= 0)
		strbuf_adds(
			sb,
			PROSE_CHECK_FASTER_THAN_CEILING);
	strbuf_addch(sb, '.');
}

void prediction_check_miss_write(struct strbuf *sb, const struct ana_check *c)
{
	const struct check_miss *w = &c->miss;
	int t = w->target, grew = w->grew;
	if (!w->known) {
		strbuf_adds(
			sb,
			"Where the predicted time went cannot be said: the shares of step time of the parent or of the variant are unknown.");
		return;
	}
	strbuf_addf(sb, "Predicted %.2f ms, measured %.2f ms:", c->predicted_ms, c->measured_ms);
	if (c->outcome == CHECK_BETTER) {
		better_write(sb, c);
		return;
	}
	/* (a replay predicts the step, not each share: what it left of the target is not said) */
	if (t >= 0)
		strbuf_addf(sb, " %s went from %.2f to %.2f ms per step%s", share_words[t],
			    w->before_ms[t], w->after_ms[t],
			    c->by_ceiling ? " (the ceiling took all of it off)" : "");
	if (grew >= 0)
		strbuf_addf(sb, "%s %s grew from %.2f to %.2f ms per step",
			    t >= 0 ? ", while" : "", share_words[grew], w->before_ms[grew],
			    w->after_ms[grew]);
	if (t < 0 && grew < 0)
		strbuf_addf(sb, " no share of the step grew by more than 1 %% of it");
	strbuf_addch(sb, '.');
}

static json_t *miss_json(const struct ana_check *c)
{
	if (!c->missed)
		return json_null();
	struct strbuf sb = STRBUF_INIT;
	prediction_check_miss_write(&sb, c);
	json_t *j = json_string(sb.buf);
	strbuf_free(&sb);
	return j;
}

static json_t *num3(double v, int known)
{
	return known ? jsonio_real3(v) : json_null();
}

/* The measured change of an entry from its own (rounded) numbers, so that
 * summary.json's measured_change and every table's outcome cell agree; 0 when the
 * entry has none of them. */
static int entry_change(json_t *e, struct strbuf *sb)
{
	json_t *p = json_object_get(e, SK_PARENT_STEP_MS),
	       *m = json_object_get(e, SK_MEASURED_STEP_MS),
	       *lo = json_object_get(e, SK_CI_LOW), *hi = json_object_get(e, SK_CI_HIGH);
	if (!(json_is_number(p) && json_is_number(m) && json_is_number(lo) && json_is_number(hi)))
		return 0;
	prediction_check_change_write(sb, json_number_value(p), json_number_value(m),
				      json_number_value(lo), json_number_value(hi),
				      json_is_number(json_object_get(e, "variant_batch")));
	return 1;
}

/* The control's step c was set against: its median, or mean as c was decided. */
static double control_ms(const struct ana_check *c)
{
	return c->by_means ? c->control_mean_ms : c->control_median_ms;
}

/* A row's control_step_ms where there is a control run: the control's median (or mean, as
 * the check was decided), and whether the measured step is over it (against_control). */
static void control_step_json(json_t *e, const struct ana_check *c)
{
	if (!c->n_control)
		return;
	json_object_set_new(e, SK_CONTROL_STEP_MS, num3(control_ms(c), 1));
	json_object_set_new(e, SK_AGAINST_CONTROL, json_boolean(c->against_control));
}

json_t *prediction_check_side_json(const struct ana_variant *v)
{
	json_t *a = json_array();
	for (size_t i = 0; i < v->n; i++) {
		const struct ana_check *o = &v->checks[i];
		if (!o->side || o->outcome == CHECK_UNMEASURED)
			continue;
		struct ana_check c = check_as_decided(o); /* by the means: the means' numbers */
		struct strbuf sb = STRBUF_INIT;
		int clean = c.outcome != CHECK_CONTAMINATED;
		prediction_check_change_write(&sb, c.parent_median_ms, c.measured_ms, c.lo_ms,
					      c.hi_ms, c.variant_batch != 0);
		json_array_append_new(
			a, json_pack("{s:s, s:o, s:o, s:o, s:o, s:s, s:b, s:b, s:b}", SK_SCENARIO,
				     c.scenario, SK_PARENT_STEP_MS, num3(c.parent_median_ms, 1),
				     SK_MEASURED_STEP_MS, num3(c.measured_ms, 1), SK_CI_LOW,
				     num3(c.lo_ms, c.lo_ms >= 0), SK_CI_HIGH,
				     num3(c.hi_ms, c.lo_ms >= 0),
				     SK_MEASURED_CHANGE, sb.buf, "changed", check_side_changed(o),
				     "contaminated", !clean, SK_BY_MEANS, c.by_means));
		json_t *e = json_array_get(a, json_array_size(a) - 1);
		control_step_json(e, &c);
		if (c.n_control) /* the unchanged runs disagree on a change: none said */
			json_object_set_new(e, SK_UNDECIDED, json_boolean(c.side_drift));
		strbuf_free(&sb);
	}
	return a;
}

/* What changed a side effect's step most: the share of it that moved most, " (I/O 0.00 ->
 * 45.21 ms per step)", the mechanism a reader looks for (a knob that adds checkpoints where
 * there were none, a loader that finishes early); nothing when no share moved 1 % of it. */
static void side_cause_said(struct strbuf *md, const struct ana_check *c)
{
	const struct check_miss *w = &c->miss;
	int most = -1;
	for (int k = 0; w->known && k < CHECK_SHARES; k++) {
		double d = fabs(w->after_ms[k] - w->before_ms[k]);
		if (d > 0.01 * c->parent_median_ms &&
		    (most < 0 || d > fabs(w->after_ms[most] - w->before_ms[most])))
			most = k;
	}
	/* a share the parent hardly had (under 0.5 % of its step) that the knob brought (over
	 * 1 %): the mechanism (checkpoints where there were none), named where it is not the
	 * one that moved most (another share's noise can move more ms) */
	int came = -1;
	for (int k = 0; most >= 0 && k < CHECK_SHARES; k++)
		if (k != most && w->before_ms[k] < 0.005 * c->parent_median_ms &&
		    w->after_ms[k] > 0.01 * c->parent_median_ms &&
		    (came < 0 || w->after_ms[k] > w->after_ms[came]))
			came = k;
	if (most >= 0)
		strbuf_addf(md, " (the share that moved most: its %s %.2f -> %.2f ms per step",
			    share_words[most], w->before_ms[most], w->after_ms[most]);
	if (came >= 0)
		strbuf_addf(md, "; one it did not have: its %s %.2f -> %.2f ms per step",
			    share_words[came], w->before_ms[came], w->after_ms[came]);
	if (most >= 0)
		strbuf_addch(md, ')');
}

/* The other scenarios the knob changed beyond noise, said once after the checks. */
static void side_effects_said(struct strbuf *md, const struct ana_variant *v)
{
	size_t n = 0;
	int unknown = 0;
	for (size_t i = 0; i < v->n; i++) {
		if (!check_side_changed(&v->checks[i]))
			continue;
		unknown |= v->checks[i].load_unknown;
		struct ana_check c = check_as_decided(&v->checks[i]);
		strbuf_adds(md, n++ ? "; " : PROSE_CHECK_SIDE_EFFECTS);
		strbuf_addf(md, "**%s** %.2f -> %.2f ms, ", c.scenario, c.parent_median_ms,
			    c.measured_ms);
		prediction_check_change_write(md, c.parent_median_ms, c.measured_ms, c.lo_ms,
					      c.hi_ms, c.variant_batch != 0);
		if (c.by_means)
			strbuf_adds(md, " by the means");
		side_cause_said(md, &c);
	}
	if (n && unknown)
		strbuf_adds(md, PROSE_CHECK_SIDE_LOAD_UNKNOWN);
	if (n && v->control)
		strbuf_adds(md, PROSE_CHECK_SIDE_CONTROL);
	if (n)
		strbuf_adds(md, ".\n");
}

/* Confirmed within CHECK_TOLERANCE_PCT of a predicted gain (not "no gain") that the parent's
 * step is within as well: the check cannot tell the predicted change from none. */
static int by_tolerance_alone(const struct ana_check *c)
{
	double tol = CHECK_TOLERANCE_PCT / 100;
	return c->outcome == CHECK_CONFIRMED && c->predicted_ms > 0 && c->parent_median_ms > 0 &&
	       !advice_no_gain(c->predicted_ms, c->parent_median_ms) &&
	       fabs(c->measured_ms / c->predicted_ms - 1) <= tol &&
	       fabs(c->parent_median_ms / c->predicted_ms - 1) <= tol;
}

/* Confirmed as "no gain" alone (prediction_check.h's rule): the prediction took under
 * ADVICE_NO_GAIN_PCT off the parent's step (or predicted a slower one), the step gained no
 * more, and the measured one is not within CHECK_TOLERANCE_PCT of the predicted one. */
static int by_no_gain(const struct ana_check *c)
{
	return c->outcome == CHECK_CONFIRMED && c->predicted_ms > 0 && c->measured_ms > 0 &&
	       c->parent_median_ms > 0 &&
	       advice_no_gain(c->predicted_ms, c->parent_median_ms) &&
	       100 * fabs(c->measured_ms / c->predicted_ms - 1) > CHECK_TOLERANCE_PCT;
}

json_t *prediction_check_json(const struct ana_variant *v)
{
	json_t *a = json_array();
	for (size_t i = 0; i < v->n; i++) {
		const struct ana_check *o = &v->checks[i];
		if (o->side) /* (prediction_check_side_json's) */
			continue;
		struct ana_check c = check_as_decided(o); /* by the means: the means' numbers */
		int m = c.outcome != CHECK_UNMEASURED;
		json_t *medians = c.by_means
			? json_pack("{s:o, s:o, s:o}", SK_PARENT_STEP_MS,
				    num3(o->parent_median_ms, 1), SK_PREDICTED_STEP_MS,
				    num3(o->predicted_ms, 1), SK_MEASURED_STEP_MS,
				    num3(o->measured_ms, 1))
			: json_null();
		json_array_append_new(
			a,
			json_pack(
				"{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:b, s:o}",
				SK_SCENARIO, c.scenario, SK_KIND, v->kind, SK_PARENT_STEP_MS,
				num3(c.parent_median_ms, c.parent_median_ms > 0),
				SK_PREDICTED_STEP_MS, num3(c.predicted_ms, c.predicted_ms >= 0),
				SK_MEASURED_STEP_MS, num3(c.measured_ms, m), SK_CI_LOW,
				num3(c.lo_ms, m && c.lo_ms >= 0), SK_CI_HIGH,
				num3(c.hi_ms, m && c.lo_ms >= 0), SK_MEASURED_CHANGE,
				json_null(), SK_OUTCOME, check_outcome_name(c.outcome), SK_MISS,
				miss_json(&c), "variant_batch",
				c.variant_batch ? json_integer(c.variant_batch) : json_null(),
				SK_BY_MEANS, c.by_means, "medians", medians));
		json_t *e = json_array_get(a, json_array_size(a) - 1);
		control_step_json(e, &c);
		if (o->uncorrected_outcome >= 0) /* (with a control only) */
			json_object_set_new(
				e, SK_UNCORRECTED,
				json_pack("{s:o, s:s}", SK_MEASURED_STEP_MS,
					  num3(o->uncorrected_ms, o->uncorrected_ms > 0),
					  SK_OUTCOME,
					  check_outcome_name(
						  (enum check_outcome) o->uncorrected_outcome)));
		json_object_set_new(e, SK_NO_GAIN, json_boolean(by_no_gain(&c)));
		json_object_set_new(e, SK_PREDICTION_BASIS,
				    c.predicted_ms < 0 ? json_null()
				    : json_string(c.by_ceiling    ? "ceiling"
						  : c.basis_bound ? "bound"
								  : "replay"));
		json_object_set_new(e, SK_PREDICTED_INTERVAL_MS,
				    c.pred_lo_ms >= 0 && c.pred_hi_ms >= c.pred_lo_ms
					    ? json_pack("[o, o]", num3(c.pred_lo_ms, 1),
							num3(c.pred_hi_ms, 1))
					    : json_null());
		struct strbuf sb = STRBUF_INIT;
		if (entry_change(e, &sb))
			json_object_set_new(e, SK_MEASURED_CHANGE, json_string(sb.buf));
		strbuf_free(&sb);
	}
	return a;
}

static char *ms_cell(json_t *v, const char *num_fmt)
{
	struct strbuf sb = STRBUF_INIT;
	if (json_is_number(v))
		strbuf_addf(&sb, num_fmt, json_number_value(v));
	else
		strbuf_adds(&sb, "n/a");
	return strbuf_detach(&sb);
}

/* "LO to HI" of two numbers with num_fmt, then tail; NULL where either is not a number. */
static char *range_cell(json_t *lo, json_t *hi, const char *num_fmt, const char *tail)
{
	if (!json_is_number(lo) || !json_is_number(hi))
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, num_fmt, json_number_value(lo));
	strbuf_adds(&sb, " to ");
	strbuf_addf(&sb, num_fmt, json_number_value(hi));
	strbuf_adds(&sb, tail);
	return strbuf_detach(&sb);
}

/* The prediction's interval: a replay's (a bound's marked), "ceiling" for a ceiling's. */
static char *predicted_interval_cell(json_t *entry, const char *num_fmt)
{
	json_t *iv = json_object_get(entry, SK_PREDICTED_INTERVAL_MS);
	const char *basis = jsonio_str(entry, SK_PREDICTION_BASIS);
	char *c = range_cell(json_array_get(iv, 0), json_array_get(iv, 1), num_fmt,
			     !strcmp(basis, "bound") ? " (bound)" : "");
	return c ? c : xstrdup(!strcmp(basis, "ceiling") ? "ceiling" : "n/a");
}

void prediction_check_cells(json_t *entry, const char *num_fmt, char *cells[PREDICTION_CHECK_CELLS])
{
	const char *outcome = jsonio_str(entry, SK_OUTCOME);
	cells[PCELL_SCENARIO] = xstrdup(jsonio_str(entry, SK_SCENARIO));
	cells[PCELL_PARENT] = ms_cell(json_object_get(entry, SK_PARENT_STEP_MS), num_fmt);
	cells[PCELL_PREDICTED] = ms_cell(json_object_get(entry, SK_PREDICTED_STEP_MS), num_fmt);
	cells[PCELL_PREDICTED_INTERVAL] = predicted_interval_cell(entry, num_fmt);
	cells[PCELL_MEASURED] = ms_cell(json_object_get(entry, SK_MEASURED_STEP_MS), num_fmt);
	/* set against the control (or undecided between it and the parent): the measured step
	 * against the parent as it ran beside the control's, so that a reader sees both */
	json_t *u = json_object_get(json_object_get(entry, SK_UNCORRECTED), SK_MEASURED_STEP_MS);
	if ((!strcmp(outcome, check_outcome_name(CHECK_DRIFT)) ||
	     json_is_true(json_object_get(entry, SK_AGAINST_CONTROL))) &&
	    json_is_number(u)) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s (as it ran: ", cells[PCELL_MEASURED]);
		strbuf_addf(&sb, num_fmt, json_number_value(u));
		strbuf_addch(&sb, ')');
		free(cells[PCELL_MEASURED]);
		cells[PCELL_MEASURED] = strbuf_detach(&sb);
	}
	char *ci = range_cell(json_object_get(entry, SK_CI_LOW), json_object_get(entry, SK_CI_HIGH),
			      num_fmt, "");
	cells[PCELL_MEASURED_CI] = ci ? ci : xstrdup("n/a");
	struct strbuf oc = STRBUF_INIT;
	/* the measured change heads the outcome */
	if (entry_change(entry, &oc))
		strbuf_adds(&oc, ": ");
	strbuf_adds(&oc, *outcome ? outcome : "n/a");
	if (json_is_true(json_object_get(entry, SK_NO_GAIN))) /* the advice held, not the figure */
		strbuf_adds(&oc, " as no gain");
	if (json_is_true(json_object_get(entry, SK_BY_MEANS)))
		strbuf_adds(&oc, " (by the means)");
	if (json_is_true(json_object_get(entry, SK_AGAINST_CONTROL)))
		strbuf_adds(&oc, " (against the control)");
	cells[PCELL_OUTCOME] = strbuf_detach(&oc);
	/* the measured median against the prediction, in % of the prediction: the measure the
	 * 10 % rule takes (a row confirmed by it shows at most 10.0; one confirmed as no gain
	 * may show more) */
	json_t *p = json_object_get(entry, SK_PREDICTED_STEP_MS),
	       *m = json_object_get(entry, SK_MEASURED_STEP_MS);
	struct strbuf err = STRBUF_INIT;
	if (json_is_number(p) && json_is_number(m) && json_number_value(p) > 0 &&
	    json_number_value(m) > 0)
	{
		double e = 100 * (json_number_value(m) / json_number_value(p) - 1);
		strbuf_addf(&err, "%+.1f", fabs(e) < 0.05 ? 0.0 : e); /* (no "-0.0") */
	}
	else
		strbuf_adds(&err, "n/a");
	cells[PCELL_ERROR] = strbuf_detach(&err);
}

/* The table's rows: summary.json's entries, as compare and the paper print them. */
static void md_rows(struct strbuf *md, const struct ana_variant *v)
{
	json_t *a = prediction_check_json(v), *e;
	size_t i;
	json_array_foreach(a, i, e) {
		char *c[PREDICTION_CHECK_CELLS];
		prediction_check_cells(e, "%.2f", c);
		strbuf_adds(md, "|");
		for (int k = 0; k < PREDICTION_CHECK_CELLS; k++) {
			strbuf_addf(md, " %s |", c[k]);
			free(c[k]);
		}
		strbuf_addch(md, '\n');
	}
	json_decref(a);
}

/* Confirmed only because the measured median lies inside the predicted interval (one that
 * does not hold the parent's step), not within CHECK_TOLERANCE_PCT of the prediction nor as
 * no gain. */
static int by_interval_alone(const struct ana_check *c)
{
	return c->outcome == CHECK_CONFIRMED && c->predicted_ms > 0 && c->measured_ms > 0 &&
	       100 * fabs(c->measured_ms / c->predicted_ms - 1) > CHECK_TOLERANCE_PCT &&
	       !by_no_gain(c) && c->pred_lo_ms >= 0 && c->pred_lo_ms <= c->measured_ms &&
	       c->measured_ms <= c->pred_hi_ms &&
	       !(c->pred_lo_ms <= c->parent_median_ms && c->parent_median_ms <= c->pred_hi_ms);
}

/* The note on a check confirmed by its predicted interval alone; a wide one (over
 * CHECK_WIDE_PCT of the prediction) said to say little. */
static void interval_alone_note(struct strbuf *md, const char *scenario, const struct ana_check *d,
				const char *stat)
{
	double width = 100 * (d->pred_hi_ms - d->pred_lo_ms) / d->predicted_ms;
	strbuf_addf(md, PROSE_CHECK_CONFIRMED_PREDICTED_INTERVAL, scenario, d->pred_lo_ms,
		    d->pred_hi_ms, stat, 100 * fabs(d->measured_ms / d->predicted_ms - 1));
	if (width > CHECK_WIDE_PCT)
		strbuf_addf(md, PROSE_CHECK_INTERVAL_WIDE, width);
	strbuf_adds(md, ".\n");
}

/* The notes on a changed batch: the variant's times per the parent's batch, or why a batch
 * prediction is not checked. */
static void batch_notes(struct strbuf *md, const struct ana_check *c)
{
	if (c->variant_batch)
		strbuf_addf(
			md,
			PROSE_CHECK_KNOB_CHANGED_GLOBAL,
			c->scenario, c->parent_batch, c->variant_batch,
			c->variant_batch == 1 ? "" : "s", c->parent_batch, c->parent_batch,
			c->variant_batch, c->own_median_ms);
	if (c->batch_not_predicted && c->parent_batch > 0 && c->variant_global > 0)
		strbuf_addf(
			md,
			PROSE_CHECK_PREDICTION_WAS_BATCH,
			c->scenario, c->variant_global, c->parent_batch,
			(double) c->variant_global / (double) c->parent_batch);
	else if (c->batch_not_predicted && c->parent_batch > 0)
		strbuf_addf(
			md,
			PROSE_CHECK_PREDICTION_WAS_BATCH_B,
			c->scenario);
	else if (c->batch_not_predicted)
		strbuf_addf(
			md,
			PROSE_CHECK_PREDICTION_WAS_BATCH_C,
			c->scenario);
}

/* Steps not alike on either side: the medians leave periodic slow steps out, so the change
 * in time per sample over the run is the means'; both said. */
static void unalike_note(struct strbuf *md, const struct ana_check *c)
{
	double pm = c->parent_median_ms;
	if (c->outcome == CHECK_UNMEASURED || pm <= 0 || c->measured_ms <= 0 ||
	    c->parent_mean_ms <= 0 || c->measured_mean_ms <= 0 ||
	    !(c->by_means || stats_unalike(pm, c->parent_mean_ms) ||
	      stats_unalike(c->measured_ms, c->measured_mean_ms)))
		return;
	double by_mean = c->parent_mean_ms / c->measured_mean_ms, by_med = pm / c->measured_ms;
	if (c->by_means)
		strbuf_addf(md, PROSE_CHECK_UNALIKE_BY_MEANS, c->scenario, c->measured_ms,
			    c->measured_mean_ms, pm, c->parent_mean_ms, c->predicted_ms,
			    c->pred_mean_ms, by_mean >= 1 ? by_mean : 1 / by_mean,
			    by_mean >= 1 ? "faster" : "slower", by_med >= 1 ? by_med : 1 / by_med,
			    by_med >= 1 ? "faster" : "slower");
	else
		strbuf_addf(
			md,
			PROSE_CHECK_UNALIKE,
			c->scenario, c->measured_ms, c->measured_mean_ms, pm, c->parent_mean_ms,
			by_mean >= 1 ? by_mean : 1 / by_mean, by_mean >= 1 ? "faster" : "slower",
			by_med >= 1 ? by_med : 1 / by_med, by_med >= 1 ? "faster" : "slower");
	if (c->against_control)
		strbuf_addf(md, PROSE_CHECK_UNALIKE_CONTROL, c->scenario, c->own_median_ms);
}

/* Of v's scenarios the knob changed without a prediction (side_changed), the one that moved
 * most, as decided; NULL: none. */
static const struct ana_check *side_moved_most(const struct ana_variant *v, struct ana_check *out)
{
	const struct ana_check *most = NULL;
	for (size_t i = 0; i < v->n; i++) {
		if (!check_side_changed(&v->checks[i]))
			continue;
		struct ana_check c = check_as_decided(&v->checks[i]);
		if (!most || fabs(log(c.measured_ms / c.parent_median_ms)) >
				     fabs(log(out->measured_ms / out->parent_median_ms)))
			*out = c, most = &v->checks[i];
	}
	return most;
}

/* A check confirmed as no gain alone (by_no_gain, d as decided): said with its figure's error,
 * and with the scenario the knob moved most without a prediction, where one moved: a side
 * effect or the drift between two runs, which a no-gain confirmation is no stronger than. */
static void no_gain_note(struct strbuf *md, const char *scenario, const struct ana_check *d,
			 const struct ana_variant *v)
{
	if (!by_no_gain(d))
		return;
	char what[80];
	snprintf(what, sizeof what, "%+.1f %%, %s",
		 100 * (d->predicted_ms / d->parent_median_ms - 1),
		 d->predicted_ms > d->parent_median_ms
			 ? "a slower step"
			 : "under the 2 % that counts as a gain");
	strbuf_addf(md, PROSE_CHECK_CONFIRMED_NO_GAIN, scenario, d->predicted_ms,
		    d->parent_median_ms, what);
	prediction_check_change_write(md, d->parent_median_ms, d->measured_ms, d->lo_ms,
				      d->hi_ms, 0);
	strbuf_addf(md, PROSE_CHECK_CONFIRMED_NO_GAIN_B,
		    100 * (d->measured_ms / d->predicted_ms - 1));
	struct ana_check side;
	if (side_moved_most(v, &side))
		strbuf_addf(md, PROSE_CHECK_NO_GAIN_BESIDE_SIDE, side.scenario,
			    side.parent_median_ms, side.measured_ms,
			    100 * (side.measured_ms / side.parent_median_ms - 1));
	strbuf_addch(md, '\n');
}

/* Set against a control, a check whose outcome the correction changed (confirmed one way
 * and not the other): what it would be against the parent as it ran. */
static void uncorrected_note(struct strbuf *md, const struct ana_check *c)
{
	struct ana_check d = check_as_decided(c);
	int was = c->uncorrected_outcome;
	if (c->outcome != CHECK_DRIFT || was < 0 || c->control_outcome < 0 || d.predicted_ms <= 0)
		return;
	strbuf_addf(md, PROSE_CHECK_UNCORRECTED, c->scenario,
		    check_outcome_name((enum check_outcome)c->control_outcome), d.measured_ms,
		    100 * (d.measured_ms / d.predicted_ms - 1),
		    check_outcome_name((enum check_outcome)was), c->uncorrected_ms,
		    100 * (c->uncorrected_ms / d.predicted_ms - 1));
}

/* What a reader must know of check c beside its row: a changed batch, the load, a miss,
 * a confirmation by a wide interval alone, a wide measured interval. */
static void check_notes(struct strbuf *md, const struct ana_check *c, const struct ana_variant *v)
{
	if (c->side)
		return;
	batch_notes(md, c);
	uncorrected_note(md, c);
	if (c->estimator_differs)
		strbuf_addf(
			md,
			PROSE_CHECK_STEPS_ARE_TIMED,
			c->scenario,
			c->parent_periods ? "the slowest rank's steps" : "collective periods",
			c->parent_periods ? "collective periods" : "the slowest rank's steps");
	if (c->outcome == CHECK_CONTAMINATED)
		strbuf_addf(
			md,
			"- **%s**: not checked: it was measured beside other load (its section says whose); run `campaign try` again on a quiet machine.\n",
			c->scenario);
	if (c->outcome == CHECK_FEW_STEPS)
		strbuf_addf(
			md,
			PROSE_CHECK_FEW_STEPS,
			c->scenario, STATS_BOOTSTRAP_MIN_N, c->n_parent, c->n_variant,
			CHECK_TOLERANCE_PCT);
	if (c->load_unknown && c->outcome != CHECK_UNMEASURED)
		strbuf_addf(
			md,
			"- **%s**: whether it was measured alone is not known: no node monitor recorded the load of other processes (`profile.monitor: true` does).\n",
			c->scenario);
	struct ana_check d = check_as_decided(c); /* the numbers its row shows */
	const char *stat = c->by_means ? "mean" : "median";
	if (c->missed) {
		strbuf_addf(md, "- **%s**: ", c->scenario);
		prediction_check_miss_write(md, &d);
		strbuf_addch(md, '\n');
	}
	if (by_interval_alone(&d))
		interval_alone_note(md, c->scenario, &d, stat);
	if (d.basis_bound && d.predicted_ms > 0 && d.measured_ms > 0) /* how to read a bound */
		strbuf_addf(md, PROSE_CHECK_BOUND_NOTE, c->scenario, stat, d.measured_ms,
			    d.predicted_ms, 100 * (d.measured_ms / d.predicted_ms - 1));
	no_gain_note(md, c->scenario, &d, v);
	if (by_tolerance_alone(&d))
		strbuf_addf(md, PROSE_CHECK_PARENT_WITHIN_TOLERANCE, c->scenario,
			    CHECK_TOLERANCE_PCT, d.parent_median_ms, CHECK_TOLERANCE_PCT,
			    d.predicted_ms, 100 * (d.predicted_ms / d.parent_median_ms - 1));
	unalike_note(md, c);
	if (c->outcome != CHECK_UNMEASURED && d.measured_ms > 0 &&
	    d.hi_ms - d.lo_ms > CHECK_WIDE_PCT / 100 * d.measured_ms)
		strbuf_addf(
			md,
			"- **%s**: the interval is wide (%.0f %% of the measured %s): its steps vary much, and an outcome inside it says little; more active steps narrow it.\n",
			c->scenario, 100 * (d.hi_ms - d.lo_ms) / d.measured_ms, stat);
}

/* How many of v's predictions were checked (confirmed, or not: better, worse, within noise)
 * and confirmed, of them as no gain, and how many too few steps could tell. */
struct tally {
	int checked, confirmed, no_gain, few, drift;
};

static struct tally tally_of(const struct ana_variant *v)
{
	struct tally t = { 0 };
	for (size_t i = 0; i < v->n; i++) {
		if (v->checks[i].side)
			continue;
		struct ana_check c = check_as_decided(&v->checks[i]);
		t.checked += c.outcome == CHECK_CONFIRMED || c.outcome == CHECK_NOISE ||
			     c.outcome == CHECK_BETTER || c.outcome == CHECK_WORSE;
		t.confirmed += c.outcome == CHECK_CONFIRMED;
		t.no_gain += by_no_gain(&c);
		t.few += c.outcome == CHECK_FEW_STEPS;
		t.drift += c.outcome == CHECK_DRIFT;
	}
	return t;
}

json_t *prediction_check_tally_json(const struct ana_variant *v)
{
	if (!v->of)
		return json_null();
	struct tally t = tally_of(v);
	return json_pack("{s:i, s:i, s:i, s:i, s:i}", "checked", t.checked, "confirmed",
			 t.confirmed, SK_NO_GAIN, t.no_gain, "few_steps", t.few, "drift", t.drift);
}

void prediction_check_tally_words(struct strbuf *sb, json_t *tally)
{
	int checked = (int) jsonio_num(tally, "checked"),
	    no_gain = (int) jsonio_num(tally, SK_NO_GAIN),
	    few = (int) jsonio_num(tally, "few_steps"), drift = (int) jsonio_num(tally, "drift");
	strbuf_addf(sb, "%d of %d prediction%s confirmed", (int)jsonio_num(tally, "confirmed"),
		    checked, checked == 1 ? "" : "s");
	if (no_gain)
		strbuf_addf(sb, ", %d of them as no gain (the advice held, not its figure)",
			    no_gain);
	if (few)
		strbuf_addf(sb, "; %d more too few steps to tell", few);
	if (drift)
		strbuf_addf(sb, "; %d more undecided: the runs drift", drift);
}

/* The tally in a line, as `campaign try` says it (from summary.json's checked_tally). */
static void tally_said(struct strbuf *md, const struct ana_variant *v)
{
	json_t *t = prediction_check_tally_json(v);
	strbuf_adds(md, "\n");
	prediction_check_tally_words(md, t);
	strbuf_adds(md, ".\n");
	json_decref(t);
}

/* A control run's report: each scenario against the parent, the machine's drift. */
static void control_md(struct strbuf *md, const struct ana_variant *v)
{
	strbuf_addf(md, PROSE_CONTROL_RUN, v->of);
	for (size_t i = 0, k = 0; i < v->n; i++) {
		struct ana_check c = check_as_decided(&v->checks[i]);
		if (c.outcome == CHECK_UNMEASURED || c.parent_median_ms <= 0)
			continue;
		/* as summary.json's side_effects keep them (0.001 ms), which try prints too */
		double p = jsonio_round3(c.parent_median_ms), x = jsonio_round3(c.measured_ms);
		strbuf_addf(md, "%s `%s` %.2f -> %.2f ms (", k++ ? ";" : "", c.scenario, p, x);
		prediction_check_change_write(md, p, x, jsonio_round3(c.lo_ms),
					      jsonio_round3(c.hi_ms), 0);
		strbuf_addf(md, "%s%s)", c.by_means ? ", by the means" : "",
			    c.outcome == CHECK_CONTAMINATED ? ", measured beside other load" : "");
	}
	strbuf_adds(md, ".\n\n");
}

/* The parent's step against the control's (medians, or means as the drift was tested), with
 * the 95 % bootstrap interval of control / parent (prediction_check.c's drift), and whether
 * the check is set against the control. */
static void drift_said(struct strbuf *md, const struct ana_check *c)
{
	double p = c->drift_by_means ? c->parent_mean_ms : c->parent_median_ms,
	       ctl = c->drift_by_means ? c->control_mean_ms : c->control_median_ms;
	strbuf_addf(md, "%.2f -> %.2f ms (", p, ctl);
	prediction_check_change_write(md, p, ctl, c->drift_known ? p * c->drift_lo : -1,
				      c->drift_known ? p * c->drift_hi : -1, 0);
	strbuf_adds(md, c->drift_by_means ? ", the means" : "");
	const char *why = c->against_control ? ": set against it)"
		: c->control_contaminated
		? ": the control measured beside other load, set against the parent as it ran)"
		: c->drift_known
		? ": no measurable drift, set against the parent as it ran)"
		: ": too few steps to tell a drift, set against the parent as it ran)";
	strbuf_adds(md, why);
}

/* Where the checks were set against a control run: which, and its steps against the
 * parent's for the scenarios with a prediction. */
static void against_control_said(struct strbuf *md, const struct ana_variant *v)
{
	if (!v->control && v->control_pending) {
		strbuf_addf(md, PROSE_CHECK_CONTROL_PENDING, v->control_pending,
			    v->control_pending);
		return;
	}
	if (!v->control) {
		strbuf_adds(md, PROSE_CHECK_NO_CONTROL);
		return;
	}
	strbuf_addf(md, PROSE_CHECK_AGAINST_CONTROL, v->control);
	for (size_t i = 0, k = 0; i < v->n; i++) {
		const struct ana_check *c = &v->checks[i];
		if (c->side || !c->n_control || c->parent_median_ms <= 0 || control_ms(c) <= 0)
			continue;
		strbuf_addf(md, "%s `%s` ", k++ ? ";" : "", c->scenario);
		drift_said(md, c);
	}
	strbuf_addf(md, PROSE_CHECK_CONTROL_OWN_REPORT);
}

void prediction_check_md(struct strbuf *md, const struct ana_variant *v)
{
	if (!v->of)
		return;
	if (!strcmp(v->kind, CHECK_CONTROL_KIND)) {
		control_md(md, v);
		return;
	}
	strbuf_addf(
		md,
		PROSE_CHECK_PREDICTED_MEASURED_THIS PROSE_CHECK_TABLE_HEAD,
		v->of, v->kind, v->knob ? v->knob : "", CHECK_TOLERANCE_PCT, CHECK_TOLERANCE_PCT);
	md_rows(md, v);
	tally_said(md, v);
	strbuf_adds(md, "\n");
	against_control_said(md, v);
	for (size_t i = 0; i < v->n; i++)
		check_notes(md, &v->checks[i], v);
	side_effects_said(md, v);
	strbuf_adds(md, "\n");
}
