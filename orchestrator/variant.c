/* SPDX-License-Identifier: MIT */
#include "variant.h"

#include "analyzers/prediction_check.h"
#include "analyzers/summary_keys.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "util/run_layout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *kv_json(const struct kvlist *l)
{
	json_t *o = json_object();
	for (size_t i = 0; i < l->n; i++)
		json_object_set_new(o, l->items[i].key,
				    l->items[i].value ? json_string(l->items[i].value)
						      : json_pack("{s:b}", "from_env", 1));
	return o;
}

/* The knob as the campaign file writes it (without its kind). */
static json_t *knob_json(const struct knob *k)
{
	json_t *o = json_object();
	if (k->params.n)
		json_object_set_new(o, "params", kv_json(&k->params));
	if (k->env.n)
		json_object_set_new(o, "env", kv_json(&k->env));
	if (k->tasks_per_node)
		json_object_set_new(o, "tasks_per_node", json_integer(k->tasks_per_node));
	if (k->batch_per_rank)
		json_object_set_new(o, "analysis",
				    json_pack("{s:i}", "batch_per_rank", k->batch_per_rank));
	if (k->loader_workers) {
		json_t *l = json_pack("{s:i}", "workers", k->loader_workers);
		if (k->loader_prefetch)
			json_object_set_new(l, "prefetch", json_integer(k->loader_prefetch));
		json_object_set_new(o, "loader", l);
	}
	return o;
}

/* knob with its env as variable names only, for the files that are not private
 * (provenance.json, summary.json, the report and the paper); knob is changed. */
static json_t *knob_public(json_t *knob)
{
	json_t *env = json_object_get(knob, "env"), *v;
	const char *name;
	if (!json_is_object(env))
		return knob;
	json_t *names = json_array();
	json_object_foreach(env, name, v)
		json_array_append_new(names, json_string(name));
	json_object_set_new(knob, "env", names);
	return knob;
}

/* The mean of scenario name's active steps in summary (its step_times_ms), null where it has
 * none: what a check by the means sets a prediction against. */
static json_t *step_mean(json_t *summary, const char *name)
{
	size_t k;
	json_t *t, *v = json_object_get(jsonio_named(json_object_get(summary, SK_SCENARIOS),
						     SK_NAME, name),
					SK_STEP_TIMES_MS);
	double sum = 0;
	json_array_foreach(v, k, t)
		sum += json_number_value(t);
	return json_array_size(v) ? jsonio_real3(sum / (double)json_array_size(v)) : json_null();
}

static void add_predictions(json_t *out, json_t *rec, json_t *summary)
{
	size_t i;
	json_t *name;
	json_array_foreach(json_object_get(rec, SK_SCENARIOS), i, name) {
		json_t *step = json_array_get(json_object_get(rec, SK_STEP_MS), i),
		       *pred = json_array_get(json_object_get(rec, SK_PREDICTED_STEP_MS), i),
		       *iv = json_array_get(json_object_get(rec, SK_PREDICTED_INTERVAL_MS), i),
		       *mean = json_array_get(json_object_get(rec, SK_PREDICTED_MEAN_MS), i),
		       *miv = json_array_get(json_object_get(rec, SK_PREDICTED_MEAN_INTERVAL_MS),
					     i),
		       *basis = json_array_get(json_object_get(rec, SK_PREDICTION_BASIS), i);
		json_array_append_new(
			out, json_pack("{s:O, s:O, s:O, s:O, s:O, s:O, s:O}", SK_SCENARIO, name,
				       SK_STEP_MS, step ? step : json_null(), SK_PREDICTED_STEP_MS,
				       pred ? pred : json_null(), SK_PREDICTED_INTERVAL_MS,
				       iv ? iv : json_null(), SK_PREDICTED_MEAN_MS,
				       mean ? mean : json_null(), SK_PREDICTED_MEAN_INTERVAL_MS,
				       miv ? miv : json_null(), SK_PREDICTION_BASIS,
				       basis ? basis : json_null()));
		json_t *e = json_array_get(out, json_array_size(out) - 1);
		json_object_set_new(e, SK_GAIN_BY_MEANS,
				    json_boolean(json_is_true(json_array_get(
					    json_object_get(rec, SK_GAIN_BY_MEANS), i))));
		json_object_set_new(e, SK_STEP_MEAN_MS,
				    step_mean(summary, json_string_value(name)));
	}
}

