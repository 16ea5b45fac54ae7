/* load_expand: the scenarios as written crossed with the matrix into the campaign's scenarios
 * (names, defaults, the workload's env and params), the fabric probes, and the checks that
 * need the expanded scenarios: safe unique names, nccl's GPUs, placeholders, the baseline.
 * SPDX-License-Identifier: MIT */
#include "load_internal.h"

#include "placeholder.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "orchestrator/campaign/prose.h"

#include <stdlib.h>
#include <string.h>

struct name_ctx {
	struct loader *L;
	const size_t *idx;
	const struct scenario *s;
};

static int name_lookup(void *vctx, const char *name, struct strbuf *out)
{
	struct name_ctx *x = vctx;
	for (size_t a = 0; a < x->L->n_axes; a++) {
		if (!strcmp(x->L->axes[a].key, name)) {
			strbuf_adds(out, x->L->axes[a].values.v[x->idx[a]]);
			return 0;
		}
	}
	return -1;
}

static int apply_axis(struct scenario *o, const char *key, const char *val)
{
	const struct key_spec *k = axis_key(key);
	char *end;
	long v = strtol(val, &end, 10);
	if (!k) {
		kvlist_set(&o->params, key, val);
	} else if (k->type == KEY_INT) {
		if (!*val || *end || v < (long)k->min || v > (long)k->max)
			return -1;
		*(int *)((char *)o + k->off) = (int)v;
	} else { /* the backend */
		char **s = (char **)((char *)o + k->off);
		if (!is_backend(val))
			return -1;
		free(*s);
		*s = xstrdup(val);
	}
	return 0;
}

static void build_one(struct loader *L, const struct scenario *s, const size_t *idx,
		      struct scenario *o, yaml_node_t *mx)
{
	struct campaign *c = L->c;
	o->nodes = s->nodes;
	o->tasks_per_node = s->tasks_per_node;
	o->gpus_per_node = s->gpus_per_node;
	o->batch_per_rank = s->batch_per_rank;
	o->global_batch = s->global_batch;
	o->backend = xstrdup(s->backend);
	o->line = s->line;
	o->col = s->col;
	kvlist_copy(&o->env, &c->workload.env);
	for (size_t i = 0; i < s->env.n; i++)
		kvlist_set(&o->env, s->env.items[i].key, s->env.items[i].value);
	kvlist_copy(&o->params, &c->workload.params);
	for (size_t i = 0; i < s->params.n; i++)
		kvlist_set(&o->params, s->params.items[i].key, s->params.items[i].value);
	struct strbuf name = STRBUF_INIT;
	int templated = strstr(s->name, "{{") != NULL;
	for (size_t a = 0; a < L->n_axes; a++) {
		const char *val = L->axes[a].values.v[idx[a]];
		if (apply_axis(o, L->axes[a].key, val) < 0)
			problem(L, mx, "matrix", "%s: \"%.40s\" is not a valid value",
				L->axes[a].key, val);
		if (!templated)
			strbuf_addf(&name, "%s%s", a ? "-" : "", val);
	}
	if (templated) {
		struct name_ctx nx = { L, idx, s };
		char bad[128];
		if (placeholder_expand(s->name, name_lookup, &nx, &name, bad, sizeof bad) < 0)
			diags_add(L->d, s->line, s->col, "name",
				  "placeholder {{%s}} in a scenario name must be a matrix key",
				  bad);
		o->name = strbuf_detach(&name);
	} else {
		struct strbuf full = STRBUF_INIT;
		strbuf_addf(&full, "%s%s%s", s->name, name.len ? "-" : "", strbuf_str(&name));
		o->name = strbuf_detach(&full);
		strbuf_free(&name);
	}
	if (o->gpus_per_node < 0)
		o->gpus_per_node = !strcmp(o->backend, "nccl") ? o->tasks_per_node : 0;
	o->time = xstrdup(s->time ? s->time : c->slurm.time);
	slurm_time_parse(o->time, &o->time_limit_s);
}

struct check_ctx {
	const struct kvlist *params;
};

static int check_lookup(void *vctx, const char *name, struct strbuf *out)
{
	struct check_ctx *x = vctx;
	(void)out;
	return placeholder_is_builtin(name) || kvlist_get(x->params, name) ? 0 : -1;
}

