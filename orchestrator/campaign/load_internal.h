/* load_internal: what the campaign loader's own files (campaign_load.c, load_*.c) share: the
 * loader's state, problem() and the readers of one node, the key tables' struct key_spec and
 * the section tables. Private to those files: nothing else includes it.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_LOAD_INTERNAL_H
#define CAMPAIGN_LOAD_INTERNAL_H

#include "campaign.h"

#include <stddef.h>
#include <yaml.h>

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

static inline yaml_node_t *node_at(struct loader *L, int idx)
{
	return yaml_document_get_node(&L->doc, idx);
}

/* ---- load_read.c: problems, scalars and collections ---------------------- */

void problem(struct loader *L, yaml_node_t *n, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
const char *kind_name(yaml_node_t *n);
void subpath(char *buf, size_t n, const char *base, const char *key);
const char *scalar(struct loader *L, yaml_node_t *n, const char *path, const char *want);
int as_string(struct loader *L, yaml_node_t *n, const char *path, char **out);
int as_int(struct loader *L, yaml_node_t *n, const char *path, long min, long max, int *out);
int as_double(struct loader *L, yaml_node_t *n, const char *path, double min, double max,
	      double *out);
int as_bool(struct loader *L, yaml_node_t *n, const char *path, int *out);
int map_check(struct loader *L, yaml_node_t *n, const char *path, const char *const *allowed);
yaml_node_t *map_get(struct loader *L, yaml_node_t *n, const char *key);
int as_list(struct loader *L, yaml_node_t *n, const char *path, struct argv *out);
int as_command(struct loader *L, yaml_node_t *n, const char *path, struct argv *out);
void no_literal_vars(struct loader *L, yaml_node_t *n, const char *path, const struct argv *w);

/* ---- load_keys.c: the key tables ------------------------------------------ */

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

size_t key_names(const struct key_spec *t, const char **keys, size_t n);
int keys_check(struct loader *L, yaml_node_t *n, const char *path, const struct key_spec *t);
void keys_load(struct loader *L, yaml_node_t *n, const char *path, const struct key_spec *t,
	       void *base);
int load_keys(struct loader *L, yaml_node_t *n, const char *path, const struct key_spec *t,
	      void *base);
void key_defaults(void *base, const struct key_spec *t);

/* ---- the sections' tables and the loaders they share ---------------------- */

/* load_values.c */
key_load_fn load_env, load_params, load_token, load_time, load_name, load_journal;

/* load_job.c, load_analysis.c */
extern const struct key_spec slurm_keys[], workload_keys[], profile_keys[], analysis_keys[];
key_load_fn analysis_batch;
void one_batch(struct loader *L, yaml_node_t *n, const char *path, int per_rank, int global);

/* load_knobs.c */
extern const struct key_spec knob_keys[], variant_keys[];
key_load_fn load_knobs, load_variant_change;
void check_knobs(struct loader *L, yaml_node_t *root);

/* load_bisect.c */
extern const struct key_spec bisect_keys[];
void bisect_keep(struct loader *L, yaml_node_t *root);

/* load_scenarios.c */
extern const struct key_spec scenario_keys[];
key_load_fn load_scenarios, load_matrix;
const struct key_spec *axis_key(const char *key);
int is_backend(const char *s);

/* campaign_load.c */
extern const struct key_spec root_keys[];

/* ---- load_guard.c, load_expand.c: the whole document ---------------------- */

int check_aliases(struct loader *L);
int check_tags(struct loader *L);
void campaign_expand(struct loader *L, yaml_node_t *root);

#endif
