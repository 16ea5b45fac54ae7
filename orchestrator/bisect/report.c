/* report: BISECT.md, the totals, the closing lines.
 * SPDX-License-Identifier: MIT */
#include "report.h"
#include "bisection.h"
#include "orchestrator/compare.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "orchestrator/bisect/prose.h"

#include <math.h>
#include <string.h>

/* "1.843x (95 % interval 1.80 to 1.88)", or "no interval". */
static void ratio_text(json_t *e, struct strbuf *sb)
{
	if (!json_is_array(json_object_get(e, "ratio_interval")))
		strbuf_addf(sb, "no interval");
	else
		strbuf_addf(sb, "%.3fx (95 %% interval %.3f to %.3f)", jsonio_num(e, "ratio"),
			    jsonio_num(e, "ratio_interval.0"), jsonio_num(e, "ratio_interval.1"));
}

/* "8.3 % slower" or "16.4 % faster" for a ratio. */
static void change_text(double ratio, struct strbuf *sb)
{
	strbuf_addf(sb, "%.1f %% %s", 100 * fabs(ratio - 1), ratio >= 1 ? "slower" : "faster");
}

void report_noise_reason(json_t *st, struct strbuf *why)
{
	size_t last = bisection_ncommits(st) - 1;
	json_t *e = bisection_last_test(st, bisection_commit(st, last));
	double thr = jsonio_num(st, "threshold_pct") / 100;
	struct bisect_verdict v = { BISECT_UNCLEAR, jsonio_num(e, "ratio"),
				    jsonio_num(e, "ratio_interval.0"),
				    jsonio_num(e, "ratio_interval.1"),
				    json_is_array(json_object_get(e, "ratio_interval")) };
	if (!v.known) {
		strbuf_addf(
			why,
			"BAD's step times and GOOD's give no interval (fewer than 5 on a side): the regression is not resolved");
		return;
	}
	strbuf_addf(why, "BAD measured ");
	change_text(v.ratio, why);
	strbuf_addf(why, " than GOOD (median step ");
	ratio_text(e, why);
	strbuf_addf(why, " GOOD's)");
	if (v.hi < 1 + thr) {
		strbuf_addf(
			why,
			": the interval lies below %.3f (a slowdown of %g %%), so there is no regression of that size to find",
			1 + thr, 100 * thr);
		return;
	}
	double spread = bisection_spread(st);
	long need = judge_steps_needed(&v, (long)jsonio_num(e, "active_steps"), thr, spread);
	strbuf_addf(
		why,
		PROSE_BISECT_UNRESOLVED,
		1 + thr, 100 * thr, 100 * thr);
	if (need < 0)
		strbuf_addf(
			why,
			PROSE_BISECT_NO_STEPS_RESOLVE,
			v.ratio, 100 * spread, 1 + thr);
	else if (need > 0)
		strbuf_addf(
			why,
			PROSE_BISECT_STEPS_NEEDED,
			need, (int) jsonio_num(e, "active_steps"));
}

/* runs (those made: a commit whose run could not be made has none) and node_hours of
 * every test, into st. */
static void totals(json_t *st)
{
	json_t *t;
	size_t k;
	double h = 0;
	json_int_t runs = 0;
	json_array_foreach(json_object_get(st, "tested"), k, t) {
		h += jsonio_num(t, "node_hours");
		runs += json_is_string(json_object_get(t, "run"));
	}
	t = json_object_get(st, "repeat"); /* GOOD's second run */
	h += jsonio_num(t, "node_hours");
	runs += json_is_string(json_object_get(t, "run"));
	json_object_set_new(st, "runs", json_integer(runs));
	json_object_set_new(st, "node_hours", json_real(round(h * 1e6) / 1e6));
}

static void commit_line(struct strbuf *md, json_t *c, const char *what)
{
	strbuf_addf(md, "%s%s`%.12s` %s (%s, %s)", what, *what ? " " : "", jsonio_str(c, "commit"),
		    jsonio_str(c, "subject"), jsonio_str(c, "author"), jsonio_str(c, "date"));
}

