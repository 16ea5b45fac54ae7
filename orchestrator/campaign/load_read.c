/* load_read: the campaign loader's readers of one YAML node: problem() and the place it
 * names, scalars (string, integer, number, bool) and collections (mappings, lists, commands).
 * What a key means is the key tables' (load_keys.c and the sections' files), not theirs.
 * SPDX-License-Identifier: MIT */
#include "load_internal.h"

#include "util/strbuf.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCALAR BOUND_SCALAR_BYTES

void problem(struct loader *L, yaml_node_t *n, const char *path, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	int line = n ? (int)n->start_mark.line + 1 : 0;
	int col = n ? (int)n->start_mark.column + 1 : 0;
	diags_add(L->d, line, col, path, "%s", msg);
}

const char *kind_name(yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE: return "a mapping";
	case YAML_SEQUENCE_NODE: return "a list";
	default: return "a scalar";
	}
}

void subpath(char *buf, size_t n, const char *base, const char *key)
{
	snprintf(buf, n, "%s%s%s", base, base[0] ? "." : "", key);
}

/* ---- scalars ---------------------------------------------------------- */

const char *scalar(struct loader *L, yaml_node_t *n, const char *path, const char *want)
{
	if (n->type != YAML_SCALAR_NODE) {
		problem(L, n, path, "expected %s, found %s", want, kind_name(n));
		return NULL;
	}
	const char *s = (const char *)n->data.scalar.value;
	if (strlen(s) != n->data.scalar.length) {
		problem(L, n, path, "value contains a NUL byte");
		return NULL;
	}
	if (n->data.scalar.length > MAX_SCALAR) {
		problem(L, n, path, "value is longer than %d bytes", MAX_SCALAR);
		return NULL;
	}
	return s;
}

int as_string(struct loader *L, yaml_node_t *n, const char *path, char **out)
{
	const char *s = scalar(L, n, path, "a string");
	if (!s)
		return -1;
	free(*out);
	*out = xstrdup(s);
	return 0;
}

int as_int(struct loader *L, yaml_node_t *n, const char *path, long min, long max, int *out)
{
	const char *s = scalar(L, n, path, "an integer");
	if (!s)
		return -1;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (!*s || *end || errno == ERANGE) {
		if (*s && !*end)
			problem(L, n, path, "integer out of range (%ld..%ld)", min, max);
		else
			problem(L, n, path, "expected an integer, found \"%.40s\"", s);
		return -1;
	}
	if (v < min || v > max) {
		problem(L, n, path, "%lld is out of range (%ld..%ld)", v, min, max);
		return -1;
	}
	*out = (int)v;
	return 0;
}

int as_double(struct loader *L, yaml_node_t *n, const char *path, double min, double max,
	      double *out)
{
	const char *s = scalar(L, n, path, "a number");
	if (!s)
		return -1;
	char *end;
	double v = strtod(s, &end);
	if (!*s || *end || !isfinite(v)) {
		problem(L, n, path, "expected a number, found \"%.40s\"", s);
		return -1;
	}
	if (v < min || v > max) {
		problem(L, n, path, "%g is out of range (%g..%g)", v, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int as_bool(struct loader *L, yaml_node_t *n, const char *path, int *out)
{
	const char *s = scalar(L, n, path, "true or false");
	if (!s)
		return -1;
	if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on"))
		*out = 1;
	else if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off"))
		*out = 0;
	else {
		problem(L, n, path, "expected true or false, found \"%.40s\"", s);
		return -1;
	}
	return 0;
}

/* ---- collections ------------------------------------------------------ */

/* Checks that n is a mapping whose keys are scalars, unique, and (when
 * allowed is not NULL) among allowed. Returns 0 when n is a mapping. */
int map_check(struct loader *L, yaml_node_t *n, const char *path, const char *const *allowed)
{
	if (n->type != YAML_MAPPING_NODE) {
		problem(L, n, path, "expected a mapping, found %s", kind_name(n));
		return -1;
	}
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = node_at(L, p->key);
		if (k->type != YAML_SCALAR_NODE) {
			problem(L, k, path, "keys must be plain strings");
			continue;
		}
		const char *key = (const char *)k->data.scalar.value;
		char kp[512];
		subpath(kp, sizeof kp, path, key);
		for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *k2 = node_at(L, q->key);
			if (k2->type == YAML_SCALAR_NODE &&
			    !strcmp((char *) k2->data.scalar.value, key)) {
				problem(L, k, kp, "duplicate key (first given at line %d)",
					(int) k2->start_mark.line + 1);
				break;
			}
		}
		if (!allowed)
			continue;
		int ok = 0;
		for (int i = 0; allowed[i] && !ok; i++)
			ok = !strcmp(allowed[i], key);
		if (!ok) {
			struct strbuf sb = STRBUF_INIT;
			for (int i = 0; allowed[i]; i++)
				strbuf_addf(&sb, "%s%s", i ? ", " : "", allowed[i]);
			problem(L, k, kp,
				!strcmp(key, "<<")
					? "YAML merge keys (<<) are not supported: write the keys out (anchors and aliases are)"
					: "unknown key (expected one of: %s)",
				strbuf_str(&sb));
			strbuf_free(&sb);
		}
	}
	return 0;
}

yaml_node_t *map_get(struct loader *L, yaml_node_t *n, const char *key)
{
	if (!n || n->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = node_at(L, p->key);
		if (k->type == YAML_SCALAR_NODE && !strcmp((char *)k->data.scalar.value, key))
			return node_at(L, p->value);
	}
	return NULL;
}

int as_list(struct loader *L, yaml_node_t *n, const char *path, struct argv *out)
{
	if (n->type != YAML_SEQUENCE_NODE) {
		problem(L, n, path, "expected a list, found %s", kind_name(n));
		return -1;
	}
	int rc = 0;
	argv_free(out);
	size_t i = 0;
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++, i++) {
		char ip[512];
		snprintf(ip, sizeof ip, "%s[%zu]", path, i);
		const char *s = scalar(L, node_at(L, *it), ip, "a string");
		if (s)
			argv_push(out, s);
		else
			rc = -1;
	}
	if (rc < 0)
		argv_free(out); /* the caller keeps nothing of a list with a bad item */
	return rc;
}

