/* campaign_load: libyaml document -> struct campaign, checking the schema of
 * docs/campaign-format.md. Every problem becomes a diagnostic with its place;
 * the walk goes on after a problem so that all of them are reported at once. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "campaign.h"
#include "analyzers/advice.h"
#include "jobspec.h"
#include "secret.h"

#include "util/err.h"
#include "util/fsio.h"
#include "placeholder.h"
#include "util/quote.h"
#include "util/strbuf.h"

#include <errno.h>
#include <math.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#define MAX_FILE_BYTES (4u << 20)
#define MAX_SCALAR 65536
#define MAX_EXPANDED_NODES 100000L

struct matrix_axis {
	char *key;
	struct argv values;
};

struct loader {
	yaml_document_t doc;
	struct diags *d;
	struct campaign *c;
	struct matrix_axis *axes;
	size_t n_axes;
	struct scenario *raw; /* the scenarios as written, before the matrix */
	size_t n_raw;
};

static yaml_node_t *node_at(struct loader *L, int idx)
{
	return yaml_document_get_node(&L->doc, idx);
}

static void problem(struct loader *L, yaml_node_t *n, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void problem(struct loader *L, yaml_node_t *n, const char *path, const char *fmt, ...)
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

static const char *kind_name(yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE: return "a mapping";
	case YAML_SEQUENCE_NODE: return "a list";
	default: return "a scalar";
	}
}

static void subpath(char *buf, size_t n, const char *base, const char *key)
{
	snprintf(buf, n, "%s%s%s", base, base[0] ? "." : "", key);
}

/* ---- scalars ---------------------------------------------------------- */

static const char *scalar(struct loader *L, yaml_node_t *n, const char *path, const char *want)
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

static int as_string(struct loader *L, yaml_node_t *n, const char *path, char **out)
{
	const char *s = scalar(L, n, path, "a string");
	if (!s)
		return -1;
	free(*out);
	*out = xstrdup(s);
	return 0;
}

static int as_int(struct loader *L, yaml_node_t *n, const char *path, long min, long max, int *out)
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

