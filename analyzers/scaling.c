/* scaling: across the scenarios of a run, speedup and efficiency against each series'
 * baseline (strong or weak scaling by the batch), and a fitted model of the step
 * (compute / N + a constant + a term growing with log2(N)) per series, its fit and
 * where it says scaling ends; no prose beyond the model's own sentence. */
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

/* Weak scaling keeps the per-rank batch, strong scaling the global batch;
 * from the batches when both are known, else from analysis.scaling. Either
 * way speedup is the ratio of samples per second (of step rates at strong
 * scaling's fixed work) and efficiency is speedup x baseline ranks / ranks.
 * Scenarios whose batch semantics differ from the baseline's get no speedup,
 * with the reason in scaling_note. */
static void scale_against(struct ana_scenario *s, const struct ana_scenario *base,
			  const char *declared)
{
	double rr = (double) s->in.ranks / (double) (base->in.ranks ? base->in.ranks : 1),
	       tr = base->steps.step_med_ms / s->steps.step_med_ms;
	const char *mode = NULL;
	s->scaling.speedup = s->scaling.efficiency = 0;
	if (s == base) {
		mode = s->steps.global_batch > 0 ? "" : declared ? declared : "";
	} else if (s->steps.global_batch > 0 && base->steps.global_batch > 0) {
		if (s->steps.global_batch * base->in.ranks ==
		    base->steps.global_batch * s->in.ranks)
			mode = "weak";
		else if (s->steps.global_batch == base->steps.global_batch)
			mode = "strong";
		else {
			snprintf(
				s->scaling.scaling_note, sizeof s->scaling.scaling_note,
				"no speedup: its batch semantics differ from %s's (global batch %ld at %d rank%s against %ld at %d: neither the per-rank nor the global batch is the same)",
				base->in.name, s->steps.global_batch, s->in.ranks,
				s->in.ranks == 1 ? "" : "s", base->steps.global_batch,
				base->in.ranks);
			return;
		}
		if (declared && strcmp(declared, mode))
			snprintf(
				s->scaling.scaling_note, sizeof s->scaling.scaling_note,
				"analysis.scaling says %s, but the batches (%ld at %d rank%s against %ld at %d) say %s scaling; the batches are used",
				declared, s->steps.global_batch, s->in.ranks,
				s->in.ranks == 1 ? "" : "s", base->steps.global_batch,
				base->in.ranks, mode);
	} else if (s->steps.global_batch > 0 || base->steps.global_batch > 0) {
		snprintf(
			s->scaling.scaling_note, sizeof s->scaling.scaling_note,
			"no speedup: the batch of %s is known and that of %s is not; give both (analysis.batch_per_rank or analysis.global_batch)",
			s->steps.global_batch > 0 ? s->in.name : base->in.name,
			s->steps.global_batch > 0 ? base->in.name : s->in.name);
		return;
	} else if (!declared) {
		snprintf(
			s->scaling.scaling_note, sizeof s->scaling.scaling_note,
			"no speedup: the samples per step are not known, so neither samples/s nor the scaling mode can be said; set analysis.global_batch (strong scaling), analysis.batch_per_rank (weak scaling) or analysis.scaling");
		return;
	} else
		mode = declared;
	snprintf(s->scaling.scaling_mode, sizeof s->scaling.scaling_mode, "%s", mode);
	if (s->steps.global_batch > 0)
		s->scaling.speedup = s->steps.throughput / base->steps.throughput;
	else
		s->scaling.speedup = !strcmp(mode, "strong") ? tr : tr * rr;
	s->scaling.efficiency = s->scaling.speedup / rr;
	if (s != base && s->scaling.efficiency > 1.0 && !s->scaling.scaling_note[0])
		snprintf(
			s->scaling.scaling_note, sizeof s->scaling.scaling_note,
			"efficiency above 100 %% (%.0f %%) is not expected: most often the baseline was slowed by something the wider scenario escaped (a node shared with another job, see slurm.exclusive; caches the smaller per-rank share now fits), or noise (step spread %.1f %% against %.1f %%)",
			100 * s->scaling.efficiency, s->steps.spread_pct, base->steps.spread_pct);
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
		scale_against(s, base, run->scaling);
	}
}

/* The step time at the baseline's global batch. */
static double norm_step(const struct ana_scenario *s, const struct ana_scenario *base)
{
	if (s->steps.global_batch > 0 && base->steps.global_batch > 0)
		return s->steps.step_med_ms * (double) base->steps.global_batch /
			(double) s->steps.global_batch;
	if (!strcmp(s->scaling.scaling_mode, "weak")) /* the global batch grows with the ranks */
		return s->steps.step_med_ms * (double)base->in.ranks / (double)s->in.ranks;
	return s->steps.step_med_ms;
}

