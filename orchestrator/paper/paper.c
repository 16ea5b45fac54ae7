/* SPDX-License-Identifier: MIT */
#include "paper.h"
#include "orchestrator/paper/prose.h"
#include "predictions.h"
#include "table.h"
#include "util/run_layout.h"

#include "analyzers/read/metrics.h"
#include "orchestrator/campaign/secret.h"
#include "util/err.h"
#include "analyzers/write/figures.h"
#include "analyzers/stats.h"
#include "analyzers/summary_keys.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "util/quote.h"
#include "util/sha256.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct paper {
	struct run *r;
	const char *out;
	json_t *summary, *prov;
	long epoch;
};

static int put(struct paper *p, const char *rel, const struct strbuf *sb, int mode)
{
	return fsio_write_in(p->out, rel, sb->buf, sb->len, mode);
}

static int copy_in(struct paper *p, const char *from_rel, const char *to_rel)
{
	struct strbuf src = STRBUF_INIT, dst = STRBUF_INIT;
	strbuf_addf(&src, "%s/%s", p->r->dir, from_rel);
	strbuf_addf(&dst, "%s/%s", p->out, to_rel);
	char *slash = strrchr(dst.buf, '/');
	*slash = '\0';
	int rc = fsio_mkdir_p(dst.buf, 0755);
	*slash = '/';
	if (rc == 0)
		rc = fsio_copy(src.buf, dst.buf);
	strbuf_free(&src);
	strbuf_free(&dst);
	return rc;
}

/* ---- nothing secret goes out ----------------------------------------- */

/* The env value of c that looks secret (allowed by allow_literal_secrets),
 * said in *what by its name; 0 when none. */
static int campaign_secret(const struct campaign *c, char *what, size_t n)
{
	const char *why;
	size_t at;
	for (size_t i = 0; i < c->n_scenarios; i++)
		for (size_t k = 0; k < c->scenarios[i].env.n; k++) {
			const struct kv *e = &c->scenarios[i].env.items[k];
			if (!e->value || !*e->value)
				continue;
			if (secret_name(e->key, &why))
				snprintf(what, n, "env %s: its name holds %s", e->key, why);
			else if (secret_content(e->value, strlen(e->value), &why, &at) != 0)
				snprintf(what, n, "env %s: the value looks like %s", e->key, why);
			else
				continue;
			return 1;
		}
	return 0;
}

/* The file of a patch the offset at falls in ("diff --git a/F b/F"). */
static void patch_file_at(const char *text, size_t at, char *out, size_t n)
{
	const char *start = text, *p = text;
	while ((p = strstr(p, "diff --git a/")) && (size_t)(p - text) <= at) {
		if (p == text || p[-1] == '\n')
			start = p;
		p++;
	}
	snprintf(out, n, "?");
	if (!strncmp(start, "diff --git a/", 13)) {
		const char *b = strstr(start, " b/"), *nl = strchr(start, '\n');
		if (b && (!nl || b < nl))
			snprintf(out, n, "%.*s", (int)(b - start - 13), start + 13);
	}
}

/* Whether the run's file rel (the campaign file, a patch) may be published:
 * ERR_USAGE naming the file and what it holds (never the value) if not. */
static int publishable(struct paper *p, const char *rel, int is_patch)
{
	struct strbuf path = STRBUF_INIT;
	char what[160] = "", file[128];
	char *data = NULL;
	size_t len = 0, at;
	const char *why;
	strbuf_addf(&path, "%s/%s", p->r->dir, rel);
	int rc = fsio_read(path.buf, (size_t)1 << 30, &data, &len);
	if (rc == 0 && secret_content(data, len, &why, &at) != 0) {
		if (is_patch)
			patch_file_at(data, at, file, sizeof file);
		snprintf(what, sizeof what, "%s%s%s", why, is_patch ? ", in " : "",
			 is_patch ? file : "");
	} else if (rc == 0 && !is_patch) {
		campaign_secret(&p->r->c, what, sizeof what);
	}
	if (rc == 0 && what[0])
		rc = err_set(
			ERR_USAGE,
			PROSE_PAPER_SECRET,
			path.buf, what, is_patch ? "patch" : "campaign.yaml",
			is_patch ? "" : " (pass it with { from_env: true } next time)");
	free(data);
	strbuf_free(&path);
	return rc;
}

