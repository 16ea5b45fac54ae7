/* run_input: RUN/analysis_input.json written by the orchestrator's
 * aggregation and read back by campaign-analyze RUN. Reals are written with
 * 17 significant digits, so what is read back is the same double.
 * SPDX-License-Identifier: MIT */
#include "analyzers/run_input.h"
#include "analyzers/prose.h"
#include "analyzers/bounds.h"
#include "analyzers/run_input_bounds.h"

#include "util/err.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "util/run_layout.h"
#include "util/sha256.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FORMAT_NAME "campaign-analysis-input"

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *strings(char *const *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *reals(const double *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_real(v[i]));
	return a;
}

/* The job folder relative to the run directory (it always lies below it). */
static const char *below_run(const struct ana_run *run, const char *dir)
{
	size_t n = strlen(run->run_dir);
	if (!strncmp(dir, run->run_dir, n) && dir[n] == '/')
		return dir + n + 1;
	return dir;
}

/* A sentence the run made (a job's reason, its requeue): at most
 * BOUND_TEXT_BYTES, cut where a UTF-8 character starts. */
static json_t *text(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (!s)
		return json_null();
	if (n > BOUND_TEXT_BYTES)
		for (n = BOUND_TEXT_BYTES; n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80; n--)
			;
	return json_stringn(s, n);
}

/* A series key, compared and never shown: a longer one than BOUND_TEXT_BYTES
 * by its SHA-256, which tells the same series apart as well. */
static json_t *series_key(const char *s)
{
	char sha[SHA256_HEX], key[8 + SHA256_HEX];
	if (!s || strlen(s) <= BOUND_TEXT_BYTES)
		return str_or_null(s);
	sha256_hex(s, strlen(s), sha);
	snprintf(key, sizeof key, "sha256:%s", sha);
	return json_string(key);
}

static json_t *scenario_json(const struct ana_run *run, const struct ana_scenario *s)
{
	const struct ana_input *in = &s->in;
	return json_pack(
		"{s:s, s:s, s:o, s:s, s:s, s:i, s:i, s:i, s:o, s:i, s:i, s:i, s:i, s:o, s:s, s:i, s:i, s:i, s:b}",
		"name", in->name, "state", in->state, "reason", text(in->reason), "backend",
		in->backend, "job_dir", below_run(run, in->job_dir), "exit_code", in->exit_code,
		"nodes", in->nodes, "tasks_per_node", in->tasks_per_node, "series",
		series_key(in->series), "batch_per_rank", in->batch_per_rank, "global_batch_set",
		in->global_batch_set, "attempt", in->attempt, "attempts", in->attempts, "requeued",
		text(in->requeued), "contaminated", s->data.contaminated, "loader_workers",
		in->loader_workers, "loader_prefetch", in->loader_prefetch, "checkpoint_every",
		in->ckpt_every, "checkpoint_async", in->ckpt_async);
}

static json_t *probe_json(const struct ana_run *run, const struct ana_probe *p)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:i, s:i}", "name", p->name, "state", p->state,
			 "backend", p->backend, "job_dir", below_run(run, p->job_dir), "nodes",
			 p->nodes, "tasks_per_node", p->nodes ? p->ranks / p->nodes : 0);
}

