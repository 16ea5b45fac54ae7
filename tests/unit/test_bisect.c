/* Unit tests for campaign bisect's decisions (orchestrator/bisect/): a
 * commit's outcome from its step times against GOOD's, the steps that would
 * resolve an unclear one, which commits come next (a K-ary split, reruns
 * first, skips left out) and the answer, each against values worked out by
 * hand.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "orchestrator/bisect/bisection.h"
#include "orchestrator/bisect/judge.h"

#include <jansson.h>

static const double good[] = { 10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 10.05, 9.95 };
#define NG (sizeof good / sizeof *good)

static void scaled(double k, double *out)
{
	for (size_t i = 0; i < NG; i++)
		out[i] = good[i] * k;
}

/* 30 % slower: every resample's ratio is 1.3, clear above 1.05; the same: clear below;
 * 5 % slower: the interval holds the threshold itself */
static void judge_outcomes(void)
{
	double s[NG];
	struct bisect_verdict v;
	scaled(1.3, s);
	judge_steps(good, NG, s, NG, 0.05, 0, &v);
	CHECK(v.outcome == BISECT_BAD && v.known);
	CHECK_NEAR(v.ratio, 1.3, 1e-9);
	CHECK(v.lo > 1.05 && v.lo <= 1.3 && v.hi >= 1.3);
	judge_steps(good, NG, good, NG, 0.05, 0, &v);
	CHECK(v.outcome == BISECT_GOOD);
	CHECK_NEAR(v.ratio, 1.0, 1e-9);
	scaled(1.05, s);
	judge_steps(good, NG, s, NG, 0.05, 0, &v);
	CHECK(v.outcome == BISECT_UNCLEAR && v.known);
	judge_steps(good, NG, s, 4, 0.05, 0, &v); /* fewer than 5 steps: no interval */
	CHECK(v.outcome == BISECT_UNCLEAR && !v.known);
	/* 10 % slower in every step: bad; with two runs of one commit 20 % apart its interval
	 * (the same resamples: the same generator) widens to lo / 1.2 and hi x 1.2, which
	 * holds 1.05: unclear */
	scaled(1.1, s);
	judge_steps(good, NG, s, NG, 0.05, 0, &v);
	CHECK(v.outcome == BISECT_BAD && v.lo > 1.05 && v.lo / 1.2 < 1.05);
	struct bisect_verdict w;
	judge_steps(good, NG, s, NG, 0.05, 0.2, &w);
	CHECK(w.outcome == BISECT_UNCLEAR);
	CHECK_NEAR(w.ratio, v.ratio, 1e-12);
	CHECK_NEAR(w.lo, v.lo / 1.2, 1e-12);
	CHECK_NEAR(w.hi, v.hi * 1.2, 1e-12);
}

/* ratio 1.10 in [1.00, 1.20], threshold 5 %: the lower side (0.10) must shrink to the gap
 * (0.05), a factor 2, which takes 2^2 = 4 times the steps: 40 of 10. Below the threshold
 * (0.95 in [0.90, 1.15]) the upper side (0.20) to the gap (0.10): 40 again. */
static void judge_steps_to_resolve(void)
{
	struct bisect_verdict v = { BISECT_UNCLEAR, 1.10, 1.00, 1.20, 1 };
	CHECK(judge_steps_needed(&v, 10, 0.05, 0) == 40);
	v = (struct bisect_verdict){ BISECT_UNCLEAR, 0.95, 0.90, 1.15, 1 };
	CHECK(judge_steps_needed(&v, 10, 0.05, 0) == 40);
	/* two runs of GOOD 2 % apart: the widened lower end 1.00 is the bootstrap's 1.02 / 1.02;
	 * its side 1.10 - 1.02 = 0.08 must shrink to 1.10 - 1.05 x 1.02 = 0.029 (widened, it
	 * then clears 1.05), a factor 2.7586: 10 x 7.61 = 76.1, so 77 steps */
	v = (struct bisect_verdict){ BISECT_UNCLEAR, 1.10, 1.00, 1.20 * 1.02, 1 };
	CHECK(judge_steps_needed(&v, 10, 0.05, 0.02) == 77);
	/* 5 % apart: 1.10 / 1.05 = 1.0476 < 1.05 whatever the steps */
	CHECK(judge_steps_needed(&v, 10, 0.05, 0.05) == -1);
	/* a ratio on the threshold itself: no steps tell (0), with or without a spread */
	v = (struct bisect_verdict){ BISECT_UNCLEAR, 1.05, 1.00, 1.10, 1 };
	CHECK(judge_steps_needed(&v, 10, 0.05, 0) == 0);
	CHECK(judge_steps_needed(&v, 10, 0.05, 0.02) == 0);
	v.known = 0;
	CHECK(judge_steps_needed(&v, 10, 0.05, 0) == 0);
	CHECK(judge_outcome_parse("skip") == BISECT_SKIP && judge_outcome_parse("x") == -1);
}

