/* load_values: the loaders of values that several sections' tables share: env and params
 * (with the secret check and { from_env: true }), sbatch tokens, SLURM times, names and the
 * store's journal mode.
 * SPDX-License-Identifier: MIT */
#include "load_internal.h"

#include "secret.h"
#include "util/quote.h"
#include "orchestrator/campaign/prose.h"

#include <stdio.h>
#include <string.h>

/* { from_env: true } in place of an env value; env_from reads it. */
static const struct key_spec from_env_keys[] = {
	{ .key = "from_env", .type = KEY_BOOL },
	KEYS_END
};

/* { from_env: true }: the variable is passed through from the submitting
 * environment, its value written nowhere. */
static int env_from(struct loader *L, yaml_node_t *n, const char *path)
{
	int yes = 0, before = (int)L->d->n;
	yaml_node_t *v;
	keys_check(L, n, path, from_env_keys);
	if (!(v = map_get(L, n, from_env_keys[0].key)))
		problem(L, n, path,
			"a variable given as a mapping needs from_env: true (passed through from the submitting environment)");
	else if (as_bool(L, v, path, &yes) == 0 && !yes)
		problem(L, v, path,
			"from_env: false passes nothing: give the value as a string, or write from_env: true");
	return (int)L->d->n > before ? -1 : 0;
}

/* A literal env value is refused where it looks secret (by its name or its
 * content) unless the campaign says allow_literal_secrets: the run's copies
 * would hold it. The message names the variable, never the value. */
static int env_literal_ok(struct loader *L, yaml_node_t *n, const char *path, const char *name,
			  const char *value)
{
	const char *why, *word;
	size_t at;
	char what[96];
	if (L->c->allow_literal_secrets || !*value)
		return 1;
	if (secret_name(name, &word))
		snprintf(what, sizeof what, "its name holds %s", word);
	else if (secret_content(value, strlen(value), &why, &at) != 0)
		snprintf(what, sizeof what, "the value looks like %s", why);
	else
		return 1;
	problem(L, n, path,
		PROSE_VALUE_LOOKS_SECRET,
		name, what, name, name);
	return 0;
}

/* env (names must be variable names) or params (identifiers, not built-ins) */
static int as_vars(struct loader *L, yaml_node_t *n, const char *path, int is_params,
		   struct kvlist *out)
{
	if (map_check(L, n, path, NULL) < 0)
		return -1;
	int rc = 0;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = node_at(L, p->key);
		if (k->type != YAML_SCALAR_NODE)
			continue;
		const char *key = (const char *)k->data.scalar.value;
		char kp[512];
		subpath(kp, sizeof kp, path, key);
		if (!is_env_name(key)) {
			problem(L, k, kp,
				"'%.64s' is not a valid %s name (letters, digits, _; not starting with a digit)",
				key, is_params ? "parameter" : "environment variable");
			rc = -1;
			continue;
		}
		if (is_params && placeholder_is_builtin(key)) {
			problem(L, k, kp,
				"'%s' is a built-in placeholder and cannot be a parameter", key);
			rc = -1;
			continue;
		}
		yaml_node_t *vn = node_at(L, p->value);
		if (!is_params && vn->type == YAML_MAPPING_NODE) {
			if (env_from(L, vn, kp) == 0)
				kvlist_set(out, key, NULL);
			else
				rc = -1;
			continue;
		}
		const char *v = scalar(L, vn, kp,
				       is_params ? "a string" : "a string or { from_env: true }");
		if (v && (is_params || env_literal_ok(L, vn, kp, key, v)))
			kvlist_set(out, key, v);
		else
			rc = -1;
	}
	return rc;
}

void load_env(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	as_vars(L, v, path, 0, at);
}

void load_params(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	as_vars(L, v, path, 1, at);
}

static int safe_sbatch_value(struct loader *L, yaml_node_t *n, const char *path, char **out)
{
	if (as_string(L, n, path, out) < 0)
		return -1;
	if (!is_safe_token(*out)) {
		problem(L, n, path,
			"\"%.64s\" holds characters not allowed in an sbatch option (allowed: letters, digits and _ . , : = + @ / %% -)",
			*out);
		return -1;
	}
	return 0;
}

void load_token(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	safe_sbatch_value(L, v, path, at);
}

void load_time(struct loader *L, yaml_node_t *n, const char *path, void *at)
{
	char **out = at;
	long secs;
	if (safe_sbatch_value(L, n, path, out) < 0)
		return;
	if (slurm_time_parse(*out, &secs) < 0)
		problem(L, n, path,
			"\"%.64s\" is not a SLURM time limit (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED)",
			*out);
}

void load_name(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	char **name = at;
	if (as_string(L, v, path, name) == 0 && !is_safe_name(*name))
		problem(L, v, path,
			"\"%.64s\" is not a safe name (letters, digits, . _ -; at most 64; not starting with . or -)",
			*name);
}

void load_journal(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	char **j = at;
	if (as_string(L, v, path, j) == 0 && strcmp(*j, "auto") && strcmp(*j, "wal") &&
	    strcmp(*j, "delete"))
		problem(L, v, path, "must be auto, wal or delete, not \"%.40s\"", *j);
}
