/* campaign-analyze's trace mode: each file (a Kineto trace, an Nsight Systems export) read on
 * a worker, its GPU time breakdown and steps as JSON objects, then the files' execution
 * graph replayed together; printed as one JSON document or in words (analyze_traces_text).
 * SPDX-License-Identifier: MIT */
#include "analyzers/analyze_traces.h"
#include "analyzers/analyze_traces_text.h"
#include "util/clock.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"
#include "analyzers/gpu_breakdown.h"
#include "analyzers/write/data_text.h"
#include "analyzers/write/summary_objects.h"
#include "util/words.h"
#include "analyzers/read/kineto.h"
#include "analyzers/read/nsys.h"
#include "analyzers/phases.h"
#include "analyzers/pool.h"
#include "analyzers/read/rules.h"
#include "analyzers/replay_scenario.h"
#include "analyzers/stats.h"
#include "analyzers/torchtrace.h"

#include <sys/stat.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A file's object (of an Nsight Systems export: a process and device's): which file, rank
 * and process; summary.json's objects of ts, its trace set alone (summary_traces_json); and
 * h, t's GPU breakdown, at the trace's resolution (gpu_breakdown_detail). */
static json_t *file_object(const char *file, const struct gpu_trace *t, struct trace_set *ts,
			   const struct gpu_breakdown_rank *h)
{
	json_t *o = json_pack("{s:s, s:o}", "file", file, "rank",
			      h->rank >= 0 ? json_integer(h->rank) : json_null());
	if (t->label[0])
		json_object_set_new(o, "process", json_string(t->label));
	json_object_set_new(o, "malformed_events", json_integer(t->malformed));
	json_object_set_new(o, "gpu_events", json_integer((json_int_t)h->events));
	if (!h->events)
		json_object_set_new(
			o, "note",
			json_string("no GPU activity in this trace (CPU-only): no GPU breakdown"));
	struct ana_scenario s;
	ana_scenario_of_traces(&s, ts);
	summary_traces_json(o, &s);
	ana_scenario_free(&s);
	json_object_set_new(o, "gpu_breakdown_detail", gpu_breakdown_json(h));
	return o;
}

/* An export's process and device: its GPU work alone (its host side is the export's). */
static json_t *analyse_process(struct gpu_trace *t, const struct rules *r, int top,
			       const char *file)
{
	struct gpu_breakdown_rank h;
	struct trace_set ts = { 0 };
	gpu_breakdown_analyse(t, r, top, &h);
	trace_set_add_gpu(&ts, t, r, &h);
	json_t *o = file_object(file, t, &ts, &h);
	trace_set_free(&ts);
	gpu_breakdown_rank_free(&h);
	return o;
}

/* A Kineto trace's two halves, side by side when the file has two threads: its GPU
 * breakdown (which writes only the GPU events' categories) and its host side reduced to steps
 * (which reads only host ranges). */
struct kineto_halves {
	struct gpu_trace *t;
	const struct rules *r, *phases;
	int top;
	struct gpu_breakdown_rank h;
	struct rank_metrics steps;
	struct trace_set ts;
};

static void kineto_half(void *ctx, size_t i)
{
	struct kineto_halves *k = ctx;
	if (i == 0)
		gpu_breakdown_analyse(k->t, k->r, k->top, &k->h);
	else
		trace_reduce_rank(k->t, k->phases, 0, &k->steps, &k->ts.ops);
}

/* A Kineto trace: its GPU breakdown and host steps, then the steps' GPU side, as a run's
 * analysis reduces a rank's trace. */
static json_t *analyse_kineto(struct gpu_trace *t, const struct rules *r,
			      const struct rules *phases, int top, int threads, const char *file)
{
	struct kineto_halves k = { .t = t, .r = r, .phases = phases, .top = top };
	const char *base = strrchr(file, '/');
	pool_run(2, threads > 1 ? 2 : 1, kineto_half, &k);
	trace_set_add_kineto(&k.ts, t, &k.steps, base ? base + 1 : file, 0, file, phases, r,
			     &k.h);
	json_t *o = file_object(file, t, &k.ts, &k.h);
	trace_set_free(&k.ts);
	gpu_breakdown_rank_free(&k.h);
	json_object_set_new(o, "format", json_string(t->legacy ? "legacy" : "kineto"));
	return o;
}

