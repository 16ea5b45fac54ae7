/* campaign-analyze's NCCL Inspector mode: the dumps (files, or folders of them) read, their
 * collectives matched across ranks, the stragglers, and what was skipped, as summary.json's
 * objects or in words.
 * SPDX-License-Identifier: MIT */
#include "analyzers/analyze_dumps.h"
#include "analyzers/prose.h"
#include "analyzers/inspector.h"
#include "analyzers/read/nccl_inspector.h"
#include "analyzers/write/summary_objects.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/words.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	printf(PROSE_INSPECTOR_COUNTS,
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
		printf(PROSE_INSPECTOR_STRAGGLER,
		       g[k].rank, g[k].node[0] ? " on " : "", g[k].node, g[k].arrived_last_pct,
		       s->judged, g[k].chance_p, g[k].impact_pct);
	if (!n && s->judged)
		printf("no straggler at the %zu instances of the communicators that span every process\n",
		       s->judged);
}

int analyze_dumps_run(char **paths, size_t n, int as_json)
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
	inspector_stragglers(&d, 1, inspector_judged_ms(&d), g, &ng, slow, sizeof slow, NULL);
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

int analyze_dumps_operands(int argc, char **argv, int first, int *rc)
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
