/* judge: a commit's step times against GOOD's, noise measured.
 * SPDX-License-Identifier: MIT */
#include "judge.h"
#include "analyzers/stats.h"

#include <math.h>
#include <string.h>

static const char *const names[] = { "good", "bad", "unclear", "skip" };

void judge_steps(const double *good, size_t ngood, const double *steps, size_t n,
		 double threshold, double spread, struct bisect_verdict *out)
{
	struct stats_sample num = { steps, n }, den = { good, ngood };
	struct stats_interval ci = { 0 };
	memset(out, 0, sizeof *out);
	if (n >= STATS_BOOTSTRAP_MIN_N && ngood >= STATS_BOOTSTRAP_MIN_N)
		stats_bootstrap(&num, 1, &den, 1, STATS_MEDIAN, &ci);
	out->outcome = BISECT_UNCLEAR;
	if (!ci.known)
		return;
	*out = (struct bisect_verdict){ BISECT_UNCLEAR, ci.value, ci.lo / (1 + spread),
					ci.hi * (1 + spread), 1 };
	if (out->lo > 1 + threshold)
		out->outcome = BISECT_BAD;
	else if (out->hi < 1 + threshold)
		out->outcome = BISECT_GOOD;
}

long judge_steps_needed(const struct bisect_verdict *v, long n, double threshold, double spread)
{
	double t = 1 + threshold, g = 1 + spread;
	double lo = v->lo * g, hi = v->hi / g; /* the bootstrap's own interval */
	/* the side towards the threshold must shrink until, widened, it clears it */
	double gap = v->ratio > t ? v->ratio - t * g : t / g - v->ratio;
	double half = v->ratio > t ? v->ratio - lo : hi - v->ratio;
	if (!v->known || n <= 0 || half <= 0)
		return 0;
	if (gap <= 1e-9) /* within the spread of the threshold: no steps would do; on it: unknown */
		return spread > 0 && fabs(v->ratio - t) > 1e-9 ? -1 : 0;
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
