/* SPDX-License-Identifier: MIT */
#include "analyzers/advice.h"

#include "analyzers/read/metrics.h"
#include "analyzers/replay_build.h"
#include "analyzers/stats.h"
#include "util/sort.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* Each kind: its name, the verdict share its removal takes off the step
 * (SHARE_N: none, or the straggler's own impact) and the top-level share of
 * summary.json's shares_pct that holds that time (NULL: none there). */
static const struct {
	const char *name;
	enum share_kind share;
	const char *step_share;
} kinds[REC_KIND_N] = {
	[REC_COMMUNICATION] = { "communication", SHARE_COMMUNICATION, "communication" },
	[REC_STRAGGLER] = { "straggler", SHARE_N, "peer_wait" },
	[REC_DATA] = { "data_loading", SHARE_DATA, "data_loading" },
	[REC_IO] = { "io", SHARE_IO, "io" },
	[REC_HOST] = { "host", SHARE_HOST, "other" },
	[REC_BATCH] = { "batch", SHARE_N, NULL },
	[REC_COPIES] = { "copies", SHARE_COPIES, NULL },
	[REC_ELEMENTWISE] = { "elementwise", SHARE_N, NULL },
	[REC_KERNELS] = { "kernels", SHARE_N, NULL },
	[REC_MEMORY_PEAK] = { "memory_peak", SHARE_N, NULL },
	[REC_COLLECT] = { "collect", SHARE_N, NULL },
};

const char *rec_kind_name(enum rec_kind k)
{
	return k < REC_KIND_N ? kinds[k].name : "?";
}

void rec_kind_list(struct strbuf *sb, const char *quote)
{
	for (int k = 0; k < REC_KIND_N; k++)
		strbuf_addf(sb, "%s%s%s%s", k ? ", " : "", quote, kinds[k].name, quote);
}

const char *rec_kind_step_share(const char *name)
{
	for (int k = 0; k < REC_KIND_N; k++)
		if (!strcmp(kinds[k].name, name))
			return kinds[k].step_share;
	return NULL;
}

enum rec_kind advice_kind_of_share(enum share_kind k)
{
	if (k == SHARE_PEER_WAIT)
		return REC_STRAGGLER;
	for (int i = 0; i < REC_KIND_N; i++)
		if (kinds[i].share == k && k != SHARE_N)
			return (enum rec_kind)i;
	return REC_KIND_N;
}

enum rec_kind advice_kind_of(const struct ana_scenario *s)
{
	const struct verdict_out *v = &s->outcome.v;
	switch (v->verdict) {
	case VERDICT_COMPUTE:
		return REC_KERNELS;
	case VERDICT_COPY:
		return REC_COPIES;
	case VERDICT_MEMORY:
		return s->outcome.basis == BASIS_MONITORS ? REC_MEMORY_PEAK : REC_ELEMENTWISE;
	case VERDICT_COMMUNICATION:
		return REC_COMMUNICATION;
	case VERDICT_DATA_LOADER:
		return REC_DATA;
	case VERDICT_IO:
		return REC_IO;
	case VERDICT_HOST:
		return REC_HOST;
	case VERDICT_STRAGGLER:
		return REC_STRAGGLER;
	case VERDICT_GPU_STARVED:
	case VERDICT_CPU_SATURATED: /* a resource named, where step time goes not known */
	case VERDICT_UNDETERMINED:
	case VERDICT_N:
		break;
	}
	return REC_COLLECT;
}

/* The share of the step (host) or of the GPU's time that removing the cause
 * of kind k takes off: the candidate the verdict was decided on, with the
 * waiting it causes; -1 when the accounting has none for it. */
static double removable_pct(const struct ana_scenario *s, enum rec_kind k)
{
	const double *c = s->outcome.v.share_pct;
	int host = s->outcome.basis == BASIS_HOST;
	int straggler = s->comm.n_stragglers > 0 && !s->steps.no_steps;
	if (s->outcome.basis != BASIS_HOST && s->outcome.basis != BASIS_GPU)
		return -1;
	if (k == REC_STRAGGLER)
		return host && straggler ? s->comm.stragglers[0].impact_pct : -1;
	return kinds[k].share < SHARE_N ? c[kinds[k].share] : -1;
}

const struct replay_pred *advice_replayed(const struct ana_scenario *s, enum rec_kind k)
{
	if (!s->replay.built || s->steps.no_steps || s->steps.step_med_ms <= 0)
		return NULL;
	if (k == REC_COMMUNICATION && s->replay.comm.made)
		return &s->replay.comm;
	if (k == REC_IO && s->replay.io.made)
		return &s->replay.io;
	if (k == REC_DATA && s->replay.data.made)
		return &s->replay.data;
	if (k == REC_STRAGGLER && s->replay.straggler.made)
		return &s->replay.straggler;
	if (k == REC_HOST && s->replay.host.made)
		return &s->replay.host;
	if (k == REC_BATCH && s->replay.batch.made)
		return &s->replay.batch;
	return NULL;
}

/* The ceiling: the median step with the cause of kind k's accounted share taken off; -1
 * when the accounting gives none (compute is the work itself; nothing known). */
static double advice_ceiling_ms(const struct ana_scenario *s, enum rec_kind k)
{
	double pct = removable_pct(s, k), step = s->steps.step_med_ms;
	if (pct < 0 || step <= 0 || s->steps.no_steps)
		return -1;
	double t = step * (1 - pct / 100);
	/* the GPU is the limit: the host's own step is a floor no GPU share lowers */
	if (s->gpu.gpu_limits && k != REC_HOST && t < s->gpu.host_step_med_ms)
		t = s->gpu.host_step_med_ms;
	return t;
}

int advice_no_gain(double predicted_ms, double step_ms)
{
	return predicted_ms > step_ms * (1 - ADVICE_NO_GAIN_PCT / 100);
}

double advice_per_batch(enum rec_kind k)
{
	return k == REC_BATCH ? 1.0 / REPLAY_BATCH_X : 1;
}

double advice_predicted_ms(const struct ana_scenario *s, enum rec_kind k)
{
	const struct replay_pred *p = advice_replayed(s, k);
	return p ? p->step_ms * advice_per_batch(k) : advice_ceiling_ms(s, k);
}


enum rec_kind advice_overlap(const struct ana_scenario *s)
{
	enum rec_kind k = advice_kind_of(s);
	if (advice_ceiling_ms(s, REC_STRAGGLER) < 0 || k == REC_STRAGGLER ||
	    kinds[k].share == SHARE_N || kinds[k].share != s->outcome.wait_to ||
	    advice_ceiling_ms(s, k) < 0)
		return REC_KIND_N;
	return k;
}

static enum rec_basis basis_of(const struct ana_scenario *s, enum rec_kind k)
{
	if (advice_replayed(s, k))
		return REC_BASIS_REPLAY;
	if (removable_pct(s, k) < 0 || s->steps.no_steps)
		return REC_BASIS_NONE;
	if (k == REC_STRAGGLER)
		return REC_BASIS_STRAGGLER;
	return s->outcome.basis == BASIS_GPU ? REC_BASIS_GPU : REC_BASIS_HOST;
}

/* The recommendation of kind k and series, made when missing. */
static struct ana_rec *rec_for(struct ana_run *run, enum rec_kind k, const char *series)
{
	for (size_t i = 0; i < run->nrecs; i++)
		if (run->recs[i].kind == k && !strcmp(run->recs[i].series, series))
			return &run->recs[i];
	run->recs = xrealloc(run->recs, (run->nrecs + 1) * sizeof *run->recs);
	struct ana_rec *r = &run->recs[run->nrecs++];
	memset(r, 0, sizeof *r);
	r->kind = k;
	r->basis = REC_BASIS_NONE;
	snprintf(r->series, sizeof r->series, "%s", series);
	return r;
}

/* A replay of s whose steps, the measured or the predicted, are not alike: its
 * gain is read from the mean steps (a batch's, per sample already, from the medians). */
static int by_means_of(const struct ana_scenario *s, enum rec_kind k, const struct replay_pred *p)
{
	return p && k != REC_BATCH && p->mean_ms > 0 && p->measured_mean_ms > 0 &&
	       (stats_unalike(p->step_ms, p->mean_ms) ||
		stats_unalike(s->steps.step_med_ms, p->measured_mean_ms));
}

/* The share of r's i-th scenario's step its prediction takes off; -1 without one. */
static double gain_of(const struct ana_rec *r, size_t i, const struct replay_pred *p)
{
	if (r->predicted_ms[i] < 0 || r->step_ms[i] <= 0)
		return -1;
	return r->by_means[i] ? 1 - p->mean_ms / p->measured_mean_ms
			      : 1 - r->predicted_ms[i] / r->step_ms[i];
}

int advice_gain_interval(const struct ana_rec *r, const struct ana_run *run, double *lo,
			 double *hi)
{
	size_t k = r->lead;
	if (!r->n || !r->lead_ranks || !r->replayed[k])
		return 0;
	const struct replay_pred *p = advice_replayed(&run->sc[r->sc[k]], r->kind);
	if (r->by_means[k] && p && p->mean_lo_ms >= 0 && p->measured_mean_ms > 0) {
		*lo = 100 * (1 - p->mean_hi_ms / p->measured_mean_ms);
		*hi = 100 * (1 - p->mean_lo_ms / p->measured_mean_ms);
		return 1;
	}
	if (r->by_means[k] || r->lo_ms[k] < 0 || r->step_ms[k] <= 0)
		return 0;
	*lo = 100 * (1 - r->hi_ms[k] / r->step_ms[k]);
	*hi = 100 * (1 - r->lo_ms[k] / r->step_ms[k]);
	return 1;
}

#define GROW(r, field) ((r)->field = xrealloc((r)->field, ((r)->n + 1) * sizeof *(r)->field))

static void rec_add(struct ana_run *run, size_t i, enum rec_kind k)
{
	const struct ana_scenario *s = &run->sc[i];
	struct ana_rec *r = rec_for(run, k, s->scaling.baseline[0] ? s->scaling.baseline
								 : s->in.name);
	GROW(r, sc);
	GROW(r, step_ms);
	GROW(r, predicted_ms);
	GROW(r, ceiling_ms);
	GROW(r, lo_ms);
	GROW(r, hi_ms);
	GROW(r, replayed);
	GROW(r, by_means);
	GROW(r, gain);
	double p = advice_predicted_ms(s, k);
	const struct replay_pred *rp = advice_replayed(s, k);
	r->ceiling_ms[r->n] = advice_ceiling_ms(s, k);
	r->replayed[r->n] = rp != NULL;
	r->lo_ms[r->n] = rp && rp->lo_ms >= 0 ? rp->lo_ms * advice_per_batch(k) : -1;
	r->hi_ms[r->n] = rp && rp->lo_ms >= 0 ? rp->hi_ms * advice_per_batch(k) : -1;
	r->sc[r->n] = i;
	r->step_ms[r->n] = s->data.analysed && !s->steps.no_steps ? s->steps.step_med_ms : -1;
	r->predicted_ms[r->n] = p;
	r->by_means[r->n] = (unsigned char)by_means_of(s, k, rp);
	double g = r->gain[r->n] = gain_of(r, r->n, rp);
	/* a replay with no interval (too few steps replayed or paired) does not rank: its
	 * recommendation comes after those with a figure, as those without one do, and leads
	 * only where none of its scenarios ranks */
	int ranks = g >= 0 && !(rp && (s->replay.steps < ADVICE_REPLAY_MIN_STEPS || rp->lo_ms < 0));
	if (ranks > r->lead_ranks || (ranks == r->lead_ranks && g > r->gain[r->lead]))
		r->lead = r->n, r->lead_ranks = ranks;
	r->n++;
	if (100 * g > r->gain_pct && ranks)
		r->gain_pct = 100 * g;
	if (p >= 0)
		r->basis = basis_of(s, k);
}

static int by_gain(const void *pa, const void *pb)
{
	const struct ana_rec *a = pa, *b = pb;
	if (a->gain_pct != b->gain_pct)
		return a->gain_pct > b->gain_pct ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return strcmp(a->series, b->series);
}

void advice_plan(struct ana_run *run)
{
	for (size_t i = 0; i < run->n; i++) {
		const struct ana_scenario *s = &run->sc[i];
		if (!s->data.analysed && !s->data.monitors_only)
			continue;
		enum rec_kind k = advice_kind_of(s);
		rec_add(run, i, k);
		/* what each step pays whatever its batch: a larger batch amortises it */
		if ((k == REC_COMMUNICATION || k == REC_HOST) && advice_replayed(s, REC_BATCH))
			rec_add(run, i, REC_BATCH);
		/* a named straggler is worth fixing whatever the verdict */
		if (s->comm.n_stragglers && !s->steps.no_steps && s->outcome.basis == BASIS_HOST &&
		    k != REC_STRAGGLER)
			rec_add(run, i, REC_STRAGGLER);
		int peak = 0;
		for (size_t f = 0; f < s->outcome.v.nflags; f++)
			peak |= s->outcome.v.flags[f].kind == FLAG_MEMORY;
		if (peak && k != REC_MEMORY_PEAK)
			rec_add(run, i, REC_MEMORY_PEAK);
	}
	if (run->nrecs)
		sort_runs(run->recs, run->nrecs, sizeof *run->recs, by_gain);
}

void advice_free(struct ana_run *run)
{
	for (size_t i = 0; i < run->nrecs; i++) {
		free(run->recs[i].sc);
		free(run->recs[i].step_ms);
		free(run->recs[i].predicted_ms);
		free(run->recs[i].ceiling_ms);
		free(run->recs[i].lo_ms);
		free(run->recs[i].hi_ms);
		free(run->recs[i].replayed);
		free(run->recs[i].by_means);
		free(run->recs[i].gain);
	}
	free(run->recs);
	run->recs = NULL;
	run->nrecs = 0;
}
