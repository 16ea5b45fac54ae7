/* load_keys: the key tables' machinery: a section's allowed keys, its values read by type
 * and pass into the record its table names, its required keys and its defaults. The tables
 * themselves are the sections' (load_job.c, load_analysis.c ...), never here.
 * SPDX-License-Identifier: MIT */
#include "load_internal.h"

#include "util/strbuf.h"

#include <string.h>

/* Table t's keys (a KEY_ALSO's sub's in its place) from keys[n] on, NULL-terminated. */
size_t key_names(const struct key_spec *t, const char **keys, size_t n)
{
	for (; t->key && n < KEYS_MAX; t++)
		if (t->type == KEY_ALSO)
			n = key_names(t->sub, keys, n);
		else
			keys[n++] = t->key;
	keys[n] = NULL;
	return n;
}

/* map_check with table t's keys; -1 when n is no mapping. */
int keys_check(struct loader *L, yaml_node_t *n, const char *path, const struct key_spec *t)
{
	const char *keys[KEYS_MAX + 1];
	key_names(t, keys, 0);
	return map_check(L, n, path, keys);
}

/* analysis.thresholds: the keys, ranges and fields of analyzers/thresholds.h's table. */
static void load_thresholds(struct loader *L, yaml_node_t *t, const char *path,
			    struct ana_thresholds *th)
{
	const char *keys[ANA_THRESHOLDS + 1] = { NULL };
	for (size_t k = 0; k < ANA_THRESHOLDS; k++)
		keys[k] = ana_threshold_keys[k].key;
	if (map_check(L, t, path, keys) < 0)
		return;
	for (size_t k = 0; k < ANA_THRESHOLDS; k++) {
		const struct ana_threshold_key *d = &ana_threshold_keys[k];
		yaml_node_t *v = map_get(L, t, d->key);
		char p[KEY_PATH_MAX + 32];
		subpath(p, sizeof p, path, d->key);
		if (v)
			as_double(L, v, p, d->min, d->max, ana_threshold_at(th, k));
	}
}

/* Value v of key k of the mapping at section, into record base. */
static void load_key(struct loader *L, yaml_node_t *v, const char *section,
		     const struct key_spec *k, void *base)
{
	char path[KEY_PATH_MAX];
	void *at = (char *)base + k->off;
	subpath(path, sizeof path, section, k->key);
	switch (k->type) {
	case KEY_INT:
		as_int(L, v, path, (long)k->min, (long)k->max, at);
		break;
	case KEY_DOUBLE:
		as_double(L, v, path, k->min, k->max, at);
		break;
	case KEY_BOOL:
		as_bool(L, v, path, at);
		break;
	case KEY_STRING:
		as_string(L, v, path, at);
		break;
	case KEY_LOAD:
		k->load(L, v, path, at);
		break;
	case KEY_SWITCH:
		if (v->type == YAML_SCALAR_NODE) {
			as_bool(L, v, path, at);
		} else if (keys_check(L, v, path, k->sub) == 0) {
			*(int *)at = 1;
			keys_load(L, v, path, k->sub, base);
		}
		break;
	case KEY_MAP:
		if (keys_check(L, v, path, k->sub) == 0) {
			keys_load(L, v, path, k->sub, base);
			if (k->after)
				k->after(L, v, path, base);
		}
		break;
	case KEY_THRESHOLDS:
		load_thresholds(L, v, path, at);
		break;
	case KEY_ALSO:
		break;
	}
}

/* The keys of table t in mapping n at path, each as its entry says, into record base; a
 * required one missing is said at the section (at the key itself on the top level). */
void keys_load(struct loader *L, yaml_node_t *n, const char *path, const struct key_spec *t,
	       void *base)
{
	for (int pass = 0; pass < KEY_PASSES; pass++) {
		for (const struct key_spec *k = t; k->key; k++) {
			yaml_node_t *v;
			if (k->pass != pass || k->type == KEY_ALSO)
				continue;
			if ((v = map_get(L, n, k->key)))
				load_key(L, v, path, k, base);
			else if (k->need)
				problem(L, n, path[0] ? path : k->key, "%s", k->need);
		}
	}
}

/* Mapping n of table t's keys into record base; -1 when n is no mapping. */
int load_keys(struct loader *L, yaml_node_t *n, const char *path, const struct key_spec *t,
	      void *base)
{
	if (keys_check(L, n, path, t) < 0)
		return -1;
	keys_load(L, n, path, t, base);
	return 0;
}

/* The defaults of table t (and of its mappings) into record base. */
void key_defaults(void *base, const struct key_spec *t)
{
	for (; t->key; t++) {
		void *at = (char *)base + t->off;
		if (t->str_def)
			*(char **)at = xstrdup(t->str_def);
		else if (t->def && (t->type == KEY_INT || t->type == KEY_BOOL))
			*(int *)at = (int)t->def;
		else if (t->def && t->type == KEY_DOUBLE)
			*(double *)at = t->def;
		else if (t->type == KEY_THRESHOLDS)
			ana_thresholds_default(at);
		if (t->type == KEY_MAP || t->type == KEY_SWITCH)
			key_defaults(base, t->sub);
	}
}
