/* SPDX-License-Identifier: MIT */
#include "predictions.h"
#include "orchestrator/paper/prose.h"
#include "table.h"

#include "analyzers/summary_keys.h"
#include "analyzers/write/prediction_check_text.h"
#include "orchestrator/variant.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "util/run_layout.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#define TABLE "checked_predictions"
#define COLS                                                                                       \
	"Scenario", "Parent (ms)", "Predicted (ms)", "Predicted interval (ms)", "Measured (ms)",   \
		"95 % CI (ms)", "Outcome", "Error (% of predicted)"

/* What the numbers are, closing each caption. */
static const char what[] =
	PROSE_PAPER_CHECKED_WHAT;

/* A row per entry of summary's checked_predictions, after the nlead cells lead. */
static void add_rows(struct paper_table *t, json_t *summary, const char *const *lead, int nlead)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(summary, SK_CHECKED_PREDICTIONS), i, e) {
		char **row = paper_table_row(t);
		for (int k = 0; k < nlead; k++)
			row[k] = xstrdup(lead[k]);
		prediction_check_cells(e, "%.2f", row + nlead);
	}
}

/* The control run variant summary vs was set against (campaign try --control), NULL: none;
 * its measured steps are then over the control's, times the parent's. */
static const char *control_of(json_t *vs)
{
	const char *ctl = jsonio_str(jsonio_at(vs, SK_VARIANT), SK_CONTROL);
	return ctl && *ctl ? ctl : NULL;
}

/* The variant's tally (summary.json's checked_tally) into cap, as its report's line under its
 * table says it: "; N of M predictions confirmed, ..." (nothing without one). */
static void tally_words(json_t *summary, struct strbuf *cap)
{
	json_t *t = json_object_get(summary, SK_CHECKED_TALLY);
	if (!json_is_object(t))
		return;
	strbuf_adds(cap, "; ");
	prediction_check_tally_words(cap, t);
}

/* A variant's own table: its caption names the parent, the kind and the knob, and its tally. */
static int own_table(const char *out, const struct run *r, json_t *summary)
{
	static const char *const head[] = { COLS };
	struct strbuf cap = STRBUF_INIT, knob = STRBUF_INIT;
	variant_knob_text(jsonio_at(summary, SK_PATH(SK_VARIANT, SK_KNOB)), &knob);
	strbuf_addf(
		&cap,
		"Predictions checked by campaign try: run %s applies the knob for the %s recommendations of run %s%s%s%s to every scenario",
		r->id, jsonio_str(summary, SK_PATH(SK_VARIANT, SK_KIND)),
		jsonio_str(summary, SK_PATH(SK_VARIANT, SK_OF)), knob.len ? " (" : "",
		knob.len ? knob.buf : "", knob.len ? ")" : "");
	if (control_of(summary))
		strbuf_addf(&cap, ", with control run %s%s", control_of(summary),
			    PROSE_PAPER_CHECKED_CONTROL);
	tally_words(summary, &cap);
	strbuf_addf(&cap, "; %s", what);
	struct paper_table t = { .name = TABLE,
				 .run = r->id,
				 .caption = cap.buf,
				 .ncols = PREDICTION_CHECK_CELLS,
				 .head = head,
				 .align = "lrrlrllr" };
	add_rows(&t, summary, NULL, 0);
	int rc = paper_table_write(out, &t);
	paper_table_free(&t);
	strbuf_free(&cap);
	strbuf_free(&knob);
	return rc;
}

/* The summary.json of the run in dir when it is an analysed variant of
 * run id with checked predictions; else NULL. */
static json_t *variant_summary(const char *dir, const char *id)
{
	json_t *v = variant_read(dir), *s = NULL;
	if (v && !strcmp(jsonio_str(v, "parent_run"), id)) {
		struct strbuf p = STRBUF_INIT;
		strbuf_addf(&p, "%s/" RUN_SUMMARY, dir);
		s = fsio_exists(p.buf) ? json_load_file(p.buf, 0, NULL) : NULL;
		strbuf_free(&p);
	}
	json_decref(v);
	if (s && !json_array_size(json_object_get(s, SK_CHECKED_PREDICTIONS))) {
		json_decref(s);
		s = NULL;
	}
	return s;
}

/* One variant's rows in its parent's table, and its name in the caption's list; 1 when it
 * was set against a control run. */
static int add_variant(struct paper_table *t, struct strbuf *names, int *n, const char *id,
		       json_t *vs)
{
	const char *kind = jsonio_str(vs, SK_PATH(SK_VARIANT, SK_KIND)), *ctl = control_of(vs);
	const char *lead[] = { id, kind };
	strbuf_addf(names, "%s%s (%s%s%s)", (*n)++ ? ", " : "", id, kind,
		    ctl ? ", with control run " : "", ctl ? ctl : "");
	add_rows(t, vs, lead, 2);
	return ctl != NULL;
}

/* The parent's table: a row per check of each of its variants beside it. */
static int family_table(const char *out, const struct run *r)
{
	static const char *const head[] = { "Variant run", "Kind", COLS };
	char *copy = xstrdup(r->dir);
	const char *folder = dirname(copy);
	struct argv runs = { 0 };
	struct strbuf cap = STRBUF_INIT, names = STRBUF_INIT, dir = STRBUF_INIT;
	struct paper_table t = { .name = TABLE, .run = r->id, .ncols = 2 + PREDICTION_CHECK_CELLS,
				 .head = head, .align = "lllrrlrllr" };
	int n = 0, controlled = 0;
	fsio_list(folder, &runs);
	for (size_t i = 0; i < runs.n; i++) {
		strbuf_reset(&dir);
		strbuf_addf(&dir, "%s/%s", folder, runs.v[i]);
		json_t *vs = strcmp(runs.v[i], r->id) ? variant_summary(dir.buf, r->id) : NULL;
		if (vs)
			controlled |= add_variant(&t, &names, &n, runs.v[i], vs);
		json_decref(vs);
	}
	strbuf_addf(
		&cap,
		"Predictions checked by campaign try: the recommendations of run %s tried by its variant run%s %s%s; %s",
		r->id, n == 1 ? "" : "s", strbuf_str(&names),
		controlled ? "; with a control run" PROSE_PAPER_CHECKED_CONTROL : "", what);
	t.caption = cap.buf;
	int rc = n ? paper_table_write(out, &t) : 0;
	paper_table_free(&t);
	argv_free(&runs);
	strbuf_free(&cap);
	strbuf_free(&names);
	strbuf_free(&dir);
	free(copy);
	return rc;
}

int paper_predictions(const char *out, const struct run *r, json_t *summary)
{
	if (json_array_size(json_object_get(summary, SK_CHECKED_PREDICTIONS)))
		return own_table(out, r, summary);
	return family_table(out, r);
}
