/* load_analysis: the analysis section's table (baseline, thresholds, phase rules, step log,
 * batches and scaling, the aggregation job, the fabric probe), with its PCRE2 pattern checks
 * and the batch check a scenario's analysis shares.
 * SPDX-License-Identifier: MIT */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "load_internal.h"
#include "orchestrator/campaign/prose.h"

#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

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
			 .doc = { "phase name", NULL, PROSE_KEY_RULE_PHASE } },
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

void one_batch(struct loader *L, yaml_node_t *n, const char *path, int per_rank, int global)
{
	if (per_rank && global)
		problem(L, n, path, "give batch_per_rank or global_batch, not both");
}

void analysis_batch(struct loader *L, yaml_node_t *n, const char *path, void *base)
{
	struct campaign *c = base;
	one_batch(L, n, path, c->analysis.batch_per_rank, c->analysis.global_batch);
}

const struct key_spec analysis_keys[] = {
	{ "baseline", KEY_STRING, .off = AT(analysis.baseline),
	  .doc = { "scenario name", "fewest nodes per series",
		   "what speedup and efficiency are measured against" } },
	{ "thresholds", KEY_THRESHOLDS, .off = AT(analysis.th),
	  .doc = { NULL, NULL, PROSE_KEY_ANALYSIS_THRESHOLDS } },
	{ "peak_gflops_per_rank", KEY_DOUBLE, 0, BOUND_PEAK_GFLOPS, 0, AT(analysis.peak_gflops),
	  .doc = { NULL, "unknown",
		   "peak GFLOP/s of one rank's device (e.g. 989000 for an H100's dense BF16); with the telemetry's or the traces' FLOPs gives MFU" } },
	{ "cores_per_node", KEY_INT, 1, 1000000, 0, AT(analysis.cores_per_node),
	  .doc = { NULL, "this machine's online CPUs (local executor)",
		   PROSE_KEY_ANALYSIS_CORES_PER_NODE } },
	{ "phase_rules", KEY_LOAD, .load = load_phase_rules, .sub = phase_rule_keys,
	  .doc = { "list of `{phase, pattern}`", "`[]`",
		   "PCRE2 patterns for your own range names (record_function, NVTX), tried in order before `analyzers/phase_rules.txt`" },
	  .each = "[]" },
	{ "step_log", KEY_MAP, .sub = step_log_keys,
	  .doc = { "`{pattern}`", "none", PROSE_KEY_ANALYSIS_STEP_LOG } },
	{ "batch_per_rank", KEY_INT, 1, BOUND_BATCH_PER_RANK, 0, AT(analysis.batch_per_rank),
	  .doc = { NULL, "unknown", PROSE_KEY_ANALYSIS_BATCH_PER_RANK } },
	{ "global_batch", KEY_INT, 1, BOUND_GLOBAL_BATCH, 0, AT(analysis.global_batch),
	  .doc = { NULL, "unknown",
		   "samples per step over all ranks (strong scaling: a script that keeps its global batch fixed); give this or `batch_per_rank`, not both" } },
	{ "scaling", KEY_LOAD, .off = AT(analysis.scaling), .load = load_scaling,
	  .doc = { "`weak` or `strong`", "from the batches", PROSE_KEY_ANALYSIS_SCALING } },
	{ "nodes", KEY_INT, 1, 4096, 1, AT(analysis.nodes),
	  .doc = { NULL, NULL, PROSE_KEY_ANALYSIS_NODES } },
	{ "cpus_per_task", KEY_INT, 1, 4096, 0, AT(analysis.cpus_per_task),
	  .doc = { NULL, "SLURM's default",
		   "CPUs of each of the aggregation job's tasks (each analyses its files on all of them)" } },
	{ "fabric_probe", KEY_BOOL, .off = AT(analysis.fabric_probe),
	  .doc = { NULL, NULL, PROSE_KEY_ANALYSIS_FABRIC_PROBE } },
	KEYS_END
};