/* A file's traces kept for the replay: a Kineto trace's one, an Nsight Systems export's one
 * per process and device (with their host ranges), in the order of their entries. */
struct kept {
	struct gpu_trace *t;
	size_t n;
	int later; /* a Kineto trace analysed beside the replay, once every file is read */
};

/* An export's processes into *keep (NULL: none kept) with their host side, or freed: one
 * whose host side cannot be read is analysed all the same, not kept (the replay says so). */
static void keep_nsys(const char *file, struct nsys_report *rep, struct kept *keep)
{
	if (keep && nsys_add_host(file, rep) == 0) {
		keep->t = rep->proc, keep->n = rep->n;
		rep->proc = NULL, rep->n = 0;
	}
	nsys_report_free(rep);
}

/* One input file: a Kineto trace (one rank) or an Nsight Systems export (one entry per
 * process and device), kept in *keep for the replay when keep is not NULL. */
static int analyse_file(const char *file, const struct rules *r, const struct rules *phases,
			int top, int threads, json_t *ranks, json_t *nvtx, struct kept *keep)
{
	if (nsys_is_sqlite(file)) {
		struct nsys_report rep;
		int rc = nsys_load(file, 10, &rep);
		if (rc < 0)
			return rc;
		if (rep.n == 0 && json_array_size(rep.nvtx_top) == 0) {
			nsys_report_free(&rep);
			return err_set(
				ERR_IO,
				"%s: the export holds no kernel, memory copy, memset or NVTX range: nothing to analyse (capture with 'nsys profile -t cuda,nvtx' around GPU work)",
				file);
		}
		for (size_t i = 0; i < rep.n; i++)
			json_array_append_new(ranks, analyse_process(&rep.proc[i], r, top, file));
		json_object_set(nvtx, file, rep.nvtx_top);
		keep_nsys(file, &rep, keep);
		return 0;
	}
	struct gpu_trace t;
	double t0 = clock_mono_s();
	struct kineto_how how = { 1, threads, 0 };
	int rc = kineto_load_with(file, &how, &t);
	if (rc < 0)
		return rc;
	if (getenv("CAMPAIGN_ANALYZE_TIMES")) /* make bench: reading against analysis */
		fprintf(stderr, "campaign-analyze: %s: read %.3f s\n", file, clock_mono_s() - t0);
	if (keep) { /* analysed beside the replay */
		keep->t = xmalloc(sizeof *keep->t);
		*keep->t = t, keep->n = 1, keep->later = 1;
		return 0;
	}
	t0 = clock_mono_s();
	json_array_append_new(ranks, analyse_kineto(&t, r, phases, top, threads, file));
	if (getenv("CAMPAIGN_ANALYZE_TIMES"))
		fprintf(stderr, "campaign-analyze: %s: analysed %.3f s\n", file,
			clock_mono_s() - t0);
	gpu_trace_free(&t);
	return 0;
}

/* Each input file on whichever worker takes it; the results are put
 * together in the order the files were given. */
struct file_job {
	char **files;
	const struct rules *r, *phases;
	int top;
	int threads; /* for reading one file: the pool's threads a file has to itself */
	json_t **ranks, **nvtx;
	struct kept *traces; /* each file's, for the replay; NULL: none kept */
	int *rc;
	char (*err)[512];
};

static void file_job_one(void *ctx, size_t i)
{
	struct file_job *j = ctx;
	j->ranks[i] = json_array();
	j->nvtx[i] = json_object();
	j->rc[i] = analyse_file(j->files[i], j->r, j->phases, j->top, j->threads, j->ranks[i],
				 j->nvtx[i], j->traces ? &j->traces[i] : NULL);
	if (j->rc[i] < 0)
		snprintf(j->err[i], sizeof j->err[i], "%s", err_last());
}

/* The files' traces are kept for the replay up to this many bytes of files together: the
 * replay needs every rank's at once, where the analysis alone holds only the files it reads. */
#define REPLAY_KEEP_BYTES (1024.0 * 1024 * 1024)

/* The replay of the files' traces together (t NULL: not kept; n of them, where the files
 * have `entries` entries: one per entry, or none is replayed) into *res. */
