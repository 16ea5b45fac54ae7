/* campaign-analyze: the analyzers on their own.
 *   campaign-analyze RUN_DIR                      (re)writes a campaign run's analysis
 *   campaign-analyze [--json] [--rules F] [--top N] TRACE...   PyTorch-profiler (Kineto) traces,
 *                                                 one per rank: HTA's breakdown per rank */
#include "../orchestrator/aggregate.h"
#include "../orchestrator/err.h"
#include "../orchestrator/fsio.h"
#include "../orchestrator/strbuf.h"
#include "hta.h"
#include "kineto.h"
#include "rules.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: campaign-analyze RUN_DIR\n"
	"       campaign-analyze [--json] [--rules FILE] [--top N] TRACE.json...\n\n"
	"With a campaign run directory, (re)writes its BOTTLENECK_ANALYSIS.md and summary.json.\n"
	"With PyTorch-profiler (Kineto) traces, one per rank, prints each rank's GPU time breakdown\n"
	"(Holistic Trace Analysis's definitions: idle, compute, non-compute, comm/compute overlap)\n"
	"and its top kernels per category; --json prints one JSON document.\n"
	"Kernel categories come from PCRE2 rules (default analyzers/kernel_rules.txt).\n\n"
	"exit status: 0 ok, 2 usage or bad rules, 3 no such file, 4 unreadable input\n";

static int run_mode(const char *dir)
{
	struct run *r;
	int rc = run_open(".", dir, &r);
	if (rc == 0) {
		rc = aggregate_run(r, 1);
		if (rc == 0)
			printf("%s/BOTTLENECK_ANALYSIS.md\n", r->dir);
		run_free(r);
	}
	return rc;
}

static void print_text(json_t *rank)
{
	json_t *r = json_object_get(rank, "rank");
	printf("%s (rank %s): %lld GPU events\n", json_string_value(json_object_get(rank, "file")),
	       json_is_integer(r) ? json_dumps(r, JSON_ENCODE_ANY) : "?",
	       (long long)json_integer_value(json_object_get(rank, "gpu_events")));
	if (json_object_get(rank, "note")) {
		printf("  %s\n", json_string_value(json_object_get(rank, "note")));
		return;
	}
	json_t *ov = json_object_get(rank, "comm_comp_overlap_pct");
	printf("  kernel time %.0f us: idle %.2f %%, compute %.2f %%, non-compute %.2f %%; comm/compute overlap %s\n",
	       json_number_value(json_object_get(rank, "kernel_time_us")), json_number_value(json_object_get(rank, "idle_pct")),
	       json_number_value(json_object_get(rank, "compute_pct")), json_number_value(json_object_get(rank, "non_compute_pct")),
	       json_is_number(ov) ? "" : "n/a (no communication)");
	if (json_is_number(ov))
		printf("  (overlap %.2f %% of communication time)\n", json_number_value(ov));
	size_t i;
	json_t *k;
	json_array_foreach(json_object_get(rank, "top_kernels"), i, k)
		printf("  %-13s %8.0f us %6lld x  %.70s\n", json_string_value(json_object_get(k, "category")),
		       json_number_value(json_object_get(k, "total_us")), (long long)json_integer_value(json_object_get(k, "count")),
		       json_string_value(json_object_get(k, "name")));
}

static int trace_mode(int argc, char **argv, int first, int as_json, const char *rules_path, int top)
{
	struct rules r;
	char *path = rules_path ? xstrdup(rules_path) : rules_default_path();
	int rc = rules_load(path, &r);
	free(path);
	if (rc < 0)
		return rc;
	json_t *ranks = json_array();
	for (int i = first; i < argc && rc == 0; i++) {
		struct gpu_trace t;
		struct hta_rank h;
		if ((rc = kineto_load(argv[i], &t)) < 0)
			break;
		hta_analyse(&t, &r, top, &h);
		json_t *o = hta_json(&h, argv[i]);
		json_decref(h.top);
		json_array_append_new(ranks, o);
		if (!as_json)
			print_text(o);
		gpu_trace_free(&t);
	}
	if (rc == 0 && as_json) {
		json_t *doc = json_pack("{s:o}", "ranks", json_incref(ranks));
		char *s = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
		printf("%s\n", s);
		free(s);
		json_decref(doc);
	}
	json_decref(ranks);
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
