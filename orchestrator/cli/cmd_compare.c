/* cmd_compare: `campaign compare RUN_A RUN_B` sets a candidate run against a
 * reference: for every scenario both analysed, each metric of their
 * summary.json side by side with the ratio candidate / reference, and the
 * verdicts; --json prints the same as one document. A step-time metric is
 * called better or worse only when the 95 % bootstrap interval of its ratio
 * (from both runs' per-step times) excludes 1; else it is within noise.
 * When one run is a variant of the other (campaign try), the variant's
 * checked predictions follow, as its summary.json holds them. */
#include "cmd.h"
#include "util/run_layout.h"
#include "analyzers/stats.h"
#include "analyzers/summary_keys.h"
#include "util/err.h"
#include "util/jsonio.h"
#include "orchestrator/run.h"
#include "analyzers/write/checked_text.h"
#include "orchestrator/variant.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fewer step times than this on either side: no interval, no decision against the noise. */
#define COMPARE_MIN_STEPS 5

/* What is compared: label, path in a summary.json scenario, and which way is
 * better: 1 lower, 0 higher, -1 neither (a share of step time moves when
 * another does). */
static const struct metric {
	const char *label, *path;
	int lower_better;
	double pct; /* > 0: decided against the noise of this percentile of the step times */
} metrics[] = {
	{ "median step (ms)", SK_PATH(SK_STEP_TIME_MS, SK_MEDIAN), 1, 50 },
	{ "p95 step (ms)", SK_PATH(SK_STEP_TIME_MS, SK_P95), 1, 95 },
	{ "throughput (samples/s)", SK_THROUGHPUT_SAMPLES_PER_S, 0, 50 },
	/* against each run's own baseline: the step times' noise is not its interval */
	{ "efficiency", SK_EFFICIENCY, 0, 0 },
	{ "compute %", SK_PATH(SK_SHARES_PCT, SK_COMPUTE), -1, 0 },
	{ "communication %", SK_PATH(SK_SHARES_PCT, SK_COMMUNICATION), -1, 0 },
	{ "peer wait %", SK_PATH(SK_SHARES_PCT, SK_PEER_WAIT), -1, 0 },
	{ "data loading %", SK_PATH(SK_SHARES_PCT, SK_DATA_LOADING), -1, 0 },
	{ "I/O %", SK_PATH(SK_SHARES_PCT, SK_IO), -1, 0 },
	{ "overlap %", SK_OVERLAP_PCT, -1, 0 },
	{ "GPU compute %", SK_PATH(SK_GPU_SHARES_PCT, SK_COMPUTE), -1, 0 },
	{ "GPU exposed communication %", SK_PATH(SK_GPU_SHARES_PCT, SK_COMMUNICATION), -1, 0 },
	{ "GPU exposed copies %", SK_PATH(SK_GPU_SHARES_PCT, SK_MEMCPY), -1, 0 },
	{ "GPU waiting for the host %", SK_PATH(SK_GPU_SHARES_PCT, SK_IDLE_HOST_WAIT), -1, 0 },
	{ "top collective ms per step", SK_COLLECTIVES ".0." SK_MS_PER_STEP, 1, 0 },
	{ "top collective wait (ms)", SK_COLLECTIVES ".0." SK_WAIT_MS "." SK_MEDIAN, 1, 0 },
	{ "top collective busbw (GB/s)", SK_COLLECTIVES ".0." SK_BUSBW_GBPS, 0, 0 },
	{ "GFLOP/s per rank", SK_ACHIEVED_GFLOPS_PER_RANK, 0, 0 },
	{ "MFU %", SK_MFU_PCT, 0, 0 },
};

static json_t *find(json_t *summary, const char *name)
{
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(summary, SK_SCENARIOS), i, s)
		if (!strcmp(jsonio_str(s, SK_NAME), name))
			return s;
	return NULL;
}

static json_t *load_summary(const char *root, const char *id, const char *journal, char **dir)
{
	struct run *r;
	if (run_open(root, id, journal, &r) < 0)
		return NULL;
	struct strbuf p = STRBUF_INIT;
	json_error_t jerr;
	strbuf_addf(&p, "%s/" RUN_SUMMARY, r->dir);
	json_t *j = json_load_file(p.buf, 0, &jerr);
	if (!j)
		err_set(ERR_NOTFOUND, "%s: %s (run `campaign aggregate %s` first)", p.buf,
			jerr.text, id);
	*dir = xstrdup(r->dir);
	strbuf_free(&p);
	run_free(r);
	return j;
}

