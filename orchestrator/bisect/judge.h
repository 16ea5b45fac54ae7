/* judge: whether a commit's step times are a regression against GOOD's, with
 * the noise measured: the ratio of the medians, its 95 % bootstrap interval
 * (analyzers/stats.h), the outcome that interval allows against the
 * threshold, and how many steps would resolve an unclear one.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_BISECT_JUDGE_H
#define CAMPAIGN_BISECT_JUDGE_H

#include <stddef.h>

enum bisect_outcome { BISECT_GOOD, BISECT_BAD, BISECT_UNCLEAR, BISECT_SKIP };

struct bisect_verdict {
	enum bisect_outcome outcome;
	double ratio, lo, hi; /* median / GOOD's median and its 95 % interval */
	int known;            /* 0: too few steps on a side for an interval (then unclear) */
};

/* steps against good's (each in ms, any order): bad when the interval lies
 * above 1 + threshold (a fraction: 0.05 for 5 %), good when below, else
 * unclear. The interval is the bootstrap's of the steps of the two runs,
 * widened by spread (>= 0: how far two runs of one commit were apart, as a
 * fraction) to [lo / (1 + spread), hi x (1 + spread)]: a run as a whole may
 * sit that far from another, which no resampling of its steps shows. */
void judge_steps(const double *good, size_t ngood, const double *steps, size_t n,
		 double threshold, double spread, struct bisect_verdict *out);
/* The active steps per run that would make an unclear verdict's interval
 * (from runs of n active steps, widened by spread as judge_steps does) clear
 * 1 + threshold, as the bootstrap's part narrows with the square root of the
 * steps; 0 when it cannot tell (no interval, a ratio on the threshold), -1 when
 * no number of steps would do: the ratio lies within a factor 1 + spread of
 * 1 + threshold, so the widening alone keeps the threshold in the interval. */
long judge_steps_needed(const struct bisect_verdict *v, long n, double threshold, double spread);
/* The most judge_steps_needed says (profile.active_steps' bound). */
#define JUDGE_STEPS_MAX 1000000
const char *judge_outcome_name(enum bisect_outcome o);
/* "good", "bad", "unclear", "skip" back; -1 for anything else. */
int judge_outcome_parse(const char *s);

#endif
