/* compare: a candidate run set against a reference: for every scenario both
 * analysed, each metric of their summary.json side by side with the ratio
 * candidate / reference, and the verdicts, as one JSON document. A metric is
 * called better or worse only when the 95 % bootstrap interval of its ratio
 * excludes 1 (from both runs' per-step times; for the efficiency those of
 * each run's baseline too; for the top collective the values its row keeps);
 * else it is within noise. Runs that are not like for like (a local against a
 * SLURM run, other campaign files) are said so (caution). When one run is a
 * variant of the other (campaign try), the variant's checked predictions
 * follow, as its summary.json holds them. `campaign compare` prints it;
 * `campaign bisect` reports the last good against the first bad with it.
 * SPDX-License-Identifier: MIT */
#include "compare.h"
#include "util/run_layout.h"
#include "analyzers/stats.h"
#include "analyzers/summary_keys.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "orchestrator/run.h"
#include "analyzers/write/data_text.h"
#include "orchestrator/variant.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a metric's 95 % interval comes from: a bootstrap of */
enum noise {
	NOISE_NONE,	  /* nothing: a share moves when another does, neither better nor worse */
	NOISE_STEPS,	  /* both runs' step times (the metric moves with them) */
	NOISE_STEPS_INV,  /* both runs' step times (a rate: the metric moves against them) */
	NOISE_EFFICIENCY, /* the step times of the scenario and of its baseline in each run */
	NOISE_KEPT	  /* the values the top collective keeps (its samples) */
};

/* What is compared: label, path in a summary.json scenario, which way is
 * better (1 lower, 0 higher, -1 neither), and where its interval comes from:
 * the statistic (a percentile, or STATS_MEAN) of which samples. */
static const struct metric {
	const char *label, *path;
	int lower_better;
	enum noise noise;
	double stat;
	const char *kept; /* NOISE_KEPT: the key in the top collective's samples */
} metrics[] = {
	{ "median step (ms)", SK_PATH(SK_STEP_TIME_MS, SK_MEDIAN), 1, NOISE_STEPS, 50, NULL },
	{ "p95 step (ms)", SK_PATH(SK_STEP_TIME_MS, SK_P95), 1, NOISE_STEPS, 95, NULL },
	{ "throughput (samples/s)", SK_THROUGHPUT_SAMPLES_PER_S, 0, NOISE_STEPS_INV, 50, NULL },
	{ "efficiency", SK_EFFICIENCY, 0, NOISE_EFFICIENCY, 50, NULL },
	{ "compute %", SK_PATH(SK_SHARES_PCT, SK_COMPUTE), -1, NOISE_NONE, 0, NULL },
	{ "communication %", SK_PATH(SK_SHARES_PCT, SK_COMMUNICATION), -1, NOISE_NONE, 0, NULL },
	{ "peer wait %", SK_PATH(SK_SHARES_PCT, SK_PEER_WAIT), -1, NOISE_NONE, 0, NULL },
	{ "data loading %", SK_PATH(SK_SHARES_PCT, SK_DATA_LOADING), -1, NOISE_NONE, 0, NULL },
	{ "I/O %", SK_PATH(SK_SHARES_PCT, SK_IO), -1, NOISE_NONE, 0, NULL },
	{ "overlap %", SK_OVERLAP_PCT, -1, NOISE_NONE, 0, NULL },
	{ "GPU compute %", SK_PATH(SK_GPU_SHARES_PCT, SK_COMPUTE), -1, NOISE_NONE, 0, NULL },
	{ "GPU exposed communication %", SK_PATH(SK_GPU_SHARES_PCT, SK_COMMUNICATION), -1,
	  NOISE_NONE, 0, NULL },
	{ "GPU exposed copies %", SK_PATH(SK_GPU_SHARES_PCT, SK_MEMCPY), -1, NOISE_NONE, 0, NULL },
	{ "GPU waiting for the host %", SK_PATH(SK_GPU_SHARES_PCT, SK_IDLE_HOST_WAIT), -1,
	  NOISE_NONE, 0, NULL },
	{ "top collective ms per step", SK_COLLECTIVES ".0." SK_MS_PER_STEP, 1, NOISE_KEPT,
	  STATS_MEAN, SK_STEP_MS },
	{ "top collective wait (ms)", SK_COLLECTIVES ".0." SK_WAIT_MS "." SK_MEDIAN, 1, NOISE_KEPT,
	  50, SK_WAIT_MS },
	{ "top collective busbw (GB/s)", SK_COLLECTIVES ".0." SK_BUSBW_GBPS, 0, NOISE_KEPT, 50,
	  SK_BUSBW_GBPS },
	{ "GFLOP/s per rank", SK_ACHIEVED_GFLOPS_PER_RANK, 0, NOISE_STEPS_INV, 50, NULL },
	{ "MFU %", SK_MFU_PCT, 0, NOISE_STEPS_INV, 50, NULL },
};