static int as_double(struct loader *L, yaml_node_t *n, const char *path, double min, double max,
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

static int as_bool(struct loader *L, yaml_node_t *n, const char *path, int *out)
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
static int map_check(struct loader *L, yaml_node_t *n, const char *path, const char *const *allowed)
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

static yaml_node_t *map_get(struct loader *L, yaml_node_t *n, const char *key)
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

static int as_list(struct loader *L, yaml_node_t *n, const char *path, struct argv *out)
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
static int as_command(struct loader *L, yaml_node_t *n, const char *path, struct argv *out)
{
	if (n->type == YAML_SEQUENCE_NODE) {
		int rc = as_list(L, n, path, out);
		for (size_t i = 0; i < out->n; i++)
			out->quoted[i] = 1; /* list items are words as given: never split */
		return rc;
	}
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
static void no_literal_vars(struct loader *L, yaml_node_t *n, const char *path,
			    const struct argv *w)
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

/* ---- key tables ------------------------------------------------------- */

/* A key of the campaign file, declared once: its type and range, its default, where its
 * value lands (an offset in the record its section fills: struct campaign, a scenario or
 * a knob) or the function that loads it, and what docs/campaign-format.md's key table says
 * of it (`campaign help --keys` writes that table). A section's allowed keys, in the order
 * its "unknown key" message lists them, its checks and its defaults come from its table. */
enum key_type {
	KEY_INT,
	KEY_DOUBLE,
	KEY_BOOL,
	KEY_STRING,
	KEY_LOAD,       /* load() reads it: a value with checks of its own */
	KEY_MAP,        /* a mapping of sub's keys into the same record, then after() */
	KEY_SWITCH,     /* true or false, or a mapping of sub's keys that turns it on */
	KEY_ALSO,       /* sub's keys are this mapping's too; the section's after() reads them */
	KEY_THRESHOLDS, /* a mapping of analyzers/thresholds.h's keys */
};
typedef void key_load_fn(struct loader *L, yaml_node_t *v, const char *path, void *at);
struct key_spec {
	const char *key;
	enum key_type type;
	double min, max;     /* KEY_INT, KEY_DOUBLE */
	double def;          /* KEY_INT, KEY_DOUBLE, KEY_BOOL: the default (0: none) */
	size_t off;          /* where it lands in the section's record */
	key_load_fn *load;   /* KEY_LOAD: at is the record plus off */
	const char *str_def; /* a string's default */
	const char *need;    /* a required key: the problem said when it is missing */
	/* keys load pass by pass (0 first), in table order within one: a key others read goes
	 * first (allow_literal_secrets), and the problems of an aliased node keep their order */
	int pass;
	const struct key_spec *sub; /* KEY_MAP, KEY_SWITCH, KEY_ALSO; the items of a list or map */
	key_load_fn *after;         /* KEY_MAP: once its keys are read; at is the record */
	int axis;                   /* a scenario's key that a matrix key sets */
	/* docs/campaign-format.md's row: the type and default columns (NULL: from the type,
	 * range and default) and the meaning (NULL: no row of its own) */
	struct {
		const char *type, *def, *meaning;
	} doc;
	const char *each; /* docs: the rows of sub's keys name one item so: "[]", ".<kind>" */
};
#define AT(field) offsetof(struct campaign, field)
#define AT_S(field) offsetof(struct scenario, field)
#define AT_K(field) offsetof(struct knob, field)
#define KEYS_END { .key = NULL }
#define STR_(x) #x
#define STR(x) STR_(x)
#define KEYS_MAX 32     /* keys of one mapping at most (keys_check) */
#define KEY_PASSES 4
#define KEY_PATH_MAX 640 /* a table key's path, never cut (a user key's is, at 511) */

/* Table t's keys (a KEY_ALSO's sub's in its place) from keys[n] on, NULL-terminated. */
static size_t key_names(const struct key_spec *t, const char **keys, size_t n)
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
static int keys_check(struct loader *L, yaml_node_t *n, const char *path,
		      const struct key_spec *t)
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

static void keys_load(struct loader *L, yaml_node_t *n, const char *path,
		      const struct key_spec *t, void *base);

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
static void keys_load(struct loader *L, yaml_node_t *n, const char *path,
		      const struct key_spec *t, void *base)
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
static int load_keys(struct loader *L, yaml_node_t *n, const char *path,
		     const struct key_spec *t, void *base)
{
	if (keys_check(L, n, path, t) < 0)
		return -1;
	keys_load(L, n, path, t, base);
	return 0;
}

/* The defaults of table t (and of its mappings) into record base. */
static void key_defaults(void *base, const struct key_spec *t)
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

/* ---- values ----------------------------------------------------------- */

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
		"%s looks secret (%s): a literal value would be copied into the run's campaign.yaml, job scripts and metadata; pass it from the submitting environment instead with %s: { from_env: true } and export %s before submitting (or set allow_literal_secrets: true)",
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

static void load_env(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	as_vars(L, v, path, 0, at);
}

static void load_params(struct loader *L, yaml_node_t *v, const char *path, void *at)
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

static void load_token(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	safe_sbatch_value(L, v, path, at);
}

static void load_time(struct loader *L, yaml_node_t *n, const char *path, void *at)
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

static void load_name(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	char **name = at;
	if (as_string(L, v, path, name) == 0 && !is_safe_name(*name))
		problem(L, v, path,
			"\"%.64s\" is not a safe name (letters, digits, . _ -; at most 64; not starting with . or -)",
			*name);
}

static void load_journal(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	char **j = at;
	if (as_string(L, v, path, j) == 0 && strcmp(*j, "auto") && strcmp(*j, "wal") &&
	    strcmp(*j, "delete"))
		problem(L, v, path, "must be auto, wal or delete, not \"%.40s\"", *j);
}

/* ---- slurm, workload, profile ------------------------------------------ */

static void load_extra(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	struct argv *extra = at;
	if (as_list(L, v, path, extra) < 0)
		return;
	for (size_t i = 0; i < extra->n; i++) {
		const char *e = extra->v[i], *val;
		char list[256];
		if (strncmp(e, "--", 2) || !is_safe_token(e + 2))
			problem(L, v, path,
				"\"%.64s\" is not an sbatch long option of safe characters (e.g. --exclusive, --mem=0)",
				e);
		else if (job_spec_extra(e, &val) < 0)
			problem(L, v, path,
				"\"%.64s\" is not an option campaign passes on (supported: %s; the job's output, name, nodes, tasks and time are campaign's)",
				e, job_spec_extras(list, sizeof list));
	}
}

static const struct key_spec slurm_keys[] = {
	{ "account", KEY_LOAD, .off = AT(slurm.account), .load = load_token,
	  .doc = { "sbatch token", NULL,
		   "`#SBATCH --account`; omitted when absent; `SBATCH_ACCOUNT` in the submitting environment wins" } },
	{ "partition", KEY_LOAD, .off = AT(slurm.partition), .load = load_token,
	  .doc = { "sbatch token", NULL,
		   "`#SBATCH --partition`; omitted when absent; `SBATCH_PARTITION` in the submitting environment wins" } },
	{ "qos", KEY_LOAD, .off = AT(slurm.qos), .load = load_token,
	  .doc = { "sbatch token", NULL,
		   "`#SBATCH --qos`; omitted when absent; `SBATCH_QOS` in the submitting environment wins" } },
	{ "time", KEY_LOAD, .off = AT(slurm.time), .load = load_time, .str_def = "00:30:00",
	  .pass = 1, .doc = { "SLURM time", NULL, "time limit of every scenario" } },
	{ "constraint", KEY_LOAD, .off = AT(slurm.constraint), .load = load_token,
	  .doc = { "sbatch token", NULL,
		   "`#SBATCH --constraint`; omitted when absent; `SBATCH_CONSTRAINT` in the submitting environment wins" } },
	{ "extra", KEY_LOAD, .off = AT(slurm.extra), .load = load_extra, .pass = 2,
	  .doc = { "list", "`[]`",
		   "more sbatch options, of those campaign passes on through libslurm: `--exclusive`, `--mem=`, `--mem-per-cpu=`, `--cpus-per-task=`, `--gres=`, `--reservation=`, `--nodelist=`, `--exclude=`, `--requeue`, `--no-requeue` (the job's output, name, nodes, tasks and time are campaign's; anything else is refused at its line and column)" } },
	{ "exclusive", KEY_BOOL, 0, 0, 1, AT(slurm.exclusive), .pass = 1,
	  .doc = { NULL, NULL,
		   "every scenario job gets its nodes to itself (`#SBATCH --exclusive`, libslurm's shared = none): a scaling series measured on shared nodes measures the neighbours too. With `false`, two scenarios whose jobs ran on a node at the same time are reported as **contaminated** (report and `summary.json` `contaminated_by`), from the node lists and times in their `job.status`" } },
	KEYS_END
};

static void load_launcher(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	int *per_node = at;
	char *launcher = NULL;
	if (as_string(L, v, path, &launcher) == 0) {
		if (!strcmp(launcher, "per-node"))
			*per_node = 1;
		else if (strcmp(launcher, "ranks"))
			problem(L, v, path,
				"must be ranks (campaign starts every rank) or per-node (one process per node starts them: torchrun, accelerate, deepspeed), not \"%.40s\"",
				launcher);
	}
	free(launcher);
}

static void load_command(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	if (as_command(L, v, path, at) == 0)
		no_literal_vars(L, v, path, at);
}

static void load_setup(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	struct campaign *c = L->c;
	struct argv lines = { 0 };
	(void)at;
	if (as_list(L, v, path, &lines) == 0) {
		c->workload.setup = xcalloc(lines.n, sizeof *c->workload.setup);
		for (size_t i = 0; i < lines.n; i++) {
			const char *why;
			struct argv *w = &c->workload.setup[c->workload.n_setup];
			if (words_split(lines.v[i], w, &why) < 0)
				problem(L, v, path, "line %zu: %s", i + 1, why);
			else if (w->n > 0)
				c->workload.n_setup++;
		}
	}
	argv_free(&lines);
}

static const struct key_spec workload_keys[] = {
	{ "command", KEY_LOAD, .off = AT(workload.command), .load = load_command, .pass = 1,
	  .doc = { "string or list", "the reference trainer (below)",
		   "the command every rank runs (with `launcher: per-node`, the command each node runs once). `validate` and `submit` look its program up on the PATH the job will have (`workload.env`'s PATH, else the submitting shell's, which the job inherits) and warn when it is missing, resolves elsewhere than in the submitting shell, or is a version manager's shim (pyenv, asdf: it picks the interpreter per directory and environment, so the job may run a Python without your packages); `workload.setup` lines may still change PATH" } },
	{ "env", KEY_LOAD, .off = AT(workload.env), .load = load_env, .pass = 1,
	  .doc = { "map", "`{}`",
		   "exported in every job: `NAME: value`, or `NAME: { from_env: true }` to pass the variable through from the environment `submit` (or `resume`, `resubmit`) runs in, its value written nowhere (see [Secrets](#secrets))" } },
	{ "setup", KEY_LOAD, .load = load_setup, .pass = 2,
	  .doc = { "list of strings", "`[]`",
		   "commands run once per job before the ranks start; a failing one ends the job" } },
	{ "params", KEY_LOAD, .off = AT(workload.params), .load = load_params, .pass = 1,
	  .doc = { "map", "`{}`", "values for `{{placeholders}}`" } },
	{ "launcher", KEY_LOAD, .off = AT(workload.per_node), .load = load_launcher,
	  .doc = { "`ranks` or `per-node`", "`ranks`",
		   "`ranks`: campaign starts every rank (nodes x tasks_per_node processes); `per-node`: campaign starts one process per node (torchrun, accelerate, deepspeed) and it starts the node's `tasks_per_node` ranks, whose workers campaign records as the ranks (`ranks/rank_<RANK>.json`, the launchers in `ranks/launcher_<n>.json`: docs/formats.md); see `campaigns/pytorch-torchrun.yaml`" } },
	KEYS_END
};

static void load_traces(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	struct argv *traces = at;
	if (v->type == YAML_SCALAR_NODE) {
		const char *g = scalar(L, v, path, "a glob or a list of globs");
		if (g)
			argv_push(traces, g);
	} else {
		as_list(L, v, path, traces);
	}
}

static void load_capture_range(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	char **range = at;
	if (as_string(L, v, path, range) == 0 && strcmp(*range, "nvtx") &&
	    strcmp(*range, "cudaProfilerApi") && strcmp(*range, "none"))
		problem(L, v, path, "must be none, nvtx or cudaProfilerApi");
}

static const struct key_spec monitor_keys[] = {
	{ "enabled", KEY_BOOL, .off = AT(profile.monitor),
	  .doc = { NULL, "`true`",
		   "whether the monitor runs (a mapping without it turns it on)" } },
	{ "interval_ms", KEY_INT, 10, 3600000, 500, AT(profile.monitor_interval_ms),
	  .doc = { "10–3600000", NULL,
		   "milliseconds between two samples (`{{monitor_interval_ms}}`)" } },
	KEYS_END
};

static const struct key_spec nsys_keys[] = {
	{ "enabled", KEY_BOOL, .off = AT(profile.nsys),
	  .doc = { NULL, "`true`", "whether nsys runs (a mapping without it turns it on)" } },
	{ "trace", KEY_LOAD, .off = AT(profile.nsys_trace), .load = load_token, .pass = 1,
	  .doc = { "sbatch token", "nsys's (`cuda,nvtx,osrt`)",
		   "what `nsys profile --trace` records" } },
	{ "capture_range", KEY_LOAD, .off = AT(profile.nsys_capture_range), .pass = 1,
	  .load = load_capture_range,
	  .doc = { "`none`, `nvtx` or `cudaProfilerApi`", "`none`",
		   "`nvtx` or `cudaProfilerApi`: nsys records only the ranges the workload marks so (`nsys profile --capture-range`)" } },
	{ "required", KEY_BOOL, .off = AT(profile.nsys_required),
	  .doc = { NULL, NULL,
		   "`true`: on a node without nsys the ranks do not run and the job fails (else the job log says so once and the ranks run without it)" } },
	KEYS_END
};

static const struct key_spec perf_keys[] = {
	{ "enabled", KEY_BOOL, .off = AT(profile.perf),
	  .doc = { NULL, "`true`", "whether perf runs (a mapping without it turns it on)" } },
	{ "required", KEY_BOOL, .off = AT(profile.perf_required),
	  .doc = { NULL, NULL,
		   "`true`: on a node without perf the ranks do not run and the job fails (else the job log says so once and the ranks run without it)" } },
	KEYS_END
};

static void load_plugin(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	char **plugin = at;
	if (as_string(L, v, path, plugin) == 0 && !(*plugin)[0])
		problem(L, v, path,
			"must name the plugin's library (libnccl-profiler-inspector.so, a path or $VAR/...), or be left out to find it on the node");
}

static const struct key_spec inspector_keys[] = {
	{ "enabled", KEY_BOOL, .off = AT(profile.inspector),
	  .doc = { NULL, "`true`",
		   "whether the Inspector runs (a mapping without it turns it on)" } },
	{ "plugin", KEY_LOAD, .off = AT(profile.inspector_plugin), .load = load_plugin,
	  .doc = { "path or library name", "found on the node",
		   "the plugin's library (`$NAME` and `{{placeholders}}` expand), exported as `NCCL_PROFILER_PLUGIN`; without it each node looks for `libnccl-profiler-inspector.so` in `LD_LIBRARY_PATH`, `$NCCL_HOME/ext-profiler/inspector`, `$NCCL_HOME/lib` and the system's library folders (build it with `make` in `ext-profiler/inspector` of NVIDIA's nccl)" } },
	{ "verbose", KEY_BOOL, .off = AT(profile.inspector_verbose),
	  .doc = { NULL, NULL,
		   "`NCCL_INSPECTOR_DUMP_VERBOSE`: the kernels' start and stop times too" } },
	{ "interval_us", KEY_INT, 1, 2000000000, 500, AT(profile.inspector_interval_us),
	  .doc = { "µs ≥ 1", NULL,
		   "`NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS`: the plugin writes each communicator's latest collective at this interval, so a shorter one misses fewer (at 0 it would write nothing)" } },
	{ "required", KEY_BOOL, .off = AT(profile.inspector_required),
	  .doc = { NULL, NULL,
		   "`true`: on a node without the plugin the ranks do not run and the job fails (else the job log says so once and the ranks run without it)" } },
	KEYS_END
};

static const struct key_spec profile_keys[] = {
	{ "warmup_steps", KEY_INT, 0, 1000000, 5, AT(profile.warmup_steps),
	  .doc = { NULL, NULL, "steps excluded from the analysis" } },
	{ "active_steps", KEY_INT, 1, 1000000, 20, AT(profile.active_steps),
	  .doc = { NULL, NULL, "steps analysed" } },
	{ "monitor", KEY_SWITCH, .off = AT(profile.monitor), .sub = monitor_keys,
	  .doc = { NULL, "off",
		   "run `campaign-monitor` on every node of every job (CPU, memory, disk, network; GPUs when present) into `<scenario>/monitor/<node>/`" } },
	{ "nsys", KEY_SWITCH, .off = AT(profile.nsys), .sub = nsys_keys,
	  .doc = { NULL, "off",
		   "every rank under `nsys profile` into `<scenario>/nsys/rank_<r>.nsys-rep`, exported to `rank_<r>.sqlite`" } },
	{ "perf", KEY_SWITCH, .off = AT(profile.perf), .sub = perf_keys,
	  .doc = { NULL, "off",
		   "every rank under `perf stat` into `<scenario>/perf/rank_<r>.txt`; counters go to the scenario's analysis" } },
	{ "nccl_inspector", KEY_SWITCH, .off = AT(profile.inspector), .sub = inspector_keys,
	  .doc = { NULL, "off",
		   "NCCL's Inspector profiler plugin in every rank (NCCL jobs), dumping one JSON object per collective into `<scenario>/nccl_inspector/`: the job script exports `NCCL_INSPECTOR_ENABLE=1`, `NCCL_INSPECTOR_DUMP_DIR` (that folder), `NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS`, `NCCL_INSPECTOR_DUMP_VERBOSE` and, with `plugin`, `NCCL_PROFILER_PLUGIN`, all quoted and before the scenario's `env`, which may override them. What the analysis reads: [analysis.md](analysis.md#nccl-inspector-dumps)" } },
	{ "traces", KEY_LOAD, .off = AT(profile.traces), .load = load_traces,
	  .doc = { "glob or list of globs", NULL,
		   "the workload's own trace files (e.g. torch-profiler `*.pt.trace.json`), copied into `<scenario>/traces/` after the workload; relative globs start at the job directory; matched by glob(3), never by a shell" } },
	{ "hang_timeout", KEY_INT, 0, 100000000, 600, AT(profile.hang_timeout_s),
	  .doc = { "seconds ≥ 0", NULL,
		   "a running job whose job log, ranks' logs and telemetry have not changed for this long (and, on the local executor, whose workload uses no CPU over 0.3 s: campaign's own rank launcher and node monitor do not count) is shown by `status` and `watch` as possibly hung, with the `campaign logs` command to look; 0: never" } },
	KEYS_END
};

/* ---- analysis ----------------------------------------------------------- */

/* A PCRE2 pattern that compiles, with every named group in need; on a
 * problem, the column inside the pattern is said. */
static int check_pattern(struct loader *L, yaml_node_t *n, const char *path, const char *pat,
			 const char *const *need)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *re =
		pcre2_compile((PCRE2_SPTR) pat, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof msg);
		problem(L, n, path, "not a PCRE2 pattern: %s at offset %zu", (char *) msg,
			(size_t) off);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; need && need[i]; i++)
		if (pcre2_substring_number_from_name(re, (PCRE2_SPTR)need[i]) < 0 && rc == 0) {
			problem(L, n, path, "the pattern has no named group (?<%s>...)", need[i]);
			rc = -1;
		}
	pcre2_code_free(re);
	return rc;
}

