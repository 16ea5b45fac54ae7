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
				!strcmp(key, "<<") ? "YAML merge keys (<<) are not supported: write the keys out (anchors and aliases are)"
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
					snprintf(hint, sizeof hint,
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

/* { from_env: true }: the variable is passed through from the submitting
 * environment, its value written nowhere. */
static int env_from(struct loader *L, yaml_node_t *n, const char *path)
{
	static const char *const keys[] = { "from_env", NULL };
	int yes = 0, before = (int)L->d->n;
	yaml_node_t *v;
	map_check(L, n, path, keys);
	if (!(v = map_get(L, n, "from_env")))
		problem(L, n, path, "a variable given as a mapping needs from_env: true (passed through from the submitting environment)");
	else if (as_bool(L, v, path, &yes) == 0 && !yes)
		problem(L, v, path, "from_env: false passes nothing: give the value as a string, or write from_env: true");
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
		const char *v = scalar(L, vn, kp, is_params ? "a string" : "a string or { from_env: true }");
		if (v && (is_params || env_literal_ok(L, vn, kp, key, v)))
			kvlist_set(out, key, v);
		else
			rc = -1;
	}
	return rc;
}

/* ---- sections --------------------------------------------------------- */

static int safe_sbatch_value(struct loader *L, yaml_node_t *n, const char *path, char **out)
{
	if (as_string(L, n, path, out) < 0)
		return -1;
	if (!is_safe_token(*out)) {
		problem(L, n, path, "\"%.64s\" holds characters not allowed in an sbatch option (allowed: letters, digits and _ . , : = + @ / %% -)", *out);
		return -1;
	}
	return 0;
}

static void load_time(struct loader *L, yaml_node_t *n, const char *path, char **out)
{
	long secs;
	if (safe_sbatch_value(L, n, path, out) < 0)
		return;
	if (slurm_time_parse(*out, &secs) < 0)
		problem(L, n, path,
			"\"%.64s\" is not a SLURM time limit (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED)",
			*out);
}

static void load_slurm(struct loader *L, yaml_node_t *n)
{
	static const char *const keys[] = { "account",    "partition", "qos",       "time",
					    "constraint", "extra",     "exclusive", NULL };
	struct campaign *c = L->c;
	if (map_check(L, n, "slurm", keys) < 0)
		return;
	yaml_node_t *v;
	if ((v = map_get(L, n, "account")))
		safe_sbatch_value(L, v, "slurm.account", &c->slurm.account);
	if ((v = map_get(L, n, "partition")))
		safe_sbatch_value(L, v, "slurm.partition", &c->slurm.partition);
	if ((v = map_get(L, n, "qos"))) safe_sbatch_value(L, v, "slurm.qos", &c->slurm.qos);
	if ((v = map_get(L, n, "constraint")))
		safe_sbatch_value(L, v, "slurm.constraint", &c->slurm.constraint);
	if ((v = map_get(L, n, "time"))) load_time(L, v, "slurm.time", &c->slurm.time);
	if ((v = map_get(L, n, "exclusive"))) as_bool(L, v, "slurm.exclusive", &c->slurm.exclusive);
	if ((v = map_get(L, n, "extra")) && as_list(L, v, "slurm.extra", &c->slurm.extra) == 0) {
		for (size_t i = 0; i < c->slurm.extra.n; i++) {
			const char *e = c->slurm.extra.v[i], *val;
			char list[256];
			if (strncmp(e, "--", 2) || !is_safe_token(e + 2))
				problem(L, v, "slurm.extra",
					"\"%.64s\" is not an sbatch long option of safe characters (e.g. --exclusive, --mem=0)",
					e);
			else if (job_spec_extra(e, &val) < 0)
				problem(L, v, "slurm.extra",
					"\"%.64s\" is not an option campaign passes on (supported: %s; the job's output, name, nodes, tasks and time are campaign's)",
					e, job_spec_extras(list, sizeof list));
		}
	}
}

