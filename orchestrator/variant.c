#include "variant.h"

#include "analyzers/checked.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "util/run_layout.h"

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
	return o;
}

static void add_predictions(json_t *out, json_t *rec)
{
	size_t i;
	json_t *name;
	json_array_foreach(json_object_get(rec, "scenarios"), i, name) {
		json_t *step = json_array_get(json_object_get(rec, "step_ms"), i),
		       *pred = json_array_get(json_object_get(rec, "predicted_step_ms"), i);
		json_array_append_new(out,
				      json_pack("{s:O, s:O, s:O}", "scenario", name, "step_ms",
						step ? step : json_null(), "predicted_step_ms",
						pred ? pred : json_null()));
	}
}

int variant_plan_of(json_t *summary, const char *kind, struct variant_plan *out)
{
	size_t i;
	json_t *rec;
	memset(out, 0, sizeof *out);
	json_array_foreach(json_object_get(summary, "recommendations"), i, rec) {
		if (strcmp(jsonio_str(rec, "kind"), kind))
			continue;
		if (!out->kind) {
			out->kind = xstrdup(kind);
			out->text = xstrdup(jsonio_str(rec, "text"));
			out->predictions = json_array();
		}
		add_predictions(out->predictions, rec);
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
	json_array_foreach(json_object_get(summary, "recommendations"), i, rec)
		if (!argv_has(out, jsonio_str(rec, "kind")))
			argv_push(out, jsonio_str(rec, "kind"));
}

void variant_campaign_text(const char *parent_text, const char *parent_id, const struct knob *k,
			   struct strbuf *out)
{
	json_t *v = knob_json(k);
	json_object_set_new(v, "of", json_string(parent_id));
	json_object_set_new(v, "kind", json_string(k->kind));
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

int variant_write(const char *child_dir, const char *parent_id, const char *parent_dir,
		  const struct knob *k, const struct variant_plan *p)
{
	json_t *v = json_pack("{s:s, s:s, s:s, s:o, s:s, s:O}", "parent_run", parent_id,
			      "parent_dir", parent_dir, "kind", k->kind, "knob", knob_json(k),
			      "recommendation", p->text, "predictions", p->predictions);
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

/* The parent's step times, shares and median of scenario name into c. */
static void parent_side(json_t *summary, const char *name, struct ana_check *c)
{
	size_t i;
	json_t *s, *found = NULL, *t;
	json_array_foreach(json_object_get(summary, "scenarios"), i, s)
		if (!strcmp(jsonio_str(s, "name"), name))
			found = s;
	json_t *times = json_object_get(found, "step_times_ms");
	c->parent_steps = xcalloc(json_array_size(times) + 1, sizeof *c->parent_steps);
	json_array_foreach(times, i, t)
		c->parent_steps[c->n_parent++] = json_number_value(t);
	c->parent_median_ms = jsonio_num(found, "step_time_ms.median");
	json_t *gb = json_object_get(found, "global_batch");
	c->parent_batch = json_is_integer(gb) ? (long)json_integer_value(gb) : 0;
	json_t *sh = json_object_get(found, "shares_pct");
	for (int k = 0; k < CHECK_SHARES; k++) {
		json_t *v = json_object_get(sh, check_share_names[k]);
		c->parent_share_pct[k] = json_is_number(v) ? json_number_value(v) : -1;
	}
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
	out->kind = xstrdup(jsonio_str(v, "kind"));
	out->knob = json_dumps(json_object_get(v, "knob"), JSON_COMPACT | JSON_SORT_KEYS);
	out->checks = xcalloc(json_array_size(preds) + 1, sizeof *out->checks);
	json_array_foreach(preds, i, e) {
		struct ana_check *c = &out->checks[out->n++];
		json_t *pr = json_object_get(e, "predicted_step_ms");
		c->scenario = xstrdup(jsonio_str(e, "scenario"));
		c->predicted_ms = json_is_number(pr) ? json_number_value(pr) : -1;
		parent_side(ps, c->scenario, c);
	}
	json_decref(ps);
	json_decref(v);
	strbuf_free(&p);
	return 0;
}