/* An item of analysis.phase_rules; load_phase_rules reads both at the item's path. */
enum { RULE_PHASE, RULE_PATTERN };
static const struct key_spec phase_rule_keys[] = {
	[RULE_PHASE] = { "phase", KEY_STRING, .need = "needs both phase and pattern",
			 .doc = { "phase name", NULL,
				  "`forward`, `backward`, `optimizer`, `data_loading`, `communication`, `io`, `compute` (an operator: the phase of the range around it, compute under none) or `other`" } },
	[RULE_PATTERN] = { "pattern", KEY_STRING, .need = "needs both phase and pattern",
			   .doc = { "PCRE2", NULL,
				    "matched against the range's name; a bad pattern is reported at its line and column" } },
	KEYS_END
};

static void load_phase_rules(struct loader *L, yaml_node_t *n, const char *path, void *at)
{
	static const char *const phases[] = { "forward",       "backward",
					      "optimizer",     "data_loading",
					      "communication", "io",
					      "compute",       "other",
					      NULL };
	struct campaign *c = L->c;
	(void)at;
	if (n->type != YAML_SEQUENCE_NODE) {
		problem(L, n, path, "expected a list of {phase, pattern}, found %s", kind_name(n));
		return;
	}
	int i = 0;
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++, i++) {
		yaml_node_t *m = node_at(L, *it), *ph, *pat;
		char ip[KEY_PATH_MAX], *phase = NULL, *pattern = NULL;
		snprintf(ip, sizeof ip, "%s[%d]", path, i);
		if (keys_check(L, m, ip, phase_rule_keys) < 0)
			continue;
		if (!(ph = map_get(L, m, phase_rule_keys[RULE_PHASE].key)) ||
		    !(pat = map_get(L, m, phase_rule_keys[RULE_PATTERN].key))) {
			problem(L, m, ip, "%s", phase_rule_keys[RULE_PHASE].need);
			continue;
		}
		int known = 0;
		if (as_string(L, ph, ip, &phase) == 0)
			for (int k = 0; phases[k]; k++)
				known |= !strcmp(phases[k], phase);
		if (phase && !known)
			problem(L, ph, ip,
				"unknown phase \"%.32s\" (expected forward, backward, optimizer, data_loading, communication, io, compute or other)",
				phase);
		if (known && as_string(L, pat, ip, &pattern) == 0 &&
		    check_pattern(L, pat, ip, pattern, NULL) == 0) {
			argv_push(&c->analysis.phase_names, phase);
			argv_push(&c->analysis.phase_patterns, pattern);
		}
		free(phase);
		free(pattern);
	}
}