/* Every file the paper would copy that may hold a secret, checked first. */
static int publishable_all(struct paper *p)
{
	json_t *r;
	size_t i;
	int rc = publishable(p, RUN_CAMPAIGN, 0);
	json_array_foreach(json_object_get(p->prov, "repositories"), i, r)
		if (rc == 0 && *jsonio_str(r, "patch"))
			rc = publishable(p, jsonio_str(r, "patch"), 1);
	return rc;
}

/* ---- data and figures ------------------------------------------------- */

/* ---- tables ----------------------------------------------------------- */

/* cell with " (WORDS)" after it where on (the report's markers). */
static char *marked(char *cell, int on, const char *words)
{
	if (!on)
		return cell;
	struct strbuf c = STRBUF_INIT;
	strbuf_addf(&c, "%s (%s)", cell, words);
	free(cell);
	return strbuf_detach(&c);
}

/* A scenario's samples/s (*rate): at the mean step where its steps are not alike (the rate
 * over the run, as the report's table gives it) or by_mean is set, else at the median step;
 * whether it is the mean step's. */
static int rate_of(json_t *s, int by_mean, double *rate)
{
	double at_median = jsonio_num(s, SK_THROUGHPUT_SAMPLES_PER_S),
	       at_mean = jsonio_num(s, "throughput_at_mean_step");
	int mean = by_mean ||
		(at_mean > 0 && at_median > 0 && stats_unalike(1 / at_median, 1 / at_mean));
	*rate = mean ? at_mean : at_median;
	return mean;
}

/* A scenario's shares as the report's table gives them (data, compute, communication,
 * waiting for peers, I/O, other; NAN: none, as "n/a"; -1: none on its basis, as "-"): on a
 * GPU (its verdict from the GPU timeline) the GPU's, else the host step's. */
static void shares_of(json_t *s, double v[6])
{
	json_t *g = json_object_get(s, SK_GPU_SHARES_PCT), *h = json_object_get(s, SK_SHARES_PCT);
	static const char *const host[] = { SK_DATA_LOADING, SK_COMPUTE, SK_COMMUNICATION,
					    SK_PEER_WAIT,    SK_IO,	 SK_OTHER };
	if (json_is_object(g) && !strcmp(jsonio_str(s, SK_VERDICT_BASIS), "gpu")) {
		/* (its exposed communication's transfer and waiting apart where known) */
		json_t *w = json_object_get(g, SK_PEER_WAIT);
		v[0] = jsonio_num(g, SK_IDLE_DATA_LOADING), v[1] = jsonio_num(g, SK_COMPUTE);
		v[3] = json_is_number(w) ? json_number_value(w) : -1, v[4] = -1;
		v[2] = jsonio_num(g, SK_COMMUNICATION) - (v[3] > 0 ? v[3] : 0);
		v[5] = 100 - v[0] - v[1] - jsonio_num(g, SK_COMMUNICATION);
		return;
	}
	for (int k = 0; k < 6; k++) {
		json_t *x = json_object_get(h, host[k]);
		v[k] = json_is_number(x) ? json_number_value(x) : NAN;
	}
}

/* A number's cell in fmt: "n/a" for NAN, "-" for a negative share (none on its basis). */
static char *value_cell(const char *fmt, double v)
{
	return isnan(v) ? xstrdup("n/a") : v < 0 ? xstrdup("-") : paper_cell_num(fmt, v);
}