static void load_workload(struct loader *L, yaml_node_t *n)
{
	static const char *const keys[] = { "command", "env", "setup", "params", "launcher", NULL };
	struct campaign *c = L->c;
	if (map_check(L, n, "workload", keys) < 0)
		return;
	yaml_node_t *v;
	char *launcher = NULL;
	if ((v = map_get(L, n, "launcher")) &&
	    as_string(L, v, "workload.launcher", &launcher) == 0) {
		if (!strcmp(launcher, "per-node"))
			c->workload.per_node = 1;
		else if (strcmp(launcher, "ranks"))
			problem(L, v, "workload.launcher",
				"must be ranks (campaign starts every rank) or per-node (one process per node starts them: torchrun, accelerate, deepspeed), not \"%.40s\"",
				launcher);
	}
	free(launcher);
	if ((v = map_get(L, n, "command")) &&
	    as_command(L, v, "workload.command", &c->workload.command) == 0)
		no_literal_vars(L, v, "workload.command", &c->workload.command);
	if ((v = map_get(L, n, "env")))
		as_vars(L, v, "workload.env", 0, &c->workload.env);
	if ((v = map_get(L, n, "params")))
		as_vars(L, v, "workload.params", 1, &c->workload.params);
	if ((v = map_get(L, n, "setup"))) {
		struct argv lines = { 0 };
		if (as_list(L, v, "workload.setup", &lines) == 0) {
			c->workload.setup = xcalloc(lines.n, sizeof *c->workload.setup);
			for (size_t i = 0; i < lines.n; i++) {
				const char *why;
				if (words_split(lines.v[i], &c->workload.setup[c->workload.n_setup],
						&why) < 0)
					problem(L, v, "workload.setup", "line %zu: %s", i + 1, why);
				else if (c->workload.setup[c->workload.n_setup].n > 0)
					c->workload.n_setup++;
			}
		}
		argv_free(&lines);
	}
}

/* nsys: true/false, or {enabled, trace, capture_range, required} */
static void load_nsys(struct loader *L, yaml_node_t *v)
{
	static const char *const keys[] = { "enabled", "trace", "capture_range", "required", NULL };
	struct campaign *c = L->c;
	yaml_node_t *w;
	if (v->type == YAML_SCALAR_NODE) {
		as_bool(L, v, "profile.nsys", &c->profile.nsys);
		return;
	}
	if (map_check(L, v, "profile.nsys", keys) < 0)
		return;
	c->profile.nsys = 1;
	if ((w = map_get(L, v, "enabled"))) as_bool(L, w, "profile.nsys.enabled", &c->profile.nsys);
	if ((w = map_get(L, v, "required")))
		as_bool(L, w, "profile.nsys.required", &c->profile.nsys_required);
	if ((w = map_get(L, v, "trace")))
		safe_sbatch_value(L, w, "profile.nsys.trace", &c->profile.nsys_trace);
	if ((w = map_get(L, v, "capture_range")) &&
	    as_string(L, w, "profile.nsys.capture_range", &c->profile.nsys_capture_range) == 0 &&
	    strcmp(c->profile.nsys_capture_range, "nvtx") &&
	    strcmp(c->profile.nsys_capture_range, "cudaProfilerApi") &&
	    strcmp(c->profile.nsys_capture_range, "none"))
		problem(L, w, "profile.nsys.capture_range",
			"must be none, nvtx or cudaProfilerApi");
}

/* perf: true/false, or {enabled, required} */
static void load_perf(struct loader *L, yaml_node_t *v)
{
	static const char *const keys[] = { "enabled", "required", NULL };
	struct campaign *c = L->c;
	yaml_node_t *w;
	if (v->type == YAML_SCALAR_NODE) {
		as_bool(L, v, "profile.perf", &c->profile.perf);
		return;
	}
	if (map_check(L, v, "profile.perf", keys) < 0)
		return;
	c->profile.perf = 1;
	if ((w = map_get(L, v, "enabled"))) as_bool(L, w, "profile.perf.enabled", &c->profile.perf);
	if ((w = map_get(L, v, "required")))
		as_bool(L, w, "profile.perf.required", &c->profile.perf_required);
}