static void load_step_pattern(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	static const char *const groups[] = { "step", "step_ms", NULL };
	char **pattern = at;
	if (as_string(L, v, path, pattern) == 0 &&
	    check_pattern(L, v, path, *pattern, groups) < 0) {
		free(*pattern);
		*pattern = NULL;
	}
}

static const struct key_spec step_log_keys[] = {
	{ "pattern", KEY_LOAD, .off = AT(analysis.step_log), .load = load_step_pattern,
	  .need = "needs a pattern with named groups step and step_ms",
	  .doc = { "PCRE2", NULL,
		   "with named groups `step` and `step_ms` (optionally `loss`, `samples`)" } },
	KEYS_END
};

static void load_scaling(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	char **scaling = at;
	if (as_string(L, v, path, scaling) == 0 && strcmp(*scaling, "weak") &&
	    strcmp(*scaling, "strong"))
		problem(L, v, path,
			"must be weak (the per-rank batch is fixed) or strong (the global batch is fixed), not \"%.40s\"",
			*scaling);
}

static void one_batch(struct loader *L, yaml_node_t *n, const char *path, int per_rank,
		      int global)
{
	if (per_rank && global)
		problem(L, n, path, "give batch_per_rank or global_batch, not both");
}

static void analysis_batch(struct loader *L, yaml_node_t *n, const char *path, void *base)
{
	struct campaign *c = base;
	one_batch(L, n, path, c->analysis.batch_per_rank, c->analysis.global_batch);
}