/* A command: a list of words, or a string split into words (no expansion). */
int as_command(struct loader *L, yaml_node_t *n, const char *path, struct argv *out)
{
	/* a list's items are words as given; one that is exactly {{param}} still becomes
	 * the words of its value, as in the string form (placeholder_splits) */
	if (n->type == YAML_SEQUENCE_NODE)
		return as_list(L, n, path, out);
	const char *s = scalar(L, n, path, "a string or a list of words");
	if (!s)
		return -1;
	const char *why;
	argv_free(out);
	if (words_split(s, out, &why) < 0) {
		problem(L, n, path, "%s", why);
		return -1;
	}
	if (out->n == 0) {
		problem(L, n, path, "command is empty");
		return -1;
	}
	return 0;
}

/* The placeholder that says what a scheduler variable would. */
static const char *placeholder_for(const char *var, size_t n)
{
	static const char *const map[][2] = {
		{ "SLURM_NNODES", "nodes" },
		{ "SLURM_JOB_NUM_NODES", "nodes" },
		{ "SLURM_NTASKS", "ntasks" },
		{ "SLURM_NPROCS", "ntasks" },
		{ "SLURM_NTASKS_PER_NODE", "tasks_per_node" },
		{ "SLURM_GPUS_PER_NODE", "gpus_per_node" },
		{ "CAMPAIGN_JOB_DIR", "job_dir" },
		{ "CAMPAIGN_RUN_DIR", "run_dir" },
		{ "CAMPAIGN_RUN_ID", "run_id" },
		{ "CAMPAIGN_DIR", "campaign_dir" },
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (strlen(map[i][0]) == n && !strncmp(var, map[i][0], n))
			return map[i][1];
	return NULL;
}

/* $NAME or ${NAME} in a command's words would reach the program as written
 * (campaign runs no shell): refused where it stands, with what to write
 * instead. A command that is itself a shell given -c expands them. */
void no_literal_vars(struct loader *L, yaml_node_t *n, const char *path, const struct argv *w)
{
	if (w->n >= 2) {
		const char *prog = strrchr(w->v[0], '/') ? strrchr(w->v[0], '/') + 1 : w->v[0];
		if (!strcmp(prog, "sh") || !strcmp(prog, "bash") || !strcmp(prog, "dash") ||
		    !strcmp(prog, "zsh"))
			for (size_t i = 1; i < w->n; i++)
				if (!strcmp(w->v[i], "-c"))
					return;
	}
	for (size_t i = 0; i < w->n; i++) {
		const char *d = w->v[i];
		while ((d = strchr(d, '$'))) {
			int braced = d[1] == '{';
			const char *name = d + 1 + braced;
			size_t k = 0;
			while (name[k] == '_' || (name[k] >= 'A' && name[k] <= 'Z') ||
			       (name[k] >= 'a' && name[k] <= 'z') ||
			       (k && name[k] >= '0' && name[k] <= '9'))
				k++;
			if (k && (!braced || name[k] == '}')) {
				const char *ph = placeholder_for(name, k);
				char hint[96];
				if (ph)
					snprintf(hint, sizeof hint, "write {{%s}}", ph);
				else
					snprintf(
						hint, sizeof hint,
						"pass it through a shell: [\"/bin/sh\", \"-c\", \"...\"]");
				problem(L, n, path,
					"\"%.60s\" would reach the program as written: campaign runs no shell, so $%.*s is not expanded (%s)",
					w->v[i], (int) k, name, hint);
				return;
			}
			d++;
		}
	}
}
