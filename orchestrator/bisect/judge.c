/* judge: a commit's step times against GOOD's, noise measured.
 * SPDX-License-Identifier: MIT */
#include "judge.h"
#include "analyzers/stats.h"

#include <math.h>
#include <string.h>

static const char *const names[] = { "good", "bad", "unclear", "skip" };

void judge_steps(const double *good, size_t ngood, const double *steps, size_t n,
		 double threshold, struct bisect_verdict *out)
{
	struct stats_sample num = { steps, n }, den = { good, ngood };
	struct stats_interval ci = { 0 };
	memset(out, 0, sizeof *out);
	if (n >= STATS_BOOTSTRAP_MIN_N && ngood >= STATS_BOOTSTRAP_MIN_N)
		stats_bootstrap(&num, 1, &den, 1, STATS_MEDIAN, &ci);
	out->outcome = BISECT_UNCLEAR;
	if (!ci.known)
		return;
	*out = (struct bisect_verdict){ BISECT_UNCLEAR, ci.value, ci.lo, ci.hi, 1 };
	if (ci.lo > 1 + threshold)
		out->outcome = BISECT_BAD;
	else if (ci.hi < 1 + threshold)
		out->outcome = BISECT_GOOD;
}

long judge_steps_needed(const struct bisect_verdict *v, long n, double threshold)
{
	/* the interval's side towards the threshold is what must shrink */
	double gap = fabs(v->ratio - (1 + threshold));
	double half = v->ratio > 1 + threshold ? v->ratio - v->lo : v->hi - v->ratio;
	if (!v->known || gap < 1e-9 || n <= 0)
		return 0;
	double k = half / gap, need = ceil(n * k * k);
	return need > JUDGE_STEPS_MAX ? JUDGE_STEPS_MAX : (long)need;
}

const char *judge_outcome_name(enum bisect_outcome o)
{
	return names[o];
}

int judge_outcome_parse(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (s && !strcmp(s, names[i]))
			return i;
	return -1;
}