/* One scenario's row of the scenarios table. */
static void scenario_row(char **row, json_t *s, int ok)
{
	row[0] = xstrdup(jsonio_str(s, SK_NAME));
	row[1] = paper_cell_num("%.0f", jsonio_num(s, SK_NODES));
	row[2] = paper_cell_num("%.0f", jsonio_num(s, SK_RANKS));
	row[3] = xstrdup(jsonio_str(s, SK_STATE));
	double rate, sh[6];
	int unalike = rate_of(s, 0, &rate);
	shares_of(s, sh);
	json_t *med = jsonio_at(s, SK_PATH(SK_STEP_TIME_MS, SK_MEDIAN)),
	       *p95 = jsonio_at(s, SK_PATH(SK_STEP_TIME_MS, SK_P95));
	/* ms to 0.01, a rate to stats_rate_decimals (none without a batch), shares to 0.1 */
	row[4] = value_cell("%.2f", json_is_number(med) ? json_number_value(med) : NAN);
	row[5] = value_cell("%.2f", json_is_number(p95) ? json_number_value(p95) : NAN);
	row[6] = value_cell(stats_rate_decimals(rate) ? "%.1f" : "%.0f", rate > 0 ? rate : NAN);
	for (int k = 0; k < 6; k++)
		row[7 + k] = value_cell("%.1f", sh[k] > -0.05 && sh[k] < 0.05 ? 0 : sh[k]);
	for (int k = 4; k < 13 && !ok; k++) {
		free(row[k]);
		row[k] = xstrdup("-");
	}
	if (ok && json_is_number(p95) &&
	    json_array_size(json_object_get(s, SK_STEP_TIMES_MS)) < STATS_P95_MIN_N) {
		struct strbuf c = STRBUF_INIT; /* a p95 of few steps is rough */
		strbuf_addf(&c, "%s (rough)", row[5]);
		free(row[5]);
		row[5] = strbuf_detach(&c);
	}
	/* step lines adding up to more than their job ran: the workload's, not timed */
	row[4] = marked(row[4], ok && json_is_object(json_object_get(s, SK_STEP_LINES_EXCEED_JOB)),
			"not timed");
	row[6] = marked(row[6], ok && unalike, "mean step");
	row[13] = marked(xstrdup(ok ? jsonio_str(s, SK_VERDICT) : "not analysed"),
			 ok && json_is_true(json_object_get(s, "borderline")), "borderline");
	row[13] = marked(row[13], ok && !strcmp(jsonio_str(s, SK_VERDICT_BASIS), "gpu"), "GPU");
}

/* An interval [lo, hi] of a summary as "LO-HI" (times f, to d decimals or more), "n/a" when null. */
static char *interval_cell(json_t *s, const char *key, int d, double f)
{
	json_t *ci = json_object_get(s, key);
	if (json_array_size(ci) != 2)
		return xstrdup("n/a");
	/* (a bound next to the reference, 1x or 100 %, with the decimals that keep it apart,
	 * as the report prints it) */
	double lo = f * json_number_value(json_array_get(ci, 0)),
	       hi = f * json_number_value(json_array_get(ci, 1));
	struct strbuf c = STRBUF_INIT;
	strbuf_addf(&c, "%.*f-%.*f", stats_bound_decimals(lo, f, d), lo,
		    stats_bound_decimals(hi, f, d), hi);
	return strbuf_detach(&c);
}

/* One scenario's row of the scaling table: as the report's, samples/s at the mean step where
 * its steps are not alike, speedup and efficiency by the means where the report says so. */
static void scaling_row(char **k, json_t *s)
{
	int means = json_is_true(json_object_get(s, SK_SPEEDUP_BY_MEANS));
	k[0] = xstrdup(jsonio_str(s, SK_NAME));
	k[1] = paper_cell_num("%.0f", jsonio_num(s, SK_NODES));
	k[2] = paper_cell_num("%.0f", jsonio_num(s, SK_RANKS));
	/* (at the mean step too where the speedup is by the means: its ratio is of those) */
	double rate;
	int by_mean = rate_of(s, means, &rate);
	k[3] = marked(
		value_cell(stats_rate_decimals(rate) ? "%.1f" : "%.0f", rate > 0 ? rate : NAN),
		by_mean && rate > 0, "mean step");
	k[4] = marked(paper_cell_num("%.2f", jsonio_num(s, SK_SPEEDUP)), means, "by the means");
	k[5] = interval_cell(s, SK_SPEEDUP_INTERVAL, 2, 1);
	k[6] = marked(paper_cell_num("%.0f", 100 * jsonio_num(s, SK_EFFICIENCY)), means,
		      "by the means");
	k[7] = interval_cell(s, SK_EFFICIENCY_INTERVAL, 0, 100);
	k[8] = xstrdup(jsonio_str(s, SK_BASELINE));
}