static void check_words(struct loader *L, const struct argv *w, const struct kvlist *params,
			yaml_node_t *where, const char *path, const char *scen)
{
	struct check_ctx x = { params };
	for (size_t i = 0; i < w->n; i++) {
		struct strbuf sink = STRBUF_INIT;
		char bad[128];
		if (placeholder_expand(w->v[i], check_lookup, &x, &sink, bad, sizeof bad) < 0) {
			if (!strcmp(bad, "{{"))
				problem(L, where, path, "unterminated placeholder in \"%.60s\"",
					w->v[i]);
			else
				problem(L, where, path,
					"unknown placeholder {{%s}} (scenario %s; define it under workload.params)",
					bad, scen);
		}
		strbuf_free(&sink);
	}
}

/* The words a command has in scenario o once each {{param}} word is split into its value's
 * words; the params whose values split into none are listed in empty ("a, b"), counted in
 * *nempty. A value that does not split, or a param not there, counts as a word: that is said
 * apart (check_split_value, check_words). */
static size_t words_in_scenario(const struct argv *w, const struct scenario *o,
				struct strbuf *empty, int *nempty)
{
	size_t n = 0;
	for (size_t i = 0; i < w->n; i++) {
		char name[128];
		const char *val = placeholder_splits(w, i, name, sizeof name)
			? kvlist_get(&o->params, name)
			: NULL;
		struct argv split;
		const char *why;
		if (!val || words_split(val, &split, &why) < 0) {
			n++;
			continue;
		}
		if (split.n == 0)
			strbuf_addf(empty, "%s%s", (*nempty)++ ? ", " : "", name);
		n += split.n;
		argv_free(&split);
	}
	return n;
}

/* A command whose every word is a {{param}} with an empty value runs nothing: refused. */
static void check_not_empty(struct loader *L, const struct argv *w, const struct scenario *o,
			    yaml_node_t *where, const char *path)
{
	struct strbuf empty = STRBUF_INIT;
	int n = 0;
	if (w->n && words_in_scenario(w, o, &empty, &n) == 0)
		problem(L, where, path,
			PROSE_COMMAND_EMPTY,
			o->name, empty.buf, n > 1 ? "are" : "is", n > 1 ? "one of " : "", empty.buf,
			path);
	strbuf_free(&empty);
}

static void check_scenario(struct loader *L, const struct scenario *o, size_t i, yaml_node_t *root)
{
	struct campaign *c = L->c;
	char p[128];
	snprintf(p, sizeof p, "scenarios[%zu].name", i);
	if (!is_safe_name(o->name))
		diags_add(
			L->d, o->line, o->col, p,
			"\"%.64s\" is not a safe scenario name (letters, digits, . _ -; at most 64; not starting with . or -)",
			o->name);
	for (size_t j = 0; j < i; j++)
		if (!strcmp(c->scenarios[j].name, o->name))
			diags_add(L->d, o->line, o->col, p, "duplicate scenario name \"%.64s\"",
				  o->name);
	if (!strncmp(o->name, FABRIC_PROBE_PREFIX, strlen(FABRIC_PROBE_PREFIX)))
		diags_add(
			L->d, o->line, o->col, p,
			"\"%.64s\": names starting with %s are the fabric probes' (analysis.fabric_probe); choose another name",
			o->name, FABRIC_PROBE_PREFIX);
	if (!strcmp(o->backend, "nccl") && o->gpus_per_node == 0)
		diags_add(L->d, o->line, o->col, p, "backend nccl needs gpus_per_node >= 1");
	yaml_node_t *wl = map_get(L, root, "workload");
	check_words(L, &c->workload.command, &o->params, map_get(L, wl, "command"),
		    "workload.command", o->name);
	check_not_empty(L, &c->workload.command, o, map_get(L, wl, "command"), "workload.command");
	for (size_t k = 0; k < c->workload.n_setup; k++)
		check_words(L, &c->workload.setup[k], &o->params, map_get(L, wl, "setup"),
			    "workload.setup", o->name);
	struct argv vals = { 0 };
	for (size_t k = 0; k < o->env.n; k++)
		if (o->env.items[k].value)
			argv_push(&vals, o->env.items[k].value);
	check_words(L, &vals, &o->params, map_get(L, wl, "env") ? map_get(L, wl, "env") : root,
		    "env", o->name);
	argv_free(&vals);
}

