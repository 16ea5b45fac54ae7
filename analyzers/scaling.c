/* scaling: across the scenarios of a run, speedup and efficiency against each series'
 * baseline (strong or weak scaling by the batch), and a fitted model of the step
 * (compute / N + a constant + a term growing with log2(N)) per series, its fit and
 * where it says scaling ends, as numbers (write/scaling_text.c says them).
 * SPDX-License-Identifier: MIT */
#include "analyzers/analysis.h"
#include "util/run_layout.h"

#include "analyzers/advice.h"
#include "analyzers/read/metrics.h"
#include "analyzers/read/monitor.h"
#include "analyzers/stats.h"
#include "analyzers/read/steplog.h"
#include "analyzers/torchtrace.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "analyzers/scaling.h"

static int same_series(const struct ana_scenario *a, const struct ana_scenario *b)
{
	if (a->in.series && b->in.series)
		return !strcmp(a->in.series, b->in.series);
	return !strcmp(a->in.backend, b->in.backend) &&
		a->in.tasks_per_node == b->in.tasks_per_node;
}

/* The mode the batches say (both known), or the note why there is none. */
static enum scaling_mode mode_of_batches(struct ana_scenario *s, const struct ana_scenario *base)
{
	if (s->steps.global_batch * base->in.ranks == base->steps.global_batch * s->in.ranks)
		return SCALING_WEAK;
	if (s->steps.global_batch == base->steps.global_batch)
		return SCALING_STRONG;
	s->scaling.note = SCALING_NOTE_BATCHES_DIFFER;
	return SCALING_UNKNOWN;
}

/* The 95 % intervals of speedup and efficiency: a bootstrap of the median (by_means: the
 * mean) step's ratio, baseline / scenario, over both scenarios' active steps, times what
 * turns that ratio into the speedup (the batches' ratio; tr is the steps' own ratio), and
 * over rr for the efficiency. The baseline against itself: 1 to 1, by definition. */
static void intervals(struct ana_scaling *sc, const struct ana_scenario *s,
		      const struct ana_scenario *base, double tr, double rr)
{
	struct stats_interval *ci = &sc->speedup_ci, *ei = &sc->efficiency_ci;
	if (s == base) {
		*ci = (struct stats_interval){ 1, 1, 1, 1 };
		*ei = *ci;
		return;
	}
	if (s->steps.active_steps < STATS_BOOTSTRAP_MIN_N ||
	    base->steps.active_steps < STATS_BOOTSTRAP_MIN_N || !(tr > 0) || !(rr > 0))
		return;
	struct stats_sample num = { base->steps.step_ms, base->steps.active_steps },
			    den = { s->steps.step_ms, s->steps.active_steps };
	stats_bootstrap(&num, 1, &den, 1, sc->by_means ? STATS_MEAN : STATS_MEDIAN, ci);
	if (!ci->known)
		return;
	double k = sc->speedup / tr;
	*ci = (struct stats_interval){ sc->speedup, k * ci->lo, k * ci->hi, 1 };
	*ei = (struct stats_interval){ sc->efficiency, ci->lo / rr, ci->hi / rr, 1 };
}

/* The ratio of base's step to s's, baseline / scenario: of their medians, or of their means
 * where the steps of either are not alike (sc->by_means: a checkpoint every few steps, a
 * loader that stalls; the time per sample over the run is then the mean's, which the
 * median leaves out). */
static double step_ratio(struct ana_scaling *sc, const struct ana_scenario *s,
			 const struct ana_scenario *base)
{
	double ms = s->steps.step_mean_ms, mb = base->steps.step_mean_ms;
	sc->by_means = s != base && (stats_unalike(s->steps.step_med_ms, ms) ||
				     stats_unalike(base->steps.step_med_ms, mb));
	return sc->by_means ? mb / ms : base->steps.step_med_ms / s->steps.step_med_ms;
}

/* Weak scaling keeps the per-rank batch, strong scaling the global batch;
 * from the batches when both are known, else from analysis.scaling. Either
 * way speedup is the ratio of samples per second (of step rates at strong
 * scaling's fixed work; by the mean steps where either side's are not alike)
 * and efficiency is speedup x baseline ranks / ranks.
 * Scenarios whose batch semantics differ from the baseline's get no speedup,
 * with the reason in the scaling note. */
