/* campaign-analyze: the analyzers on their own.
 *   campaign-analyze RUN_DIR                      (re)writes a campaign run's analysis from
 *                                                 its analysis_input.json
 *   campaign-analyze [--json] [--rules F] [--top N] TRACE...   PyTorch-profiler (Kineto) traces,
 *                                                 one per rank: HTA's breakdown per rank
 *   campaign-analyze [--json] DUMP|DUMP_DIR...    NCCL Inspector dumps: the collectives
 * SPDX-License-Identifier: MIT */
#include "util/clock.h"
#include "util/err.h"
#include "util/run_layout.h"
#include "util/fsio.h"
#include "util/strbuf.h"
#include "analyzers/analysis.h"
#include "analyzers/gpu_breakdown.h"
#include "analyzers/inspector.h"
#include "analyzers/run_input.h"
#include "analyzers/write/data_text.h"
#include "analyzers/write/report.h"
#include "analyzers/write/summary_objects.h"
#include "util/words.h"
#include "analyzers/read/kineto.h"
#include "analyzers/read/nccl_inspector.h"
#include "analyzers/read/nsys.h"
#include "analyzers/phases.h"
#include "analyzers/pool.h"
#include "analyzers/read/rules.h"
#include "analyzers/replay_scenario.h"
#include "analyzers/stats.h"
#include "analyzers/torchtrace.h"

#include <getopt.h>
#include <sys/stat.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
	"usage: campaign-analyze [-j N] RUN_DIR\n"
	"       campaign-analyze [--json] [--rules FILE] [--top N] [-j N] TRACE.json|PROFILE.sqlite...\n"
	"       campaign-analyze [--json] INSPECTOR_DUMP|INSPECTOR_DIR...\n\n"
	"With a campaign run directory, (re)writes its BOTTLENECK_ANALYSIS.md and summary.json from\n"
	"its analysis_input.json (what its last aggregation analysed; the store is not read).\n"
	"With PyTorch-profiler (Kineto) traces, one per rank, or Nsight Systems SQLite exports (one\n"
	"entry per process and GPU), prints each rank's GPU time breakdown\n"
	"(Holistic Trace Analysis's definitions: idle, compute, non-compute, comm/compute overlap)\n"
	"and its top kernels per category, and from the host ranges of a trace its steps\n"
	"(ProfilerStep#N), where their time goes (phases by PCRE2 rules, default\n"
	"analyzers/phase_rules.txt) and the operators with the most self time; then the traces'\n"
	"execution graph (kernels on their streams after their launches) replayed, its median step\n"
	"against the measured one. --json prints one JSON document. Kernel categories come from\n"
	"PCRE2 rules (default analyzers/kernel_rules.txt).\n"
	"-j N: files analysed on N threads (default 0: every CPU this process may use); the output\n"
	"is the same whatever N is.\n"
	"With NCCL Inspector dumps (the plugin's <host>-pid<pid>.log files, or folders of them),\n"
	"prints the collectives matched across ranks by communicator and coll_sn (latency, wait,\n"
	"algbw, busbw), the ranks the others wait for, and what was skipped.\n\n"
	"exit status: 0 ok, 2 usage or bad rules, 3 no such file, 4 unreadable input\n";

/* A folder campaign made a run in (its store, or the input of its analysis). */
static int is_run_dir(const char *dir)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" RUN_STATE_DB, dir);
	int yes = fsio_exists(p.buf);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/" RUN_ANALYSIS_INPUT, dir);
	yes = yes || fsio_exists(p.buf);
	strbuf_free(&p);
	return yes;
}

/* A campaign run directory: its analysis written again from
 * analysis_input.json (what its last aggregation analysed: the jobs' states
 * then, the campaign's settings), under the aggregation's lock. Neither the
 * store nor the scheduler is asked: `campaign aggregate --force` does that. */