/* A run's per-step times (summary.json step_times_ms); n = 0 when absent. */
static double *step_times(json_t *sc, size_t *n)
{
	json_t *a = json_object_get(sc, SK_STEP_TIMES_MS), *v;
	size_t i;
	double *t = xcalloc(json_array_size(a) + 1, sizeof *t);
	*n = 0;
	json_array_foreach(a, i, v)
		if (json_is_number(v))
			t[(*n)++] = json_number_value(v);
	return t;
}

/* The 95 % bootstrap interval of the candidate / reference ratio of the
 * step-time percentile pct; lo = hi = 0 when the runs lack step times. */
static void noise(json_t *ref, json_t *cand, double pct, double *lo, double *hi)
{
	size_t na, nb;
	double *a = step_times(ref, &na), *b = step_times(cand, &nb);
	*lo = *hi = 0;
	if (na >= COMPARE_MIN_STEPS && nb >= COMPARE_MIN_STEPS) {
		struct stats_sample sa = { a, na }, sb = { b, nb };
		struct stats_interval ci;
		stats_bootstrap(&sb, 1, &sa, 1, pct, &ci);
		*lo = ci.lo;
		*hi = ci.hi;
	}
	free(a);
	free(b);
}

/* A scenario's stragglers in a few words: "rank 3 on n2 (compute, 24.1 %)", or "none". */
static json_t *stragglers_text(json_t *sc)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *g;
	json_array_foreach(json_object_get(sc, SK_STRAGGLERS), i, g) strbuf_addf(
		&sb, "%srank %d%s%s (%s, %.1f %%)", i ? "; " : "", (int) jsonio_num(g, SK_RANK),
		json_is_string(json_object_get(g, SK_NODE)) ? " on " : "", jsonio_str(g, SK_NODE),
		jsonio_str(g, SK_CAUSE), jsonio_num(g, SK_IMPACT_PCT));
	json_t *out = json_string(sb.len ? sb.buf : "none");
	strbuf_free(&sb);
	return out;
}

static json_t *compare_scenario(json_t *ref, json_t *cand)
{
	json_t *rows = json_object();
	for (size_t k = 0; k < sizeof metrics / sizeof *metrics; k++) {
		json_t *a = jsonio_at(ref, metrics[k].path), *b = jsonio_at(cand, metrics[k].path);
		if (!json_is_number(a) || !json_is_number(b))
			continue;
		double x = json_number_value(a), y = json_number_value(b), lo = 0, hi = 0;
		int lb = metrics[k].lower_better;
		json_t *better = lb < 0 || x == y ? json_null() : json_boolean(lb ? y < x : y > x),
		       *ci = json_null();
		if (metrics[k].pct > 0) {
			noise(ref, cand, metrics[k].pct, &lo, &hi);
			/* step-time ratio; throughput moves the other way */
			if (hi > 0) {
				ci = lb ? json_pack("[f, f]", round(1000 * lo) / 1000,
						    round(1000 * hi) / 1000)
					: json_pack("[f, f]", round(1000 / hi) / 1000,
						    round(1000 / lo) / 1000);
				if (lo <= 1 && hi >= 1) {
					json_decref(better);
					better = json_string("within noise");
				}
			}
		}
		json_object_set_new(
			rows, metrics[k].label,
			json_pack("{s:f, s:f, s:o, s:o, s:o}", "reference", x, "candidate", y,
				  "ratio",
				  x != 0 ? json_real(round(1000 * y / x) / 1000) : json_null(),
				  "better", better, "ratio_95ci", ci));
	}
	if (!json_is_array(json_object_get(ref, SK_COLLECTIVES)) ||
	    !json_is_array(json_object_get(cand, SK_COLLECTIVES)) ||
	    strcmp(jsonio_str(ref, SK_COLLECTIVES ".0." SK_OP),
		   jsonio_str(cand, SK_COLLECTIVES ".0." SK_OP)))
		for (const char *const *k =
			     (const char *const[]){ "top collective ms per step",
						    "top collective wait (ms)",
						    "top collective busbw (GB/s)", NULL };
		     *k; k++)
			json_object_del(rows, *k); /* not the same collective on both sides */
	return json_pack("{s:O, s:O, s:o, s:o, s:o}", "verdict_reference",
			 jsonio_at(ref, SK_VERDICT), "verdict_candidate",
			 jsonio_at(cand, SK_VERDICT), "stragglers_reference", stragglers_text(ref),
			 "stragglers_candidate", stragglers_text(cand), "metrics", rows);
}