static const struct key_spec analysis_keys[] = {
	{ "baseline", KEY_STRING, .off = AT(analysis.baseline),
	  .doc = { "scenario name", "fewest nodes per series",
		   "what speedup and efficiency are measured against" } },
	{ "thresholds", KEY_THRESHOLDS, .off = AT(analysis.th),
	  .doc = { NULL, NULL,
		   "flags listed beside the verdict when a share passes them (the verdict itself is the largest share: docs/accounting.md); on the GPU timeline the GPU idle over 100 − `gpu_util_pct` and exposed copies over `gpu_copy_pct` are flagged" } },
	{ "peak_gflops_per_rank", KEY_DOUBLE, 0, 1e9, 0, AT(analysis.peak_gflops),
	  .doc = { NULL, "unknown",
		   "peak GFLOP/s of one rank's device (e.g. 989000 for an H100's dense BF16); with the telemetry's or the traces' FLOPs gives MFU" } },
	{ "phase_rules", KEY_LOAD, .load = load_phase_rules, .sub = phase_rule_keys,
	  .doc = { "list of `{phase, pattern}`", "`[]`",
		   "PCRE2 patterns for your own range names (record_function, NVTX), tried in order before `analyzers/phase_rules.txt`" },
	  .each = "[]" },
	{ "step_log", KEY_MAP, .sub = step_log_keys,
	  .doc = { "`{pattern}`", "none",
		   "for scripts that print their step times: the pattern is matched against `<scenario>/logs/rank_<r>.out` when there is neither telemetry nor a usable trace" } },
	{ "batch_per_rank", KEY_INT, 1, 100000000, 0, AT(analysis.batch_per_rank),
	  .doc = { NULL, "unknown",
		   "samples per rank and step (weak scaling: the global batch grows with the ranks), for throughput in samples/s from traces and step logs; without any batch the throughput is in **steps/s** and labelled so everywhere" } },
	{ "global_batch", KEY_INT, 1, 2000000000, 0, AT(analysis.global_batch),
	  .doc = { NULL, "unknown",
		   "samples per step over all ranks (strong scaling: a script that keeps its global batch fixed); give this or `batch_per_rank`, not both" } },
	{ "scaling", KEY_LOAD, .off = AT(analysis.scaling), .load = load_scaling,
	  .doc = { "`weak` or `strong`", "from the batches",
		   "the scaling mode when no batch is known: `strong` takes the speedup as the step-rate ratio, `weak` as that ratio x ranks / baseline ranks; without it (and without batches) no speedup is given" } },
	{ "nodes", KEY_INT, 1, 4096, 1, AT(analysis.nodes),
	  .doc = { NULL, NULL,
		   "nodes of the SLURM aggregation job; above 1 the per-file analysis of traces and Nsight Systems exports is mapped over them with srun (one task per node) and reduced on the first; the output is the same whatever the number" } },
	{ "cpus_per_task", KEY_INT, 1, 4096, 0, AT(analysis.cpus_per_task),
	  .doc = { NULL, "SLURM's default",
		   "CPUs of each of the aggregation job's tasks (each analyses its files on all of them)" } },
	{ "fabric_probe", KEY_BOOL, .off = AT(analysis.fabric_probe), .doc = { NULL, NULL, "adds one short job per node count and backend of the scenarios, `fabric-probe-<backend>-<N>n` (as many ranks per node as the widest scenario of that count, its env, 10 minutes): the reference trainer's all-reduce (gloo, or NCCL with `campaign-trainer-gpu`) from 4 KiB to 64 MiB in steps of x4, like nccl-tests' `all_reduce_perf`; the report then gives, per collective, the share of the bus bandwidth the fabric gives at its size, and says whether the fabric itself is the limit (70 % or more) or not. Probes are jobs (they appear in `status`) but not scenarios of the analysis; scenario names starting with `fabric-probe-` are refused" } },
	KEYS_END
};

/* ---- knobs and variant -------------------------------------------------- */

/* Whether kind is one the analysis emits; all: the list of them. */
static int is_rec_kind(const char *kind, struct strbuf *all)
{
	int found = 0;
	for (int k = 0; k < REC_KIND_N; k++) {
		const char *name = rec_kind_name((enum rec_kind)k);
		strbuf_addf(all, "%s%s", k ? ", " : "", name);
		found |= !strcmp(name, kind);
	}
	return found;
}

static const struct key_spec knob_analysis_keys[] = {
	{ "batch_per_rank", KEY_INT, 1, 100000000, 0, AT_K(batch_per_rank),
	  .doc = { NULL, "unchanged", "`analysis.batch_per_rank` of every scenario" } },
	KEYS_END
};

/* The change itself, set in every scenario. */
static const struct key_spec knob_keys[] = {
	{ "params", KEY_LOAD, .off = AT_K(params), .load = load_params,
	  .doc = { "map", "none",
		   "parameter values; each must be a parameter some scenario has" } },
	{ "env", KEY_LOAD, .off = AT_K(env), .load = load_env,
	  .doc = { "map", "none", "environment values, as `workload.env` takes them" } },
	{ "tasks_per_node", KEY_INT, 1, CAMPAIGN_MAX_TASKS_PER_NODE, 0, AT_K(tasks_per_node),
	  .doc = { NULL, "unchanged", "ranks per node" } },
	{ "analysis", KEY_MAP, .sub = knob_analysis_keys },
	KEYS_END
};

