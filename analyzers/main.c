/* campaign-analyze: the analyzers on their own.
 *   campaign-analyze RUN_DIR                      (re)writes a campaign run's analysis
 *   campaign-analyze [--json] [--rules F] [--top N] TRACE...   PyTorch-profiler (Kineto) traces,
 *                                                 one per rank: HTA's breakdown per rank */
#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"
#include "hta.h"
#include "kineto.h"
#include "nsys.h"
#include "rules.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: campaign-analyze RUN_DIR\n"
	"       campaign-analyze [--json] [--rules FILE] [--top N] TRACE.json|PROFILE.sqlite...\n\n"
	"With a campaign run directory, (re)writes its BOTTLENECK_ANALYSIS.md and summary.json.\n"
	"With PyTorch-profiler (Kineto) traces, one per rank, or Nsight Systems SQLite exports (one\n"
	"entry per process and GPU), prints each rank's GPU time breakdown\n"
	"(Holistic Trace Analysis's definitions: idle, compute, non-compute, comm/compute overlap)\n"
	"and its top kernels per category; --json prints one JSON document.\n"
	"Kernel categories come from PCRE2 rules (default analyzers/kernel_rules.txt).\n\n"
	"exit status: 0 ok, 2 usage or bad rules, 3 no such file, 4 unreadable input\n";

/* A run directory is the orchestrator's business: hand it to `campaign
 * aggregate --force` (installed beside this program, else on PATH) instead
 * of linking the orchestrator, its scheduler and git libraries in here. */
static int run_mode(const char *dir)
{
	char *bin = fsio_self_dir();
	struct strbuf exe = STRBUF_INIT;
	strbuf_addf(&exe, "%s/campaign", bin);
	free(bin);
	char *argv[] = { "campaign", "aggregate", "--force", "--results", ".", (char *)dir, NULL };
	fflush(stdout);
	execv(exe.buf, argv);
	execvp("campaign", argv);
	int rc = err_sys(ERR_NOTFOUND, "cannot run %s or `campaign` from PATH to analyse the run %s", exe.buf, dir);
	strbuf_free(&exe);
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
		if ((c & 0xc0) == 0x80 || c < 0x80 || k + 4 < n) /* a lead byte needs room for its sequence */
			out[k++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
		else
			break;
	}
	while (k > 0 && ((unsigned char)out[k - 1] & 0xc0) == 0xc0) /* a lead byte left alone */
		k--;
	out[k] = '\0';
}

static void print_text(json_t *rank)
{
	json_t *r = json_object_get(rank, "rank");
	const char *proc = json_string_value(json_object_get(rank, "process"));
	char who[96];
	if (json_is_integer(r))
		snprintf(who, sizeof who, "%s%srank %lld", proc ? proc : "", proc ? ", " : "", (long long)json_integer_value(r));
	else
		snprintf(who, sizeof who, "rank ?");
	printf("%s (%s): %lld GPU events\n", json_string_value(json_object_get(rank, "file")), who,
	       (long long)json_integer_value(json_object_get(rank, "gpu_events")));
	if (json_object_get(rank, "note")) {
		printf("  %s\n", json_string_value(json_object_get(rank, "note")));
		return;
	}
	json_t *ov = json_object_get(rank, "comm_comp_overlap_pct");
	char overlap[64];
	if (json_is_number(ov))
		snprintf(overlap, sizeof overlap, "%.2f %% of communication time", json_number_value(ov));
	else
		snprintf(overlap, sizeof overlap, "n/a (no communication)");
	printf("  kernel time %.0f us: idle %.2f %%, compute %.2f %%, non-compute %.2f %%; comm/compute overlap %s\n",
	       json_number_value(json_object_get(rank, "kernel_time_us")), json_number_value(json_object_get(rank, "idle_pct")),
	       json_number_value(json_object_get(rank, "compute_pct")), json_number_value(json_object_get(rank, "non_compute_pct")),
	       overlap);
	printf("  idle: host wait %.1f %%, kernel wait %.1f %%, other %.1f %%\n",
	       json_number_value(json_object_get(rank, "idle_host_wait_pct")),
	       json_number_value(json_object_get(rank, "idle_kernel_wait_pct")),
	       json_number_value(json_object_get(rank, "idle_other_pct")));
	const char *kname;
	json_t *kv;
	int first = 1;
	json_object_foreach(json_object_get(rank, "kernel_types"), kname, kv) {
		printf("%s%s %.1f %%", first ? "  busy time: " : ", ", kname, json_number_value(json_object_get(kv, "pct")));
		first = 0;
	}
	if (!first)
		printf("\n");
	json_t *l = json_object_get(rank, "launch");
	if (json_integer_value(json_object_get(l, "n")) > 0)
		printf("  launches: %lld, runtime call %.1f us, launch delay mean %.1f us, median %.1f us, %lld over 100 us\n",
		       (long long)json_integer_value(json_object_get(l, "n")),
		       json_number_value(json_object_get(l, "cpu_duration_mean_us")),
		       json_number_value(json_object_get(l, "launch_delay_mean_us")),
		       json_number_value(json_object_get(l, "launch_delay_p50_us")),
		       (long long)json_integer_value(json_object_get(l, "launch_delay_outliers_gt100us")));
	size_t i;
	json_t *k;
	json_array_foreach(json_object_get(rank, "top_kernels"), i, k) {
		char name[72];
		printable(json_string_value(json_object_get(k, "name")), name, sizeof name);
		printf("  %-13s %8.0f us %6lld x  %s\n", json_string_value(json_object_get(k, "category")),
		       json_number_value(json_object_get(k, "total_us")), (long long)json_integer_value(json_object_get(k, "count")),
		       name);
	}
	long long bad = json_integer_value(json_object_get(rank, "malformed_events"));
	if (bad)
		printf("  skipped %lld malformed event%s (non-finite or negative time)\n", bad, bad == 1 ? "" : "s");
}