/* A run: its directory, backend and campaign file's SHA-256, and its summary.json. */
struct side {
	char *dir, *backend, *sha;
	json_t *summary;
};

static void side_free(struct side *s)
{
	free(s->dir);
	free(s->backend);
	free(s->sha);
	json_decref(s->summary);
}

static json_t *find(json_t *summary, const char *name)
{
	return jsonio_named(json_object_get(summary, SK_SCENARIOS), SK_NAME, name);
}

/* The campaign file's SHA-256 in the run's provenance.json, else the store's; "" none. */
static char *campaign_sha(const struct run *r)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" RUN_PROVENANCE, r->dir);
	json_t *prov = json_load_file(p.buf, 0, NULL);
	const char *sha = json_string_value(json_object_get(prov, "campaign_sha256"));
	char *out = xstrdup(sha ? sha : r->row.campaign_sha256 ? r->row.campaign_sha256 : "");
	json_decref(prov);
	strbuf_free(&p);
	return out;
}

static int load_side(const char *root, const char *id, const char *journal, struct side *out)
{
	struct run *r;
	int rc = 0;
	memset(out, 0, sizeof *out);
	if ((rc = run_open(root, id, journal, &r)) < 0)
		return rc;
	struct strbuf p = STRBUF_INIT;
	json_error_t jerr;
	strbuf_addf(&p, "%s/" RUN_SUMMARY, r->dir);
	out->summary = json_load_file(p.buf, 0, &jerr);
	if (!out->summary && !fsio_exists(p.buf))
		rc = err_set(ERR_NOTFOUND, "%s: %s (run `campaign aggregate %s` first)", p.buf,
			jerr.text, id);
	else if (!out->summary)
		rc = err_set(
			ERR_IO,
			"%s is corrupt (line %d: %s): `campaign aggregate --force %s` writes it again",
			p.buf, jerr.line, jerr.text, id);
	out->dir = xstrdup(r->dir);
	out->backend = xstrdup(r->row.backend ? r->row.backend : "");
	out->sha = campaign_sha(r);
	strbuf_free(&p);
	run_free(r);
	return rc;
}

/* A summary array of numbers (n = 0 when absent), malloc'ed. */
static double *numbers(json_t *a, size_t *n)
{
	json_t *v;
	size_t i;
	double *t = xcalloc(json_array_size(a) + 1, sizeof *t);
	*n = 0;
	json_array_foreach(a, i, v)
		if (json_is_number(v))
			t[(*n)++] = json_number_value(v);
	return t;
}

/* The samples of one bootstrap, with what holds their values. */
struct draw {
	struct stats_sample num[2], den[2];
	size_t nnum, nden;
	double *hold[4];
	int nhold, short_of; /* short_of: a sample has fewer than STATS_BOOTSTRAP_MIN_N */
};

static void draw_add(struct draw *d, int top, json_t *array)
{
	size_t n;
	double *v = numbers(array, &n);
	d->hold[d->nhold++] = v;
	d->short_of |= n < STATS_BOOTSTRAP_MIN_N;
	if (top)
		d->num[d->nnum++] = (struct stats_sample){ v, n };
	else
		d->den[d->nden++] = (struct stats_sample){ v, n };
}

/* One side of an efficiency: its step times on top and its baseline's below (cand) or
 * the other way round; nothing when it is its own baseline (efficiency 1, no noise). */
static void draw_efficiency(struct draw *d, json_t *summary, json_t *sc, int cand)
{
	const char *b = jsonio_str(sc, SK_BASELINE);
	json_t *base = *b ? find(summary, b) : NULL;
	if (!strcmp(b, jsonio_str(sc, SK_NAME)))
		return;
	if (!base) {
		d->short_of = 1;
		return;
	}
	draw_add(d, !cand, json_object_get(sc, SK_STEP_TIMES_MS));
	draw_add(d, cand, json_object_get(base, SK_STEP_TIMES_MS));
}

/* The 95 % bootstrap interval of metric m's ratio candidate / reference, centred on the
 * summaries' ratio (times the ratio of the summaries to the samples' own); not known
 * without samples enough on either side. */
