/* load_knobs: the knobs (a change per kind of recommendation, for `campaign try`) and the
 * variant a try writes, their tables and loaders, and their checks against the expanded
 * scenarios. What a knob changes and applying it are knob.c's.
 * SPDX-License-Identifier: MIT */
#include "load_internal.h"

#include "analyzers/advice.h"
#include "analyzers/prediction_check.h"
#include "util/strbuf.h"
#include "orchestrator/campaign/prose.h"

#include <string.h>

/* Whether kind is one the analysis emits; all: the list of them. */
static int is_rec_kind(const char *kind, struct strbuf *all)
{
	rec_kind_list(all, "");
	for (int k = 0; k < REC_KIND_N; k++)
		if (!strcmp(rec_kind_name((enum rec_kind)k), kind))
			return 1;
	return 0;
}

static const struct key_spec knob_analysis_keys[] = {
	{ "batch_per_rank", KEY_INT, 1, BOUND_BATCH_PER_RANK, 0, AT_K(batch_per_rank),
	  .doc = { NULL, "unchanged", "`analysis.batch_per_rank` of every scenario" } },
	KEYS_END
};

static const struct key_spec knob_loader_keys[] = {
	{ "workers", KEY_INT, 1, 256, 0, AT_K(loader_workers), /* the replay's most */
	  .need = "missing key 'workers' (the DataLoader's num_workers the change sets)",
	  .doc = { NULL, "required", "the DataLoader's `num_workers` with the change" } },
	{ "prefetch", KEY_INT, 1, 16, 0, AT_K(loader_prefetch), /* 256 x 16: BOUND_LOADER */
	  .doc = { NULL, "2", "its `prefetch_factor`: batches each worker keeps in flight" } },
	KEYS_END
};

/* The change itself, set in every scenario. */
const struct key_spec knob_keys[] = {
	{ "params", KEY_LOAD, .off = AT_K(params), .load = load_params,
	  .doc = { "map", "none",
		   "parameter values; each must be a parameter some scenario has" } },
	{ "env", KEY_LOAD, .off = AT_K(env), .load = load_env,
	  .doc = { "map", "none", "environment values, as `workload.env` takes them" } },
	{ "tasks_per_node", KEY_INT, 1, CAMPAIGN_MAX_TASKS_PER_NODE, 0, AT_K(tasks_per_node),
	  .doc = { NULL, "unchanged", "ranks per node" } },
	{ "analysis", KEY_MAP, .sub = knob_analysis_keys },
	{ "loader", KEY_MAP, .sub = knob_loader_keys,
	  .doc = { "map", "none",
		   PROSE_KEY_KNOB_LOADER } },
	KEYS_END
};

/* Mapping n (its keys checked) of knob k at path: its change read; a control's (none: 1)
 * must have none, any other knob one. */
static void knob_change(struct loader *L, yaml_node_t *n, const char *path, struct knob *k,
			int none)
{
	k->line = (int)n->start_mark.line + 1;
	k->col = (int)n->start_mark.column + 1;
	size_t before = L->d->n;
	keys_load(L, n, path, knob_keys, k);
	int changes = k->params.n || k->env.n || k->tasks_per_node || k->batch_per_rank ||
		      k->loader_workers;
	/* a change given but refused (said) is not a knob without one */
	if (L->d->n == before && !none && !changes)
		problem(L, n, path,
			"a knob needs a change: params, env, tasks_per_node or analysis.batch_per_rank");
	else if (L->d->n == before && none && changes)
		problem(L, n, path,
			"a control run (kind %s) changes nothing: no params, env, tasks_per_node, analysis or loader",
			CHECK_CONTROL_KIND);
}

/* Mapping n of knob k at path: its keys among allowed's, its change read. */
static void load_knob_body(struct loader *L, yaml_node_t *n, const char *path,
			   const struct key_spec *allowed, struct knob *k)
{
	if (keys_check(L, n, path, allowed) == 0)
		knob_change(L, n, path, k, 0);
}