static void replay_run(struct gpu_trace *t, size_t n, size_t entries, const struct rules *phases,
		       struct replay_result *res)
{
	memset(res, 0, sizeof *res);
	if (!t) {
		res->why_kind = REPLAY_NOT_BUILT;
		snprintf(
			res->why, sizeof res->why,
			"the files are over %.0f GiB together: not replayed here; a run's aggregation replays each scenario",
			REPLAY_KEEP_BYTES / (1024.0 * 1024 * 1024));
	} else if (n != entries || !n) {
		res->why_kind = REPLAY_NOT_BUILT;
		snprintf(
			res->why, sizeof res->why, "%s",
			n ? "an Nsight Systems export's NVTX ranges or runtime calls could not be read again"
			  : "no trace with GPU work or host ranges to replay");
	} else {
		double t0 = clock_mono_s();
		if (replay_scenario_traces(t, n, phases, res) < 0)
			res->why_kind = REPLAY_FAILED,
			snprintf(res->why, sizeof res->why, "%s", err_last());
		if (getenv("CAMPAIGN_ANALYZE_TIMES")) /* make bench: the simulator's cost */
			fprintf(stderr, "campaign-analyze: replay of %zu files: %.3f s\n", n,
				clock_mono_s() - t0);
	}
}

/* The replay (res, freed) into doc and each of ranks' objects: the replayed median step
 * against the measured. */
static void replay_json(struct replay_result *res, json_t *doc, json_t *ranks)
{
	char *why = data_text_replay_why(res);
	/* summary.json's replay object, by its writer (no change is predicted here) */
	json_object_set_new(doc, "replay",
			    res->built ? summary_replay_json(res, 0, 0) : json_null());
	json_object_set_new(doc, "replay_why", res->built ? json_null() : json_string(why));
	for (size_t i = 0; i < res->nranks && res->built && i < json_array_size(ranks); i++)
		json_object_set_new(json_array_get(ranks, i), "replay",
				    summary_replay_rank_json(&res->ranks[i]));
	free(why);
	replay_result_free(res);
}

/* The files' sizes together (those it cannot stat count nothing: their reading says why). */
static double files_bytes(char **files, size_t n)
{
	double sum = 0;
	struct stat st;
	for (size_t i = 0; i < n; i++)
		if (stat(files[i], &st) == 0)
			sum += (double)st.st_size;
	return sum;
}

/* The files' kept traces (k, n files; NULL: none) moved into one array, in order: *nt of
 * them; at[i] where file i's first is (n of them, when k). k's traces freed, not k. */
static struct gpu_trace *kept_flat(struct kept *k, size_t n, size_t *nt, size_t *at)
{
	*nt = 0;
	if (!k)
		return NULL;
	for (size_t i = 0; i < n; i++)
		*nt += k[i].n;
	struct gpu_trace *t = xcalloc(*nt + 1, sizeof *t);
	for (size_t i = 0, a = 0; i < n; i++) {
		at[i] = a;
		for (size_t r = 0; r < k[i].n; r++)
			t[a++] = k[i].t[r];
		free(k[i].t);
		k[i].t = NULL;
	}
	return t;
}

/* The files' kept traces (k, n files; NULL: none) freed, not k. */
static void kept_free(struct kept *k, size_t n)
{
	for (size_t i = 0; k && i < n; i++) {
		for (size_t r = 0; r < k[i].n; r++)
			gpu_trace_free(&k[i].t[r]);
		free(k[i].t);
	}
}

/* Once every file is read: each Kineto trace kept for the replay analysed, beside the replay
 * of them all (which reads what the analysis does not write: never the kernels' categories). */
struct beside {
	struct file_job *j;
	size_t *later, nlater;         /* the files analysed here */
	struct gpu_trace *t;           /* every file's kept traces, in order (NULL: none) */
	size_t nt, entries, *at;       /* how many, the files' entries, where each file's begin */
	struct replay_result res;
};

static void beside_one(void *ctx, size_t i)
{
	struct beside *b = ctx;
	struct file_job *j = b->j;
	if (i == 0) { /* the longest task first */
		replay_run(b->t, b->nt, b->entries, j->phases, &b->res);
		return;
	}
	size_t f = b->later[i - 1];
	double t0 = clock_mono_s();
	json_array_append_new(j->ranks[f], analyse_kineto(&b->t[b->at[f]], j->r, j->phases, j->top,
							  j->threads, j->files[f]));
	if (getenv("CAMPAIGN_ANALYZE_TIMES")) /* make bench: reading against analysis */
		fprintf(stderr, "campaign-analyze: %s: analysed %.3f s\n", j->files[f],
			clock_mono_s() - t0);
}