/* Mapping n (its keys checked) of knob k at path: its change read. */
static void knob_change(struct loader *L, yaml_node_t *n, const char *path, struct knob *k)
{
	k->line = (int)n->start_mark.line + 1;
	k->col = (int)n->start_mark.column + 1;
	size_t before = L->d->n;
	keys_load(L, n, path, knob_keys, k);
	/* a change given but refused (said) is not a knob without one */
	if (L->d->n == before && !k->params.n && !k->env.n && !k->tasks_per_node &&
	    !k->batch_per_rank)
		problem(L, n, path,
			"a knob needs a change: params, env, tasks_per_node or analysis.batch_per_rank");
}

/* Mapping n of knob k at path: its keys among allowed's, its change read. */
static void load_knob_body(struct loader *L, yaml_node_t *n, const char *path,
			   const struct key_spec *allowed, struct knob *k)
{
	if (keys_check(L, n, path, allowed) == 0)
		knob_change(L, n, path, k);
}

static void load_knobs(struct loader *L, yaml_node_t *n, const char *path, void *at)
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
	if (as_string(L, v, path, kind) == 0 && !is_rec_kind(*kind, &all))
		problem(L, v, path,
			"'%.64s' is not a kind of recommendation (the analysis emits: %s)", *kind,
			strbuf_str(&all));
	strbuf_free(&all);
}

static const struct key_spec variant_keys[] = {
	{ "of", KEY_STRING, .off = AT(variant_of),
	  .doc = { "run id", NULL, "the run it varies" } },
	{ "kind", KEY_LOAD, .off = AT(variant.kind), .load = load_variant_kind,
	  .need = "missing key 'kind' (the recommendation it acts on)",
	  .doc = { "recommendation kind", NULL, "the kind of the recommendation it acts on" } },
	{ "<change>", KEY_ALSO, .sub = knob_keys },
	KEYS_END
};

/* variant's change (its keys checked as the section's), read as a knob's into c->variant. */
static void load_variant_change(struct loader *L, yaml_node_t *n, const char *path, void *base)
{
	struct campaign *c = base;
	knob_change(L, n, path, &c->variant);
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
}

static void check_knobs(struct loader *L, yaml_node_t *root)
{
	struct campaign *c = L->c;
	yaml_node_t *kn = map_get(L, root, "knobs");
	for (size_t i = 0; i < c->n_knobs; i++) {
		char kp[512];
		subpath(kp, sizeof kp, "knobs", c->knobs[i].kind);
		check_knob(L, &c->knobs[i], map_get(L, kn, c->knobs[i].kind), kp);
	}
	if (c->variant.kind && L->d->n == 0) {
		check_knob(L, &c->variant, map_get(L, root, "variant"), "variant");
		knob_apply(c, &c->variant);
	}
}


/* ---- scenarios and matrix ------------------------------------------------ */

static void load_scenario_name(struct loader *L, yaml_node_t *v, const char *path, void *at)
{
	char **name = at;
	if (as_string(L, v, path, name) == 0 && !strstr(*name, "{{") && !is_safe_name(*name))
		problem(L, v, path,
			"\"%.64s\" is not a safe scenario name (letters, digits, . _ -; at most 64; not starting with . or -)",
			*name);
}

static int is_backend(const char *s)
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
	{ "batch_per_rank", KEY_INT, 1, 100000000, 0, AT_S(batch_per_rank),
	  .doc = { NULL, "the campaign's",
		   "this scenario's own batch per rank (this or `global_batch`), before the campaign's" } },
	{ "global_batch", KEY_INT, 1, 2000000000, 0, AT_S(global_batch),
	  .doc = { NULL, "the campaign's",
		   "this scenario's own global batch (this or `batch_per_rank`), before the campaign's" } },
	KEYS_END
};

static const struct key_spec scenario_keys[] = {
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
static void load_scenarios(struct loader *L, yaml_node_t *n, const char *path, void *at)
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
static const struct key_spec *axis_key(const char *key)
{
	for (const struct key_spec *k = scenario_keys; k->key; k++)
		if (k->axis && !strcmp(k->key, key))
			return k;
	return NULL;
}

static void load_matrix(struct loader *L, yaml_node_t *n, const char *path, void *at)
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

/* ---- the file's top level ------------------------------------------------ */

static const struct key_spec root_keys[] = {
	{ "campaign", KEY_LOAD, .off = AT(name), .load = load_name,
	  .need = "missing required key 'campaign' (the campaign's name)",
	  .doc = { "name", NULL,
		   "the campaign's name; results go to `results/<campaign>/<run-id>/`" } },
	{ "description", KEY_STRING, .off = AT(description), .doc = { NULL, NULL, "free text" } },
	{ "slurm", KEY_MAP, .pass = 1, .sub = slurm_keys },
	{ "workload", KEY_MAP, .pass = 1, .sub = workload_keys },
	{ "profile", KEY_MAP, .pass = 1, .sub = profile_keys },
	{ "scenarios", KEY_LOAD, .load = load_scenarios, .pass = 3,
	  .need = "missing required key 'scenarios' (a list of scenarios)",
	  .doc = { "list (1 to " STR(CAMPAIGN_MAX_SCENARIOS) ")", NULL, "see below" } },
	{ "matrix", KEY_LOAD, .load = load_matrix, .pass = 2,
	  .doc = { "map of lists", NULL,
		   "cross product applied to every scenario (see [Matrix](#matrix))" } },
	{ "analysis", KEY_MAP, .pass = 1, .sub = analysis_keys, .after = analysis_batch },
	{ "store_journal", KEY_LOAD, .off = AT(store_journal), .load = load_journal,
	  .doc = { "`auto`, `wal` or `delete`", "`auto`",
		   "the run store's SQLite journal: `auto` gives WAL on a local disk and a rollback journal with POSIX locks where other hosts share the results (NFS, Lustre, GPFS...; see `docs/formats.md`); `--store-journal` on the command line wins" } },
	{ "allow_literal_secrets", KEY_BOOL, .off = AT(allow_literal_secrets),
	  .doc = { NULL, NULL,
		   "lets an `env` value whose name or content looks secret be written literally (refused otherwise)" } },
	{ "knobs", KEY_LOAD, .load = load_knobs, .pass = 2, .sub = knob_keys,
	  .doc = { "map: kind → change", NULL,
		   "for `campaign try`: the change that acts on recommendations of that kind. Kinds are those the analysis emits (`communication`, `straggler`, `data_loading`, `io`, `host`, `copies`, `elementwise`, `kernels`, `memory_peak`, `collect`; another is refused, naming them); the change (below) is set in every scenario; a knob with no change, or one that changes nothing (every scenario already has its values), is refused. See [Knobs](#knobs-and-campaign-try)" },
	  .each = ".<kind>" },
	{ "variant", KEY_MAP, .pass = 2, .sub = variant_keys, .after = load_variant_change,
	  .doc = { "`{of, kind, <change>}`", NULL,
		   "written by `campaign try` into a variant run's `campaign.yaml`: the run it varies, the recommendation kind, and the change applied to every scenario (the same keys as a knob)" } },
	KEYS_END
};

/* ---- alias expansion guard -------------------------------------------- */

/* Size of the tree rooted at idx once aliases are expanded; -1 on a cycle. */
static long expanded_size(struct loader *L, int idx, long *memo, char *busy)
{
	if (memo[idx] >= 0)
		return memo[idx];
	if (busy[idx])
		return -1;
	busy[idx] = 1;
	yaml_node_t *n = node_at(L, idx);
	long total = 1;
	if (n->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top && total >= 0; it++) {
			long s = expanded_size(L, *it, memo, busy);
			total = s < 0 ? -1 : total + s;
			if (total > MAX_EXPANDED_NODES)
				total = MAX_EXPANDED_NODES + 1;
		}
	} else if (n->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top && total >= 0; p++) {
			long a = expanded_size(L, p->key, memo, busy),
			     b = expanded_size(L, p->value, memo, busy);
			total = (a < 0 || b < 0) ? -1 : total + a + b;
			if (total > MAX_EXPANDED_NODES)
				total = MAX_EXPANDED_NODES + 1;
		}
	}
	busy[idx] = 0;
	memo[idx] = total;
	return total;
}

