#include "analyzers/checked.h"

#include "analyzers/advice.h"
#include "analyzers/analysis.h"
#include "analyzers/stats.h"
#include "analyzers/summary_keys.h"
#include "util/jsonio.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const check_share_names[CHECK_SHARES] = { SK_COMPUTE, SK_COMMUNICATION, SK_DATA_LOADING,
						      SK_IO,      SK_PEER_WAIT,     SK_OTHER };

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
	}
	return "?";
}

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

static void decide(struct ana_check *c, const struct ana_scenario *s)
{
	double lo, hi, scale;
	if (!s || !c->n_parent || s->steps.no_steps || !s->steps.active_steps) {
		c->outcome = CHECK_UNMEASURED;
		return;
	}
	double base = median_of(c->parent_steps, c->n_parent);
	double *steps = at_parent_batch(c, s, &scale);
	stats_bootstrap_ratio(c->parent_steps, c->n_parent, steps, s->steps.active_steps,
			      STATS_MEDIAN, STATS_BOOTSTRAP_ROUNDS, STATS_CI_LEVEL, &lo, &hi);
	free(steps);
	c->measured_ms = s->steps.step_med_ms * scale;
	c->lo_ms = base * lo;
	c->hi_ms = base * hi;
	if (c->predicted_ms < 0 || base <= 0) {
		c->outcome = CHECK_UNPREDICTED;
		return;
	}
	double pr = c->predicted_ms / base;
	if ((pr >= lo && pr <= hi) ||
	    100 * fabs(c->measured_ms / c->predicted_ms - 1) <= CHECK_TOLERANCE_PCT)
		c->outcome = CHECK_CONFIRMED;
	else if (lo <= 1 && hi >= 1)
		c->outcome = CHECK_NOISE;
	else
		c->outcome = hi < pr ? CHECK_BETTER : CHECK_WORSE;
}

/* A miss in one sentence: the share the prediction took off, and the share
 * that grew most, in ms per step of each run. */
static char *miss_sentence(const struct ana_check *c, const struct ana_scenario *s,
			   const char *kind)
{
	double pm = c->parent_median_ms, before[CHECK_SHARES], after[CHECK_SHARES];
	for (int k = 0; k < CHECK_SHARES; k++) {
		double p = c->parent_share_pct[k], o = own_pct(s, k);
		if (p < 0 || o < 0 || pm <= 0)
			return strdup("Where the predicted time went cannot be said: the shares of step time of the parent or of the variant are unknown.");
		before[k] = p / 100 * pm;
		after[k] = o / 100 * c->measured_ms;
	}
	int t = target_share(kind), grew = -1;
	for (int k = 0; k < CHECK_SHARES; k++)
		if (k != t && after[k] - before[k] > 0.01 * pm &&
		    (grew < 0 || after[k] - before[k] > after[grew] - before[grew]))
			grew = k;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "Predicted %.2f ms, measured %.2f ms:", c->predicted_ms, c->measured_ms);
	if (t >= 0)
		strbuf_addf(&sb, " %s went from %.2f to %.2f ms per step (the prediction took all of it off)", check_share_names[t], before[t], after[t]);
	if (grew >= 0)
		strbuf_addf(&sb, "%s %s grew from %.2f to %.2f ms per step",
			    t >= 0 ? ", while" : "", check_share_names[grew], before[grew],
			    after[grew]);
	if (t < 0 && grew < 0)
		strbuf_addf(&sb, " no share of the step grew by more than 1 %% of it");
	strbuf_addch(&sb, '.');
	return strbuf_detach(&sb);
}

void checked_run(struct ana_run *run)
{
	struct ana_variant *v = &run->variant;
	for (size_t i = 0; i < v->n; i++) {
		struct ana_check *c = &v->checks[i];
		const struct ana_scenario *s = find(run, c->scenario);
		decide(c, s);
		/* a predicted gain that did not come (slower, or no measurable change) */
		if (c->outcome == CHECK_WORSE || (c->outcome == CHECK_NOISE && c->hi_ms > 0 &&
						  c->predicted_ms < c->lo_ms))
			c->miss = miss_sentence(c, s, v->kind);
	}
}