/* nccl_inspector: true/false, or {enabled, plugin, verbose, interval_us, required} */
static void load_inspector(struct loader *L, yaml_node_t *v)
{
	static const char *const keys[] = { "enabled", "plugin",   "verbose",
					    "interval_us", "required", NULL };
	struct campaign *c = L->c;
	yaml_node_t *w;
	c->profile.inspector_interval_us = 500; /* the plugin's README's; 0 would dump nothing */
	if (v->type == YAML_SCALAR_NODE) {
		as_bool(L, v, "profile.nccl_inspector", &c->profile.inspector);
		return;
	}
	if (map_check(L, v, "profile.nccl_inspector", keys) < 0)
		return;
	c->profile.inspector = 1;
	if ((w = map_get(L, v, "enabled")))
		as_bool(L, w, "profile.nccl_inspector.enabled", &c->profile.inspector);
	if ((w = map_get(L, v, "verbose")))
		as_bool(L, w, "profile.nccl_inspector.verbose", &c->profile.inspector_verbose);
	if ((w = map_get(L, v, "required")))
		as_bool(L, w, "profile.nccl_inspector.required", &c->profile.inspector_required);
	if ((w = map_get(L, v, "interval_us")))
		as_int(L, w, "profile.nccl_inspector.interval_us", 1, 2000000000L,
		       &c->profile.inspector_interval_us);
	if ((w = map_get(L, v, "plugin")) &&
	    as_string(L, w, "profile.nccl_inspector.plugin", &c->profile.inspector_plugin) == 0 &&
	    !c->profile.inspector_plugin[0])
		problem(L, w, "profile.nccl_inspector.plugin",
			"must name the plugin's library (libnccl-profiler-inspector.so, a path or $VAR/...), or be left out to find it on the node");
}

/* ---- key tables ------------------------------------------------------- */

/* A key of a campaign section, declared once: its type and range, its
 * default and where its value lands in struct campaign, or the function that
 * loads it. The section's allowed keys, in the order its "unknown key"
 * message lists them, its checks and its defaults come from its table. */
enum key_type { KEY_INT, KEY_DOUBLE, KEY_BOOL, KEY_STRING, KEY_LOAD };
struct key_spec {
	const char *key;
	enum key_type type;
	double min, max; /* KEY_INT, KEY_DOUBLE */
	double def;      /* KEY_INT, KEY_DOUBLE: the default (0: none) */
	size_t off;      /* where it lands: offsetof(struct campaign, ...) */
	void (*load)(struct loader *L, yaml_node_t *v); /* KEY_LOAD */
};
#define AT(field) offsetof(struct campaign, field)
#define KEYS_MAX 16 /* keys of one section at most (load_keys) */

/* Value v of one key of section, as its table entry k says. */
static void load_key(struct loader *L, yaml_node_t *v, const char *section,
		     const struct key_spec *k)
{
	char path[96];
	void *at = (char *)L->c + k->off;
	snprintf(path, sizeof path, "%s.%s", section, k->key);
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
		k->load(L, v);
		break;
	}
}

/* Section n: its keys among the table's, each loaded; -1 when n is no mapping. */
static int load_keys(struct loader *L, yaml_node_t *n, const char *section,
		     const struct key_spec *t)
{
	const char *keys[KEYS_MAX + 1] = { NULL };
	for (size_t i = 0; t[i].key && i < KEYS_MAX; i++)
		keys[i] = t[i].key;
	if (map_check(L, n, section, keys) < 0)
		return -1;
	yaml_node_t *v;
	for (size_t i = 0; t[i].key; i++)
		if ((v = map_get(L, n, t[i].key)))
			load_key(L, v, section, &t[i]);
	return 0;
}

/* The defaults of a table's numbers. */
static void key_defaults(struct campaign *c, const struct key_spec *t)
{
	for (size_t i = 0; t[i].key; i++)
		if (t[i].def && t[i].type == KEY_INT)
			*(int *)((char *)c + t[i].off) = (int)t[i].def;
		else if (t[i].def && t[i].type == KEY_DOUBLE)
			*(double *)((char *)c + t[i].off) = t[i].def;
}

static void load_traces(struct loader *L, yaml_node_t *v)
{
	struct campaign *c = L->c;
	if (v->type == YAML_SCALAR_NODE) {
		const char *g = scalar(L, v, "profile.traces", "a glob or a list of globs");
		if (g)
			argv_push(&c->profile.traces, g);
	} else {
		as_list(L, v, "profile.traces", &c->profile.traces);
	}
}

static void load_monitor(struct loader *L, yaml_node_t *v)
{
	static const char *const mkeys[] = { "enabled", "interval_ms", NULL };
	struct campaign *c = L->c;
	if (v->type == YAML_SCALAR_NODE) {
		as_bool(L, v, "profile.monitor", &c->profile.monitor);
	} else if (map_check(L, v, "profile.monitor", mkeys) == 0) {
		yaml_node_t *w;
		c->profile.monitor = 1;
		if ((w = map_get(L, v, "enabled")))
			as_bool(L, w, "profile.monitor.enabled", &c->profile.monitor);
		if ((w = map_get(L, v, "interval_ms")))
			as_int(L, w, "profile.monitor.interval_ms", 10, 3600000,
			       &c->profile.monitor_interval_ms);
	}
}