static json_t *variant_json(const struct ana_variant *v)
{
	if (!v->of)
		return json_null();
	json_t *checks = json_array();
	for (size_t i = 0; i < v->n; i++) {
		const struct ana_check *c = &v->checks[i];
		json_array_append_new(
			checks,
			json_pack(
				"{s:s, s:f, s:[f, f], s:b, s:b, s:f, s:[f, f], s:o, s:o, s:f, s:I, s:b, s:i, s:b}",
				"scenario", c->scenario, "predicted_ms", c->predicted_ms,
				"predicted_interval_ms", c->pred_lo_ms, c->pred_hi_ms, "by_ceiling",
				c->by_ceiling, "basis_bound", c->basis_bound, "predicted_mean_ms",
				c->pred_mean_ms, "predicted_mean_interval_ms", c->pmean_lo_ms,
				c->pmean_hi_ms, "parent_steps", reals(c->parent_steps, c->n_parent),
				"parent_share_pct", reals(c->parent_share_pct, CHECK_SHARES),
				"parent_median_ms", c->parent_median_ms, "parent_batch",
				(json_int_t) c->parent_batch, "parent_contaminated",
				c->parent_contaminated, "parent_periods", c->parent_periods, "side",
				c->side));
		if (c->n_control) /* set against a control run (campaign try --control) */
			json_object_update_new(json_array_get(checks, i),
					       json_pack("{s:o, s:b}", "control_steps",
							 reals(c->control_steps, c->n_control),
							 "control_contaminated",
							 c->control_contaminated));
	}
	json_t *o = json_pack("{s:s, s:s, s:s, s:o}", "of", v->of, "kind",
			      v->kind ? v->kind : "", "knob", v->knob ? v->knob : "", "checks",
			      checks);
	if (v->control)
		json_object_set_new(o, "control", json_string(v->control));
	if (v->control_pending)
		json_object_set_new(o, "control_pending", json_string(v->control_pending));
	return o;
}

static json_t *settings_json(const struct ana_run *run)
{
	json_t *th = json_object(), *rules = json_array();
	struct ana_thresholds t = run->th;
	for (size_t k = 0; k < ANA_THRESHOLDS; k++)
		json_object_set_new(th, ana_threshold_keys[k].key,
				    json_real(*ana_threshold_at(&t, k)));
	for (size_t i = 0; i < run->n_phase_rules; i++)
		json_array_append_new(rules, json_pack("{s:s, s:s}", "phase", run->phase_names[i],
						       "pattern", run->phase_patterns[i]));
	return json_pack(
		"{s:o, s:i, s:i, s:i, s:f, s:I, s:i, s:i, s:o, s:o, s:o, s:i, s:i, s:I, s:o}",
		"baseline", str_or_null(run->baseline), "want_nsys", run->want_nsys, "want_perf",
		run->want_perf, "want_inspector", run->want_inspector, "peak_gflops",
		run->peak_gflops, "epoch", (json_int_t) run->epoch, "host_cpus", run->host_cpus,
		"cores_per_node", run->cores_per_node, "thresholds", th, "phase_rules", rules,
		"step_log", str_or_null(run->step_log), "warmup_steps", run->warmup_steps,
		"batch_per_rank", run->batch_per_rank, "global_batch",
		(json_int_t) run->global_batch, "scaling", str_or_null(run->scaling));
}

/* Whether campaign-analyze RUN would read j back: within every bound and
 * BOUND_ANALYSIS_INPUT_BYTES. When not, path is not written (an older one is
 * removed), and the warning says why: the analysis itself goes on. */
static int readable(json_t *j, const char *path)
{
	char why[512] = "";
	size_t size = json_dumpb(j, NULL, 0,
				 JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
	int within = run_input_bounds(j, why, sizeof why) == 0;
	if (within && size < BOUND_ANALYSIS_INPUT_BYTES)
		return 1;
	if (within)
		fprintf(stderr,
			"campaign: warning: %s is not written (%zu bytes, more than the %u MiB campaign-analyze reads): campaign-analyze cannot analyse this run again on its own\n",
			path, size, BOUND_ANALYSIS_INPUT_BYTES >> 20);
	else
		fprintf(stderr,
			"campaign: warning: %s is not written (%s): campaign-analyze cannot analyse this run again on its own\n",
			path, why);
	unlink(path);
	return 0;
}

int run_input_write(const struct ana_run *run)
{
	json_t *sc = json_array(), *probes = json_array();
	for (size_t i = 0; i < run->n; i++)
		json_array_append_new(sc, scenario_json(run, &run->sc[i]));
	for (size_t i = 0; i < run->nprobes; i++)
		json_array_append_new(probes, probe_json(run, &run->probes[i]));
	json_t *j = json_pack("{s:s, s:i, s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "format",
			      FORMAT_NAME, "version", RUN_INPUT_VERSION, "campaign", run->campaign,
			      "run_id", run->run_id, "settings", settings_json(run), "trace_globs",
			      strings(run->trace_globs, run->n_trace_globs), "scenarios", sc,
			      "probes", probes, "variant", variant_json(&run->variant));
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "%s/" RUN_ANALYSIS_INPUT, run->run_dir);
	/* the scenarios' parameters are the campaign's: private as campaign.yaml is */
	int rc = !j ? err_set(ERR_GENERIC, "cannot encode %s (a value is not finite)", path.buf)
	     : readable(j, path.buf) ? jsonio_write_exact(path.buf, j, RUN_PRIVATE_MODE)
				     : 0;
	json_decref(j);
	strbuf_free(&path);
	return rc;
}