static void print_text(json_t *doc)
{
	const char *name;
	json_t *sc;
	printf("reference %s\ncandidate %s\n", json_string_value(json_object_get(doc, "reference")),
	       json_string_value(json_object_get(doc, "candidate")));
	json_object_foreach(json_object_get(doc, "scenarios"), name, sc) {
		printf("\n%s: %s -> %s\n  %-30s %14s %14s %8s\n", name,
		       json_string_value(json_object_get(sc, "verdict_reference")),
		       json_string_value(json_object_get(sc, "verdict_candidate")), "metric",
		       "reference", "candidate", "ratio");
		for (size_t k = 0; k < sizeof metrics / sizeof *metrics; k++) {
			json_t *m =
				json_object_get(json_object_get(sc, "metrics"), metrics[k].label);
			if (!m)
				continue;
			json_t *ratio = json_object_get(m, "ratio");
			char r[32] = "     n/a";
			if (json_is_number(ratio))
				snprintf(r, sizeof r, "%7.3fx", json_number_value(ratio));
			json_t *better = json_object_get(m, "better"),
			       *ci = json_object_get(m, "ratio_95ci");
			char range[64] = "";
			if (json_is_array(ci))
				snprintf(range, sizeof range, " (95 %% CI %.3f-%.3f)",
					 json_number_value(json_array_get(ci, 0)),
					 json_number_value(json_array_get(ci, 1)));
			printf("  %-30s %14.3f %14.3f %s%s%s\n", metrics[k].label,
			       json_number_value(json_object_get(m, "reference")),
			       json_number_value(json_object_get(m, "candidate")), r,
			       json_is_true(better)             ? "  better"
				       : json_is_false(better)  ? "  worse"
				       : json_is_string(better) ? "  within noise"
								: "",
			       range);
		}
		printf("  stragglers: %s -> %s\n",
		       json_string_value(json_object_get(sc, "stragglers_reference")),
		       json_string_value(json_object_get(sc, "stragglers_candidate")));
	}
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(doc, "only_in_one"), i, v)
		printf("\n%s: in one run only (or not analysed in both): not compared\n",
		       json_string_value(v));
}

/* ---- a variant and its parent (campaign try) ----------------------------- */

/* The document's predicted_and_measured when the run of summary v is a
 * variant of the run of summary p: its {of, kind, knob}, which side it is,
 * its run id and its checked_predictions (copied, not decided again); NULL
 * otherwise. */
static json_t *family(json_t *v, const char *dv, json_t *p, const char *side)
{
	json_t *info = variant_info(v, dv), *ck = json_object_get(v, SK_CHECKED_PREDICTIONS);
	const char *pid = jsonio_str(p, SK_RUN_ID);
	if (!info || !*pid || strcmp(jsonio_str(info, SK_OF), pid)) {
		json_decref(info);
		return NULL;
	}
	json_object_set_new(info, "variant", json_string(side));
	json_object_set_new(info, "variant_run", json_string(jsonio_str(v, SK_RUN_ID)));
	json_object_set_new(info, SK_CHECKED_PREDICTIONS,
			    json_is_array(ck) ? json_deep_copy(ck) : json_array());
	return info;
}

/* Either run a variant of the other: its block, also put into doc. */
static json_t *family_pair(json_t *doc, json_t *ra, const char *da, json_t *rb, const char *db)
{
	json_t *f = family(rb, db, ra, "candidate");
	if (!f)
		f = family(ra, da, rb, "reference");
	if (f)
		json_object_set(doc, "predicted_and_measured", f);
	return f;
}

#define CHECK_ROW "  %-20s %14s %14s %14s  %-22s %s\n"