static const struct key_spec profile_keys[] = {
	{ "warmup_steps", KEY_INT, 0, 1000000, 5, AT(profile.warmup_steps), NULL },
	{ "active_steps", KEY_INT, 1, 1000000, 20, AT(profile.active_steps), NULL },
	{ "monitor", KEY_LOAD, 0, 0, 0, 0, load_monitor },
	{ "nsys", KEY_LOAD, 0, 0, 0, 0, load_nsys },
	{ "perf", KEY_LOAD, 0, 0, 0, 0, load_perf },
	{ "nccl_inspector", KEY_LOAD, 0, 0, 0, 0, load_inspector },
	{ "traces", KEY_LOAD, 0, 0, 0, 0, load_traces },
	{ "hang_timeout", KEY_INT, 0, 100000000, 600, AT(profile.hang_timeout_s), NULL },
	{ NULL, KEY_LOAD, 0, 0, 0, 0, NULL }
};

static void load_profile(struct loader *L, yaml_node_t *n)
{
	load_keys(L, n, "profile", profile_keys);
}

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

static void load_phase_rules(struct loader *L, yaml_node_t *n)
{
	static const char *const keys[] = { "phase", "pattern", NULL };
	static const char *const phases[] = { "forward",       "backward",
					      "optimizer",     "data_loading",
					      "communication", "io",
					      "compute",       "other",
					      NULL };
	struct campaign *c = L->c;
	if (n->type != YAML_SEQUENCE_NODE) {
		problem(L, n, "analysis.phase_rules",
			"expected a list of {phase, pattern}, found %s", kind_name(n));
		return;
	}
	int i = 0;
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++, i++) {
		yaml_node_t *m = node_at(L, *it), *ph, *pat;
		char path[64], *phase = NULL, *pattern = NULL;
		snprintf(path, sizeof path, "analysis.phase_rules[%d]", i);
		if (map_check(L, m, path, keys) < 0)
			continue;
		if (!(ph = map_get(L, m, "phase")) || !(pat = map_get(L, m, "pattern"))) {
			problem(L, m, path, "needs both phase and pattern");
			continue;
		}
		int known = 0;
		if (as_string(L, ph, path, &phase) == 0)
			for (int k = 0; phases[k]; k++)
				known |= !strcmp(phases[k], phase);
		if (phase && !known)
			problem(L, ph, path,
				"unknown phase \"%.32s\" (expected forward, backward, optimizer, data_loading, communication, io, compute or other)",
				phase);
		if (known && as_string(L, pat, path, &pattern) == 0 &&
		    check_pattern(L, pat, path, pattern, NULL) == 0) {
			argv_push(&c->analysis.phase_names, phase);
			argv_push(&c->analysis.phase_patterns, pattern);
		}
		free(phase);
		free(pattern);
	}
}

static void load_step_log(struct loader *L, yaml_node_t *n)
{
	static const char *const keys[] = { "pattern", NULL };
	static const char *const need[] = { "step", "step_ms", NULL };
	yaml_node_t *v;
	if (map_check(L, n, "analysis.step_log", keys) < 0)
		return;
	if (!(v = map_get(L, n, "pattern"))) {
		problem(L, n, "analysis.step_log",
			"needs a pattern with named groups step and step_ms");
		return;
	}
	if (as_string(L, v, "analysis.step_log.pattern", &L->c->analysis.step_log) == 0 &&
	    check_pattern(L, v, "analysis.step_log.pattern", L->c->analysis.step_log, need) < 0) {
		free(L->c->analysis.step_log);
		L->c->analysis.step_log = NULL;
	}
}

/* analysis.thresholds: the keys, ranges and fields of analyzers/thresholds.h's table. */
static void load_thresholds(struct loader *L, yaml_node_t *t)
{
	const char *keys[ANA_THRESHOLDS + 1] = { NULL };
	for (size_t k = 0; k < ANA_THRESHOLDS; k++)
		keys[k] = ana_threshold_keys[k].key;
	if (map_check(L, t, "analysis.thresholds", keys) < 0)
		return;
	for (size_t k = 0; k < ANA_THRESHOLDS; k++) {
		const struct ana_threshold_key *d = &ana_threshold_keys[k];
		yaml_node_t *v = map_get(L, t, d->key);
		char path[96];
		snprintf(path, sizeof path, "analysis.thresholds.%s", d->key);
		if (v)
			as_double(L, v, path, d->min, d->max,
				  ana_threshold_at(&L->c->analysis.th, k));
	}
}