/* Says why in e's text; -1. */
__attribute__((format(printf, 2, 3))) static int input_error(json_error_t *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof e->text, fmt, ap);
	va_end(ap);
	return -1;
}

/* A job folder as written: names of scenario folders ([A-Za-z0-9._-], not
 * "." or "..") joined by '/', so nothing read can lead outside the run. */
static int below_run_only(const char *rel)
{
	if (!*rel)
		return 0;
	for (const char *p = rel; *p;) {
		size_t n = strspn(
			p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
			return 0;
		p += n;
		if (*p && (*p != '/' || !p[1]))
			return 0;
		p += *p == '/';
	}
	return 1;
}

/* The job folder rel of run (malloc'd), or NULL (said in e) when it is not below it. */
static char *job_dir_of(const struct ana_run *run, const char *rel, json_error_t *e)
{
	if (!below_run_only(rel)) {
		/* not shown: it may hold a terminal's escapes */
		input_error(
			e,
			"job_dir: not a folder below the run (names of letters, digits, . _ - joined by /)");
		return NULL;
	}
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s/%s", run->run_dir, rel);
	return strbuf_detach(&sb);
}

static int string_or_null(const json_t *v)
{
	return json_is_string(v) || json_is_null(v);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static int read_scenario(json_t *o, struct ana_run *run, json_error_t *e)
{
	const char *name, *state, *reason, *backend, *dir, *cont;
	json_t *series, *rq;
	int code, nodes, tpn, bpr, gbs, attempt, attempts, lw = 0, lp = 0, ce = -1, ca = 0;
	/* (loader_*, checkpoint_*: optional, absent in the inputs written before them; the
	 * checkpoints then not known, ce -1) */
	if (json_unpack_ex(
		    o, e, JSON_STRICT,
		    "{s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:o, s:i, s:i, s:i, s:i, s:o, s:s, s?i, s?i, s?i, s?b}",
		    "name", &name, "state", &state, "reason", &reason, "backend", &backend,
		    "job_dir", &dir, "exit_code", &code, "nodes", &nodes, "tasks_per_node", &tpn,
		    "series", &series, "batch_per_rank", &bpr, "global_batch_set", &gbs, "attempt",
		    &attempt, "attempts", &attempts, "requeued", &rq, "contaminated", &cont,
		    "loader_workers", &lw, "loader_prefetch", &lp, "checkpoint_every", &ce,
		    "checkpoint_async", &ca) < 0)
		return -1;
	if (!string_or_null(series) || !string_or_null(rq))
		return input_error(e, "series and requeued: a string or null");
	char *full = job_dir_of(run, dir, e);
	if (!full)
		return -1;
	ana_run_add(run, name, state, reason, backend, full, code, nodes, tpn);
	free(full);
	struct ana_scenario *s = &run->sc[run->n - 1];
	s->in.series = dup_or_null(json_string_value(series));
	s->in.requeued = dup_or_null(json_string_value(rq));
	s->in.batch_per_rank = bpr;
	s->in.global_batch_set = gbs;
	s->in.attempt = attempt;
	s->in.attempts = attempts;
	s->in.loader_workers = lw;
	s->in.loader_prefetch = lp;
	s->in.ckpt_every = ce;
	s->in.ckpt_async = ca;
	snprintf(s->data.contaminated, sizeof s->data.contaminated, "%s", cont);
	return 0;
}

static int read_probe(json_t *o, struct ana_run *run, json_error_t *e)
{
	const char *name, *state, *backend, *dir;
	int nodes, tpn;
	if (json_unpack_ex(o, e, JSON_STRICT, "{s:s, s:s, s:s, s:s, s:i, s:i}", "name", &name,
			   "state", &state, "backend", &backend, "job_dir", &dir, "nodes", &nodes,
			   "tasks_per_node", &tpn) < 0)
		return -1;
	char *full = job_dir_of(run, dir, e);
	if (!full)
		return -1;
	ana_run_add_probe(run, name, state, backend, full, nodes, tpn);
	free(full);
	return 0;
}

/* n reals of array a into a fresh array at *out (n of them at *n_out). */
static int read_reals(json_t *a, double **out, size_t *n_out, size_t want, json_error_t *e)
{
	size_t n = json_array_size(a), i;
	json_t *v;
	if (!json_is_array(a) || (want && n != want))
		return input_error(e, "a list of %zu numbers expected", want);
	*out = xcalloc(n + 1, sizeof **out);
	json_array_foreach(a, i, v) {
		if (!json_is_number(v))
			return input_error(e, "a number expected");
		(*out)[i] = json_number_value(v);
	}
	if (n_out)
		*n_out = n;
	return 0;
}

static int read_check(json_t *o, struct ana_check *c, json_error_t *e)
{
	const char *name;
	json_t *steps, *shares, *ctl = NULL;
	json_int_t batch;
	double *sh = NULL;
	/* parent_contaminated, predicted_interval_ms, parent_periods, the predicted mean, side:
	 * absent in inputs written before them (the parent's estimator then unknown) */
	c->pred_lo_ms = c->pred_hi_ms = c->pred_mean_ms = c->pmean_lo_ms = c->pmean_hi_ms = -1;
	c->parent_periods = c->by_ceiling = -1;
	c->basis_bound = 0;
	if (json_unpack_ex(
		    o, e, JSON_STRICT,
		    "{s:s, s:F, s?[FF], s?b, s?b, s?F, s?[FF], s:o, s:o, s:F, s:I, s?b, s?i, s?b, s?o, s?b}",
		    "scenario", &name, "predicted_ms", &c->predicted_ms, "predicted_interval_ms",
		    &c->pred_lo_ms, &c->pred_hi_ms, "by_ceiling", &c->by_ceiling, "basis_bound",
		    &c->basis_bound, "predicted_mean_ms", &c->pred_mean_ms,
		    "predicted_mean_interval_ms", &c->pmean_lo_ms, &c->pmean_hi_ms, "parent_steps",
		    &steps, "parent_share_pct", &shares, "parent_median_ms", &c->parent_median_ms,
		    "parent_batch", &batch, "parent_contaminated", &c->parent_contaminated,
		    "parent_periods", &c->parent_periods, "side", &c->side, "control_steps", &ctl,
		    "control_contaminated", &c->control_contaminated) < 0)
		return -1;
	if (c->by_ceiling < 0) /* (written before it: a prediction without an interval) */
		c->by_ceiling = c->predicted_ms >= 0 && c->pred_lo_ms < 0;
	if (c->parent_periods < -1 || c->parent_periods > 1)
		c->parent_periods = -1; /* not what campaign writes: unknown */
	c->scenario = xstrdup(name);
	c->parent_batch = (long)batch;
	int rc = read_reals(steps, &c->parent_steps, &c->n_parent, 0, e);
	if (rc == 0 && (rc = read_reals(shares, &sh, NULL, CHECK_SHARES, e)) == 0)
		memcpy(c->parent_share_pct, sh, sizeof c->parent_share_pct);
	if (rc == 0 && ctl)
		rc = read_reals(ctl, &c->control_steps, &c->n_control, 0, e);
	free(sh);
	return rc;
}

static int read_variant(json_t *o, struct ana_variant *v, json_error_t *e)
{
	const char *of, *kind, *knob, *control = NULL, *pending = NULL;
	json_t *checks, *c;
	size_t i;
	if (json_is_null(o))
		return 0;
	if (json_unpack_ex(o, e, JSON_STRICT, "{s:s, s:s, s:s, s:o, s?s, s?s}", "of", &of, "kind",
			   &kind, "knob", &knob, "checks", &checks, "control", &control,
			   "control_pending", &pending) < 0)
		return -1;
	v->control = control ? xstrdup(control) : NULL;
	v->control_pending = pending ? xstrdup(pending) : NULL;
	v->of = xstrdup(of);
	v->kind = xstrdup(kind);
	v->knob = xstrdup(knob);
	v->checks = xcalloc(json_array_size(checks) + 1, sizeof *v->checks);
	json_array_foreach(checks, i, c) {
		if (read_check(c, &v->checks[v->n++], e) < 0)
			return -1;
	}
	return 0;
}

static int read_thresholds(json_t *o, struct ana_thresholds *th, json_error_t *e)
{
	ana_thresholds_default(th);
	for (size_t k = 0; k < ANA_THRESHOLDS; k++) {
		json_t *v = json_object_get(o, ana_threshold_keys[k].key);
		if (!json_is_number(v))
			return input_error(e, "thresholds.%s: a number expected",
					ana_threshold_keys[k].key);
		*ana_threshold_at(th, k) = json_number_value(v);
	}
	return 0;
}

static int read_rules(json_t *a, struct ana_run *run, json_error_t *e)
{
	size_t n = json_array_size(a), i;
	json_t *r;
	run->phase_names = xcalloc(n + 1, sizeof *run->phase_names);
	run->phase_patterns = xcalloc(n + 1, sizeof *run->phase_patterns);
	json_array_foreach(a, i, r) {
		const char *phase, *pattern;
		if (json_unpack_ex(r, e, JSON_STRICT, "{s:s, s:s}", "phase", &phase, "pattern",
				   &pattern) < 0)
			return -1;
		run->phase_names[i] = xstrdup(phase);
		run->phase_patterns[i] = xstrdup(pattern);
		run->n_phase_rules = i + 1;
	}
	return 0;
}

static int read_settings(json_t *o, struct ana_run *run, json_error_t *e)
{
	json_t *th, *rules, *base, *log, *scaling;
	json_int_t epoch, gb;
	if (json_unpack_ex(
		    o, e, JSON_STRICT,
		    "{s:o, s:i, s:i, s:i, s:F, s:I, s:i, s?i, s:o, s:o, s:o, s:i, s:i, s:I, s:o}",
		    "baseline", &base, "want_nsys", &run->want_nsys, "want_perf", &run->want_perf,
		    "want_inspector", &run->want_inspector, "peak_gflops", &run->peak_gflops,
		    "epoch", &epoch, "host_cpus", &run->host_cpus, "cores_per_node",
		    &run->cores_per_node, "thresholds", &th, "phase_rules", &rules, "step_log",
		    &log, "warmup_steps", &run->warmup_steps, "batch_per_rank",
		    &run->batch_per_rank, "global_batch", &gb, "scaling", &scaling) < 0)
		return -1;
	if (!string_or_null(base) || !string_or_null(log) || !string_or_null(scaling))
		return input_error(e, "baseline, step_log and scaling: a string or null");
	run->baseline = dup_or_null(json_string_value(base));
	run->step_log = dup_or_null(json_string_value(log));
	run->scaling = dup_or_null(json_string_value(scaling));
	run->epoch = (long)epoch;
	run->global_batch = (long)gb;
	if (read_thresholds(th, &run->th, e) < 0)
		return -1;
	return read_rules(rules, run, e);
}

static int read_lists(json_t *globs, json_t *sc, json_t *probes, struct ana_run *run,
		      json_error_t *e)
{
	json_t *v;
	size_t i;
	if (!json_is_array(globs) || !json_is_array(sc) || !json_is_array(probes))
		return input_error(e, "trace_globs, scenarios and probes must be lists");
	run->trace_globs = xcalloc(json_array_size(globs) + 1, sizeof *run->trace_globs);
	json_array_foreach(globs, i, v) {
		if (!json_is_string(v))
			return input_error(e, "trace_globs: strings expected");
		run->trace_globs[run->n_trace_globs++] = xstrdup(json_string_value(v));
	}
	json_array_foreach(sc, i, v) {
		if (read_scenario(v, run, e) < 0)
			return -1;
	}
	json_array_foreach(probes, i, v) {
		if (read_probe(v, run, e) < 0)
			return -1;
	}
	return 0;
}

static int read_doc(json_t *j, struct ana_run *run, json_error_t *e)
{
	const char *format, *campaign, *id;
	int version;
	json_t *settings, *globs, *sc, *probes, *variant;
	if (json_unpack_ex(j, e, JSON_STRICT, "{s:s, s:i, s:s, s:s, s:o, s:o, s:o, s:o, s:o}",
			   "format", &format, "version", &version, "campaign", &campaign, "run_id",
			   &id, "settings", &settings, "trace_globs", &globs, "scenarios", &sc,
			   "probes", &probes, "variant", &variant) < 0)
		return -1;
	if (strcmp(format, FORMAT_NAME) || version != RUN_INPUT_VERSION)
		return input_error(e, "format %.40s version %d, not %s version %d", format, version,
			   FORMAT_NAME, RUN_INPUT_VERSION);
	run->campaign = xstrdup(campaign);
	run->run_id = xstrdup(id);
	if (read_settings(settings, run, e) < 0 || read_lists(globs, sc, probes, run, e) < 0)
		return -1;
	return read_variant(variant, &run->variant, e);
}

int run_input_parse(const char *run_dir, const char *text, size_t len, struct ana_run *run)
{
	json_error_t e = { 0 };
	memset(run, 0, sizeof *run);
	run->run_dir = xstrdup(run_dir);
	json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
	int rc = 0;
	if (!j || run_input_bounds(j, e.text, sizeof e.text) < 0 || read_doc(j, run, &e) < 0)
		rc = err_set(
			ERR_IO,
			"%s/" RUN_ANALYSIS_INPUT
			" is damaged (%s); run `campaign aggregate --force %s` to write it again",
			run_dir, e.text, run_dir);
	json_decref(j);
	return rc;
}

int run_input_read(const char *run_dir, struct ana_run *run)
{
	struct strbuf path = STRBUF_INIT;
	memset(run, 0, sizeof *run);
	strbuf_addf(&path, "%s/" RUN_ANALYSIS_INPUT, run_dir);
	int rc = 0;
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	if (!fsio_exists(path.buf))
		rc = err_set(
			ERR_NOTFOUND,
			PROSE_RUN_NOT_AGGREGATED,
			run_dir, RUN_ANALYSIS_INPUT, run_dir);
	else if (stat(path.buf, &st) == 0 && st.st_size > (off_t)BOUND_ANALYSIS_INPUT_BYTES)
		rc = err_set(
			ERR_IO,
			"%s: %lld bytes, more than the %u MiB campaign writes: not read; run `campaign aggregate --force %s` to write it again",
			path.buf, (long long) st.st_size, BOUND_ANALYSIS_INPUT_BYTES >> 20,
			run_dir);
	else if ((rc = fsio_read(path.buf, BOUND_ANALYSIS_INPUT_BYTES, &text, &len)) == 0)
		rc = run_input_parse(run_dir, text, len, run);
	if (!run->run_dir)
		run->run_dir = xstrdup(run_dir);
	free(text);
	strbuf_free(&path);
	return rc;
}