static void print_checked(json_t *f)
{
	struct strbuf knob = STRBUF_INIT;
	json_t *ck = json_object_get(f, SK_CHECKED_PREDICTIONS), *e;
	size_t i;
	variant_knob_text(json_object_get(f, SK_KNOB), &knob);
	printf("\nPredicted and measured (campaign try: %s)\n  %s run %s is a variant of run %s%s%s%s\n", jsonio_str(f, SK_KIND), jsonio_str(f, "variant"),
	       jsonio_str(f, "variant_run"), jsonio_str(f, SK_OF), knob.len ? " (knob " : "",
	       knob.buf ? knob.buf : "", knob.len ? ")" : "");
	if (!json_array_size(ck))
		printf("  its summary.json holds no checked predictions (`campaign aggregate %s` writes them)\n", jsonio_str(f, "variant_run"));
	else
		printf(CHECK_ROW, "scenario", "parent (ms)", "predicted (ms)", "measured (ms)",
		       "95 % CI (ms)", "outcome");
	json_array_foreach(ck, i, e) {
		char *c[CHECKED_CELLS];
		checked_cells(e, "%.3f", c);
		printf(CHECK_ROW, c[0], c[1], c[2], c[3], c[4], c[5]);
		for (int k = 0; k < CHECKED_CELLS; k++)
			free(c[k]);
	}
	json_array_foreach(ck, i, e)
		if (json_is_string(json_object_get(e, SK_MISS)))
			printf("  %s: %s\n", jsonio_str(e, SK_SCENARIO), jsonio_str(e, SK_MISS));
	strbuf_free(&knob);
}

static int compare_exec(const struct cmd_entry *self, struct args *a)
{
	char *dir_a = NULL, *dir_b = NULL;
	json_t *ra = load_summary(cmd_results_root(a), a->pos[0], cmd_journal(a), &dir_a);
	json_t *rb =
		ra ? load_summary(cmd_results_root(a), a->pos[1], cmd_journal(a), &dir_b) : NULL;
	(void)self;
	if (!ra || !rb) {
		json_decref(ra);
		free(dir_a);
		return ERR_NOTFOUND;
	}
	json_t *doc = json_pack("{s:s, s:s, s:{}, s:[]}", "reference", dir_a, "candidate", dir_b,
				"scenarios", "only_in_one");
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(ra, SK_SCENARIOS), i, s) {
		const char *name = json_string_value(json_object_get(s, SK_NAME));
		json_t *t = find(rb, name ? name : "");
		if (t && json_is_true(json_object_get(s, SK_ANALYSED)) &&
		    json_is_true(json_object_get(t, SK_ANALYSED)))
			json_object_set_new(json_object_get(doc, "scenarios"), name,
					    compare_scenario(s, t));
		else if (name)
			json_array_append_new(json_object_get(doc, "only_in_one"),
					      json_string(name));
	}
	json_array_foreach(json_object_get(rb, SK_SCENARIOS), i, s) {
		const char *name = json_string_value(json_object_get(s, SK_NAME));
		if (name && !find(ra, name))
			json_array_append_new(json_object_get(doc, "only_in_one"),
					      json_string(name));
	}
	json_t *fam = family_pair(doc, ra, dir_a, rb, dir_b);
	if (args_has(a, 'j')) {
		char *text =
			json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(10));
		printf("%s\n", text);
		free(text);
	} else {
		print_text(doc);
		if (fam)
			print_checked(fam);
	}
	json_decref(fam);
	int n = (int)json_object_size(json_object_get(doc, "scenarios"));
	json_decref(doc);
	json_decref(ra);
	json_decref(rb);
	free(dir_a);
	free(dir_b);
	if (n == 0) {
		fprintf(stderr, "campaign compare: no scenario was analysed in both runs\n");
		return EXIT_NOTFOUND;
	}
	return EXIT_OK;
}

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.usage = "[--json] [--results DIR] RUN_A RUN_B",
	.summary = "run B against reference A: ratios per metric and scenario; a variant's checked predictions",
	.flags = CMD_RESULTS,
	.min_pos = 2,
	.max_pos = 2,
	.exec = compare_exec,
	.opts = (const struct optdef[]){ OPT_JSON("print one JSON document"), OPT_END },
};