static void load_scaling(struct loader *L, yaml_node_t *v)
{
	struct campaign *c = L->c;
	if (as_string(L, v, "analysis.scaling", &c->analysis.scaling) == 0 &&
	    strcmp(c->analysis.scaling, "weak") && strcmp(c->analysis.scaling, "strong"))
		problem(L, v, "analysis.scaling",
			"must be weak (the per-rank batch is fixed) or strong (the global batch is fixed), not \"%.40s\"",
			c->analysis.scaling);
}

static const struct key_spec analysis_keys[] = {
	{ "baseline", KEY_STRING, 0, 0, 0, AT(analysis.baseline), NULL },
	{ "thresholds", KEY_LOAD, 0, 0, 0, 0, load_thresholds },
	{ "peak_gflops_per_rank", KEY_DOUBLE, 0, 1e9, 0, AT(analysis.peak_gflops), NULL },
	{ "phase_rules", KEY_LOAD, 0, 0, 0, 0, load_phase_rules },
	{ "step_log", KEY_LOAD, 0, 0, 0, 0, load_step_log },
	{ "batch_per_rank", KEY_INT, 1, 100000000, 0, AT(analysis.batch_per_rank), NULL },
	{ "global_batch", KEY_INT, 1, 2000000000, 0, AT(analysis.global_batch), NULL },
	{ "scaling", KEY_LOAD, 0, 0, 0, 0, load_scaling },
	{ "nodes", KEY_INT, 1, 4096, 1, AT(analysis.nodes), NULL },
	{ "cpus_per_task", KEY_INT, 1, 4096, 0, AT(analysis.cpus_per_task), NULL },
	{ "fabric_probe", KEY_BOOL, 0, 0, 0, AT(analysis.fabric_probe), NULL },
	{ NULL, KEY_LOAD, 0, 0, 0, 0, NULL }
};

static void load_analysis(struct loader *L, yaml_node_t *n)
{
	if (load_keys(L, n, "analysis", analysis_keys) < 0)
		return;
	if (L->c->analysis.batch_per_rank && L->c->analysis.global_batch)
		problem(L, n, "analysis", "give batch_per_rank or global_batch, not both");
}

/* A scenario's own batch: scenarios[i].analysis.{batch_per_rank,global_batch}. */
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

/* The change itself: params, env, tasks_per_node, analysis.batch_per_rank. */
static void load_knob_body(struct loader *L, yaml_node_t *n, const char *path,
			   const char *const *keys, struct knob *k)
{
	char q[600], a[560];
	yaml_node_t *v, *an;
	k->line = (int)n->start_mark.line + 1;
	k->col = (int)n->start_mark.column + 1;
	if (map_check(L, n, path, keys) < 0)
		return;
	if ((v = map_get(L, n, "params")))
		as_vars(L, v, (subpath(q, sizeof q, path, "params"), q), 1, &k->params);
	if ((v = map_get(L, n, "env")))
		as_vars(L, v, (subpath(q, sizeof q, path, "env"), q), 0, &k->env);
	if ((v = map_get(L, n, "tasks_per_node")))
		as_int(L, v, (subpath(q, sizeof q, path, "tasks_per_node"), q), 1, 4096,
		       &k->tasks_per_node);
	static const char *const akeys[] = { "batch_per_rank", NULL };
	subpath(a, sizeof a, path, "analysis");
	if ((an = map_get(L, n, "analysis")) && map_check(L, an, a, akeys) == 0 &&
	    (v = map_get(L, an, "batch_per_rank")))
		as_int(L, v, (subpath(q, sizeof q, a, "batch_per_rank"), q), 1, 100000000,
		       &k->batch_per_rank);
	if (!k->params.n && !k->env.n && !k->tasks_per_node && !k->batch_per_rank)
		problem(L, n, path, "a knob needs a change: params, env, tasks_per_node or analysis.batch_per_rank");
}

static const char *const knob_keys[] = { "params", "env", "tasks_per_node", "analysis", NULL };