static int check_aliases(struct loader *L)
{
	int count = (int)(L->doc.nodes.top - L->doc.nodes.start);
	long *memo = xmalloc(((size_t)count + 1) * sizeof *memo);
	char *busy = xcalloc((size_t)count + 1, 1);
	for (int i = 0; i <= count; i++)
		memo[i] = -1;
	long size = expanded_size(L, 1, memo, busy);
	free(memo);
	free(busy);
	yaml_node_t *root = node_at(L, 1);
	if (size < 0) {
		problem(L, root, "",
			"an alias refers to the node that contains it (recursive document)");
		return -1;
	}
	if (size > MAX_EXPANDED_NODES) {
		problem(L, root, "",
			"document expands to more than %ld nodes through aliases; refusing it",
			MAX_EXPANDED_NODES);
		return -1;
	}
	return 0;
}

/* A tag is never acted on: the core schema's own (!!str, !!int ...) are
 * what the value is anyway; any other (!include, !vault, !!python/...) is
 * refused where it stands rather than dropped or read as text. */
static int check_tags(struct loader *L)
{
	static const char *const core[] = { "str",  "int", "float", "bool",
					    "null", "map", "seq",   NULL };
	const char prefix[] = "tag:yaml.org,2002:";
	int bad = 0;
	for (yaml_node_t *n = L->doc.nodes.start; n < L->doc.nodes.top; n++) {
		const char *tag = (const char *)n->tag;
		int k = 0;
		if (tag && !strncmp(tag, prefix, sizeof prefix - 1))
			while (core[k] && strcmp(tag + sizeof prefix - 1, core[k]))
				k++;
		if (!tag || (!strncmp(tag, prefix, sizeof prefix - 1) && core[k]))
			continue;
		int std = !strncmp(tag, prefix, sizeof prefix - 1);
		problem(L, n, "",
			"the YAML tag %s%.60s is not supported: campaign files take plain values (no !include, secrets or objects; remove the tag)",
			std ? "!!" : "", std ? tag + sizeof prefix - 1 : tag);
		bad = 1;
	}
	return bad ? -1 : 0;
}

/* ---- the whole file --------------------------------------------------- */

static void campaign_expand(struct loader *L, yaml_node_t *root);

static void load_root(struct loader *L, yaml_node_t *root)
{
	if (load_keys(L, root, "", root_keys, L->c) < 0)
		return;
	if (L->d->n == 0)
		campaign_expand(L, root);
	if (L->d->n == 0)
		check_knobs(L, root);
}

static int parse_document(struct loader *L, const char *data, size_t len)
{
	yaml_parser_t parser;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	int ok = yaml_parser_load(&parser, &L->doc);
	if (!ok) {
		size_t at = parser.problem_mark.index;
		diags_add(L->d, (int) parser.problem_mark.line + 1,
			  (int) parser.problem_mark.column + 1, "", "YAML syntax error: %s%s%s%s",
			  parser.problem ? parser.problem : "malformed input",
			  parser.context ? " " : "", parser.context ? parser.context : "",
			  at < len && data[at] == '\t' ? " (a tab: YAML indents with spaces)" : "");
		yaml_parser_delete(&parser);
		return -1;
	}
	if (!yaml_document_get_root_node(&L->doc)) {
		diags_add(L->d, 1, 1, "", "the campaign file is empty");
		yaml_document_delete(&L->doc);
		yaml_parser_delete(&parser);
		return -1;
	}
	yaml_document_t extra;
	if (yaml_parser_load(&parser, &extra)) {
		yaml_node_t *r = yaml_document_get_root_node(&extra);
		if (r)
			diags_add(L->d, (int) r->start_mark.line + 1,
				  (int) r->start_mark.column + 1, "",
				  "a campaign file holds one YAML document; found another here");
		yaml_document_delete(&extra);
	} else {
		diags_add(L->d, (int) parser.problem_mark.line + 1,
			  (int) parser.problem_mark.column + 1, "", "YAML syntax error: %s",
			  parser.problem ? parser.problem : "malformed input");
	}
	yaml_parser_delete(&parser);
	if (L->d->n) {
		yaml_document_delete(&L->doc);
		return -1;
	}
	return 0;
}