/* Whether scenario s has a place in the scaling table: scaled against a baseline, or the
 * baseline of another scenario (a series of one has nothing to scale against: the report's
 * table leaves it out too). */
static int scales(json_t *all, json_t *s)
{
	const char *name = jsonio_str(s, SK_NAME), *base = jsonio_str(s, SK_BASELINE);
	size_t i;
	json_t *o;
	if (strcmp(base, name))
		return 1;
	json_array_foreach(all, i, o)
		if (o != s && !strcmp(jsonio_str(o, SK_BASELINE), name) &&
		    json_is_number(json_object_get(o, SK_SPEEDUP)))
			return 1;
	return 0;
}

static int tables(struct paper *p)
{
	static const char *const sh[] = { "Scenario",         "Nodes",    "Ranks",     "State",
					  "Median step (ms)", "p95 (ms)", "Samples/s", "Data %",
					  "Compute %",        "Comm %",   "Wait %",    "I/O %",
					  "Other %",          "Verdict" };
	static const char *const kh[] = { "Scenario",	  "Nodes",
					  "Ranks",	  "Samples/s",
					  "Speedup",	  "Speedup 95 % CI",
					  "Efficiency %", "Efficiency 95 % CI (%)",
					  "Baseline" };
	struct paper_table st = { .name = "scenarios",
				  .run = p->r->id,
				  .caption = PROSE_PAPER_SCENARIOS_CAPTION,
				  .ncols = 14,
				  .head = sh,
				  .align = "lrrlrrrrrrrrrl" };
	struct paper_table kt = { .name = "scaling",
				  .run = p->r->id,
				  .caption = PROSE_PAPER_SCALING_CAPTION,
				  .ncols = 9,
				  .head = kh,
				  .align = "lrrrrrrrl" };
	size_t i;
	json_t *s, *all = json_object_get(p->summary, SK_SCENARIOS);
	json_array_foreach(all, i, s) {
		int ok = json_is_true(json_object_get(s, SK_ANALYSED));
		scenario_row(paper_table_row(&st), s, ok);
		if (ok && json_is_number(json_object_get(s, SK_SPEEDUP)) && scales(all, s))
			scaling_row(paper_table_row(&kt), s);
	}
	int rc = paper_table_write(p->out, &st);
	if (rc == 0)
		rc = paper_table_write(p->out, &kt);
	paper_table_free(&st);
	paper_table_free(&kt);
	return rc;
}

/* ---- provenance appendix and reproduce.sh ----------------------------- */

static void quoted_line(struct strbuf *sb, const char *pre, const char *v, const char *post)
{
	strbuf_adds(sb, pre);
	shell_quote(sb, v);
	strbuf_adds(sb, post);
}

/* An untracked file left out of the patch: its name, size and time, and the
 * hash provenance.json gives it (a secret-looking one's is keyed). */
static void left_out_line(struct strbuf *md, json_t *f)
{
	json_t *b = json_object_get(f, "bytes");
	strbuf_addf(md, "- untracked, not in the patch (%s): `%s`, %lld bytes, modified %s, ",
		    jsonio_str(f, "left_out"), jsonio_str(f, "path"),
		    (long long)json_integer_value(b), jsonio_str(f, "mtime"));
	if (json_object_get(f, "hmac_key"))
		strbuf_addf(md, "HMAC-SHA256 (%s key) `%s`\n", jsonio_str(f, "hmac_key"),
			    json_string_value(json_object_get(f, "hmac_sha256")) ?: "none");
	else
		strbuf_addf(md, "SHA-256 `%s`\n",
			    json_string_value(json_object_get(f, "sha256")) ?: "none");
}