static json_t *analyse_one(struct gpu_trace *t, const struct rules *r, int top, const char *file)
{
	struct hta_rank h;
	hta_analyse(t, r, top, &h);
	json_t *o = hta_json(&h, file);
	hta_rank_free(&h);
	if (t->label[0])
		json_object_set_new(o, "process", json_string(t->label));
	json_object_set_new(o, "malformed_events", json_integer(t->malformed));
	return o;
}

/* One input file: a Kineto trace (one rank) or an Nsight Systems export
 * (one entry per process and device). */
static int analyse_file(const char *file, const struct rules *r, int top, json_t *ranks, json_t *nvtx)
{
	if (nsys_is_sqlite(file)) {
		struct nsys_report rep;
		int rc = nsys_load(file, 10, &rep);
		if (rc < 0)
			return rc;
		for (size_t i = 0; i < rep.n; i++)
			json_array_append_new(ranks, analyse_one(&rep.proc[i], r, top, file));
		json_object_set(nvtx, file, rep.nvtx_top);
		nsys_report_free(&rep);
		return 0;
	}
	struct gpu_trace t;
	int rc = kineto_load(file, 0, &t);
	if (rc < 0)
		return rc;
	json_array_append_new(ranks, analyse_one(&t, r, top, file));
	gpu_trace_free(&t);
	return 0;
}

static int trace_mode(int argc, char **argv, int first, int as_json, const char *rules_path, int top)
{
	struct rules r;
	char *path = rules_path ? xstrdup(rules_path) : rules_default_path();
	int rc = rules_load(path, &r);
	free(path);
	if (rc < 0)
		return rc;
	json_t *ranks = json_array(), *nvtx = json_object();
	for (int i = first; i < argc && rc == 0; i++)
		rc = analyse_file(argv[i], &r, top, ranks, nvtx);
	size_t i;
	json_t *o;
	if (rc == 0 && !as_json)
		json_array_foreach(ranks, i, o)
			print_text(o);
	if (rc == 0 && as_json) {
		json_t *doc = json_pack("{s:O}", "ranks", ranks);
		if (json_object_size(nvtx))
			json_object_set(doc, "nvtx_top", nvtx);
		char *s = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
		printf("%s\n", s);
		free(s);
		json_decref(doc);
	}
	json_decref(ranks);
	json_decref(nvtx);
	rules_free(&r);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = { { "json", 0, 0, 'j' }, { "rules", 1, 0, 'r' }, { "top", 1, 0, 't' },
						  { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
	int as_json = 0, top = 5, c;
	const char *rules = NULL;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': as_json = 1; break;
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
	struct strbuf db = STRBUF_INIT;
	strbuf_addf(&db, "%s/state.db", argv[optind]);
	int run = argc - optind == 1 && fsio_exists(db.buf);
	strbuf_free(&db);
	int rc = run ? run_mode(argv[optind]) : trace_mode(argc, argv, optind, as_json, rules, top);
	if (rc < 0) {
		fprintf(stderr, "campaign-analyze: %s\n", err_last());
		return rc == ERR_NOTFOUND ? 3 : rc == ERR_USAGE ? 2 : 4;
	}
	return 0;
}
