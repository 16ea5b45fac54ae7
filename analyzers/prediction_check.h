/* prediction_check: a variant run's predictions (campaign try) set against what it
 * measured. Per scenario: the parent's step times and accounting, the
 * prediction, the variant's step times, the 95 % bootstrap interval of
 * variant / parent and an outcome; for a miss, where the predicted time went,
 * from the two accountings, as numbers (write/prediction_check_text.c says them).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_PREDICTION_CHECK_H
#define ANALYZERS_PREDICTION_CHECK_H

#include <stddef.h>

/* The variant kind of a control run (`campaign try --control`): the parent's campaign re-run
 * unchanged, so that each variant is set against the machine as it is now, not as it was
 * when the parent ran. No recommendation has this kind; its `variant:` changes nothing. */
#define CHECK_CONTROL_KIND "control"

/* The one rule of an outcome (the replay issue's): a prediction is confirmed when the
 * measured median lies inside its predicted interval (when it has one) or within this
 * share of the predicted median. */
#define CHECK_TOLERANCE_PCT 10.0
/* An interval wider than this share of the measured median is said to be wide. */
#define CHECK_WIDE_PCT 50.0

enum check_outcome {
	CHECK_CONFIRMED,   /* measured within the tolerance of the prediction */
	CHECK_NOISE,       /* not confirmed, and no measurable change */
	CHECK_BETTER,      /* not confirmed, measured faster than predicted */
	CHECK_WORSE,       /* not confirmed, measured slower than predicted */
	CHECK_UNPREDICTED, /* the recommendation gave no prediction: measured only */
	CHECK_UNMEASURED,  /* no step times in the parent or the variant */
	CHECK_CONTAMINATED, /* measured beside other load (contamination.h): nothing is checked */
	CHECK_FEW_STEPS, /* not confirmed, and fewer than STATS_BOOTSTRAP_MIN_N steps on a side:
			  * no interval, so neither noise nor a direction */
	/* with a control run whose drift from the parent is measurable: confirmed against the
	 * control and not against the parent as it ran, or the other way round; the two
	 * unchanged runs disagree, so neither verdict holds */
	CHECK_DRIFT,
};

/* The top-level shares of a step (summary.json shares_pct keys). */
enum { CHECK_SHARES = 6 };
extern const char *const check_share_names[CHECK_SHARES];

/* Where a missed prediction's time went: each share's ms per step in the parent and in
 * the variant (at the parent's batch), the share the prediction took off and the one
 * that grew most (by more than 1 % of the parent's step). */
struct check_miss {
	int known;              /* both runs' shares are known; else nothing below is */
	int target, grew;       /* indices into check_share_names; -1 none */
	int shrank;             /* the share other than target that fell most; -1 none */
	double before_ms[CHECK_SHARES], after_ms[CHECK_SHARES];
};