/* Whether a command or setup word is exactly {{name}}, which splits into its value's words. */
static int splits_param(const struct campaign *c, const char *name)
{
	char n[128];
	for (size_t i = 0; i < c->workload.command.n; i++)
		if (placeholder_splits(&c->workload.command, i, n, sizeof n) && !strcmp(n, name))
			return 1;
	for (size_t k = 0; k < c->workload.n_setup; k++)
		for (size_t i = 0; i < c->workload.setup[k].n; i++)
			if (placeholder_splits(&c->workload.setup[k], i, n, sizeof n) &&
			    !strcmp(n, name))
				return 1;
	return 0;
}

static void check_split_value(struct loader *L, yaml_node_t *v, const char *path,
			      const char *name)
{
	struct argv w;
	const char *why;
	if (!v || v->type != YAML_SCALAR_NODE || !splits_param(L->c, name))
		return;
	if (words_split((const char *)v->data.scalar.value, &w, &why) < 0)
		problem(L, v, path,
			"%s (the command word {{%s}} becomes this value's words, split as a shell would: close the quote, or escape a quote character as \\')",
			why, name);
	else
		argv_free(&w);
}

static void check_split_params(struct loader *L, yaml_node_t *params, const char *path)
{
	if (!params || params->type != YAML_MAPPING_NODE)
		return;
	for (yaml_node_pair_t *p = params->data.mapping.pairs.start;
	     p < params->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node_at(L, p->key);
		char kp[512];
		if (k->type != YAML_SCALAR_NODE)
			continue;
		subpath(kp, sizeof kp, path, (const char *)k->data.scalar.value);
		check_split_value(L, node_at(L, p->value), kp, (const char *)k->data.scalar.value);
	}
}

/* A matrix key that is a param: each of its values. */
static void check_split_axis(struct loader *L, yaml_node_t *k, yaml_node_t *v)
{
	char p[512];
	if (k->type != YAML_SCALAR_NODE || v->type != YAML_SEQUENCE_NODE ||
	    axis_key((const char *)k->data.scalar.value))
		return;
	for (size_t i = 0; v->data.sequence.items.start + i < v->data.sequence.items.top; i++) {
		snprintf(p, sizeof p, "matrix.%.400s[%zu]", k->data.scalar.value, i);
		check_split_value(L, node_at(L, v->data.sequence.items.start[i]), p,
				  (const char *)k->data.scalar.value);
	}
}

/* A param value that a command word splits into words must split: an unterminated quote
 * is refused where the value is written (workload, a scenario, the matrix, a knob, the
 * variant), as every other problem, not when a job is rendered. */
static void check_split_values(struct loader *L, yaml_node_t *root)
{
	char p[512];
	yaml_node_t *sc = map_get(L, root, "scenarios"), *mx = map_get(L, root, "matrix");
	yaml_node_t *kn = map_get(L, root, "knobs");
	check_split_params(L, map_get(L, map_get(L, root, "workload"), "params"),
			   "workload.params");
	if (sc && sc->type == YAML_SEQUENCE_NODE)
		for (yaml_node_item_t *it = sc->data.sequence.items.start;
		     it < sc->data.sequence.items.top; it++) {
			snprintf(p, sizeof p, "scenarios[%zu].params",
				 (size_t)(it - sc->data.sequence.items.start));
			check_split_params(L, map_get(L, node_at(L, *it), "params"), p);
		}
	if (mx && mx->type == YAML_MAPPING_NODE)
		for (yaml_node_pair_t *a = mx->data.mapping.pairs.start;
		     a < mx->data.mapping.pairs.top; a++)
			check_split_axis(L, node_at(L, a->key), node_at(L, a->value));
	if (kn && kn->type == YAML_MAPPING_NODE)
		for (yaml_node_pair_t *a = kn->data.mapping.pairs.start;
		     a < kn->data.mapping.pairs.top; a++) {
			yaml_node_t *k = node_at(L, a->key);
			if (k->type != YAML_SCALAR_NODE)
				continue;
			snprintf(p, sizeof p, "knobs.%.400s.params", k->data.scalar.value);
			check_split_params(L, map_get(L, node_at(L, a->value), "params"), p);
		}
	check_split_params(L, map_get(L, map_get(L, root, "variant"), "params"), "variant.params");
}