void load_knobs(struct loader *L, yaml_node_t *n, const char *path, void *at)
{
	struct campaign *c = L->c;
	(void)at;
	if (map_check(L, n, path, NULL) < 0)
		return;
	size_t np = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	c->knobs = xcalloc(np + 1, sizeof *c->knobs);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = node_at(L, p->key);
		if (k->type != YAML_SCALAR_NODE)
			continue;
		const char *kind = (const char *)k->data.scalar.value;
		char kp[512];
		struct strbuf all = STRBUF_INIT;
		subpath(kp, sizeof kp, path, kind);
		if (!is_rec_kind(kind, &all))
			problem(L, k, kp,
				"'%.64s' is not a kind of recommendation (the analysis emits: %s)",
				kind, strbuf_str(&all));
		strbuf_free(&all);
		struct knob *kb = &c->knobs[c->n_knobs++];
		kb->kind = xstrdup(kind);
		load_knob_body(L, node_at(L, p->value), kp, knob_keys, kb);
	}
}

static void load_variant_kind(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	char **kind = at;
	struct strbuf all = STRBUF_INIT;
	if (as_string(L, v, path, kind) == 0 && !is_rec_kind(*kind, &all) &&
	    strcmp(*kind, CHECK_CONTROL_KIND))
		problem(L, v, path,
			"'%.64s' is not a kind of recommendation (the analysis emits: %s), nor %s",
			*kind, strbuf_str(&all), CHECK_CONTROL_KIND);
	strbuf_free(&all);
}

const struct key_spec variant_keys[] = {
	{ "of", KEY_STRING, .off = AT(variant_of),
	  .doc = { "run id", NULL, "the run it varies" } },
	{ "kind", KEY_LOAD, .off = AT(variant.kind), .load = load_variant_kind,
	  .need = "missing key 'kind' (the recommendation it acts on)",
	  .doc = { "recommendation kind", NULL, "the kind of the recommendation it acts on" } },
	{ "<change>", KEY_ALSO, .sub = knob_keys },
	KEYS_END
};

/* variant's change (its keys checked as the section's), read as a knob's into c->variant. */
void load_variant_change(struct loader *L, yaml_node_t *n, const char *path, void *base)
{
	struct campaign *c = base;
	knob_change(L, n, path, &c->variant,
		    c->variant.kind && !strcmp(c->variant.kind, CHECK_CONTROL_KIND));
}


/* After expansion: every knob's params are the campaign's, and change something. */
static void check_knob(struct loader *L, const struct knob *k, yaml_node_t *n, const char *path)
{
	const struct campaign *c = L->c;
	for (size_t j = 0; j < k->params.n; j++) {
		int known = 0;
		for (size_t i = 0; i < c->n_scenarios && !known; i++)
			known = kvlist_get(&c->scenarios[i].params, k->params.items[j].key) != NULL;
		if (!known)
			problem(L, n, path,
				"no scenario has a parameter '%s' (a knob changes the campaign's own params: add it to workload.params)",
				k->params.items[j].key);
	}
	if (!knob_changes(c, k))
		problem(L, n, path, "changes nothing: every scenario already has these values");
	/* the batch recommendation predicts the batch per rank doubled, on as many ranks */
	if (k->loader_workers && strcmp(k->kind, rec_kind_name(REC_DATA)))
		problem(L, n, path,
			"has loader: only a data_loading knob says what it makes of the DataLoader");
	if (k->tasks_per_node && !strcmp(k->kind, rec_kind_name(REC_BATCH)))
		problem(L, n, path,
			PROSE_BATCH_KNOB_SETS_TASKS);
}

void check_knobs(struct loader *L, yaml_node_t *root)
{
	struct campaign *c = L->c;
	yaml_node_t *kn = map_get(L, root, "knobs");
	for (size_t i = 0; i < c->n_knobs; i++) {
		char kp[512];
		subpath(kp, sizeof kp, "knobs", c->knobs[i].kind);
		check_knob(L, &c->knobs[i], map_get(L, kn, c->knobs[i].kind), kp);
	}
	/* a control changes nothing, by design */
	if (c->variant.kind && L->d->n == 0 && strcmp(c->variant.kind, CHECK_CONTROL_KIND)) {
		check_knob(L, &c->variant, map_get(L, root, "variant"), "variant");
		knob_apply(c, &c->variant);
	}
}