static void answer(struct strbuf *md, json_t *st)
{
	json_t *fb = json_object_get(st, "first_bad"), *lg = json_object_get(st, "last_good");
	strbuf_addf(md, "## Answer\n\n");
	if (!json_is_object(fb)) {
		strbuf_addf(md, "**No first bad commit was found.** %s.\n\n",
			    jsonio_str(st, "reason"));
		return;
	}
	commit_line(md, fb, "**The first bad commit is**");
	strbuf_addf(
		md,
		PROSE_BISECT_FIRST_BAD,
		jsonio_num(st, "threshold_pct"));
	strbuf_addf(md, "- first bad: median step %.3f ms, ", jsonio_num(fb, "median_step_ms"));
	ratio_text(fb, md);
	strbuf_addf(md, " GOOD's (run `%s`)\n- last good: ", jsonio_str(fb, "run"));
	commit_line(md, lg, "");
	strbuf_addf(md, ", median step %.3f ms, ", jsonio_num(lg, "median_step_ms"));
	if (json_is_array(json_object_get(lg, "ratio_interval")))
		ratio_text(lg, md);
	else
		strbuf_addf(md, "GOOD itself, the reference");
	strbuf_addf(md, "%s (run `%s`)\n\n", json_is_array(json_object_get(lg, "ratio_interval"))
		    ? " GOOD's" : "", jsonio_str(lg, "run"));
	strbuf_addf(
		md,
		PROSE_BISECT_SMALLER_NOT_LOOKED_FOR);
}

/* One metric row of the comparison, when it says something: a ratio with an interval,
 * or a share that moved by a point or more (then 1). */
static int metric_row(struct strbuf *md, const char *label, json_t *m)
{
	json_t *better = json_object_get(m, "better"), *ci = json_object_get(m, "ratio_95ci");
	double x = jsonio_num(m, "reference"), y = jsonio_num(m, "candidate");
	if (json_is_null(better) && fabs(y - x) < 1)
		return 0;
	strbuf_addf(md, "| %s | %.3f | %.3f | ", label, x, y);
	if (json_is_number(json_object_get(m, "ratio")))
		strbuf_addf(md, "%.3fx", jsonio_num(m, "ratio"));
	if (json_is_array(ci))
		strbuf_addf(md, " (%.3f to %.3f)", jsonio_num(m, "ratio_95ci.0"),
			    jsonio_num(m, "ratio_95ci.1"));
	strbuf_addf(md, " | %s |\n", json_is_true(better)	? "better"
				    : json_is_false(better)	? "worse"
				    : json_is_string(better) ? json_string_value(better)
							     : "a share: moved");
	return json_is_null(better);
}

static void changed(struct strbuf *md, json_t *st, const char *root, const char *journal)
{
	const char *a = jsonio_str(st, "last_good.run"), *b = jsonio_str(st, "first_bad.run");
	json_t *doc = NULL;
	if (!*a || !*b || compare_runs(root, journal, a, b, &doc) < 0)
		return;
	json_t *sc = json_object_get(json_object_get(doc, "scenarios"), jsonio_str(st, "scenario"));
	strbuf_addf(
		md,
		"## What changed in the analysis (last good → first bad)\n\n"
		PROSE_BISECT_AS_COMPARE_GIVES
		"| metric | last good | first bad | first bad / last good (95 %% interval) | |\n"
		"|---|---:|---:|---|---|\n",
		a, b, jsonio_str(sc, "verdict_reference"), jsonio_str(sc, "verdict_candidate"),
		jsonio_str(sc, "stragglers_reference"), jsonio_str(sc, "stragglers_candidate"));
	int shares = 0;
	for (size_t k = 0; k < compare_nmetrics(); k++) {
		json_t *m =
			json_object_get(json_object_get(sc, "metrics"), compare_metric_label(k));
		if (m)
			shares += metric_row(md, compare_metric_label(k), m);
	}
	strbuf_addf(md, "\n%s",
		    shares ? "" : "No share of step time moved by a point or more.\n\n");
	json_decref(doc);
}

/* GOOD's second run: how far two runs of one commit were apart, or why not known. */
static void repeat_line(struct strbuf *md, json_t *st)
{
	json_t *r = json_object_get(st, "repeat");
	if (!json_is_object(r))
		return;
	if (!json_is_number(json_object_get(r, "ratio"))) {
		strbuf_addf(
			md,
			"\nGOOD ran a second time to measure the noise between runs, but %s: the intervals above hold the noise within runs only.\n",
			*jsonio_str(r, "why") ? jsonio_str(r, "why") : "it gave no step times");
		return;
	}
	strbuf_addf(md, "\nGOOD ran a second time (run `%s`): median step %.3f ms, ",
		    jsonio_str(r, "run"), jsonio_num(r, "median_step_ms"));
	ratio_text(r, md);
	strbuf_addf(
		md,
		PROSE_BISECT_RUNS_APART,
		100 * bisection_spread(st));
}