static int provenance_files(struct paper *p)
{
	struct strbuf md = STRBUF_INIT, sh = STRBUF_INIT;
	json_t *repos = json_object_get(p->prov, "repositories"),
	       *host = json_object_get(p->prov, "host"), *r;
	size_t i;
	strbuf_addf(&md, "# Provenance of run %s\n\nCampaign file `%s`, SHA-256 `%s`.\n\n",
		    p->r->id, jsonio_str(p->prov, "campaign_file"),
		    jsonio_str(p->prov, "campaign_sha256"));
	strbuf_adds(
		&sh,
		"#!/bin/sh\n# Rebuilds the exact code of this run and submits its frozen campaign again.\n"
		"# usage: sh reproduce.sh [WORKDIR]   (default ./reproduce)\nset -eu\n"
		"here=$(cd \"$(dirname \"$0\")\" && pwd)\nwork=${1:-reproduce}\nmkdir -p \"$work\" && cd \"$work\"\n");
	const char *campaign_dir = NULL;
	json_array_foreach(repos, i, r) {
		const char *name = jsonio_str(r, "name"), *commit = jsonio_str(r, "commit"),
			   *patch = jsonio_str(r, "patch");
		strbuf_addf(
			&md,
			"## Repository `%s` (%s)\n\n- path: `%s`\n- commit: `%s` on `%s`, %s\n- describe: `%s`\n"
			"- author: %s, %s\n- dirty: %s\n",
			name, jsonio_str(r, "role"), jsonio_str(r, "path"), commit,
			jsonio_str(r, "branch"), jsonio_str(r, "commit_time"),
			jsonio_str(r, "describe"), jsonio_str(r, "author"),
			jsonio_str(r, "commit_time"),
			json_is_true(json_object_get(r, "dirty")) ? "yes" : "no");
		size_t k;
		json_t *v;
		json_array_foreach(json_object_get(r, "remotes"), k, v)
			strbuf_addf(&md, "- remote: `%s`\n", json_string_value(v));
		if (*patch) {
			strbuf_addf(&md, "- uncommitted changes: `%s` (SHA-256 `%s`)\n", patch,
				    jsonio_str(r, "patch_sha256"));
			copy_in(p, patch, patch);
		}
		json_array_foreach(json_object_get(r, "untracked_files"), k, v)
			if (!json_is_true(json_object_get(v, "in_patch")))
				left_out_line(&md, v);
		strbuf_adds(&md, "\n");
		const char *src = json_array_size(json_object_get(r, "remotes"))
			? strchr(json_string_value(
					 json_array_get(json_object_get(r, "remotes"), 0)),
				 ' ') +
				1
			: jsonio_str(r, "path");
		quoted_line(&sh, "git clone ", src, " ");
		quoted_line(&sh, "", name, "\n");
		quoted_line(&sh, "git -C ", name, " checkout -q ");
		quoted_line(&sh, "", commit, "\n");
		if (*patch) {
			quoted_line(&sh, "git -C ", name, " apply \"$here\"/");
			quoted_line(&sh, "", patch, "\n");
		}
		if (strstr(jsonio_str(r, "role"), "campaign"))
			campaign_dir = name;
	}
	strbuf_addf(&md, "## Machine\n\n- host `%s`, kernel `%s` (%s), %s\n- compiler: %s\n",
		    jsonio_str(host, "hostname"), jsonio_str(host, "kernel"),
		    jsonio_str(host, "machine"), jsonio_str(host, "os"),
		    jsonio_str(host, "compiler"));
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(host, "versions"), k, v)
		strbuf_addf(&md, "- %s %s\n", k, json_string_value(v));
	if (campaign_dir) {
		quoted_line(&sh, "make -C ", campaign_dir, "\n");
		quoted_line(&sh, "exec ./", campaign_dir,
			    "/bin/campaign submit \"$here/campaign.yaml\"\n");
	} else {
		strbuf_adds(&sh, "exec campaign submit \"$here/campaign.yaml\"\n");
	}
	int rc = put(p, "provenance.md", &md, 0644);
	if (rc == 0)
		rc = put(p, "reproduce.sh", &sh, 0755);
	strbuf_free(&md);
	strbuf_free(&sh);
	return rc;
}

/* ---- manifest --------------------------------------------------------- */