static void default_command(struct campaign *c)
{
	const char *w[] = { "{{trainer}}",      "--backend", "{{backend}}", "--warmup-steps",
			    "{{warmup_steps}}", "--steps",   "{{steps}}",   "--metrics-dir",
			    "{{metrics_dir}}",  NULL };
	for (int i = 0; w[i]; i++)
		argv_push(&c->workload.command, w[i]);
}

/* One fabric probe per node count and backend of the training scenarios
 * (analysis.fabric_probe): the reference trainer's all-reduce over sizes on
 * as many ranks per node as the widest of them, with its env and time. */
static void add_probes(struct campaign *c)
{
	size_t n = c->n_scenarios;
	for (size_t i = 0; i < n; i++) {
		const struct scenario *s = &c->scenarios[i];
		char name[96];
		snprintf(name, sizeof name, FABRIC_PROBE_PREFIX "%s-%dn", s->backend, s->nodes);
		struct scenario *p = (struct scenario *)campaign_find(c, name);
		if (p) {
			if (s->tasks_per_node > p->tasks_per_node)
				p->tasks_per_node = s->tasks_per_node,
				p->gpus_per_node = s->gpus_per_node;
			continue;
		}
		c->scenarios = xrealloc(c->scenarios, (c->n_scenarios + 1) * sizeof *c->scenarios);
		s = &c->scenarios[i];
		p = &c->scenarios[c->n_scenarios++];
		memset(p, 0, sizeof *p);
		p->name = xstrdup(name);
		p->nodes = s->nodes, p->tasks_per_node = s->tasks_per_node,
		p->gpus_per_node = s->gpus_per_node;
		p->backend = xstrdup(s->backend);
		p->time = xstrdup("00:10:00");
		slurm_time_parse(p->time, &p->time_limit_s);
		kvlist_copy(&p->env, &s->env);
		kvlist_copy(&p->params, &s->params);
		p->line = s->line, p->col = s->col;
		p->probe = 1;
		const char *w[] = {
			"{{trainer}}",   "--backend",       "{{backend}}", "--fabric-probe",
			"--metrics-dir", "{{metrics_dir}}", NULL
		};
		for (int k = 0; w[k]; k++)
			argv_push(&p->command, w[k]);
	}
}

void campaign_expand(struct loader *L, yaml_node_t *root)
{
	struct campaign *c = L->c;
	struct scenario *raw = L->raw;
	size_t n_raw = L->n_raw;
	yaml_node_t *mx = map_get(L, root, "matrix");
	size_t combos = 1;
	for (size_t a = 0; a < L->n_axes; a++) {
		combos *= L->axes[a].values.n;
		if (combos * n_raw > CAMPAIGN_MAX_SCENARIOS) {
			problem(L, mx, "matrix", "expands to more than %d scenarios",
				CAMPAIGN_MAX_SCENARIOS);
			return;
		}
	}
	if (c->workload.command.n == 0)
		default_command(c);
	c->scenarios = xcalloc(n_raw * combos, sizeof *c->scenarios);
	size_t *idx = xcalloc(L->n_axes + 1, sizeof *idx);
	for (size_t r = 0; r < n_raw; r++) {
		for (size_t k = 0; k < combos; k++) {
			size_t rem = k;
			for (size_t a = L->n_axes; a-- > 0;) {
				idx[a] = rem % L->axes[a].values.n;
				rem /= L->axes[a].values.n;
			}
			struct scenario *o = &c->scenarios[c->n_scenarios];
			build_one(L, &raw[r], idx, o, mx);
			check_scenario(L, o, c->n_scenarios, root);
			c->n_scenarios++;
		}
	}
	free(idx);
	check_split_values(L, root);
	if (c->analysis.fabric_probe)
		add_probes(c);
	yaml_node_t *an = map_get(L, root, "analysis");
	if (c->analysis.baseline && !campaign_find(c, c->analysis.baseline))
		problem(L, map_get(L, an, "baseline"), "analysis.baseline",
			"no scenario is named \"%.64s\"", c->analysis.baseline);
}