int campaign_load_buffer(const char *name, const char *data, size_t len,
			 struct campaign *c, struct diags *d)
{
	struct loader L = { .d = d, .c = c };
	memset(c, 0, sizeof *c);
	if (parse_document(&L, data, len) < 0)
		return ERR_USAGE;
	key_defaults(c, root_keys);
	if (check_aliases(&L) == 0 && check_tags(&L) == 0)
		load_root(&L, yaml_document_get_root_node(&L.doc));
	yaml_document_delete(&L.doc);
	for (size_t i = 0; i < L.n_axes; i++) {
		free(L.axes[i].key);
		argv_free(&L.axes[i].values);
	}
	free(L.axes);
	for (size_t i = 0; i < L.n_raw; i++) {
		free(L.raw[i].name);
		free(L.raw[i].backend);
		free(L.raw[i].time);
		kvlist_free(&L.raw[i].env);
		kvlist_free(&L.raw[i].params);
	}
	free(L.raw);
	if (d->n) {
		campaign_free(c);
		return ERR_USAGE;
	}
	c->path = xstrdup(name);
	return 0;
}

int campaign_load(const char *file, struct campaign *c, struct diags *d)
{
	char *data;
	size_t len;
	memset(c, 0, sizeof *c);
	struct stat st;
	if (stat(file, &st) == 0 && st.st_size > (off_t)MAX_FILE_BYTES) {
		diags_add(
			d, 0, 0, "",
			"%lld bytes, over the 4 MiB a campaign file may have (a campaign is a few KB: generate scenarios with matrix:, keep data in files the workload reads)",
			(long long) st.st_size);
		return ERR_USAGE;
	}
	int rc = fsio_read(file, MAX_FILE_BYTES, &data, &len);
	if (rc < 0) {
		diags_add(d, 0, 0, "", "cannot read it: %s", err_last());
		return ERR_USAGE;
	}
	rc = campaign_load_buffer(file, data, len, c, d);
	free(data);
	return rc;
}

/* ---- matrix expansion and cross-field checks -------------------------- */

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

static void campaign_expand(struct loader *L, yaml_node_t *root)
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
	if (c->analysis.fabric_probe)
		add_probes(c);
	yaml_node_t *an = map_get(L, root, "analysis");
	if (c->analysis.baseline && !campaign_find(c, c->analysis.baseline))
		problem(L, map_get(L, an, "baseline"), "analysis.baseline",
			"no scenario is named \"%.64s\"", c->analysis.baseline);
}

/* ---- the key tables of docs/campaign-format.md ---------------------------- */

static void doc_type(struct strbuf *sb, const struct key_spec *k)
{
	if (k->doc.type) {
		strbuf_adds(sb, k->doc.type);
	} else if (k->type == KEY_INT) {
		if (k->max >= 1e6)
			strbuf_addf(sb, "integer ≥ %g", k->min);
		else
			strbuf_addf(sb, "%g–%g", k->min, k->max);
	} else if (k->type == KEY_DOUBLE) {
		strbuf_addf(sb, "number ≥ %g", k->min);
	} else if (k->type == KEY_BOOL) {
		strbuf_adds(sb, "bool");
	} else if (k->type == KEY_SWITCH) {
		const char *keys[KEYS_MAX + 1];
		strbuf_adds(sb, "bool or `{");
		for (size_t i = 0, n = key_names(k->sub, keys, 0); i < n; i++)
			strbuf_addf(sb, "%s%s", i ? ", " : "", keys[i]);
		strbuf_adds(sb, "}`");
	} else if (k->type == KEY_THRESHOLDS) {
		strbuf_addf(sb, "number %g–%g", ana_threshold_keys[0].min,
			    ana_threshold_keys[0].max);
	} else {
		strbuf_adds(sb, "string");
	}
}

static void doc_default(struct strbuf *sb, const struct key_spec *k)
{
	if (k->doc.def) {
		strbuf_adds(sb, k->doc.def);
	} else if (k->need) {
		strbuf_adds(sb, "required");
	} else if (k->str_def) {
		strbuf_addf(sb, "`%s`", k->str_def);
	} else if (k->type == KEY_BOOL) {
		strbuf_adds(sb, k->def ? "`true`" : "`false`");
	} else if (k->type == KEY_THRESHOLDS) {
		for (size_t i = 0; i < ANA_THRESHOLDS; i++) {
			const struct ana_threshold_key *d = &ana_threshold_keys[i];
			size_t n = strlen(d->key) - (strstr(d->key, "_pct") ? 4 : 0);
			strbuf_addf(sb, "%s%.*s %g", i ? ", " : "", (int)n, d->key, d->def);
		}
	} else if (k->def) {
		strbuf_addf(sb, "%g", k->def);
	} else {
		strbuf_adds(sb, "none");
	}
}

/* A row for each key of t with a meaning, its mappings' and items' keys after it. */
static void doc_rows(FILE *out, const struct key_spec *t, const char *prefix)
{
	for (; t->key; t++) {
		char path[128];
		snprintf(path, sizeof path, "%s%s%s", prefix, t->key,
			 t->type == KEY_THRESHOLDS ? ".*_pct" : "");
		if (t->doc.meaning) {
			struct strbuf type = STRBUF_INIT, def = STRBUF_INIT;
			doc_type(&type, t);
			doc_default(&def, t);
			fprintf(out, "| `%s` | %s | %s | %s |\n", path, strbuf_str(&type),
				strbuf_str(&def), t->doc.meaning);
			strbuf_free(&type);
			strbuf_free(&def);
		}
		if (t->sub && (t->type == KEY_MAP || t->type == KEY_SWITCH || t->each)) {
			char sub[160];
			snprintf(sub, sizeof sub, "%s%s.", path, t->each ? t->each : "");
			doc_rows(out, t->sub, sub);
		}
	}
}

void campaign_keys_doc(FILE *out)
{
	static const char head[] = "| key | type | default | meaning |\n|---|---|---|---|\n";
	fputs("<!-- generated by `campaign help --keys` from the key tables of orchestrator/campaign/campaign_load.c; edit those, then `make docs-keys` -->\n",
	      out);
	fputs(head, out);
	doc_rows(out, root_keys, "");
	fprintf(out, "\nA scenario:\n\n%s", head);
	doc_rows(out, scenario_keys, "");
	fputs("<!-- end of the generated key tables -->\n", out);
}