static void scale_against(struct ana_scenario *s, const struct ana_scenario *base,
			  enum scaling_mode declared)
{
	struct ana_scaling *sc = &s->scaling;
	double rr = (double) s->in.ranks / (double) (base->in.ranks ? base->in.ranks : 1),
	       tr = step_ratio(sc, s, base);
	enum scaling_mode mode = declared;
	sc->speedup = sc->efficiency = 0;
	memset(&sc->speedup_ci, 0, sizeof sc->speedup_ci);
	memset(&sc->efficiency_ci, 0, sizeof sc->efficiency_ci);
	sc->declared = declared;
	sc->base_batch = base->steps.global_batch;
	sc->base_ranks = base->in.ranks;
	sc->base_spread_pct = base->steps.spread_pct;
	if (s == base) {
		mode = s->steps.global_batch > 0 ? SCALING_UNKNOWN : declared;
	} else if (s->steps.global_batch > 0 && base->steps.global_batch > 0) {
		if ((mode = mode_of_batches(s, base)) == SCALING_UNKNOWN)
			return;
		if (declared != SCALING_UNKNOWN && declared != mode)
			sc->note = SCALING_NOTE_DECLARED;
	} else if (s->steps.global_batch > 0 || base->steps.global_batch > 0) {
		sc->note = SCALING_NOTE_ONE_BATCH;
		return;
	} else if (declared == SCALING_UNKNOWN) {
		sc->note = SCALING_NOTE_NO_BATCH;
		return;
	}
	sc->mode = mode;
	if (s->steps.global_batch > 0) /* samples per second's ratio */
		sc->speedup =
			tr * (double) s->steps.global_batch / (double) base->steps.global_batch;
	else
		sc->speedup = mode == SCALING_STRONG ? tr : tr * rr;
	sc->efficiency = sc->speedup / rr;
	intervals(sc, s, base, tr, rr);
	/* above 100 % only when its interval is too: else no measurable change from linear */
	if (s != base && sc->efficiency > 1.0 && sc->note == SCALING_NOTE_NONE &&
	    !stats_interval_holds(&sc->efficiency_ci, 1.0))
		sc->note = SCALING_NOTE_SUPERLINEAR;
}

/* analysis.scaling, the campaign's word for when the batches are unknown. */
static enum scaling_mode declared_mode(const char *word)
{
	if (word && !strcmp(word, "weak"))
		return SCALING_WEAK;
	return word && !strcmp(word, "strong") ? SCALING_STRONG : SCALING_UNKNOWN;
}

/* Scenarios scale against a baseline of the same series (same backend and
 * tasks per node): the campaign's baseline if it is in the series, else the
 * analysed scenario with the fewest nodes. */
void scaling_run(struct ana_run *run)
{
	for (size_t i = 0; i < run->n; i++) {
		struct ana_scenario *s = &run->sc[i], *base = NULL;
		if (!s->data.analysed || s->steps.no_steps) /* no steps, no step rate to scale */
			continue;
		for (size_t j = 0; j < run->n; j++) {
			struct ana_scenario *b = &run->sc[j];
			if (!b->data.analysed || b->steps.no_steps || !same_series(b, s))
				continue;
			if (run->baseline && !strcmp(run->baseline, b->in.name)) {
				base = b;
				break;
			}
			if (!base || b->in.nodes < base->in.nodes)
				base = b;
		}
		if (!base || base->steps.throughput <= 0)
			continue;
		snprintf(s->scaling.baseline, sizeof s->scaling.baseline, "%s", base->in.name);
		s->scaling.is_baseline = base == s;
		scale_against(s, base, declared_mode(run->scaling));
	}
}

/* The step time at the baseline's global batch. */
static double norm_step(const struct ana_scenario *s, const struct ana_scenario *base)
{
	if (s->steps.global_batch > 0 && base->steps.global_batch > 0)
		return s->steps.step_med_ms * (double) base->steps.global_batch /
			(double) s->steps.global_batch;
	if (s->scaling.mode == SCALING_WEAK) /* the global batch grows with the ranks */
		return s->steps.step_med_ms * (double)base->in.ranks / (double)s->in.ranks;
	return s->steps.step_med_ms;
}

/* A scenario that scales against base with a known mode (base itself too). */
static int in_series(const struct ana_scenario *s, const struct ana_scenario *base)
{
	return s->data.analysed && !s->steps.no_steps &&
		!strcmp(s->scaling.baseline, base->in.name) && s->in.nodes >= 1 &&
		(s == base || s->scaling.mode != SCALING_UNKNOWN);
}

static double model_at(const struct ana_model *m, double n)
{
	return m->b / n + m->a + m->c * log2(n);
}

/* The compute share of a scenario's step (the GPU's when the verdict came
 * from the GPU timeline); -1 when unknown. */
static double compute_share(const struct ana_scenario *s)
{
	if (s->outcome.basis == BASIS_GPU)
		return s->gpu.gpu_pct[GPU_COMPUTE];
	return s->outcome.basis == BASIS_HOST ? s->shares.compute_pct : -1;
}

/* A part of the step other than compute, as a share of step time on its basis */
struct part {
	enum share_kind kind;
	double pct;
};

