/* prediction_check_text: a variant run's checked predictions (prediction_check.h) in words
 * and JSON: the outcomes' names, where a missed prediction's time went, summary.json's
 * checked_predictions and BOTTLENECK_ANALYSIS.md's "Predicted and measured".
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_WRITE_PREDICTION_CHECK_TEXT_H
#define ANALYZERS_WRITE_PREDICTION_CHECK_TEXT_H

#include "analyzers/prediction_check.h"

#include <jansson.h>

struct strbuf;

/* "confirmed", "better than predicted", ... as summary.json writes them. */
const char *check_outcome_name(enum check_outcome o);
/* The measured change of a variant against its parent, from the medians and the 95 %
 * interval of the measured one (ms): "4.55x slower (95 % CI 4.31-4.80x)", "1.30x faster
 * (...)" or "no measurable change (95 % CI 0.96-1.05x)"; "no interval (fewer than 5 steps on a
 * side)" with the steps but no interval (lo < 0); "not measured" without them.
 * per_sample: the variant's batch differs and its times are the parent batch's ("1.30x
 * faster per sample (...)"). */
void prediction_check_change_write(struct strbuf *sb, double parent, double measured, double lo,
				   double hi, int per_sample);
/* Where a missed prediction's time went, one sentence (c->missed). */
void prediction_check_miss_write(struct strbuf *sb, const struct ana_check *c);
/* summary.json's side_effects: the other scenarios of a variant (no prediction of its kind),
 * each one's change against the parent (an array; empty when not a variant). */
json_t *prediction_check_side_json(const struct ana_variant *v);
/* summary.json's checked_predictions (an array; empty when not a variant). */
json_t *prediction_check_json(const struct ana_variant *v);
/* summary.json's checked_tally, as the report's line under its table and `campaign try` say
 * it: {checked (confirmed, better, worse or within noise), confirmed, no_gain (of them, as no
 * gain alone), few_steps (too few steps to tell)}; null when not a variant. */
json_t *prediction_check_tally_json(const struct ana_variant *v);
/* A tally (checked_tally's object) in words, as the report's line under its table says it:
 * "2 of 3 predictions confirmed, 1 of them as no gain (the advice held, not its figure); 1
 * more undecided: the runs drift". */
void prediction_check_tally_words(struct strbuf *sb, json_t *tally);
/* The cells of one checked_predictions entry of a summary.json, in PCELL_ order: scenario,
 * parent and predicted ms (each printed with num_fmt, e.g. "%.2f"), the prediction's interval
 * ("LO to HI", "LO to HI (bound)" for a bound's, "ceiling" for a ceiling's), the measured ms
 * and its interval, the outcome, and the prediction's error in % of the prediction
 * ("%+.1f"); "n/a" for a null or missing value. Each malloc'ed. The one formatter of the
 * report's table, compare's and the paper's. */
enum {
	PCELL_SCENARIO,
	PCELL_PARENT,
	PCELL_PREDICTED,
	PCELL_PREDICTED_INTERVAL,
	PCELL_MEASURED,
	PCELL_MEASURED_CI,
	PCELL_OUTCOME,
	PCELL_ERROR,
	PREDICTION_CHECK_CELLS
};
void prediction_check_cells(json_t *entry, const char *num_fmt,
			    char *cells[PREDICTION_CHECK_CELLS]);
/* BOTTLENECK_ANALYSIS.md's "Predicted and measured" (nothing when not a variant), its table
 * from prediction_check_json's entries as prediction_check_cells formats them. */
void prediction_check_md(struct strbuf *md, const struct ana_variant *v);

#endif