int variant_plan_of(json_t *summary, const char *kind, struct variant_plan *out)
{
	size_t i;
	json_t *rec;
	memset(out, 0, sizeof *out);
	json_array_foreach(json_object_get(summary, SK_RECOMMENDATIONS), i, rec) {
		if (strcmp(jsonio_str(rec, SK_KIND), kind))
			continue;
		if (!out->kind) {
			out->kind = xstrdup(kind);
			out->text = xstrdup(jsonio_str(rec, SK_TEXT));
			out->predictions = json_array();
		}
		add_predictions(out->predictions, rec, summary);
	}
	return out->kind ? 0 : ERR_NOTFOUND;
}

void variant_plan_free(struct variant_plan *p)
{
	free(p->kind);
	free(p->text);
	json_decref(p->predictions);
	memset(p, 0, sizeof *p);
}

void variant_kinds(json_t *summary, struct argv *out)
{
	size_t i;
	json_t *rec;
	memset(out, 0, sizeof *out);
	json_array_foreach(json_object_get(summary, SK_RECOMMENDATIONS), i, rec)
		if (!argv_has(out, jsonio_str(rec, SK_KIND)))
			argv_push(out, jsonio_str(rec, SK_KIND));
}

void variant_campaign_text(const char *parent_text, const char *parent_id, const struct knob *k,
			   struct strbuf *out)
{
	json_t *v = knob_json(k);
	json_object_set_new(v, SK_OF, json_string(parent_id));
	json_object_set_new(v, SK_KIND, json_string(k->kind));
	char *flow = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	json_decref(v);
	strbuf_reset(out);
	strbuf_adds(out, parent_text);
	if (out->len && out->buf[out->len - 1] != '\n')
		strbuf_addch(out, '\n');
	strbuf_addf(out, "# campaign try: this run applies the knob for %s recommendations\n"
		    "variant: %s\n", k->kind, flow);
	free(flow);
}

/* What a variant is: its parent, the kind, the knob given (as knob), the recommendation
 * and the predictions; variant.json adds where the parent is. */
static json_t *record_json(const char *parent_id, const struct knob *k, json_t *knob,
			   const struct variant_plan *p)
{
	return json_pack("{s:s, s:s, s:o, s:s, s:O}", "parent_run", parent_id, SK_KIND, k->kind,
			 SK_KNOB, knob, "recommendation", p->text, "predictions", p->predictions);
}

json_t *variant_provenance(const char *parent_id, const struct knob *k,
			   const struct variant_plan *p)
{
	return record_json(parent_id, k, knob_public(knob_json(k)), p);
}

int variant_write(const char *child_dir, const char *parent_id, const char *parent_dir,
		  const struct knob *k, const struct variant_plan *p, const char *control_id,
		  const char *control_dir)
{
	json_t *v = record_json(parent_id, k, knob_json(k), p);
	json_object_set_new(v, "parent_dir", json_string(parent_dir));
	if (control_id && control_dir)
		json_object_set_new(v, SK_CONTROL,
				    json_pack("{s:s, s:s}", "run", control_id, "dir", control_dir));
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "%s/" RUN_VARIANT, child_dir);
	int rc = jsonio_write_mode(path.buf, v, k->env.n ? 0600 : 0644); /* env values: private */
	strbuf_free(&path);
	json_decref(v);
	return rc;
}

json_t *variant_read(const char *run_dir)
{
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "%s/" RUN_VARIANT, run_dir);
	json_t *v = fsio_exists(path.buf) ? json_load_file(path.buf, 0, NULL) : NULL;
	strbuf_free(&path);
	return v;
}

/* A [lo, hi] pair of numbers into *lo, *hi; both -1 when it is not one. */
static void pair_of(json_t *iv, double *lo, double *hi)
{
	json_t *a = json_array_get(iv, 0), *b = json_array_get(iv, 1);
	int ok = json_is_number(a) && json_is_number(b);
	*lo = ok ? json_number_value(a) : -1;
	*hi = ok ? json_number_value(b) : -1;
}

/* The parent's step times, shares and median of scenario name into c. */
static void parent_side(json_t *summary, const char *name, struct ana_check *c)
{
	size_t i;
	json_t *t, *found = jsonio_named(json_object_get(summary, SK_SCENARIOS), SK_NAME, name);
	json_t *times = json_object_get(found, SK_STEP_TIMES_MS);
	c->parent_steps = xcalloc(json_array_size(times) + 1, sizeof *c->parent_steps);
	json_array_foreach(times, i, t)
		c->parent_steps[c->n_parent++] = json_number_value(t);
	c->parent_median_ms = jsonio_num(found, SK_PATH(SK_STEP_TIME_MS, SK_MEDIAN));
	json_t *gb = json_object_get(found, SK_GLOBAL_BATCH);
	c->parent_batch = json_is_integer(gb) ? (long)json_integer_value(gb) : 0;
	const char *est = jsonio_str(found, SK_STEP_ESTIMATOR);
	c->parent_periods = !est ? -1 : !strcmp(est, "collective_period") ? 1 : 0;
	json_t *pc = json_object_get(found, SK_CONTAMINATED_BY);
	c->parent_contaminated = pc && !json_is_null(pc);
	json_t *sh = json_object_get(found, SK_SHARES_PCT);
	for (int k = 0; k < CHECK_SHARES; k++) {
		json_t *v = json_object_get(sh, check_share_names[k]);
		c->parent_share_pct[k] = json_is_number(v) ? json_number_value(v) : -1;
	}
}

