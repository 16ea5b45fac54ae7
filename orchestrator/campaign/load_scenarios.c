/* load_scenarios: the scenarios as written (their table, names and backends) and the matrix's
 * axes, read into the loader before expansion; expanding them is load_expand.c's.
 * SPDX-License-Identifier: MIT */
#include "load_internal.h"

#include "util/quote.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <string.h>

static void load_scenario_name(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	char **name = at;
	if (as_string(L, v, path, name) == 0 && !strstr(*name, "{{") && !is_safe_name(*name))
		problem(L, v, path,
			"\"%.64s\" is not a safe scenario name (letters, digits, . _ -; at most 64; not starting with . or -)",
			*name);
}

int is_backend(const char *s)
{
	return !strcmp(s, "gloo") || !strcmp(s, "nccl");
}

static void load_backend(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	char **backend = at;
	if (as_string(L, v, path, backend) == 0 && !is_backend(*backend))
		problem(L, v, path, "backend must be gloo or nccl, not \"%.40s\"", *backend);
}

static void scenario_batch(struct loader *L, yaml_node_t *n, const char *path, void *base)
{
	struct scenario *s = base;
	one_batch(L, n, path, s->batch_per_rank, s->global_batch);
}

static const struct key_spec scenario_analysis_keys[] = {
	{ "batch_per_rank", KEY_INT, 1, BOUND_BATCH_PER_RANK, 0, AT_S(batch_per_rank),
	  .doc = { NULL, "the campaign's",
		   "this scenario's own batch per rank (this or `global_batch`), before the campaign's" } },
	{ "global_batch", KEY_INT, 1, BOUND_GLOBAL_BATCH, 0, AT_S(global_batch),
	  .doc = { NULL, "the campaign's",
		   "this scenario's own global batch (this or `batch_per_rank`), before the campaign's" } },
	KEYS_END
};

const struct key_spec scenario_keys[] = {
	{ "name", KEY_LOAD, .off = AT_S(name), .load = load_scenario_name,
	  .need = "missing required key 'name'",
	  .doc = { "name", NULL, "unique; also the scenario's directory" } },
	{ "nodes", KEY_INT, 1, CAMPAIGN_MAX_NODES, 0, AT_S(nodes), .axis = 1,
	  .need = "missing required key 'nodes'",
	  .doc = { NULL, NULL, "nodes (emulated on the local executor)" } },
	{ "tasks_per_node", KEY_INT, 1, CAMPAIGN_MAX_TASKS_PER_NODE, 1, AT_S(tasks_per_node),
	  .axis = 1, .doc = { NULL, NULL, "ranks per node" } },
	{ "gpus_per_node", KEY_INT, 0, 64, -1, AT_S(gpus_per_node), .axis = 1,
	  .doc = { NULL, "`tasks_per_node` for nccl, else 0", "GPUs requested per node" } },
	{ "backend", KEY_LOAD, .off = AT_S(backend), .load = load_backend,
	  .str_def = CAMPAIGN_DEFAULT_BACKEND, .axis = 1,
	  .doc = { "`gloo` or `nccl`", NULL, "collective library (CPU or GPU trainer)" } },
	{ "time", KEY_LOAD, .off = AT_S(time), .load = load_time,
	  .doc = { "SLURM time", "`slurm.time`", "this scenario's limit" } },
	{ "env", KEY_LOAD, .off = AT_S(env), .load = load_env,
	  .doc = { "map", "`{}`", "added to (and overriding) the workload's" } },
	{ "params", KEY_LOAD, .off = AT_S(params), .load = load_params,
	  .doc = { "map", "`{}`", "added to (and overriding) the workload's" } },
	{ "analysis", KEY_MAP, .sub = scenario_analysis_keys, .after = scenario_batch },
	KEYS_END
};

/* scenarios[idx], mapping n, into s (its defaults first). */
static void load_scenario(struct loader *L, yaml_node_t *n, const char *path, size_t idx,
			  struct scenario *s)
{
	char base[64];
	snprintf(base, sizeof base, "%s[%zu]", path, idx);
	s->line = (int)n->start_mark.line + 1;
	s->col = (int)n->start_mark.column + 1;
	key_defaults(s, scenario_keys);
	load_keys(L, n, base, scenario_keys, s);
}

/* The scenarios as written (L->raw), before the matrix. */
void load_scenarios(struct loader *L, yaml_node_t *n, const char *path, void *at)
{
	(void)at;
	if (n->type != YAML_SEQUENCE_NODE) {
		problem(L, n, path, "expected a list, found %s", kind_name(n));
		return;
	}
	size_t cnt = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (cnt == 0) {
		problem(L, n, path, "at least one scenario is required");
		return;
	}
	if (cnt > CAMPAIGN_MAX_SCENARIOS) {
		problem(L, n, path, "%zu scenarios; at most %d are allowed", cnt,
			CAMPAIGN_MAX_SCENARIOS);
		return;
	}
	struct scenario *raw = L->raw = xcalloc(cnt, sizeof *raw);
	L->n_raw = cnt;
	for (size_t i = 0; i < cnt; i++)
		load_scenario(L, node_at(L, n->data.sequence.items.start[i]), path, i, &raw[i]);
	/* Equal plain names stay equal whatever the matrix appends. */
	for (size_t i = 0; i < cnt; i++) {
		struct scenario *s = &raw[i];
		for (size_t j = 0; s->name && j < i; j++) {
			if (raw[j].name && !strcmp(raw[j].name, s->name)) {
				char p[64];
				snprintf(p, sizeof p, "%s[%zu].name", path, i);
				diags_add(L->d, s->line, s->col, p,
					  "duplicate scenario name \"%.64s\"", s->name);
				break;
			}
		}
	}
}

/* The scenario key a matrix key sets (nodes, tasks_per_node ...); NULL for a parameter. */
const struct key_spec *axis_key(const char *key)
{
	for (const struct key_spec *k = scenario_keys; k->key; k++)
		if (k->axis && !strcmp(k->key, key))
			return k;
	return NULL;
}

void load_matrix(struct loader *L, yaml_node_t *n, const char *path, void *at)
{
	(void)at;
	if (map_check(L, n, path, NULL) < 0)
		return;
	size_t np = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	L->axes = xcalloc(np, sizeof *L->axes);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = node_at(L, p->key), *v = node_at(L, p->value);
		if (k->type != YAML_SCALAR_NODE)
			continue;
		const char *key = (const char *)k->data.scalar.value;
		char kp[512];
		subpath(kp, sizeof kp, path, key);
		if (!axis_key(key) && (!is_env_name(key) || placeholder_is_builtin(key))) {
			problem(L, k, kp,
				"a matrix key is nodes, tasks_per_node, gpus_per_node, backend or a parameter name");
			continue;
		}
		struct matrix_axis *a = &L->axes[L->n_axes];
		if (as_list(L, v, kp, &a->values) < 0)
			continue;
		if (a->values.n == 0) {
			argv_free(&a->values);
			problem(L, v, kp, "a matrix axis needs at least one value");
			continue;
		}
		a->key = xstrdup(key);
		L->n_axes++;
	}
}