void checked_free(struct ana_variant *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free(v->checks[i].scenario);
		free(v->checks[i].parent_steps);
		free(v->checks[i].miss);
	}
	free(v->checks);
	free(v->of);
	free(v->kind);
	free(v->knob);
	memset(v, 0, sizeof *v);
}

static json_t *num3(double v, int known)
{
	return known ? jsonio_real3(v) : json_null();
}

json_t *checked_json(const struct ana_variant *v)
{
	json_t *a = json_array();
	for (size_t i = 0; i < v->n; i++) {
		const struct ana_check *c = &v->checks[i];
		int m = c->outcome != CHECK_UNMEASURED;
		json_array_append_new(
			a,
			json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:o}", SK_SCENARIO,
				  c->scenario, SK_KIND, v->kind, SK_PARENT_STEP_MS,
				  num3(c->parent_median_ms, c->parent_median_ms > 0),
				  SK_PREDICTED_STEP_MS, num3(c->predicted_ms, c->predicted_ms >= 0),
				  SK_MEASURED_STEP_MS, num3(c->measured_ms, m), SK_CI_LOW,
				  num3(c->lo_ms, m), SK_CI_HIGH, num3(c->hi_ms, m), SK_OUTCOME,
				  check_outcome_name(c->outcome), SK_MISS,
				  c->miss ? json_string(c->miss) : json_null(), "variant_batch",
				  c->variant_batch ? json_integer(c->variant_batch) : json_null()));
	}
	return a;
}

static void md_ms(struct strbuf *md, double v, int known)
{
	if (known)
		strbuf_addf(md, " %.2f |", v);
	else
		strbuf_adds(md, " n/a |");
}

void checked_md(struct strbuf *md, const struct ana_variant *v)
{
	if (!v->of)
		return;
	strbuf_addf(md, "## Predicted and measured\n\nThis run is a variant of run `%s` made by `campaign try`: the knob for its %s recommendations (`%s`) applied to every scenario. Each prediction (a ceiling: the cause's share taken off the parent's median step) against the measured median, with the 95 %% bootstrap interval of variant / parent (2000 resamples of both runs' steps) in ms; confirmed when the prediction lies in the interval or within %.0f %% of the measured median, within noise when the interval holds no change.\n\n"
		    "| Scenario | Parent (ms) | Predicted (ms) | Measured (ms) | 95 %% CI (ms) | Outcome |\n|---|---:|---:|---:|---|---|\n",
		    v->of, v->kind, v->knob ? v->knob : "", CHECK_TOLERANCE_PCT);
	for (size_t i = 0; i < v->n; i++) {
		const struct ana_check *c = &v->checks[i];
		int m = c->outcome != CHECK_UNMEASURED;
		strbuf_addf(md, "| %s |", c->scenario);
		md_ms(md, c->parent_median_ms, c->parent_median_ms > 0);
		md_ms(md, c->predicted_ms, c->predicted_ms >= 0);
		md_ms(md, c->measured_ms, m);
		if (m)
			strbuf_addf(md, " %.2f to %.2f |", c->lo_ms, c->hi_ms);
		else
			strbuf_adds(md, " n/a |");
		strbuf_addf(md, " %s |\n", check_outcome_name(c->outcome));
	}
	strbuf_adds(md, "\n");
	for (size_t i = 0; i < v->n; i++) {
		const struct ana_check *c = &v->checks[i];
		if (c->variant_batch)
			strbuf_addf(md,
				    "- **%s**: the knob changed the global batch from %ld to %ld sample%s: measured times are the variant's steps x %ld/%ld (the time of the parent's batch).\n",
				    c->scenario, c->parent_batch, c->variant_batch,
				    c->variant_batch == 1 ? "" : "s", c->parent_batch,
				    c->variant_batch);
		if (c->miss)
			strbuf_addf(md, "- **%s**: %s\n", c->scenario, c->miss);
		if (c->outcome != CHECK_UNMEASURED && c->measured_ms > 0 &&
		    c->hi_ms - c->lo_ms > CHECK_WIDE_PCT / 100 * c->measured_ms)
			strbuf_addf(md, "- **%s**: the interval is wide (%.0f %% of the measured median): its steps vary much, and an outcome inside it says little; more active steps narrow it.\n", c->scenario,
				    100 * (c->hi_ms - c->lo_ms) / c->measured_ms);
	}
	strbuf_adds(md, "\n");
}