#define PARTS 5

/* The parts of s's step other than compute, on its basis; returns the largest's index. */
static int parts_of(const struct ana_scenario *s, struct part o[PARTS])
{
	const double *g = s->gpu.gpu_pct;
	int gpu = s->outcome.basis == BASIS_GPU, k = 0;
	o[0] = (struct part){ SHARE_COMMUNICATION, gpu ? g[GPU_COMM] : s->shares.comm_pct };
	o[1] = (struct part){ SHARE_PEER_WAIT, gpu ? 0 : s->shares.sync_wait_pct };
	o[2] = (struct part){ SHARE_DATA, gpu ? g[GPU_IDLE_DATA] : s->shares.data_pct };
	o[3] = (struct part){ gpu ? SHARE_COPIES : SHARE_IO,
			      gpu ? g[GPU_MEMCPY] : s->shares.io_pct };
	o[4] = (struct part){ SHARE_HOST, gpu ? g[GPU_IDLE_HOST] : s->shares.other_pct };
	for (int i = 1; i < PARTS; i++)
		if (o[i].pct > o[k].pct)
			k = i;
	return k;
}

/* What limits scaling: the largest share that is not compute in the series' widest
 * scenario, on its basis; what the rest is made of: the baseline's largest. */
static void limit_of(struct ana_model *m, const struct ana_scenario *base,
		     const struct ana_scenario *w)
{
	struct part o[PARTS];
	int k = parts_of(w, o);
	m->limit = o[k].kind;
	m->limit_gpu = w->outcome.basis == BASIS_GPU;
	k = parts_of(base, o);
	m->base_rest = o[k].kind;
	m->base_rest_pct = o[k].pct;
}

/* How far the model is from the points it was fitted on. */
static void fit_quality(const struct ana_run *run, const struct ana_scenario *base,
			struct ana_model *m)
{
	for (size_t i = 0; i < run->n; i++) {
		const struct ana_scenario *s = &run->sc[i];
		if (!in_series(s, base))
			continue;
		double t = norm_step(s, base),
		       err = t > 0 ? 100 * fabs(model_at(m, s->in.nodes) - t) / t : 0;
		if (err > m->max_err_pct)
			m->max_err_pct = err, m->max_err_nodes = s->in.nodes;
	}
}

/* A share's time per rank and step (ms): the share of the step time it is a share of (on
 * the host's basis the mean active step over ranks, else the median step), not of the
 * median collective period, which the host's shares are not divided by. */
static double part_ms(const struct ana_scenario *s, double pct)
{
	double of = s->outcome.basis == BASIS_HOST && s->shares.rank_step_mean_ms > 0
		? s->shares.rank_step_mean_ms
		: s->steps.step_med_ms;
	return of * pct / 100;
}

/* The part other than compute whose per-rank time grew the most from base to w
 * (communication and waiting for peers as one; both on w's basis when they share it). */
static void growth_of(struct model_contention *c, const struct ana_scenario *base,
		      const struct ana_scenario *w)
{
	struct part ob[PARTS], ow[PARTS];
	parts_of(base, ob);
	parts_of(w, ow);
	ob[0].pct += ob[1].pct, ow[0].pct += ow[1].pct;
	double best = -1;
	for (int i = 0; i < PARTS; i++) {
		if (i == 1)
			continue;
		double b = part_ms(base, ob[i].pct), x = part_ms(w, ow[i].pct);
		if (x - b > best)
			best = x - b, c->grew = ow[i].kind, c->grew_base_ms = b,
			c->grew_wide_ms = x;
	}
	c->gpu = w->outcome.basis == BASIS_GPU;
}

/* The interval of the per-rank compute's growth from base to w: the bootstrap of the ratio of
 * the means of each rank's steps' compute, where both are on the host's basis (the shares'
 * own samples) with STATS_BOOTSTRAP_MIN_N steps or more; else none (known 0). */
static void growth_interval(struct model_contention *c, const struct ana_scenario *base,
			    const struct ana_scenario *w)
{
	const struct ana_shares *b = &base->shares, *x = &w->shares;
	memset(&c->growth_ci, 0, sizeof c->growth_ci);
	if (base->outcome.basis != BASIS_HOST || w->outcome.basis != BASIS_HOST ||
	    b->n_step_compute < STATS_BOOTSTRAP_MIN_N || x->n_step_compute < STATS_BOOTSTRAP_MIN_N)
		return;
	struct stats_sample bs = { b->step_compute_ms, b->n_step_compute },
			    ws = { x->step_compute_ms, x->n_step_compute };
	stats_bootstrap(&ws, 1, &bs, 1, STATS_MEAN, &c->growth_ci);
	/* (the shares from another source than these samples: no interval of them) */
	double said = c->wide_ms / c->base_ms;
	if (fabs(c->growth_ci.value - said) > 1e-6 * said)
		memset(&c->growth_ci, 0, sizeof c->growth_ci);
}