/* A state of n commits named c0..c(n-1) and tests given as "index:outcome" pairs. */
static json_t *state_of(size_t n, const char *const *tests)
{
	json_t *commits = json_array(), *tested = json_array();
	char h[32];
	for (size_t i = 0; i < n; i++) {
		snprintf(h, sizeof h, "c%zu", i);
		json_array_append_new(commits, json_pack("{s:s, s:s}", "commit", h, "subject", h));
	}
	for (; *tests; tests++) {
		int i;
		char o[16];
		sscanf(*tests, "%d:%15s", &i, o);
		snprintf(h, sizeof h, "c%d", i);
		json_array_append_new(tested, json_pack("{s:s, s:s, s:s}", "commit", h, "outcome",
							o, "run", h));
	}
	return json_pack("{s:o, s:o}", "commits", commits, "tested", tested);
}

/* 12 commits, GOOD good and BAD bad: K=1 takes the middle of c1..c10 (c6); c6 skipped,
 * the middle of the other nine (c5); K=2 splits ten candidates at 10/3 and 20/3 (c4, c7);
 * an unclear commit's rerun comes first */
static void next_commits(void)
{
	long idx[4];
	json_t *st = state_of(12, (const char *const[]){ "0:good", "11:bad", NULL });
	CHECK(bisection_next(st, 1, idx) == 1 && idx[0] == 6);
	CHECK(bisection_next(st, 2, idx) == 2 && idx[0] == 4 && idx[1] == 7);
	json_decref(st);
	st = state_of(12, (const char *const[]){ "0:good", "11:bad", "6:skip", NULL });
	CHECK(bisection_next(st, 1, idx) == 1 && idx[0] == 5);
	json_decref(st);
	st = state_of(12, (const char *const[]){ "0:good", "11:bad", "6:unclear", NULL });
	CHECK(bisection_outcome(st, 6) == BISECT_UNCLEAR);
	CHECK(bisection_next(st, 1, idx) == 1 && idx[0] == 6);
	json_decref(st);
	/* unclear twice counts as a skip */
	st = state_of(12, (const char *const[]){ "0:good", "11:bad", "6:unclear", "6:unclear",
						 NULL });
	CHECK(bisection_outcome(st, 6) == BISECT_SKIP && bisection_runs_of(st, 6) == 2);
	json_decref(st);
}

/* c5 good, c6 bad: c6 is the first bad; with c6 skipped and c7 bad, it is c6 or c7 */
static void the_answer(void)
{
	long idx[2];
	json_t *st = state_of(12, (const char *const[]){ "0:good", "11:bad", "5:good", "6:bad",
							 NULL });
	CHECK(bisection_next(st, 1, idx) == 0);
	bisection_answer(st);
	CHECK_STR(json_string_value(json_object_get(json_object_get(st, "first_bad"), "commit")),
		  "c6");
	CHECK_STR(json_string_value(json_object_get(json_object_get(st, "last_good"), "commit")),
		  "c5");
	CHECK(json_is_null(json_object_get(st, "reason")));
	json_decref(st);
	st = state_of(12, (const char *const[]){ "0:good", "11:bad", "5:good", "6:skip", "7:bad",
						 NULL });
	CHECK(bisection_next(st, 1, idx) == 0);
	bisection_answer(st);
	CHECK(json_is_null(json_object_get(st, "first_bad")));
	CHECK(strstr(json_string_value(json_object_get(st, "reason")),
		     "the first bad is one of c6, c7") != NULL);
	CHECK_STR(json_string_value(json_object_get(st, "state")), "done");
	json_decref(st);
}

int main(void)
{
	RUN(judge_outcomes);
	RUN(judge_steps_to_resolve);
	RUN(next_commits);
	RUN(the_answer);
	HARNESS_END();
}
