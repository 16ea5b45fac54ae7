/* SPDX-License-Identifier: MIT */
#include "analyzers/run_input_bounds.h"

#include "analyzers/analysis.h"
#include "analyzers/bounds.h"
#include "analyzers/thresholds.h"
#include "util/quote.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A key's bound: a string ('s': at most max bytes; 'n': a safe name), or an
 * integer's or a number's range ('i', 'f'). A value of another type, or
 * none, is the type check's to refuse. */
struct field_bound {
	const char *key;
	char type;
	double min, max;
};

#define CONTAMINATED_BYTES (sizeof((struct ana_scenario *)0)->data.contaminated - 1)

static const struct field_bound top_bounds[] = {
	{ "campaign", 'n', 0, 0 }, { "run_id", 'n', 0, 0 }, { NULL, 0, 0, 0 }
};
static const struct field_bound settings_bounds[] = {
	{ "baseline", 'n', 0, 0 },
	{ "want_nsys", 'i', 0, 1 },
	{ "want_perf", 'i', 0, 1 },
	{ "want_inspector", 'i', 0, 1 },
	{ "peak_gflops", 'f', 0, BOUND_PEAK_GFLOPS },
	{ "epoch", 'i', 0, BOUND_EPOCH_S },
	{ "host_cpus", 'i', 0, BOUND_HOST_CPUS },
	{ "step_log", 's', 0, BOUND_SCALAR_BYTES },
	{ "warmup_steps", 'i', 0, BOUND_STEPS },
	{ "batch_per_rank", 'i', 0, BOUND_BATCH_PER_RANK },
	{ "global_batch", 'i', 0, BOUND_GLOBAL_BATCH },
	{ "scaling", 'n', 0, 0 },
	{ NULL, 0, 0, 0 }
};
static const struct field_bound rule_bounds[] = {
	{ "phase", 'n', 0, 0 }, { "pattern", 's', 0, BOUND_SCALAR_BYTES }, { NULL, 0, 0, 0 }
};
static const struct field_bound scenario_bounds[] = {
	{ "name", 'n', 0, 0 },
	{ "state", 'n', 0, 0 },
	{ "reason", 's', 0, BOUND_TEXT_BYTES },
	{ "backend", 'n', 0, 0 },
	{ "job_dir", 's', 0, BOUND_PATH_BYTES },
	{ "exit_code", 'i', INT_MIN, INT_MAX },
	{ "nodes", 'i', 0, BOUND_NODES },
	{ "tasks_per_node", 'i', 0, BOUND_TASKS_PER_NODE },
	{ "series", 's', 0, BOUND_TEXT_BYTES },
	{ "batch_per_rank", 'i', 0, BOUND_BATCH_PER_RANK },
	{ "global_batch_set", 'i', 0, BOUND_GLOBAL_BATCH },
	{ "attempt", 'i', 0, BOUND_ATTEMPTS },
	{ "attempts", 'i', 0, BOUND_ATTEMPTS },
	{ "requeued", 's', 0, BOUND_TEXT_BYTES },
	{ "contaminated", 's', 0, CONTAMINATED_BYTES },
	{ "loader_workers", 'i', 0, BOUND_LOADER },
	{ "loader_prefetch", 'i', 0, BOUND_LOADER },
	{ "checkpoint_every", 'i', -1, BOUND_CKPT_EVERY },
	{ NULL, 0, 0, 0 }
};
static const struct field_bound probe_bounds[] = {
	{ "name", 'n', 0, 0 },		{ "state", 'n', 0, 0 },
	{ "backend", 'n', 0, 0 },	{ "job_dir", 's', 0, BOUND_PATH_BYTES },
	{ "nodes", 'i', 0, BOUND_NODES }, { "tasks_per_node", 'i', 0, BOUND_TASKS_PER_NODE },
	{ NULL, 0, 0, 0 }
};
static const struct field_bound variant_bounds[] = {
	{ "of", 'n', 0, 0 }, { "kind", 'n', 0, 0 }, { "knob", 's', 0, BOUND_SCALAR_BYTES },
	{ NULL, 0, 0, 0 }
};
/* -1: none (a prediction without a ceiling, a share the parent did not have) */
static const struct field_bound check_bounds[] = {
	{ "scenario", 'n', 0, 0 },
	{ "predicted_ms", 'f', -1, BOUND_STEP_MS },
	{ "parent_median_ms", 'f', -1, BOUND_STEP_MS },
	{ "parent_batch", 'i', 0, BOUND_GLOBAL_BATCH },
	{ NULL, 0, 0, 0 }
};

__attribute__((format(printf, 3, 4))) static int input_error(char *why, size_t n,
							     const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -1;
}

/* "where.key" (or "key" at the top) into buf. */
static const char *key_path(char *buf, size_t n, const char *where, const char *key)
{
	snprintf(buf, n, "%s%s%s", where, *where ? "." : "", key);
	return buf;
}

static int string_within(const char *key, const struct field_bound *b, json_t *v, char *why,
			 size_t n)
{
	size_t len = json_string_length(v);
	if (b->type == 'n' && (len > BOUND_NAME_BYTES || !is_safe_name(json_string_value(v))))
		return input_error(
			why, n, /* not shown: it may hold a terminal's escapes */
			"%s: not a safe name (letters, digits, . _ -; at most %d; not starting with . or -)",
			key, BOUND_NAME_BYTES);
	if (b->type == 's' && len > b->max)
		return input_error(why, n, "%s: %zu bytes, more than %.0f", key, len, b->max);
	return 0;
}