/* Per-rank compute that grows with the node count at the same work per rank is
 * ranks contending for the machine: every part of the step measured on the wider
 * scenarios is inflated by it, by as much as compute or more. */
static void contention(const struct ana_scenario *base, const struct ana_scenario *w,
		       struct ana_model *m)
{
	double cb = part_ms(base, compute_share(base)), cw = part_ms(w, compute_share(w));
	int same_work = base->in.ranks > 0 && w->in.ranks > 0 &&
		base->steps.global_batch * w->in.ranks == w->steps.global_batch * base->in.ranks;
	if (!same_work || cb <= 0 || cw < MODEL_CONTENTION_RATIO * cb ||
	    cw - cb < part_ms(w, MODEL_CONTENTION_MIN_PCT))
		return;
	struct model_contention *c = &m->contention;
	c->found = 1;
	c->base_ms = cb;
	c->wide_ms = cw;
	c->base_nodes = base->in.nodes;
	c->wide_nodes = w->in.nodes;
	c->wide_ranks = w->in.ranks;
	c->oversubscribed = w->outcome.oversubscribed;
	c->wide_eff = w->scaling.efficiency;
	c->wide_eff_ci = w->scaling.efficiency_ci;
	c->wide_by_means = w->scaling.by_means;
	snprintf(c->wide, sizeof c->wide, "%s", w->in.name);
	growth_of(c, base, w);
	growth_interval(c, base, w);
}

/* Least squares: b >= 0 on compute ~ b/N; a, c >= 0 on the rest ~ a + c log2 N. */
void scaling_fit_series(struct ana_run *run, const struct ana_scenario *base)
{
	double cn = 0, nn = 0, sl = 0, so = 0, sll = 0, slo = 0, k = 0;
	const struct ana_scenario *widest = base;
	int minn = base->in.nodes, maxn = base->in.nodes, step_only = 0;
	for (size_t i = 0; i < run->n; i++)
		step_only |= in_series(&run->sc[i], base) && compute_share(&run->sc[i]) < 0;
	for (size_t i = 0; i < run->n; i++) {
		const struct ana_scenario *s = &run->sc[i];
		if (!in_series(s, base))
			continue;
		double t = norm_step(s, base), comp = step_only ? 0 : t * compute_share(s) / 100,
		       over = t - comp, n = s->in.nodes, l = log2(n);
		cn += comp / n, nn += 1 / (n * n);
		sl += l, so += over, sll += l * l, slo += l * over, k++;
		if (s->in.nodes > maxn)
			maxn = s->in.nodes, widest = s;
		if (s->in.nodes < minn)
			minn = s->in.nodes;
	}
	if (k < MODEL_MIN_POINTS || maxn == minn)
		/* a + c log2 N needs three points: with two, only measured speedups are shown */
		return;
	struct ana_model m = {
		.points = (int)k, .base_nodes = minn, .max_nodes = maxn, .step_only = step_only
	};
	snprintf(m.series, sizeof m.series, "%s", base->in.name);
	m.b = step_only ? 0 : cn / nn;
	double det = k * sll - sl * sl;
	m.c = det > 0 ? (k * slo - sl * so) / det : 0;
	m.a = (so - m.c * sl) / k;
	if (m.c < 0)
		m.c = 0, m.a = so / k;
	if (m.a < 0)
		m.a = 0, m.c = sll > 0 ? slo / sll : 0;
	double t0 = model_at(&m, base->in.nodes);
	m.eff8 = t0 * base->in.nodes / (model_at(&m, 8) * 8);
	m.eff16 = t0 * base->in.nodes / (model_at(&m, 16) * 16);
	for (int n = 1; n <= MODEL_MAX_NODES && !m.crossover && !step_only; n++)
		if (m.a + m.c * log2(n) > m.b / n)
			m.crossover = n;
	if (!step_only) {
		contention(base, widest, &m);
		limit_of(&m, base, widest);
	}
	fit_quality(run, base, &m);
	/* on oversubscribed emulated nodes the model's growth is this machine's contention, for
	 * compute (contention) or any other part (one disk for every rank's checkpoints) */
	if (widest->outcome.oversubscribed) {
		m.emulated_ranks = widest->in.ranks;
		snprintf(m.emulated_wide, sizeof m.emulated_wide, "%s", widest->in.name);
	}
	m.predicts = m.max_err_pct <= MODEL_FITS_PCT && !m.emulated_ranks;
	run->models = xrealloc(run->models, (run->nmodels + 1) * sizeof *run->models);
	run->models[run->nmodels++] = m;
}