/* The analyses that wait for every file, and the replay, on the pool (jobs threads); the
 * replay's result into b->res. */
static void analyse_beside(struct file_job *j, size_t n, int jobs, struct beside *b)
{
	b->j = j;
	b->later = xcalloc(n + 1, sizeof *b->later);
	b->at = xcalloc(n + 1, sizeof *b->at);
	for (size_t i = 0; j->traces && i < n; i++)
		if (j->traces[i].later)
			b->later[b->nlater++] = i;
	for (size_t i = 0; i < n; i++)
		b->entries += j->traces && j->traces[i].later ? 1 : json_array_size(j->ranks[i]);
	b->t = kept_flat(j->traces, n, &b->nt, b->at);
	pool_run(b->nlater + 1, jobs, beside_one, b);
	free(b->later);
	free(b->at);
}

static int analyse_files(char **files, size_t n, const struct rules *r, const struct rules *phases,
			 int top, int jobs, json_t *ranks, json_t *nvtx, json_t *doc)
{
	int threads = (jobs > 0 ? jobs : pool_cpus()) / (int)(n ? n : 1);
	struct file_job j = { files,
			      r,
			      phases,
			      top,
			      threads < 1 ? 1 : threads > 16 ? 16 : threads,
			      xcalloc(n, sizeof *j.ranks),
			      xcalloc(n, sizeof *j.nvtx),
			      files_bytes(files, n) <= REPLAY_KEEP_BYTES
				      ? xcalloc(n + 1, sizeof *j.traces)
				      : NULL,
			      xcalloc(n, sizeof *j.rc),
			      xcalloc(n, sizeof *j.err) };
	pool_run(n, jobs, file_job_one, &j);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (j.rc[i] < 0) /* the first file that failed, as one thread would say */
			rc = err_set(j.rc[i], "%s", j.err[i]);
	struct beside b = { 0 };
	if (rc == 0)
		analyse_beside(&j, n, jobs, &b);
	else
		kept_free(j.traces, n);
	for (size_t i = 0; i < n; i++) {
		json_array_extend(ranks, j.ranks[i]);
		json_object_update(nvtx, j.nvtx[i]);
		json_decref(j.ranks[i]);
		json_decref(j.nvtx[i]);
	}
	if (rc == 0)
		replay_json(&b.res, doc, ranks);
	for (size_t i = 0; i < b.nt; i++)
		gpu_trace_free(&b.t[i]);
	free(b.t);
	free(j.traces);
	free(j.ranks);
	free(j.nvtx);
	free(j.rc);
	free(j.err);
	return rc;
}

int analyze_traces_run(char **files, size_t n, int as_json, const char *rules_path, int top,
		       int jobs)
{
	struct rules r, phases;
	char *path = rules_path ? xstrdup(rules_path) : rules_default_path(),
	     *ppath = rules_phase_path();
	int rc = rules_load(path, &r);
	free(path);
	if (rc == 0 && (rc = rules_load(ppath, &phases)) < 0)
		rules_free(&r);
	free(ppath);
	if (rc < 0)
		return rc;
	json_t *ranks = json_array(), *nvtx = json_object(), *rep = json_object();
	rc = analyse_files(files, n, &r, &phases, top, jobs, ranks, nvtx, rep);
	size_t i;
	json_t *o;
	if (rc == 0 && !as_json) {
		json_array_foreach(ranks, i, o)
			analyze_traces_print_rank(o, top);
		analyze_traces_print_replay(rep);
	}
	if (rc == 0 && as_json) {
		json_t *doc = json_pack("{s:O}", "ranks", ranks);
		json_object_update(doc, rep);
		if (json_object_size(nvtx))
			json_object_set(doc, "nvtx_top", nvtx);
		char *s = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
		printf("%s\n", s);
		free(s);
		json_decref(doc);
	}
	json_decref(ranks);
	json_decref(nvtx);
	json_decref(rep);
	rules_free(&r);
	rules_free(&phases);
	return rc;
}