static int number_within(const char *key, double min, double max, json_t *v, char *why, size_t n)
{
	if (json_is_integer(v) && (json_integer_value(v) < min || json_integer_value(v) > max))
		return input_error(why, n, "%s: %lld is out of range (%.0f..%.0f)", key,
				   (long long)json_integer_value(v), min, max);
	if (json_is_real(v) && !(json_real_value(v) >= min && json_real_value(v) <= max))
		return input_error(why, n, "%s: %g is out of range (%g..%g)", key,
				   json_real_value(v), min, max);
	return 0;
}

static int value_within(const char *key, const struct field_bound *b, json_t *v, char *why,
			size_t n)
{
	if (json_is_string(v) && (b->type == 's' || b->type == 'n'))
		return string_within(key, b, v, why, n);
	if (json_is_number(v) && (b->type == 'i' || b->type == 'f'))
		return number_within(key, b->min, b->max, v, why, n);
	return 0;
}

/* The keys of o that table t bounds, o being at where. */
static int within(json_t *o, const struct field_bound *t, const char *where, char *why, size_t n)
{
	char key[160];
	for (; t->key; t++)
		if (value_within(key_path(key, sizeof key, where, t->key), t,
				 json_object_get(o, t->key), why, n) < 0)
			return -1;
	return 0;
}

/* A list at where.key of at most max items, each within items' bounds (an
 * object's), or else within item's (a string's or a number's). */
struct list_bound {
	const char *key;
	size_t max;
	const struct field_bound *items;
	struct field_bound item;
};

static int list_within(json_t *o, const struct list_bound *l, const char *where, char *why,
		       size_t n)
{
	json_t *a = json_object_get(o, l->key), *v;
	char key[160], item[192];
	size_t i;
	key_path(key, sizeof key, where, l->key);
	if (json_array_size(a) > l->max)
		return input_error(why, n, "%s: %zu items, more than %zu", key, json_array_size(a),
				   l->max);
	json_array_foreach(a, i, v) {
		snprintf(item, sizeof item, "%s[%zu]", key, i);
		if ((l->items ? within(v, l->items, item, why, n)
			      : value_within(item, &l->item, v, why, n)) < 0)
			return -1;
	}
	return 0;
}

static int thresholds_within(json_t *settings, char *why, size_t n)
{
	json_t *th = json_object_get(settings, "thresholds");
	char key[160];
	for (size_t k = 0; k < ANA_THRESHOLDS; k++) {
		const struct ana_threshold_key *d = &ana_threshold_keys[k];
		json_t *v = json_object_get(th, d->key);
		snprintf(key, sizeof key, "settings.thresholds.%s", d->key);
		if (json_is_number(v) && number_within(key, d->min, d->max, v, why, n) < 0)
			return -1;
	}
	return 0;
}

static const struct list_bound scenarios_list = { .key = "scenarios", .max = BOUND_SCENARIOS,
						  .items = scenario_bounds };
static const struct list_bound probes_list = { .key = "probes", .max = BOUND_SCENARIOS,
					       .items = probe_bounds };
static const struct list_bound globs_list = { .key = "trace_globs", .max = BOUND_LIST_ITEMS,
					      .item = { "", 's', 0, BOUND_SCALAR_BYTES } };
static const struct list_bound rules_list = { .key = "phase_rules", .max = BOUND_LIST_ITEMS,
					      .items = rule_bounds };
static const struct list_bound checks_list = { .key = "checks", .max = BOUND_SCENARIOS,
					       .items = check_bounds };
static const struct list_bound steps_list = { .key = "parent_steps", .max = BOUND_STEPS,
					      .item = { "", 'f', 0, BOUND_STEP_MS } };
static const struct list_bound shares_list = { .key = "parent_share_pct", .max = CHECK_SHARES,
					       .item = { "", 'f', -1, 100 } };

static int variant_within(json_t *variant, char *why, size_t n)
{
	json_t *c;
	size_t i;
	char where[64];
	if (within(variant, variant_bounds, "variant", why, n) < 0 ||
	    list_within(variant, &checks_list, "variant", why, n) < 0)
		return -1;
	json_array_foreach(json_object_get(variant, "checks"), i, c) {
		snprintf(where, sizeof where, "variant.checks[%zu]", i);
		if (list_within(c, &steps_list, where, why, n) < 0 ||
		    list_within(c, &shares_list, where, why, n) < 0)
			return -1;
	}
	return 0;
}

int run_input_bounds(json_t *doc, char *why, size_t n)
{
	json_t *settings = json_object_get(doc, "settings");
	if (within(doc, top_bounds, "", why, n) < 0 ||
	    within(settings, settings_bounds, "settings", why, n) < 0 ||
	    thresholds_within(settings, why, n) < 0 ||
	    list_within(settings, &rules_list, "settings", why, n) < 0 ||
	    list_within(doc, &globs_list, "", why, n) < 0 ||
	    list_within(doc, &scenarios_list, "", why, n) < 0 ||
	    list_within(doc, &probes_list, "", why, n) < 0)
		return -1;
	json_t *v = json_object_get(doc, "variant");
	return json_is_object(v) ? variant_within(v, why, n) : 0;
}