/* The control run's step times of scenario name into c (cs: its summary.json; NULL, or the
 * scenario without steps there: none). */
static void control_side(json_t *cs, const char *name, struct ana_check *c)
{
	size_t i;
	json_t *t, *found = jsonio_named(json_object_get(cs, SK_SCENARIOS), SK_NAME, name);
	json_t *times = json_object_get(found, SK_STEP_TIMES_MS);
	if (!json_array_size(times))
		return;
	c->control_steps = xcalloc(json_array_size(times) + 1, sizeof *c->control_steps);
	json_array_foreach(times, i, t)
		c->control_steps[c->n_control++] = json_number_value(t);
	json_t *cc = json_object_get(found, SK_CONTAMINATED_BY);
	c->control_contaminated = cc && !json_is_null(cc);
}

/* The control run variant.json names ({run, dir}), its summary.json: what out's checks are
 * set against (out->control its id); NULL when there is none or it is not analysed yet. */
static json_t *control_summary(json_t *v, struct ana_variant *out)
{
	json_t *ctl = json_object_get(v, SK_CONTROL);
	const char *dir = jsonio_str(ctl, "dir");
	if (!dir || !*dir)
		return NULL;
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" RUN_SUMMARY, dir);
	json_t *cs = json_load_file(p.buf, 0, NULL);
	strbuf_free(&p);
	if (cs)
		out->control = xstrdup(jsonio_str(ctl, "run"));
	else /* (on SLURM the variant's aggregation may run before the control's ends) */
		out->control_pending = xstrdup(jsonio_str(ctl, "run"));
	return cs;
}

/* The parent's other scenarios (none of out's checks yet) as checks of no prediction, their
 * side effects (ana_check.side); those without step times left out. */
static void side_checks(json_t *summary, struct ana_variant *out)
{
	size_t i, n = out->n;
	json_t *s;
	json_array_foreach(json_object_get(summary, SK_SCENARIOS), i, s) {
		const char *name = jsonio_str(s, SK_NAME);
		size_t k = 0;
		while (k < n && strcmp(out->checks[k].scenario, name))
			k++;
		if (k < n || !json_array_size(json_object_get(s, SK_STEP_TIMES_MS)))
			continue;
		struct ana_check *c = &out->checks[out->n++];
		c->scenario = xstrdup(name);
		c->side = 1;
		c->predicted_ms = c->pred_lo_ms = c->pred_hi_ms = -1;
		c->pred_mean_ms = c->pmean_lo_ms = c->pmean_hi_ms = -1;
		parent_side(summary, name, c);
	}
}

/* Whether the predictions the parent's summary gives now (variant_plan_of's, as a variant
 * copies them when made) call scenario's of predicted_ms a bound: a variant made before
 * bounds were marked copied "replay" for one. */
static int now_bound(json_t *now, const char *scenario, double predicted_ms)
{
	size_t i;
	json_t *e;
	json_array_foreach(now, i, e) {
		json_t *p = json_object_get(e, SK_PREDICTED_STEP_MS);
		if (!strcmp(jsonio_str(e, SK_SCENARIO), scenario) &&
		    !strcmp(jsonio_str(e, SK_PREDICTION_BASIS), "bound") && json_is_number(p) &&
		    fabs(json_number_value(p) - predicted_ms) < 0.0005)
			return 1;
	}
	return 0;
}

