/* report_parts: what the writers of an analysed run share (write/ only): summary.json
 * and analysis.json (summary_json.c), BOTTLENECK_ANALYSIS.md (markdown.c), the
 * recommendations in words (advice_text.c), the fabric probe's words (fabric_text.c);
 * report.c writes the files. No two of these files call each other (layout.sh).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_WRITE_REPORT_PARTS_H
#define ANALYZERS_WRITE_REPORT_PARTS_H

#include "analyzers/analysis.h"
#include "util/jsonio.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stddef.h>

struct strbuf;

/* summary_json.c */
/* A scenario's analysis.json (and its entry in summary.json). */
json_t *scenario_json(const struct ana_scenario *s, const struct ana_run *run);
json_t *summary_json(const struct ana_run *run);

/* fabric_text.c */
/* What the fabric probe says of the scenario's all-reduce rate, as a clause. */
void fabric_clause(const struct ana_scenario *s, char *buf, size_t n);
/* Why a fabric probe has no result: its job did not complete, or what its fabric.json
 * lacked (nothing when it has one). */
void fabric_probe_problem(struct strbuf *sb, const struct ana_probe *p);

/* markdown.c */
/* Writes run_dir/BOTTLENECK_ANALYSIS.md. */
int write_markdown(const struct ana_run *run);

/* inspector_text.c */
/* What the scenario's NCCL Inspector dumps gave, a paragraph (nothing without dumps). */
void md_inspector(struct strbuf *md, const struct ana_scenario *s);
/* summary.json's nccl_inspector of a scenario with dumps. */
json_t *inspector_json(const struct ana_scenario *s);

/* advice_text.c */
/* One entry of the ranked list: a cause's recommendation or a series'. */
struct rec {
	double gain;
	char *text;
	/* the 95 % interval of gain (%), where its lead scenario's is a replayed median's */
	int iv;
	double lo, hi;
	const char *kind; /* its kind, as knobs: and campaign try name it (NULL: a series') */
};
/* Orders recs by gain, the larger first (qsort). */
int rec_cmp(const void *a, const void *b);
/* A recommendation in words, with its prediction (malloc'd). */
char *rec_text(const struct ana_rec *r, const struct ana_run *run);
/* summary.json's recommendations. */
json_t *recs_json(const struct ana_run *run);
/* The advice a series' scaling model gives, into r; 1 when there is some. */
int series_advice(struct rec *r, const struct ana_model *m, const struct ana_run *run);

#endif