static int run_mode(const char *dir, int jobs)
{
	int lock = fsio_lock(dir, RUN_ANALYSIS_LOCK, 0);
	if (lock < 0)
		return lock;
	struct ana_run in;
	int rc = run_input_read(dir, &in);
	in.jobs = jobs;
	if (rc == 0)
		rc = ana_run_analyse_write(&in, NULL);
	if (rc == 0)
		printf("%s/" RUN_REPORT "\n%s/" RUN_SUMMARY "\n", dir, dir);
	ana_run_free(&in);
	close(lock);
	return rc;
}

/* A name from a trace, fit for a terminal: control characters (escape
 * sequences a hostile trace could hold) become '?', at most n-1 bytes,
 * never cutting a UTF-8 sequence. */
static void printable(const char *in, char *out, size_t n)
{
	size_t k = 0;
	for (; in && *in && k + 1 < n; in++) {
		unsigned char c = (unsigned char)*in;
		/* a lead byte needs room for its sequence */
		if ((c & 0xc0) == 0x80 || c < 0x80 || k + 4 < n)
			out[k++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
		else
			break;
	}
	while (k > 0 && ((unsigned char)out[k - 1] & 0xc0) == 0xc0) /* a lead byte left alone */
		k--;
	out[k] = '\0';
}

static void print_steps(json_t *st)
{
	json_int_t n = json_integer_value(json_object_get(st, "count"));
	if (!st)
		return;
	if (n == 0) {
		printf("  no ProfilerStep#N ranges: no steps (call prof.step() once per training step)\n");
		return;
	}
	json_t *p = json_object_get(st, "phases_pct");
	printf("  %lld step%s, median %.3f ms: data loading %.1f %%, forward %.1f %%, backward %.1f %%, optimizer %.1f %%, communication %.1f %% exposed (%.1f %% in all), I/O %.1f %%, other %.1f %%\n",
	       (long long) n, n == 1 ? "" : "s",
	       json_number_value(json_object_get(st, "median_ms")),
	       json_number_value(json_object_get(p, "data_loading")),
	       json_number_value(json_object_get(p, "forward")),
	       json_number_value(json_object_get(p, "backward")),
	       json_number_value(json_object_get(p, "optimizer")),
	       json_number_value(json_object_get(p, "communication")),
	       json_number_value(json_object_get(st, "communication_total_pct")),
	       json_number_value(json_object_get(p, "io")),
	       json_number_value(json_object_get(p, "other")));
	size_t i;
	json_t *o;
	json_array_foreach(json_object_get(st, "top_operators"), i, o) {
		char name[72];
		printable(json_string_value(json_object_get(o, "name")), name, sizeof name);
		printf("  %-13s %8.3f ms %6lld x  %s\n", i ? "" : "CPU self time",
		       json_number_value(json_object_get(o, "self_ms")),
		       (long long) json_integer_value(json_object_get(o, "count")), name);
	}
}

/* A rank's GPU time breakdown (HTA's definitions) and its idle time, in words. */
static void print_breakdown(json_t *rank)
{
	json_t *ov = json_object_get(rank, "comm_comp_overlap_pct");
	char overlap[64];
	if (json_is_number(ov))
		snprintf(overlap, sizeof overlap, "%.2f %% of communication time",
			 json_number_value(ov));
	else
		snprintf(overlap, sizeof overlap, "n/a (no communication)");
	printf("  kernel time %.0f us: idle %.2f %%, compute %.2f %%, non-compute %.2f %%; comm/compute overlap %s\n",
	       json_number_value(json_object_get(rank, "kernel_time_us")),
	       json_number_value(json_object_get(rank, "idle_pct")),
	       json_number_value(json_object_get(rank, "compute_pct")),
	       json_number_value(json_object_get(rank, "non_compute_pct")), overlap);
	printf("  idle: host wait %.1f %%, kernel wait %.1f %%, other %.1f %%\n",
	       json_number_value(json_object_get(rank, "idle_host_wait_pct")),
	       json_number_value(json_object_get(rank, "idle_kernel_wait_pct")),
	       json_number_value(json_object_get(rank, "idle_other_pct")));
}

/* A rank's busy time by kernel type, its launches and top kernels, what was skipped. */
static void print_kernels(json_t *rank)
{
	const char *kname;
	json_t *kv;
	int first = 1;
	json_object_foreach(json_object_get(rank, "kernel_types"), kname, kv) {
		printf("%s%s %.1f %%", first ? "  busy time: " : ", ", kname,
		       json_number_value(json_object_get(kv, "pct")));
		first = 0;
	}
	if (!first)
		printf("\n");
	json_t *l = json_object_get(rank, "launch");
	if (json_integer_value(json_object_get(l, "n")) > 0)
		printf("  launches: %lld, runtime call %.1f us, launch delay mean %.1f us, median %.1f us, %lld over 100 us\n",
		       (long long) json_integer_value(json_object_get(l, "n")),
		       json_number_value(json_object_get(l, "cpu_duration_mean_us")),
		       json_number_value(json_object_get(l, "launch_delay_mean_us")),
		       json_number_value(json_object_get(l, "launch_delay_p50_us")),
		       (long long) json_integer_value(
			       json_object_get(l, "launch_delay_outliers_gt100us")));
	size_t i;
	json_t *k;
	json_array_foreach(json_object_get(rank, "top_kernels"), i, k) {
		char name[72];
		printable(json_string_value(json_object_get(k, "name")), name, sizeof name);
		printf("  %-13s %8.0f us %6lld x  %s\n",
		       json_string_value(json_object_get(k, "category")),
		       json_number_value(json_object_get(k, "total_us")),
		       (long long) json_integer_value(json_object_get(k, "count")), name);
	}
	long long bad = json_integer_value(json_object_get(rank, "malformed_events"));
	if (bad)
		printf("  skipped %lld malformed event%s (non-finite or negative time)\n", bad,
		       bad == 1 ? "" : "s");
}

/* One rank's line and its breakdown, in text. */
static void print_text(json_t *rank)
{
	json_t *r = json_object_get(rank, "rank");
	const char *proc = json_string_value(json_object_get(rank, "process"));
	char who[96];
	if (json_is_integer(r))
		snprintf(who, sizeof who, "%s%srank %lld", proc ? proc : "", proc ? ", " : "",
			 (long long) json_integer_value(r));
	else
		snprintf(who, sizeof who, "rank ?");
	long long events = json_integer_value(json_object_get(rank, "gpu_events"));
	printf("%s (%s): %lld GPU event%s\n", json_string_value(json_object_get(rank, "file")), who,
	       events, events == 1 ? "" : "s");
	print_steps(json_object_get(rank, "steps"));
	if (json_object_get(rank, "note")) {
		printf("  %s\n", json_string_value(json_object_get(rank, "note")));
		return;
	}
	print_breakdown(rank);
	print_kernels(rank);
}

/* The replay's line: the replayed median step against the measured, or why there is none. */
static void print_replay(json_t *rep)
{
	json_t *r = json_object_get(rep, "replay");
	if (json_is_object(r))
		printf("replay (the execution graph of every file, unchanged): median step %.3f ms, measured %.3f ms (%+.1f %%) over %lld steps\n",
		       json_real_value(json_object_get(r, "step_ms")),
		       json_real_value(json_object_get(r, "measured_ms")),
		       json_real_value(json_object_get(r, "error_pct")),
		       (long long) json_integer_value(json_object_get(r, "steps")));
	else
		printf("replay: none: %s\n", json_string_value(json_object_get(rep, "replay_why")));
}

/* The trace's steps: how many, the median, where their time goes, the top operators. */
static json_t *steps_json(const struct gpu_trace *t, const struct rules *phases, int top)
{
	struct rank_metrics m = { 0 };
	struct op_table ops = { 0 };
	trace_reduce_rank(t, phases, 0, &m, &ops);
	op_table_sort(&ops);
	json_t *o = json_pack("{s:I}", "count", (json_int_t)m.n);
	if (m.n) {
		double *ms = xcalloc(m.n, sizeof *ms), sum[PH_N] = { 0 }, total = 0, comm = 0;
		for (size_t i = 0; i < m.n; i++) {
			const struct step_rec *s = &m.steps[i];
			ms[i] = s->step_ms;
			double v[PH_N] = { s->forward_ms,
					   s->backward_ms,
					   s->optimizer_ms,
					   s->data_ms,
					   s->comm_exposed_ms,
					   s->io_ms,
					   s->ops_ms,
					   0 };
			for (int k = 0; k < PH_N - 1; k++)
				sum[k] += v[k];
			total += s->step_ms;
			comm += s->comm_ms;
		}
		json_object_set_new(o, "median_ms", json_real(stats_percentile(ms, m.n, 50)));
		json_t *pct = json_object();
		double known = 0;
		for (int k = 0; k < PH_N - 1; k++) {
			json_object_set_new(pct, phase_name(k),
					    json_real(total > 0 ? 100 * sum[k] / total : 0));
			known += sum[k];
		}
		json_object_set_new(pct, "other",
				    json_real(total > 0 ? 100 * (total - known) / total : 0));
		json_object_set_new(o, "phases_pct", pct);
		json_object_set_new(o, "communication_total_pct",
				    json_real(total > 0 ? 100 * comm / total : 0));
		json_object_set_new(o, "flops_per_step", json_real(m.flops_per_step));
		json_t *a = json_array();
		for (size_t i = 0; i < ops.n && (int)i < top; i++)
			json_array_append_new(a,
					      json_pack("{s:s, s:f, s:I}", "name", ops.v[i].name,
							"self_ms", ops.v[i].self_ms, "count",
							(json_int_t) ops.v[i].count));
		json_object_set_new(o, "top_operators", a);
		free(ms);
	}
	op_table_free(&ops);
	rank_metrics_free(&m);
	return o;
}

static json_t *analyse_one(struct gpu_trace *t, const struct rules *r, int top, const char *file)
{
	struct gpu_breakdown_rank h;
	gpu_breakdown_analyse(t, r, top, &h);
	json_t *o = gpu_breakdown_json(&h, file);
	gpu_breakdown_rank_free(&h);
	if (t->label[0])
		json_object_set_new(o, "process", json_string(t->label));
	json_object_set_new(o, "malformed_events", json_integer(t->malformed));
	return o;
}

struct file_parts {
	struct gpu_trace *t;
	const struct rules *r, *phases;
	int top;
	const char *file;
	json_t *gpu, *steps;
};

static void file_part(void *ctx, size_t i)
{
	struct file_parts *p = ctx;
	if (i == 0)
		p->gpu = analyse_one(p->t, p->r, p->top, p->file);
	else
		p->steps = steps_json(p->t, p->phases, p->top);
}

/* A file's traces kept for the replay: a Kineto trace's one, an Nsight Systems export's one
 * per process and device (with their host ranges), in the order of their entries. */
struct kept {
	struct gpu_trace *t;
	size_t n;
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
			json_array_append_new(ranks, analyse_one(&rep.proc[i], r, top, file));
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
	double t1 = clock_mono_s();
	/* the GPU view and the steps side by side when the file has two threads:
	 * HTA writes only the GPU events' categories, the steps read only host ranges */
	struct file_parts parts = { &t, r, phases, top, file, NULL, NULL };
	pool_run(2, threads > 1 ? 2 : 1, file_part, &parts);
	json_t *o = parts.gpu;
	json_object_set_new(o, "steps", parts.steps);
	if (getenv("CAMPAIGN_ANALYZE_TIMES")) /* make bench: reading against analysis */
		fprintf(stderr, "campaign-analyze: %s: read %.3f s, analysed %.3f s\n", file,
			t1 - t0, clock_mono_s() - t1);
	json_object_set_new(o, "format", json_string(t.legacy ? "legacy" : "kineto"));
	json_array_append_new(ranks, o);
	if (keep) {
		keep->t = xmalloc(sizeof *keep->t);
		*keep->t = t, keep->n = 1;
	} else {
		gpu_trace_free(&t);
	}
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

/* The replay of the files' traces together (t NULL: not kept; n of them, one per entry of
 * ranks), into doc and each of ranks' objects: the replayed median step against the
 * measured. */
static void replay_json(struct gpu_trace *t, size_t n, const struct rules *phases, json_t *doc,
			json_t *ranks)
{
	struct replay_result res = { 0 };
	if (!t) {
		res.why_kind = REPLAY_NOT_BUILT;
		snprintf(
			res.why, sizeof res.why,
			"the files are over %.0f GiB together: not replayed here; a run's aggregation replays each scenario",
			REPLAY_KEEP_BYTES / (1024.0 * 1024 * 1024));
	} else if (n != json_array_size(ranks) || !n) {
		res.why_kind = REPLAY_NOT_BUILT;
		snprintf(
			res.why, sizeof res.why, "%s",
			n ? "an Nsight Systems export's NVTX ranges or runtime calls could not be read again"
			  : "no trace with GPU work or host ranges to replay");
	} else {
		double t0 = clock_mono_s();
		if (replay_scenario_traces(t, n, phases, &res) < 0)
			res.why_kind = REPLAY_FAILED,
			snprintf(res.why, sizeof res.why, "%s", err_last());
		if (getenv("CAMPAIGN_ANALYZE_TIMES")) /* make bench: the simulator's cost */
			fprintf(stderr, "campaign-analyze: replay of %zu files: %.3f s\n", n,
				clock_mono_s() - t0);
	}
	char *why = data_text_replay_why(&res);
	/* summary.json's replay object, by its writer (no change is predicted here) */
	json_object_set_new(doc, "replay",
			    res.built ? summary_replay_json(&res, 0, 0) : json_null());
	json_object_set_new(doc, "replay_why", res.built ? json_null() : json_string(why));
	for (size_t i = 0; i < res.nranks && res.built && i < json_array_size(ranks); i++)
		json_object_set_new(json_array_get(ranks, i), "replay",
				    summary_replay_rank_json(&res.ranks[i]));
	free(why);
	replay_result_free(&res);
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
 * them; k freed. */
static struct gpu_trace *kept_flat(struct kept *k, size_t n, size_t *nt)
{
	*nt = 0;
	if (!k)
		return NULL;
	for (size_t i = 0; i < n; i++)
		*nt += k[i].n;
	struct gpu_trace *t = xcalloc(*nt + 1, sizeof *t);
	for (size_t i = 0, at = 0; i < n; i++) {
		for (size_t r = 0; r < k[i].n; r++)
			t[at++] = k[i].t[r];
		free(k[i].t);
	}
	free(k);
	return t;
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
	for (size_t i = 0; i < n; i++) {
		if (rc == 0 && j.rc[i] < 0)
			/* the first file that failed, as one thread would say */
			rc = err_set(j.rc[i], "%s", j.err[i]);
		json_array_extend(ranks, j.ranks[i]);
		json_object_update(nvtx, j.nvtx[i]);
		json_decref(j.ranks[i]);
		json_decref(j.nvtx[i]);
	}
	size_t nt = 0;
	struct gpu_trace *t = kept_flat(j.traces, n, &nt);
	if (rc == 0)
		replay_json(t, nt, phases, doc, ranks);
	for (size_t i = 0; i < nt; i++)
		gpu_trace_free(&t[i]);
	free(t);
	free(j.ranks);
	free(j.nvtx);
	free(j.rc);
	free(j.err);
	return rc;
}

static int trace_mode(int argc, char **argv, int first, int as_json, const char *rules_path,
		      int top, int jobs)
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
	rc = analyse_files(argv + first, (size_t) (argc - first), &r, &phases, top, jobs, ranks,
			   nvtx, rep);
	size_t i;
	json_t *o;
	if (rc == 0 && !as_json) {
		json_array_foreach(ranks, i, o)
			print_text(o);
		print_replay(rep);
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

/* ---- NCCL Inspector dumps ---- */

/* The dump files of paths: each a file, or a folder's files. */
static void dump_files(char **paths, size_t n, struct argv *files)
{
	memset(files, 0, sizeof *files);
	for (size_t i = 0; i < n; i++) {
		struct argv in;
		if (fsio_is_dir(paths[i]) && insp_list_dir(paths[i], &in) == 0) {
			for (size_t k = 0; k < in.n; k++)
				argv_push(files, in.v[k]);
			argv_free(&in);
		} else {
			argv_push(files, paths[i]);
		}
	}
}

/* What was read and skipped, and the records whose bandwidths their size and time do not give. */
static void print_dump_counts(const struct insp_summary *s)
{
	const struct insp_stats *st = &s->st;
	printf("NCCL Inspector: %zu records from %zu file%s (%zu process%s, %zu communicator%s): %zu instances recorded by every rank, %zu by only some (left out); skipped %zu malformed object%s, %zu duplicate%s, %zu unreadable file%s; %zu verbose records\n",
	       st->objects, st->files, st->files == 1 ? "" : "s", s->procs,
	       s->procs == 1 ? "" : "es", s->comms, s->comms == 1 ? "" : "s", st->instances,
	       st->partial, st->malformed, st->malformed == 1 ? "" : "s", st->duplicates,
	       st->duplicates == 1 ? "" : "s", st->unreadable, st->unreadable == 1 ? "" : "s",
	       st->verbose);
	printf("bandwidths: %zu of %zu records differ from their size and time\n", s->mismatches,
	       s->checked);
	for (size_t i = 0; i < s->mismatches && i < INSP_SHOWN; i++)
		printf("  %s coll_sn %llu rank %d: algbw %.6f (recomputed %.6f), busbw %.6f (recomputed %.6f) GB/s\n",
		       coll_op_name(s->shown[i].op), s->shown[i].sn, s->shown[i].rank,
		       s->shown[i].file_algbw, s->shown[i].algbw, s->shown[i].file_busbw,
		       s->shown[i].busbw);
}

static void print_dump_rows(const struct collective *c, size_t n)
{
	printf("%-15s %-17s %9s %19s %19s %10s %10s %10s\n", "collective", "size", "instances",
	       "latency ms med/p95", "wait ms med/p95", "algbw GB/s", "busbw GB/s", "time ms");
	for (size_t i = 0; i < n; i++) {
		char label[48];
		coll_size_label(c[i].size_class, label, sizeof label);
		printf("%-15s %-17s %9zu %9.3f/%9.3f %9.3f/%9.3f %10.3f %10.3f %10.3f\n",
		       coll_op_name(c[i].op), label, c[i].instances, c[i].latency_med,
		       c[i].latency_p95, c[i].wait_med, c[i].wait_p95, c[i].algbw_gbps,
		       c[i].busbw_gbps, c[i].ms_per_step);
	}
}

static void print_dump_stragglers(const struct insp_summary *s, const struct straggler *g,
				  size_t n)
{
	for (size_t k = 0; k < n; k++)
		printf("straggler: rank %d%s%s: arrived last at %.0f %% of the %zu instances of the communicators that span every process (by chance alone: p = %.1e); the others wait for it %.1f %% of their time in them\n",
		       g[k].rank, g[k].node[0] ? " on " : "", g[k].node, g[k].arrived_last_pct,
		       s->judged, g[k].chance_p, g[k].impact_pct);
	if (!n && s->judged)
		printf("no straggler at the %zu instances of the communicators that span every process\n",
		       s->judged);
}

/* NCCL Inspector dumps: the collectives matched across ranks, the ranks the others wait
 * for (their waiting as a share of the ranks' time in those collectives), what was skipped. */
static int inspector_mode(char **paths, size_t n, int as_json)
{
	struct argv files;
	struct insp_data d;
	dump_files(paths, n, &files);
	int rc = inspector_load(files.v, files.n, NULL, &d);
	argv_free(&files);
	if (rc < 0)
		return rc;
	struct collective *c;
	struct straggler g[STRAGGLER_MAX];
	size_t nc, ng;
	char slow[128];
	inspector_stragglers(&d, 1, inspector_judged_ms(&d), g, &ng, slow, sizeof slow);
	inspector_rows(&d, 1, &c, &nc); /* one "step": every instance */
	struct insp_summary s;
	inspector_done(&d, &s);
	if (as_json) {
		/* summary.json's objects, by its writers: every instance is one "step" */
		json_t *doc = json_pack("{s:o, s:o, s:o}", "nccl_inspector",
					summary_inspector_json(&s), "collectives",
					summary_collectives_json(c, nc), "stragglers",
					summary_stragglers_json(g, ng));
		char *t =
			json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12));
		printf("%s\n", t);
		free(t);
		json_decref(doc);
	} else {
		print_dump_counts(&s);
		print_dump_rows(c, nc);
		print_dump_stragglers(&s, g, ng);
	}
	collectives_free(c, nc);
	inspector_summary_free(&s);
	return 0;
}

/* A folder holding an NCCL Inspector dump. */
static int dump_dir(const char *dir)
{
	struct argv files;
	int any = 0;
	if (insp_list_dir(dir, &files) == 0)
		for (size_t i = 0; i < files.n && !any; i++)
			any = insp_is_dump(files.v[i]);
	argv_free(&files);
	return any;
}

/* 1 when the operands are NCCL Inspector dumps or folders (*rc < 0 when some are and
 * others are not), 0 when none is. */
static int inspector_operands(int argc, char **argv, int first, int *rc)
{
	int dumps = 0;
	const char *dump = NULL, *other = NULL;
	*rc = 0;
	for (int i = first; i < argc; i++)
		if (fsio_is_dir(argv[i]) ? dump_dir(argv[i]) : insp_is_dump(argv[i]))
			dumps++, dump = argv[i];
		else
			other = argv[i];
	if (dumps && other)
		*rc = err_set(
			ERR_USAGE,
			"%s is an NCCL Inspector dump (or a folder of them) and %s is not: give traces or dumps, not both",
			dump, other);
	return dumps > 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = { { "json", 0, 0, 'J' }, { "rules", 1, 0, 'r' },
						  { "top", 1, 0, 't' },  { "jobs", 1, 0, 'j' },
						  { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
	int as_json = 0, top = 5, c, jobs = 0;
	const char *rules = NULL;
	char *end;
	while ((c = getopt_long(argc, argv, "hj:", longopts, NULL)) != -1) {
		switch (c) {
		case 'J': as_json = 1; break;
		case 'j':
			jobs = (int)strtol(optarg, &end, 10);
			if (*end || jobs < 0 || jobs > 4096) {
				fprintf(stderr,
					"campaign-analyze: -j wants a number of threads (0: every CPU), not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'r': rules = optarg; break;
		case 't': top = atoi(optarg); break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (optind >= argc || top < 1 || top > 1000) {
		fputs(usage, stderr);
		return 2;
	}
	int run = argc - optind == 1 && is_run_dir(argv[optind]);
	int rc, dumps = !run && inspector_operands(argc, argv, optind, &rc);
	if (run)
		rc = run_mode(argv[optind], jobs);
	else if (dumps && rc == 0)
		rc = inspector_mode(argv + optind, (size_t)(argc - optind), as_json);
	else if (!dumps)
		rc = trace_mode(argc, argv, optind, as_json, rules, top, jobs);
	if (rc < 0) {
		fprintf(stderr, "campaign-analyze: %s\n", err_last());
		return rc == ERR_NOTFOUND ? 3 : rc == ERR_USAGE ? 2 : 4;
	}
	return 0;
}