static int manifest(struct paper *p)
{
	struct argv files = { 0 };
	struct strbuf m = STRBUF_INIT, path = STRBUF_INIT;
	int rc = 0;
	paper_files(p->out, &files);
	for (size_t i = 0; i < files.n && rc == 0; i++) {
		char sha[SHA256_HEX];
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", p->out, files.v[i]);
		if ((rc = sha256_file(path.buf, sha)) == 0)
			strbuf_addf(&m, "%s  %s\n", sha, files.v[i]);
	}
	if (rc == 0)
		rc = put(p, "MANIFEST.sha256", &m, 0644);
	argv_free(&files);
	strbuf_free(&m);
	strbuf_free(&path);
	return rc;
}

/* ---- the whole ---------------------------------------------------------- */

static json_t *load(struct run *r, const char *rel)
{
	struct strbuf path = STRBUF_INIT;
	json_error_t jerr;
	strbuf_addf(&path, "%s/%s", r->dir, rel);
	json_t *j = json_load_file(path.buf, 0, &jerr);
	if (!j)
		err_set(fsio_exists(path.buf) ? ERR_IO : ERR_NOTFOUND, "%s: %s%s", path.buf,
			jerr.text,
			fsio_exists(path.buf) ? "" : " (run `campaign aggregate` first)");
	strbuf_free(&path);
	return j;
}

int paper_generate(struct run *r, const char *out)
{
	struct paper p = { .r = r, .out = out };
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	p.epoch = sde && *sde ? atol(sde) : (long)r->row.created_at;
	p.summary = load(r, RUN_SUMMARY);
	p.prov = p.summary ? load(r, RUN_PROVENANCE) : NULL;
	int rc = p.summary && p.prov ? 0 : ERR_NOTFOUND;
	if (rc == 0)
		rc = publishable_all(&p);
	if (rc == 0) {
		struct strbuf figdir = STRBUF_INIT;
		strbuf_addf(&figdir, "%s/" RUN_FIGURES, out);
		rc = figures_draw(r->dir, p.summary, figdir.buf, p.epoch,
				  FIG_PDF | FIG_SVG | FIG_PNG);
		strbuf_free(&figdir);
	}
	if (rc == 0)
		rc = tables(&p);
	if (rc == 0)
		rc = paper_predictions(out, r, p.summary);
	if (rc == 0)
		rc = copy_in(&p, "BOTTLENECK_ANALYSIS.md", "BOTTLENECK_ANALYSIS.md");
	if (rc == 0)
		rc = copy_in(&p, RUN_SUMMARY, RUN_SUMMARY);
	if (rc == 0)
		rc = copy_in(&p, RUN_PROVENANCE, RUN_PROVENANCE);
	if (rc == 0)
		rc = copy_in(&p, RUN_CAMPAIGN, RUN_CAMPAIGN);
	if (rc == 0)
		rc = provenance_files(&p);
	if (rc == 0)
		rc = manifest(&p);
	json_decref(p.summary);
	json_decref(p.prov);
	return rc;
}

int paper_compare(const char *expected, const char *actual)
{
	struct argv a = { 0 }, b = { 0 };
	paper_files(expected, &a);
	paper_files(actual, &b);
	int diffs = 0;
	size_t i = 0, j = 0;
	while (i < a.n || j < b.n) {
		int c = i >= a.n ? 1 : j >= b.n ? -1 : strcmp(a.v[i], b.v[j]);
		if (c < 0) {
			printf("missing from %s: %s\n", actual, a.v[i++]);
			diffs++;
		} else if (c > 0) {
			printf("not expected: %s\n", b.v[j++]);
			diffs++;
		} else {
			char sa[SHA256_HEX], sb[SHA256_HEX];
			struct strbuf pa = STRBUF_INIT, pb = STRBUF_INIT;
			strbuf_addf(&pa, "%s/%s", expected, a.v[i]);
			strbuf_addf(&pb, "%s/%s", actual, b.v[j]);
			if (sha256_file(pa.buf, sa) < 0 || sha256_file(pb.buf, sb) < 0 ||
			    strcmp(sa, sb)) {
				printf("differs: %s\n", a.v[i]);
				diffs++;
			}
			strbuf_free(&pa);
			strbuf_free(&pb);
			i++;
			j++;
		}
	}
	argv_free(&a);
	argv_free(&b);
	return diffs;
}