struct ana_check {
	char *scenario;
	/* not a prediction's check: another scenario of the parent, which the knob changed too
	 * (set in every scenario): what it measured beside the parent is its side effect */
	int side;
	double predicted_ms;    /* < 0: none */
	double pred_lo_ms, pred_hi_ms; /* a replayed prediction's interval; < 0: none */
	int by_ceiling; /* the prediction is a ceiling's, not a replay's */
	/* the replay is of the most the change gains (prediction_basis "bound"), not of what it
	 * gains: communication where DDP already overlaps its all-reduce, or on every core */
	int basis_bound;
	/* a replayed prediction's mean step and its interval; < 0: none */
	double pred_mean_ms, pmean_lo_ms, pmean_hi_ms;
	double *parent_steps;   /* the parent's step_times_ms */
	size_t n_parent;
	/* the control run's (campaign try --control: the parent's campaign re-run unchanged
	 * before the variant) step_times_ms of the scenario, their median, and whether it ran
	 * beside other load; n_control 0: none, the variant is set against the parent as it
	 * ran. With one, the variant's steps are set against the control's and said in ms of the
	 * parent's: measured = variant / control x parent, its interval the bootstrap of variant
	 * / control times the parent's median (or mean), so the drift between runs cancels */
	double *control_steps;
	size_t n_control;
	double control_median_ms, control_mean_ms; /* derived from control_steps as decided */
	int control_contaminated;
	/* the control's drift from the parent: the 95 % bootstrap interval of control / parent
	 * (drift_lo, drift_hi; drift_known 0: too few steps on a side) by the statistic a
	 * check set against the control is decided by (the means: drift_by_means 1). The check
	 * is set against the control (against_control 1) only where that interval excludes 1:
	 * a drift the steps cannot tell from their noise is not corrected, since dividing by
	 * the control would only add its noise */
	int drift_known, drift_by_means, against_control;
	double drift_lo, drift_hi;
	/* a side effect set against the control that the parent as it ran does not show, or
	 * the other way round: the unchanged runs disagree, so no change is said */
	int side_drift;
	size_t n_variant; /* the variant's active steps (decided: its scenario's) */
	double parent_share_pct[CHECK_SHARES]; /* < 0: unknown */
	double parent_median_ms; /* the parent's summary median (0: unknown) */
	long parent_batch;       /* the parent's global batch (0: unknown) */
	int parent_contaminated; /* the parent's scenario was measured beside other load */
	/* the parent's step estimator: 1 collective_period, 0 rank_step, -1 unknown */
	int parent_periods;
	/* the variant's steps are not timed as the parent's (a parent analysed before the
	 * reference trainer recorded its all-reduces' ends): the medians differ in measure */
	int estimator_differs;
	/* results: at the parent's batch (the variant's steps x parent / variant batch); lo_ms
	 * and hi_ms -1 with fewer than STATS_BOOTSTRAP_MIN_N steps on a side (no interval) */
	double measured_ms, lo_ms, hi_ms;
	double own_median_ms; /* the variant's own median step: its batch, set against nothing */
	/* set against a control: the outcome and the measured step (median or mean, as that was
	 * decided) against the parent as it ran, without the control; -1 / 0 where the check is
	 * not set against one (against_control 0) */
	int uncorrected_outcome;
	double uncorrected_ms;
	/* set against a control: the outcome against it, where outcome is CHECK_DRIFT; -1 */
	int control_outcome;
	/* the means of the parent's and the variant's steps (the variant's at the parent's
	 * batch): the time per sample over the run, where a median leaves periodic steps out */
	double parent_mean_ms, measured_mean_ms;
	/* decided by the means (by_means 1: the variant's steps, or the predicted ones, are not
	 * alike, and the prediction has a mean): the outcome and lo_ms, hi_ms (the measured
	 * 95 % interval of the variant's mean over the parent's, in ms of the parent's mean)
	 * are of the means; measured_ms stays the median */
	int by_means;
	double mean_lo_ms, mean_hi_ms;
	long variant_batch;      /* set when it differs from the parent's: the steps were scaled */
	long variant_global;     /* the variant's global batch (0: unknown) */
	/* a batch prediction, of a variant whose batch is not REPLAY_BATCH_X times the
	 * parent's: none to check (predicted_ms -1) */
	int batch_not_predicted;
	enum check_outcome outcome;
	/* whether the variant was measured alone is not known: no monitor recorded the load of
	 * other processes */
	int load_unknown;
	/* a prediction the measurement missed: a gain that did not come (worse, or no
	 * measurable change below the prediction): where the predicted time went; or a step
	 * faster than predicted: the share that fell beyond it */
	int missed;
	struct check_miss miss;
};

struct ana_variant {
	char *of, *kind, *knob; /* the parent run, the recommendation kind, the knob (JSON) */
	char *control;          /* the control run its checks are set against; NULL: none */
	char *control_pending;  /* a control named but not analysed yet (its id); NULL: none */
	struct ana_check *checks;
	size_t n;
};

/* The outcome of a prediction by the one rule: predicted and measured medians, the
 * parent's median and the measured 95 % interval (ms); predicted < 0: none; plo-phi a
 * replayed prediction's interval (< 0: none), which confirms a measured median inside it as
 * 10 % of the predicted one does, unless it holds the parent's median too (it then predicts
 * no change as well as one). A prediction of no gain (a step less than ADVICE_NO_GAIN_PCT
 * shorter than the parent's, or longer) is confirmed by a measured step that gained no
 * more, or by no measurable change. A variant measured beside other load (contaminated)
 * confirms or refutes nothing. */
enum check_outcome check_decide(double predicted, double measured, double parent, double lo,
				double hi, double plo, double phi, int contaminated);

/* c as it was decided: by the means (c->by_means), its parent, predicted and measured
 * steps, their intervals and the measured interval are the means'; else c itself. */
struct ana_check check_as_decided(const struct ana_check *c);

/* Whether side check c measured a change beyond its steps' noise (its interval clear of the
 * parent's) and beyond CHECK_TOLERANCE_PCT (what a check's noise allows), its steps timed
 * as the parent's (c as decided: by the means where the steps are not alike), and the two
 * unchanged runs agree on it (not c->side_drift). */
int check_side_changed(const struct ana_check *c);

struct ana_run;
/* Decides every check of run->variant from the analysed scenarios. */
void prediction_check_run(struct ana_run *run);
void prediction_check_free(struct ana_variant *v);

#endif