/* A scenario that scales against base with a known mode (base itself too). */
static int in_series(const struct ana_scenario *s, const struct ana_scenario *base)
{
	return s->data.analysed && !s->steps.no_steps &&
		!strcmp(s->scaling.baseline, base->in.name) && s->in.nodes >= 1 &&
		(s == base || s->scaling.scaling_mode[0]);
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

/* The largest share that is not compute in the series' widest scenario. */
static const char *overhead_name(const struct ana_scenario *w)
{
	const double *g = w->gpu.gpu_pct;
	int gpu = w->outcome.basis == BASIS_GPU;
	struct { const char *name; double pct;
	} o[] = {
		{ "communication", gpu ? g[GPU_COMM] : w->shares.comm_pct },
		{ "waiting for slower ranks", gpu ? 0 : w->shares.sync_wait_pct },
		{ "data loading", gpu ? g[GPU_IDLE_DATA] : w->shares.data_pct },
		{ gpu ? "host-device copies" : "I/O", gpu ? g[GPU_MEMCPY] : w->shares.io_pct },
		{ gpu ? "the GPU waiting for the host" : "host overhead",
		  gpu ? g[GPU_IDLE_HOST] : w->shares.other_pct },
	};
	int k = 0;
	for (int i = 1; i < 5; i++)
		if (o[i].pct > o[k].pct)
			k = i;
	return o[k].name;
}

static void model_sentence(struct ana_model *m, const struct ana_scenario *widest)
{
	double n16 = model_at(m, 16), over16 = m->a + m->c * 4;
	if (m->step_only) {
		snprintf(
			m->limit, sizeof m->limit,
			"Fitted on the step times of %d scenarios (%d to %d nodes) without a compute term (where step time goes is not known, so no part of it can be called compute): %.2f + %.2f x log2(N) ms; predicted efficiency %.0f %% at 8 nodes and %.0f %% at 16. What limits scaling cannot be said from step times alone: a trace with steps or the trainer's telemetry would say.",
			m->points, m->base_nodes, m->max_nodes, m->a, m->c, 100 * m->eff8,
			100 * m->eff16);
		return;
	}
	const char *limiter = m->contention[0] ? "the ranks contending for the machine (see below)"
					       : overhead_name(widest);
	char from[64];
	snprintf(from, sizeof from, "beyond %d nodes", MODEL_MAX_NODES);
	if (m->crossover)
		snprintf(from, sizeof from, "from %d node%s on", m->crossover,
			 m->crossover == 1 ? "" : "s");
	snprintf(
		m->limit, sizeof m->limit,
		"Fitted on %d scenarios (%d to %d nodes), compute takes %.2f ms / N and the rest %.2f + %.2f x log2(N) ms, so scaling is limited by %s, which outgrows compute %s: predicted efficiency %.0f %% at 8 nodes and %.0f %% at 16, where that overhead is %.0f %% of a %.2f ms step.",
		m->points, m->base_nodes, m->max_nodes, m->b, m->a, m->c, limiter, from,
		100 * m->eff8, 100 * m->eff16, n16 > 0 ? 100 * over16 / n16 : 0, n16);
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
	if (m->max_err_pct <= MODEL_FITS_PCT)
		snprintf(
			m->fit, sizeof m->fit,
			"The model fits the measured points within %.1f %% (largest error at %d node%s).",
			m->max_err_pct, m->max_err_nodes, m->max_err_nodes == 1 ? "" : "s");
	else
		snprintf(
			m->fit, sizeof m->fit,
			"The model does not fit the measured points: it is off by %.1f %% at %d node%s, so its predictions beyond them are not reliable.",
			m->max_err_pct, m->max_err_nodes, m->max_err_nodes == 1 ? "" : "s");
}

/* Per-rank compute that grows with the node count at the same work per
 * rank is ranks contending for the machine, not communication. */
static void contention(const struct ana_run *run, const struct ana_scenario *base,
		       const struct ana_scenario *w, struct ana_model *m)
{
	double cb = base->steps.step_med_ms * compute_share(base) / 100,
	       cw = w->steps.step_med_ms * compute_share(w) / 100;
	int same_work = base->in.ranks > 0 && w->in.ranks > 0 &&
		base->steps.global_batch * w->in.ranks == w->steps.global_batch * base->in.ranks;
	if (!same_work || cb <= 0 || cw < MODEL_CONTENTION_RATIO * cb)
		return;
	char where[160] = "";
	if (run->host_cpus > 0)
		snprintf(where, sizeof where,
			 " (the local executor ran all %d ranks of %s on this machine's %d CPU%s)",
			 w->in.ranks, w->in.name, run->host_cpus, run->host_cpus == 1 ? "" : "s");
	snprintf(
		m->contention, sizeof m->contention,
		"Per-rank compute grew from %.2f ms at %d node%s to %.2f ms at %d nodes with the same work per rank: the ranks contend for CPUs, memory bandwidth or the network%s, so the slowdown is contention, not communication.",
		cb, base->in.nodes, base->in.nodes == 1 ? "" : "s", cw, w->in.nodes, where);
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
	if (!step_only)
		contention(run, base, widest, &m);
	model_sentence(&m, widest);
	fit_quality(run, base, &m);
	run->models = xrealloc(run->models, (run->nmodels + 1) * sizeof *run->models);
	run->models[run->nmodels++] = m;
}