static void tested(struct strbuf *md, json_t *st)
{
	json_t *t;
	size_t k;
	strbuf_addf(
		md,
		PROSE_BISECT_COMMITS_TESTED);
	json_array_foreach(json_object_get(st, "tested"), k, t) {
		long i = bisection_index(st, jsonio_str(t, "commit"));
		json_t *c = json_array_get(json_object_get(st, "commits"), (size_t)i);
		strbuf_addf(md, "| `%.12s` | %s | %s%s%s%s | ", jsonio_str(t, "commit"),
			    jsonio_str(c, "subject"), jsonio_str(t, "outcome"),
			    *jsonio_str(t, "why") ? " (" : "", jsonio_str(t, "why"),
			    *jsonio_str(t, "why") ? ")" : "");
		if (json_is_number(json_object_get(t, "median_step_ms")))
			strbuf_addf(md, "%.3f", jsonio_num(t, "median_step_ms"));
		else
			strbuf_addf(md, "-");
		strbuf_addf(md, " | ");
		if (json_is_array(json_object_get(t, "ratio_interval")))
			ratio_text(t, md);
		else if (i == 0 && json_is_number(json_object_get(t, "median_step_ms")))
			strbuf_addf(md, "1 (GOOD: the reference)");
		else
			strbuf_addf(md, "-");
		strbuf_addf(md, " | %d | `%s` |\n", (int)jsonio_num(t, "active_steps"),
			    jsonio_str(t, "run"));
	}
	repeat_line(md, st);
	strbuf_addf(md, "\n%d runs, %.4f node-hours (the jobs' nodes times their time).\n\n",
		    (int)jsonio_num(st, "runs"), jsonio_num(st, "node_hours"));
}

static void how(struct strbuf *md, json_t *st)
{
	double thr = jsonio_num(st, "threshold_pct");
	int stopped = !json_is_object(json_object_get(st, "first_bad")) &&
		      json_array_size(json_object_get(st, "tested")) <= 2;
	strbuf_addf(
		md,
		PROSE_BISECT_HOW_IT_WAS_DECIDED,
		jsonio_str(st, "scenario"));
	if (stopped) {
		strbuf_addf(
			md,
			PROSE_BISECT_STOPPED_AFTER_BAD,
			1 + thr / 100, thr);
		return;
	}
	strbuf_addf(
		md,
		PROSE_BISECT_RULE,
		1 + thr / 100, thr);
}

int report_write(const char *dir, const char *root, const char *journal, json_t *st)
{
	struct strbuf md = STRBUF_INIT, p = STRBUF_INIT;
	totals(st);
	strbuf_addf(
		&md,
		"# Bisection %s\n\nCampaign `%s` (%s), scenario `%s`, on the %s executor; threshold %g %%.\n",
		jsonio_str(st, "bisection"), jsonio_str(st, "campaign"),
		jsonio_str(st, "campaign_file"), jsonio_str(st, "scenario"),
		jsonio_str(st, "backend"), jsonio_num(st, "threshold_pct"));
	commit_line(&md, json_object_get(st, "good"), "\n- GOOD");
	commit_line(&md, json_object_get(st, "bad"), "\n- BAD");
	strbuf_addf(&md, "\n- %zu commit%s after GOOD, on BAD's first-parent line\n\n",
		    bisection_ncommits(st) - 1, bisection_ncommits(st) == 2 ? "" : "s");
	answer(&md, st);
	if (json_is_object(json_object_get(st, "first_bad")))
		changed(&md, st, root, journal);
	tested(&md, st);
	how(&md, st);
	strbuf_addf(&p, "%s/" BISECT_REPORT, dir);
	int rc = fsio_write_atomic(p.buf, md.buf, md.len, 0644);
	strbuf_free(&p);
	strbuf_free(&md);
	return rc;
}

void report_say(const char *dir, json_t *st, FILE *out)
{
	json_t *fb = json_object_get(st, "first_bad");
	if (json_is_object(fb))
		fprintf(out, "first bad commit: %.12s %s (%.3fx GOOD's median step)\n",
			jsonio_str(fb, "commit"), jsonio_str(fb, "subject"),
			jsonio_num(fb, "ratio"));
	else
		fprintf(out, "no first bad commit: %s\n", jsonio_str(st, "reason"));
	fprintf(out, "%d runs, %.4f node-hours; %s/" BISECT_REPORT "\n",
		(int)jsonio_num(st, "runs"), jsonio_num(st, "node_hours"), dir);
}