static void interval(const struct metric *m, struct side *ra, json_t *ref, struct side *rb,
		     json_t *cand, double ratio, struct stats_interval *ci)
{
	struct draw d = { 0 };
	double stat = m->stat;
	memset(ci, 0, sizeof *ci);
	if (m->noise == NOISE_EFFICIENCY) { /* of mean steps where either run's is by the means */
		int ma = json_is_true(json_object_get(ref, SK_SPEEDUP_BY_MEANS)),
		    mb = json_is_true(json_object_get(cand, SK_SPEEDUP_BY_MEANS));
		if (ma != mb) /* a median's efficiency against a mean's: no interval, no verdict */
			return;
		stat = ma ? STATS_MEAN : stat;
	}
	if (m->noise == NOISE_STEPS || m->noise == NOISE_STEPS_INV) {
		draw_add(&d, m->noise == NOISE_STEPS, json_object_get(cand, SK_STEP_TIMES_MS));
		draw_add(&d, m->noise != NOISE_STEPS, json_object_get(ref, SK_STEP_TIMES_MS));
	} else if (m->noise == NOISE_EFFICIENCY) {
		draw_efficiency(&d, rb->summary, cand, 1);
		draw_efficiency(&d, ra->summary, ref, 0);
	} else if (m->noise == NOISE_KEPT) {
		const char *at = SK_COLLECTIVES ".0." SK_SAMPLES;
		draw_add(&d, 1, json_object_get(jsonio_at(cand, at), m->kept));
		draw_add(&d, 0, json_object_get(jsonio_at(ref, at), m->kept));
	}
	if (!d.short_of && d.nnum + d.nden)
		stats_bootstrap(d.num, d.nnum, d.den, d.nden, stat, ci);
	if (ci->known && ci->value > 0 && ratio > 0 && isfinite(ratio / ci->value)) {
		double k = ratio / ci->value;
		*ci = (struct stats_interval){ ratio, k * ci->lo, k * ci->hi, 1 };
	} else
		memset(ci, 0, sizeof *ci);
	for (int i = 0; i < d.nhold; i++)
		free(d.hold[i]);
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

/* better: true or false only when the interval excludes 1; "within noise" when it holds
 * it; "no interval" for a change without one (too few samples); null for a share, or no
 * change and no interval. */
static json_t *better_of(int lb, double x, double y, const struct stats_interval *ci)
{
	if (lb < 0)
		return json_null();
	if (!ci->known)
		return x == y ? json_null() : json_string("no interval");
	if (stats_interval_holds(ci, 1.0))
		return json_string("within noise");
	return json_boolean(lb ? ci->hi < 1 : ci->lo > 1);
}

/* A p95 of fewer than STATS_P95_MIN_N step times on either side is rough: its note. */
static json_t *note_of(const struct metric *m, json_t *ref, json_t *cand)
{
	if (strcmp(m->path, SK_PATH(SK_STEP_TIME_MS, SK_P95)) ||
	    (json_array_size(json_object_get(ref, SK_STEP_TIMES_MS)) >= STATS_P95_MIN_N &&
	     json_array_size(json_object_get(cand, SK_STEP_TIMES_MS)) >= STATS_P95_MIN_N))
		return json_null();
	return json_string(DATA_TEXT_P95_ROUGH);
}

static json_t *compare_scenario(struct side *ra, json_t *ref, struct side *rb, json_t *cand)
{
	json_t *rows = json_object();
	for (size_t k = 0; k < sizeof metrics / sizeof *metrics; k++) {
		const struct metric *m = &metrics[k];
		json_t *a = jsonio_at(ref, m->path), *b = jsonio_at(cand, m->path);
		if (!json_is_number(a) || !json_is_number(b))
			continue;
		double x = json_number_value(a), y = json_number_value(b);
		struct stats_interval ci = { 0 };
		if (m->lower_better >= 0 && x != 0)
			interval(m, ra, ref, rb, cand, y / x, &ci);
		json_object_set_new(
			rows, m->label,
			json_pack("{s:f, s:f, s:o, s:o, s:o, s:o}", "reference", x, "candidate", y,
				  "ratio",
				  x != 0 ? json_real(round(1000 * y / x) / 1000) : json_null(),
				  "better", better_of(m->lower_better, x, y, &ci), "ratio_95ci",
				  ci.known ? json_pack("[f, f]", round(1000 * ci.lo) / 1000,
						       round(1000 * ci.hi) / 1000)
					   : json_null(),
				  "note", note_of(m, ref, cand)));
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

/* A scenario's step estimator; a summary from before there was one timed every step as
 * its slowest rank's. */
static const char *estimator_of(json_t *sc)
{
	const char *e = json_string_value(json_object_get(sc, SK_STEP_ESTIMATOR));
	return e ? e : "rank_step";
}

/* The scenarios of both runs whose step times are not the same measure (docs/analysis.md,
 * what a step's time is), named into sb. */
static void estimators_differ(const struct side *ra, const struct side *rb, struct strbuf *sb)
{
	size_t i, n = 0;
	json_t *s;
	json_array_foreach(json_object_get(ra->summary, SK_SCENARIOS), i, s) {
		const char *name = json_string_value(json_object_get(s, SK_NAME));
		json_t *t = find(rb->summary, name ? name : "");
		if (!t || !json_is_true(json_object_get(s, SK_ANALYSED)) ||
		    !json_is_true(json_object_get(t, SK_ANALYSED)) ||
		    !strcmp(estimator_of(s), estimator_of(t)))
			continue;
		if (!n++)
			strbuf_addf(sb, "%sstep times measured differently in",
				    sb->len ? ", " : "");
		strbuf_addf(sb, "%s %s (%s against %s)", n > 1 ? "," : "", name, estimator_of(s),
			    estimator_of(t));
	}
}

/* The scenarios of one side whose step lines add up to more than their job ran (the
 * workload's own numbers, not timed: summary.json step_lines_exceed_job), named into sb. */
static void not_timed(const struct side *r, const char *which, struct strbuf *sb)
{
	size_t i, n = 0;
	json_t *s;
	json_array_foreach(json_object_get(r->summary, SK_SCENARIOS), i, s) {
		if (!json_is_object(json_object_get(s, SK_STEP_LINES_EXCEED_JOB)))
			continue;
		const char *name = json_string_value(json_object_get(s, SK_NAME));
		if (!n++)
			strbuf_addf(sb, "%sstep times the workload printed, not timed, in ",
				    sb->len ? ", " : "");
		else
			strbuf_adds(sb, ", ");
		strbuf_adds(sb, name ? name : "?");
	}
	if (n)
		strbuf_addf(sb, " (%s)", which);
}

/* The line said before anything else when the runs are not like for like: a local run
 * against a SLURM run, runs of different campaign files, or scenarios whose step times are
 * not the same measure; NULL when they are. */
static json_t *caution(const struct side *ra, const struct side *rb, int variant)
{
	struct strbuf sb = STRBUF_INIT;
	if (strcmp(ra->backend, rb->backend))
		strbuf_addf(&sb, "a %s run (reference) against a %s run (candidate)",
			    *ra->backend ? ra->backend : "unknown",
			    *rb->backend ? rb->backend : "unknown");
	if (strcmp(ra->sha, rb->sha))
		strbuf_addf(&sb,
			    "%sruns of different campaign files (SHA-256 %.12s against %.12s)%s",
			    sb.len ? ", " : "", *ra->sha ? ra->sha : "unknown",
			    *rb->sha ? rb->sha : "unknown",
			    variant ? ": one is a variant of the other (campaign try)" : "");
	estimators_differ(ra, rb, &sb);
	not_timed(ra, "reference", &sb);
	not_timed(rb, "candidate", &sb);
	json_t *j = sb.len ? json_string(sb.buf) : json_null();
	strbuf_free(&sb);
	return j;
}

/* The scenarios analysed in both runs, compared, into doc; the others' names. */
static void compare_all(json_t *doc, struct side *ra, struct side *rb)
{
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(ra->summary, SK_SCENARIOS), i, s) {
		const char *name = json_string_value(json_object_get(s, SK_NAME));
		json_t *t = find(rb->summary, name ? name : "");
		if (t && json_is_true(json_object_get(s, SK_ANALYSED)) &&
		    json_is_true(json_object_get(t, SK_ANALYSED)))
			json_object_set_new(json_object_get(doc, "scenarios"), name,
					    compare_scenario(ra, s, rb, t));
		else if (name)
			json_array_append_new(json_object_get(doc, "only_in_one"),
					      json_string(name));
	}
	json_array_foreach(json_object_get(rb->summary, SK_SCENARIOS), i, s) {
		const char *name = json_string_value(json_object_get(s, SK_NAME));
		if (name && !find(ra->summary, name))
			json_array_append_new(json_object_get(doc, "only_in_one"),
					      json_string(name));
	}
}

int compare_runs(const char *root, const char *journal, const char *a, const char *b,
		 json_t **out)
{
	struct side ra, rb;
	int rc = load_side(root, a, journal, &ra);
	*out = NULL;
	if (rc == 0)
		rc = load_side(root, b, journal, &rb);
	else
		memset(&rb, 0, sizeof rb);
	if (rc == 0) {
		json_t *doc = json_pack("{s:s, s:s, s:{}, s:[]}", "reference", ra.dir, "candidate",
					rb.dir, "scenarios", "only_in_one");
		compare_all(doc, &ra, &rb);
		json_t *fam = family_pair(doc, ra.summary, ra.dir, rb.summary, rb.dir);
		json_object_set_new(doc, "caution", caution(&ra, &rb, fam != NULL));
		json_decref(fam);
		*out = doc;
	}
	side_free(&ra);
	side_free(&rb);
	return rc;
}

size_t compare_nmetrics(void)
{
	return sizeof metrics / sizeof *metrics;
}

const char *compare_metric_label(size_t k)
{
	return metrics[k].label;
}