static void load_knobs(struct loader *L, yaml_node_t *n)
{
	struct campaign *c = L->c;
	if (map_check(L, n, "knobs", NULL) < 0)
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
		subpath(kp, sizeof kp, "knobs", kind);
		if (!is_rec_kind(kind, &all))
			problem(L, k, kp, "'%.64s' is not a kind of recommendation (the analysis emits: %s)", kind, strbuf_str(&all));
		strbuf_free(&all);
		struct knob *kb = &c->knobs[c->n_knobs++];
		kb->kind = xstrdup(kind);
		load_knob_body(L, node_at(L, p->value), kp, knob_keys, kb);
	}
}

static void load_variant(struct loader *L, yaml_node_t *n)
{
	static const char *const keys[] = { "of", "kind", "params", "env", "tasks_per_node",
					    "analysis", NULL };
	struct campaign *c = L->c;
	yaml_node_t *v;
	struct strbuf all = STRBUF_INIT;
	if (map_check(L, n, "variant", keys) < 0)
		return;
	if ((v = map_get(L, n, "of")))
		as_string(L, v, "variant.of", &c->variant_of);
	if (!(v = map_get(L, n, "kind")))
		problem(L, n, "variant", "missing key 'kind' (the recommendation it acts on)");
	else if (as_string(L, v, "variant.kind", &c->variant.kind) == 0 &&
		 !is_rec_kind(c->variant.kind, &all))
		problem(L, v, "variant.kind", "'%.64s' is not a kind of recommendation (the analysis emits: %s)", c->variant.kind, strbuf_str(&all));
	strbuf_free(&all);
	load_knob_body(L, n, "variant", keys, &c->variant);
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
			problem(L, n, path, "no scenario has a parameter '%s' (a knob changes the campaign's own params: add it to workload.params)",
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

static void load_scenario_analysis(struct loader *L, yaml_node_t *n, const char *base,
				   struct scenario *s)
{
	static const char *const keys[] = { "batch_per_rank", "global_batch", NULL };
	char p[128], q[160];
	subpath(p, sizeof p, base, "analysis");
	if (map_check(L, n, p, keys) < 0)
		return;
	yaml_node_t *v;
	if ((v = map_get(L, n, "batch_per_rank")))
		as_int(L, v, (subpath(q, sizeof q, p, "batch_per_rank"), q), 1, 100000000,
		       &s->batch_per_rank);
	if ((v = map_get(L, n, "global_batch")))
		as_int(L, v, (subpath(q, sizeof q, p, "global_batch"), q), 1, 2000000000,
		       &s->global_batch);
	if (s->batch_per_rank && s->global_batch)
		problem(L, n, p, "give batch_per_rank or global_batch, not both");
}

static void load_scenario(struct loader *L, yaml_node_t *n, size_t idx, struct scenario *s)
{
	static const char *const keys[] = {
		"name", "nodes", "tasks_per_node", "gpus_per_node", "backend",
		"time", "env",   "params",         "analysis",      NULL
	};
	char base[64], p[128];
	snprintf(base, sizeof base, "scenarios[%zu]", idx);
	s->line = (int)n->start_mark.line + 1;
	s->col = (int)n->start_mark.column + 1;
	s->tasks_per_node = 1;
	s->gpus_per_node = -1;
	if (map_check(L, n, base, keys) < 0)
		return;
	yaml_node_t *v;
	if (!(v = map_get(L, n, "name")))
		problem(L, n, base, "missing required key 'name'");
	else if (as_string(L, v, (subpath(p, sizeof p, base, "name"), p), &s->name) == 0 &&
		 !strstr(s->name, "{{") && !is_safe_name(s->name))
		problem(L, v, p,
			"\"%.64s\" is not a safe scenario name (letters, digits, . _ -; at most 64; not starting with . or -)",
			s->name);
	if (!(v = map_get(L, n, "nodes")))
		problem(L, n, base, "missing required key 'nodes'");
	else
		as_int(L, v, (subpath(p, sizeof p, base, "nodes"), p), 1, CAMPAIGN_MAX_NODES,
		       &s->nodes);
	if ((v = map_get(L, n, "tasks_per_node")))
		as_int(L, v, (subpath(p, sizeof p, base, "tasks_per_node"), p), 1, 1024,
		       &s->tasks_per_node);
	if ((v = map_get(L, n, "gpus_per_node")))
		as_int(L, v, (subpath(p, sizeof p, base, "gpus_per_node"), p), 0, 64,
		       &s->gpus_per_node);
	if ((v = map_get(L, n, "backend"))) {
		subpath(p, sizeof p, base, "backend");
		if (as_string(L, v, p, &s->backend) == 0 && strcmp(s->backend, "gloo") &&
		    strcmp(s->backend, "nccl"))
			problem(L, v, p, "backend must be gloo or nccl, not \"%.40s\"", s->backend);
	}
	if ((v = map_get(L, n, "time")))
		load_time(L, v, (subpath(p, sizeof p, base, "time"), p), &s->time);
	if ((v = map_get(L, n, "env")))
		as_vars(L, v, (subpath(p, sizeof p, base, "env"), p), 0, &s->env);
	if ((v = map_get(L, n, "params")))
		as_vars(L, v, (subpath(p, sizeof p, base, "params"), p), 1, &s->params);
	if ((v = map_get(L, n, "analysis")))
		load_scenario_analysis(L, v, base, s);
}

static int is_matrix_field(const char *k)
{
	return !strcmp(k, "nodes") || !strcmp(k, "tasks_per_node") || !strcmp(k, "gpus_per_node") ||
		!strcmp(k, "backend");
}

static void load_matrix(struct loader *L, yaml_node_t *n)
{
	if (map_check(L, n, "matrix", NULL) < 0)
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
		subpath(kp, sizeof kp, "matrix", key);
		if (!is_matrix_field(key) && (!is_env_name(key) || placeholder_is_builtin(key))) {
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

static void load_scenarios(struct loader *L, yaml_node_t *n, struct scenario **out, size_t *nout)
{
	if (n->type != YAML_SEQUENCE_NODE) {
		problem(L, n, "scenarios", "expected a list, found %s", kind_name(n));
		return;
	}
	size_t cnt = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (cnt == 0) {
		problem(L, n, "scenarios", "at least one scenario is required");
		return;
	}
	if (cnt > CAMPAIGN_MAX_SCENARIOS) {
		problem(L, n, "scenarios", "%zu scenarios; at most %d are allowed", cnt,
			CAMPAIGN_MAX_SCENARIOS);
		return;
	}
	*out = xcalloc(cnt, sizeof **out);
	*nout = cnt;
	for (size_t i = 0; i < cnt; i++)
		load_scenario(L, node_at(L, n->data.sequence.items.start[i]), i, &(*out)[i]);
	/* Equal plain names stay equal whatever the matrix appends. */
	for (size_t i = 0; i < cnt; i++) {
		struct scenario *s = &(*out)[i];
		for (size_t j = 0; s->name && j < i; j++) {
			if ((*out)[j].name && !strcmp((*out)[j].name, s->name)) {
				char p[64];
				snprintf(p, sizeof p, "scenarios[%zu].name", i);
				diags_add(L->d, s->line, s->col, p,
					  "duplicate scenario name \"%.64s\"", s->name);
				break;
			}
		}
	}
}

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

static void campaign_expand(struct loader *L, struct scenario *raw, size_t n_raw,
			    yaml_node_t *root);

static void set_defaults(struct campaign *c)
{
	key_defaults(c, profile_keys);
	c->profile.monitor_interval_ms = 500;
	ana_thresholds_default(&c->analysis.th);
	key_defaults(c, analysis_keys);
	/* a scaling series measured on shared nodes measures the neighbours too */
	c->slurm.exclusive = 1;
}

static void load_root(struct loader *L, yaml_node_t *root)
{
	static const char *const keys[] = {
		"campaign",  "description", "slurm",    "workload",      "profile",
		"scenarios", "matrix",      "analysis", "store_journal", "allow_literal_secrets",
		"knobs",     "variant",     NULL
	};
	struct campaign *c = L->c;
	struct scenario *raw = NULL;
	size_t n_raw = 0;
	yaml_node_t *v;
	if (map_check(L, root, "", keys) < 0)
		return;
	if (!(v = map_get(L, root, "campaign")))
		problem(L, root, "campaign",
			"missing required key 'campaign' (the campaign's name)");
	else if (as_string(L, v, "campaign", &c->name) == 0 && !is_safe_name(c->name))
		problem(L, v, "campaign",
			"\"%.64s\" is not a safe name (letters, digits, . _ -; at most 64; not starting with . or -)",
			c->name);
	if ((v = map_get(L, root, "description"))) as_string(L, v, "description", &c->description);
	if ((v = map_get(L, root, "store_journal")) &&
	    as_string(L, v, "store_journal", &c->store_journal) == 0 &&
	    strcmp(c->store_journal, "auto") && strcmp(c->store_journal, "wal") &&
	    strcmp(c->store_journal, "delete"))
		problem(L, v, "store_journal", "must be auto, wal or delete, not \"%.40s\"",
			c->store_journal);
	/* read first: the env of workload and scenarios is checked against it */
	if ((v = map_get(L, root, "allow_literal_secrets")))
		as_bool(L, v, "allow_literal_secrets", &c->allow_literal_secrets);
	if ((v = map_get(L, root, "slurm"))) load_slurm(L, v);
	if ((v = map_get(L, root, "workload"))) load_workload(L, v);
	if ((v = map_get(L, root, "profile"))) load_profile(L, v);
	if ((v = map_get(L, root, "analysis"))) load_analysis(L, v);
	if ((v = map_get(L, root, "matrix"))) load_matrix(L, v);
	if ((v = map_get(L, root, "knobs"))) load_knobs(L, v);
	if ((v = map_get(L, root, "variant"))) load_variant(L, v);
	if (!(v = map_get(L, root, "scenarios")))
		problem(L, root, "scenarios",
			"missing required key 'scenarios' (a list of scenarios)");
	else
		load_scenarios(L, v, &raw, &n_raw);
	if (L->d->n == 0)
		campaign_expand(L, raw, n_raw, root);
	if (L->d->n == 0)
		check_knobs(L, root);
	for (size_t i = 0; i < n_raw; i++) {
		free(raw[i].name);
		free(raw[i].backend);
		free(raw[i].time);
		kvlist_free(&raw[i].env);
		kvlist_free(&raw[i].params);
	}
	free(raw);
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
	set_defaults(c);
	if (parse_document(&L, data, len) < 0)
		return ERR_USAGE;
	if (check_aliases(&L) == 0 && check_tags(&L) == 0)
		load_root(&L, yaml_document_get_root_node(&L.doc));
	yaml_document_delete(&L.doc);
	for (size_t i = 0; i < L.n_axes; i++) {
		free(L.axes[i].key);
		argv_free(&L.axes[i].values);
	}
	free(L.axes);
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
		diags_add(d, 0, 0, "",
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

static int apply_axis(struct loader *L, struct scenario *o, const char *key, const char *val)
{
	char *end;
	long v = strtol(val, &end, 10);
	int ok = *val && !*end;
	if (!strcmp(key, "backend")) {
		if (strcmp(val, "gloo") && strcmp(val, "nccl"))
			return -1;
		free(o->backend);
		o->backend = xstrdup(val);
	} else if (!strcmp(key, "nodes")) {
		if (!ok || v < 1 || v > CAMPAIGN_MAX_NODES)
			return -1;
		o->nodes = (int)v;
	} else if (!strcmp(key, "tasks_per_node")) {
		if (!ok || v < 1 || v > 1024)
			return -1;
		o->tasks_per_node = (int)v;
	} else if (!strcmp(key, "gpus_per_node")) {
		if (!ok || v < 0 || v > 64)
			return -1;
		o->gpus_per_node = (int)v;
	} else {
		kvlist_set(&o->params, key, val);
	}
	(void)L;
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
	o->backend = xstrdup(s->backend ? s->backend : "gloo");
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
		if (apply_axis(L, o, L->axes[a].key, val) < 0)
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
		diags_add(L->d, o->line, o->col, p,
			  "\"%.64s\" is not a safe scenario name (letters, digits, . _ -; at most 64; not starting with . or -)",
			  o->name);
	for (size_t j = 0; j < i; j++)
		if (!strcmp(c->scenarios[j].name, o->name))
			diags_add(L->d, o->line, o->col, p, "duplicate scenario name \"%.64s\"",
				  o->name);
	if (!strncmp(o->name, FABRIC_PROBE_PREFIX, strlen(FABRIC_PROBE_PREFIX)))
		diags_add(L->d, o->line, o->col, p,
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

static void campaign_expand(struct loader *L, struct scenario *raw, size_t n_raw, yaml_node_t *root)
{
	struct campaign *c = L->c;
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
	if (!c->slurm.time)
		c->slurm.time = xstrdup("00:30:00");
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