int variant_checks(const char *run_dir, struct ana_variant *out)
{
	memset(out, 0, sizeof *out);
	json_t *v = variant_read(run_dir);
	if (!v)
		return 0;
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" RUN_SUMMARY, jsonio_str(v, "parent_dir"));
	json_t *ps = json_load_file(p.buf, 0, NULL); /* gone: nothing to measure against */
	json_t *preds = json_object_get(v, "predictions"), *e;
	size_t i;
	out->of = xstrdup(jsonio_str(v, "parent_run"));
	out->kind = xstrdup(jsonio_str(v, SK_KIND));
	struct variant_plan now = { 0 };
	variant_plan_of(ps, out->kind, &now); /* (none: no parent summary or kind) */
	/* summary.json, the report and the paper are not private: env values stay out */
	out->knob = json_dumps(knob_public(json_object_get(v, SK_KNOB)),
			       JSON_COMPACT | JSON_SORT_KEYS);
	out->checks = xcalloc(json_array_size(preds) +
				      json_array_size(json_object_get(ps, SK_SCENARIOS)) + 1,
			      sizeof *out->checks);
	json_array_foreach(preds, i, e) {
		struct ana_check *c = &out->checks[out->n++];
		json_t *pr = json_object_get(e, SK_PREDICTED_STEP_MS);
		c->scenario = xstrdup(jsonio_str(e, SK_SCENARIO));
		c->predicted_ms = json_is_number(pr) ? json_number_value(pr) : -1;
		pair_of(json_object_get(e, SK_PREDICTED_INTERVAL_MS), &c->pred_lo_ms,
			&c->pred_hi_ms);
		/* (a variant made before the basis was recorded: a prediction without an
		 * interval was a ceiling's) */
		const char *basis = json_string_value(json_object_get(e, SK_PREDICTION_BASIS));
		c->by_ceiling = basis ? !strcmp(basis, "ceiling")
				      : c->predicted_ms >= 0 && c->pred_lo_ms < 0;
		c->basis_bound = basis && (!strcmp(basis, "bound") ||
					   (!strcmp(basis, "replay") &&
					    now_bound(now.predictions, c->scenario,
						      c->predicted_ms)));
		json_t *mean = json_object_get(e, SK_PREDICTED_MEAN_MS);
		c->pred_mean_ms = json_is_number(mean) ? json_number_value(mean) : -1;
		pair_of(json_object_get(e, SK_PREDICTED_MEAN_INTERVAL_MS), &c->pmean_lo_ms,
			&c->pmean_hi_ms);
		parent_side(ps, c->scenario, c);
	}
	side_checks(ps, out);
	json_t *cs = control_summary(v, out);
	for (size_t k = 0; cs && k < out->n; k++)
		control_side(cs, out->checks[k].scenario, &out->checks[k]);
	json_decref(cs);
	variant_plan_free(&now);
	json_decref(ps);
	json_decref(v);
	strbuf_free(&p);
	return 0;
}

static json_t *info_from(json_t *o, const char *of_key)
{
	json_t *kind = json_object_get(o, SK_KIND), *knob = json_object_get(o, SK_KNOB);
	json_t *info = json_pack("{s:O, s:O, s:o}", SK_OF, json_object_get(o, of_key), SK_KIND,
				 kind ? kind : json_null(), SK_KNOB,
				 knob ? knob_public(json_deep_copy(knob)) : json_null());
	/* the control run it was set against: summary.json's id, variant.json's {run, dir} */
	json_t *ctl = json_object_get(o, SK_CONTROL);
	const char *id = json_is_string(ctl) ? json_string_value(ctl) : jsonio_str(ctl, "run");
	if (id && *id)
		json_object_set_new(info, SK_CONTROL, json_string(id));
	return info;
}

json_t *variant_info(json_t *sv, const char *dv)
{
	json_t *in = json_object_get(sv, SK_VARIANT);
	if (json_is_string(json_object_get(in, SK_OF)))
		return info_from(in, SK_OF);
	json_t *v = variant_read(dv);
	json_t *out = json_is_string(json_object_get(v, "parent_run"))
		? info_from(v, "parent_run") : NULL;
	json_decref(v);
	return out;
}

static void knob_leaves(json_t *v, const char *path, struct strbuf *out)
{
	const char *key;
	json_t *sub;
	if (json_is_object(v)) {
		json_object_foreach(v, key, sub) {
			struct strbuf p = STRBUF_INIT;
			strbuf_addf(&p, "%s%s%s", path, *path ? "." : "", key);
			knob_leaves(sub, p.buf, out);
			strbuf_free(&p);
		}
		return;
	}
	strbuf_addf(out, "%s%s=", out->len ? ", " : "", path);
	if (json_is_string(v))
		strbuf_adds(out, json_string_value(v));
	else if (json_is_integer(v))
		strbuf_addf(out, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		strbuf_addf(out, "%g", json_real_value(v));
	else
		strbuf_adds(out, json_is_true(v) ? "true" : json_is_false(v) ? "false" : "null");
}

void variant_knob_text(json_t *knob, struct strbuf *out)
{
	strbuf_reset(out);
	if (json_is_object(knob))
		knob_leaves(knob, "", out);
}
