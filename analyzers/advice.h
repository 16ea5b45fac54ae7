/* advice: what to change, one recommendation per cause and series, each
 * with the step time it predicts: the replay of the run's graph changed as the
 * recommendation would change it where one was made (replay_scenario.h), else
 * the ceiling from the accounted shares the verdict came from (the cause's
 * share taken off the step), labelled as one.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_ADVICE_H
#define ANALYZERS_ADVICE_H

#include "analyzers/analysis.h"
#include "analyzers/stats.h"

struct strbuf;

/* A replay of fewer steps gives no interval (as any sample in the report), and its gain
 * ranks nothing: a few steps are not evidence of the order in which to act. */
#define ADVICE_REPLAY_MIN_STEPS STATS_BOOTSTRAP_MIN_N
/* A replayed change that takes less than this share (%) of the step off is "no gain
 * predicted": not a step to take first (a check confirms it by a step that gained no more). */
#define ADVICE_NO_GAIN_PCT 2.0

/* Whether a step of predicted_ms against a measured step_ms is "no gain": less than
 * ADVICE_NO_GAIN_PCT shorter, or longer. */
int advice_no_gain(double predicted_ms, double step_ms);

/* The kind's name in summary.json ("communication", "straggler", ...). */
const char *rec_kind_name(enum rec_kind k);
/* Every kind's name, quote around each, ", " between them (what a knob may name). */
void rec_kind_list(struct strbuf *sb, const char *quote);
/* The top-level share of summary.json's shares_pct (host accounting) that
 * removing the cause of the kind named takes off; NULL when none holds it. */
const char *rec_kind_step_share(const char *name);
/* The cause a verdict points to. */
enum rec_kind advice_kind_of(const struct ana_scenario *s);
/* The recommendation kind whose change takes share k off the step (REC_STRAGGLER for the
 * waiting for a named straggler); REC_KIND_N: none (compute). */
enum rec_kind advice_kind_of_share(enum share_kind k);
/* The share of a replayed step of kind k's change that the measured batch's samples take:
 * 1, but for a batch REPLAY_BATCH_X times as large 1 / REPLAY_BATCH_X (its predictions are
 * per the measured batch, as a variant's steps are checked: prediction_check.h). */
double advice_per_batch(enum rec_kind k);
/* The median step s would have with the change of kind k: the replay of the changed graph
 * where one was made (advice_replayed; a batch's per the measured batch), else the
 * ceiling. */
double advice_predicted_ms(const struct ana_scenario *s, enum rec_kind k);
/* The replayed prediction of kind k for s, NULL where none was made. */
const struct replay_pred *advice_replayed(const struct ana_scenario *s, enum rec_kind k);
/* The 95 % interval (%) of r's ranking gain, where its lead scenario's prediction is a
 * replay with one (of its median, or of its mean where it leads with the means, as gain_of
 * takes the gain): 1 with *lo and *hi, else 0. */
int advice_gain_interval(const struct ana_rec *r, const struct ana_run *run, double *lo,
			 double *hi);
/* The recommendation whose ceiling also holds the waiting for s's straggler (the verdict's,
 * when the waiting counts with its cause there): the straggler's gain is then part of that
 * one's, and the two do not add. REC_KIND_N when none. */
enum rec_kind advice_overlap(const struct ana_scenario *s);
/* Fills run->recs from the analysed scenarios (ana_run_analyse calls it). */
void advice_plan(struct ana_run *run);
void advice_free(struct ana_run *run);

#endif
