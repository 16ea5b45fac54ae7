/* advice_text: each recommendation of advice.c in words, with its prediction and
 * the numbers it rests on; summary.json's recommendations.
 * SPDX-License-Identifier: MIT */
#include "analyzers/stats.h"
#include "analyzers/analysis.h"
#include "analyzers/write/prose.h"
#include "analyzers/write/report.h"
#include "util/run_layout.h"
#include "analyzers/advice.h"
#include "analyzers/prediction_check.h"
#include "analyzers/replay_build.h"
#include "analyzers/write/data_text.h"
#include "analyzers/write/evidence.h"
#include "analyzers/write/scaling_text.h"
#include "analyzers/read/metrics.h"
#include "analyzers/summary_keys.h"

#include "util/err.h"
#include "analyzers/write/figures.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzers/write/report_parts.h"

/* 1 for a data-loading prediction of a user's DataLoader replayed between its two bounds
 * (all of its loading waiting, all of it CPU work). */
static int user_loader_bounds(const struct ana_rec *r, const struct ana_scenario *s)
{
	return r->kind == REC_DATA && s->replay.user_loader && s->replay.loader_wait_step_ms >= 0;
}

/* A change in %, for "%+.0f": 0 where it rounds to zero (never "-0 %"). */
static double pct0(double x)
{
	return fabs(x) <= 0.5 ? 0.0 : x;
}

/* The decimals of a predicted change in %, beside "gains under 2 %": one where it is near
 * that line (-1.7 %, not "-2 %"), none beyond. */
static int gain_decimals(double x)
{
	return fabs(x) < 2.5 && fabs(x) >= 0.05 ? 1 : 0;
}

int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->gain != y->gain)
		return x->gain > y->gain ? -1 : 1;
	return strcmp(x->text, y->text);
}


/* What to change about exposed communication, from the lead scenario's numbers. */
static void comm_words(struct strbuf *sb, const struct ana_scenario *s)
{
	int gpu = s->outcome.basis == BASIS_GPU;
	double overlap = gpu ? s->gpu.gpu_overlap_pct : s->shares.overlap_pct;
	char clause[512];
	if (!gpu && s->shares.sync_wait_pct > s->shares.comm_pct)
		strbuf_addf(
			sb,
			PROSE_COMM_WAIT_NOT_TRANSFER,
			s->shares.sync_wait_pct, s->shares.comm_pct);
	else if (overlap >= ANA_OVERLAP_ENOUGH_PCT)
		strbuf_addf(
			sb,
			PROSE_COMM_HIDDEN_ALREADY,
			overlap);
	else if (overlap > ANA_NEGLIGIBLE_PCT)
		strbuf_addf(
			sb,
			PROSE_COMM_OVERLAP_LOW,
			overlap);
	else
		strbuf_adds(
			sb,
			PROSE_COMM_NO_OVERLAP);
	fabric_clause(s, clause, sizeof clause);
	if (clause[0])
		strbuf_addf(sb, ". %.*s", (int)strlen(clause) - 1, clause);
}

/* What to change about the step's path (a straggler, data, I/O, the host, copies). */
static void path_words(struct strbuf *sb, enum rec_kind k, const struct ana_scenario *s)
{
	int gpu = s->outcome.basis == BASIS_GPU;
	switch (k) {
	case REC_DATA:
		strbuf_adds(
			sb,
			gpu ? PROSE_DATA_GPU_IDLE
			    : "add data-loader workers or prefetch depth, or make decoding cheaper, so that loading hides behind compute");
		return;
	case REC_IO:
		strbuf_adds(
			sb,
			"checkpoint less often, write asynchronously or from one rank to fast local storage");
		return;
	case REC_HOST:
		strbuf_adds(
			sb,
			gpu ? PROSE_HOST_GPU_WAITS
			    : PROSE_HOST_NO_OPERATOR);
		return;
	case REC_COPIES:
		strbuf_adds(
			sb,
			"host-device copies are hidden behind nothing: pin host memory and copy with non_blocking=True on a side stream, or keep the data on the GPU");
		return;
	case REC_STRAGGLER:
	case REC_COMMUNICATION:
	case REC_BATCH:
	case REC_ELEMENTWISE:
	case REC_KERNELS:
	case REC_MEMORY_PEAK:
	case REC_COLLECT:
	case REC_KIND_N:
		break;
	}
}

/* A scenario's first straggler group, with its cause (and the scenario's name when the
 * recommendation has several: each names its own). */
static void straggler_named(struct strbuf *sb, const struct ana_scenario *s, int named,
			    int cause)
{
	const struct straggler *g = s->comm.stragglers;
	evidence_straggler_names(sb, g, straggler_group_len(g, s->comm.n_stragglers, 0));
	if (named || cause)
		strbuf_addf(sb, " (%s%s%s%s)", named ? s->in.name : "",
			    named && cause ? ", " : "", cause ? "cause: " : "",
			    cause ? evidence_cause_words(g->cause_kind) : "");
}

/* Each scenario's straggler keeps the others waiting: named per scenario, with the cause
 * once when they share it. */
static void straggler_words(struct strbuf *sb, const struct ana_rec *r, const struct ana_run *run)
{
	const struct straggler *g0 = run->sc[r->sc[0]].comm.stragglers;
	int same = 1, plural = r->n > 1 ||
			       straggler_group_len(g0, run->sc[r->sc[0]].comm.n_stragglers, 0) > 1;
	for (size_t i = 1; i < r->n; i++)
		same &= run->sc[r->sc[i]].comm.stragglers[0].cause_kind == g0->cause_kind;
	for (size_t i = 0; i < r->n; i++) {
		strbuf_adds(sb, i == 0 ? "" : i + 1 == r->n ? " and " : ", ");
		straggler_named(sb, &run->sc[r->sc[i]], r->n > 1, !same);
	}
	if (same)
		strbuf_addf(sb, " keep%s the others waiting (%s cause: %s%s)", plural ? "" : "s",
			    plural ? "their" : "its", evidence_cause_words(g0->cause_kind),
			    g0->cause_kind != STRAGGLER_UNKNOWN ? ""
								: ": no phase explains half of it");
	else
		strbuf_adds(sb, " keep the others waiting");
	/* a node all of whose ranks are slow (not the local executor's: that is this machine)
	 * is the node's doing; else the rank's */
	const char *node = NULL;
	for (size_t i = 0; i < r->n && !node; i++) {
		const struct ana_comm *c = &run->sc[r->sc[i]].comm;
		node = c->slow_node[0] && !c->slow_node_emulated ? c->slow_node : NULL;
	}
	if (node)
		strbuf_addf(
			sb,
			"; check %s (every rank of it is slow: its load, clocks or hardware) or run without it, before tuning the collectives",
			node);
	else
		strbuf_addf(sb, "; balance %s data or work before tuning the collectives",
			    plural ? "their" : "its");
	struct strbuf shared = STRBUF_INIT;
	for (size_t i = 0; i < r->n; i++)
		if (run->sc[r->sc[i]].outcome.oversubscribed)
			strbuf_addf(&shared, "%s%s", shared.len ? ", " : "",
				    run->sc[r->sc[i]].in.name);
	if (shared.len)
		strbuf_addf(sb, PROSE_STRAGGLER_ADVICE_SHARED_CPUS, run->host_cpus,
			    run->host_cpus == 1 ? "" : "s", shared.buf);
	strbuf_free(&shared);
}

/* A step's compute share on its verdict's basis; -1 with no breakdown (monitors alone). */
static double compute_pct(const struct ana_scenario *s)
{
	if (s->outcome.basis == BASIS_GPU)
		return s->gpu.gpu_pct[GPU_COMPUTE];
	/* less the compute stragglers' extra, which counts with the waiting for them: the
	 * difference of the two as printed (evidence_compute_less_pct) */
	return s->outcome.basis == BASIS_HOST ? evidence_compute_less_pct(s) : -1;
}

/* The CPUs' busy share when the monitors call them saturated; -1 otherwise. */
static double cpu_busy_pct(const struct ana_scenario *s)
{
	return s->outcome.v.verdict == VERDICT_CPU_SATURATED ? s->mon.cpu_util_mean_pct : -1;
}

/* The GPUs' busy share when the monitors alone give it the verdict; -1 otherwise. */
static double gpu_busy_pct(const struct ana_scenario *s)
{
	return s->outcome.basis == BASIS_MONITORS ? s->mon.gpu_util_mean_pct : -1;
}

/* of() over r's scenarios that have it (>= 0): "82.4 %", or "75.0 % to 82.4 %" when they
 * differ; 0 (nothing written) when none has it. */
static int pct_range(struct strbuf *sb, const struct ana_rec *r, const struct ana_run *run,
		     double (*of)(const struct ana_scenario *))
{
	double lo = -1, hi = -1;
	for (size_t i = 0; i < r->n; i++) {
		double c = of(&run->sc[r->sc[i]]);
		if (c < 0)
			continue;
		lo = lo < 0 || c < lo ? c : lo;
		hi = hi < 0 || c > hi ? c : hi;
	}
	if (lo < 0)
		return 0;
	char a[32], b[32];
	snprintf(a, sizeof a, "%.1f", lo);
	snprintf(b, sizeof b, "%.1f", hi);
	strbuf_addf(sb, strcmp(a, b) ? "%s %% to %s %%" : "%s %%", a, b);
	return 1;
}

/* Beside compute-bound advice, the compute stragglers' extra and the waiting for it: the
 * straggler's recommendation's, not the kernels'. */
static void excess_said(struct strbuf *sb, const struct ana_scenario *s)
{
	const struct straggler *g = s->comm.stragglers;
	size_t len = straggler_group_len(g, s->comm.n_stragglers, 0);
	strbuf_adds(sb, "; the extra compute of ");
	evidence_straggler_names(sb, g, len);
	strbuf_addf(sb, PROSE_COMPUTE_EXCESS_ELSEWHERE, s->outcome.excess_pct,
		    len > 1 ? "them" : "it", s->shares.sync_wait_pct);
}

/* compute-bound: the compute share, or the GPUs' busy share where the monitors alone
 * named it (never a share of the step nobody measured). */
static void kernels_said(struct strbuf *sb, const struct ana_rec *r, const struct ana_run *run)
{
	struct strbuf gpus = STRBUF_INIT;
	strbuf_adds(sb, "compute-bound (");
	if (pct_range(sb, r, run, compute_pct)) {
		strbuf_adds(sb, " compute");
		if (pct_range(&gpus, r, run, gpu_busy_pct))
			strbuf_addf(sb, "; from the node monitors alone GPUs busy %s", gpus.buf);
	} else {
		strbuf_adds(sb, "from the node monitors: GPUs busy ");
		pct_range(sb, r, run, gpu_busy_pct);
	}
	strbuf_free(&gpus);
	strbuf_adds(sb, ")");
}

/* Saturated CPUs named by the monitors (with the ranks sharing them on the local
 * executor), before what to collect. */
static void cpus_said(struct strbuf *sb, const struct ana_rec *r, const struct ana_run *run)
{
	struct strbuf busy = STRBUF_INIT;
	int shared = 0;
	for (size_t i = 0; i < r->n; i++)
		shared |= run->sc[r->sc[i]].outcome.oversubscribed &&
			  cpu_busy_pct(&run->sc[r->sc[i]]) >= 0;
	if (pct_range(&busy, r, run, cpu_busy_pct))
		strbuf_addf(sb,
			    "the CPUs are saturated (busy %s of the time, from the node monitors)",
			    busy.buf);
	if (busy.len && shared)
		strbuf_addf(
			sb,
			", and more ranks ran than this machine's %d CPU%s: run fewer ranks per machine, or on real nodes, to time the steps without that contention",
			run->host_cpus, run->host_cpus == 1 ? "" : "s");
	if (busy.len)
		strbuf_adds(sb, "; ");
	strbuf_free(&busy);
}

/* What to change about compute itself, memory, or what to collect. */
static void compute_words(struct strbuf *sb, const struct ana_rec *r, const struct ana_run *run)
{
	enum rec_kind k = r->kind;
	const struct ana_scenario *s = &run->sc[r->sc[r->lead]];
	int gpu = s->outcome.basis == BASIS_GPU;
	switch (k) {
	case REC_ELEMENTWISE:
		strbuf_adds(sb, "compute (");
		pct_range(sb, r, run, compute_pct);
		strbuf_addf(
			sb,
			PROSE_COMPUTE_ELEMENTWISE,
			gpu ? "the GPU's time" : "step time");
		if (!gpu && s->outcome.excess_pct > 0)
			excess_said(sb, s);
		return;
	case REC_KERNELS:
		kernels_said(sb, r, run);
		strbuf_adds(
			sb,
			PROSE_COMPUTE_KERNELS);
		if (!gpu && s->outcome.excess_pct > 0)
			excess_said(sb, s);
		return;
	case REC_MEMORY_PEAK:
		strbuf_addf(
			sb,
			PROSE_MEMORY_FULL,
			s->mon.gpu_mem_peak_pct >= 0 ? "GPU" : "host",
			s->mon.gpu_mem_peak_pct >= 0 ? s->mon.gpu_mem_peak_pct
						     : s->mon.mem_peak_pct);
		return;
	case REC_COMMUNICATION:
	case REC_STRAGGLER:
	case REC_DATA:
	case REC_IO:
	case REC_HOST:
	case REC_BATCH:
	case REC_COPIES:
	case REC_COLLECT:
	case REC_KIND_N:
		break;
	}
	cpus_said(sb, r, run);
	strbuf_addf(
		sb, PROSE_SHARES_UNKNOWN_ADVICE,
		s->data.source != SOURCE_NONE ? data_text_source(s->data.source)
					      : "node monitors alone",
		s->mon.have_monitor
			? ""
			: ", and node monitors (profile.monitor: true) for the busiest resource");
}

/* What the runner-up's own change (kind k) is predicted to pay in scenario s, as near_tie_said
 * says it: its replay where one was made, else its ceiling, else that nothing predicts it. */
static void near_tie_prediction(struct strbuf *sb, const struct ana_scenario *s, enum rec_kind k)
{
	double p = k < REC_KIND_N ? advice_predicted_ms(s, k) : -1;
	if (p >= 0 && s->steps.step_med_ms > 0)
		strbuf_addf(sb,
			    advice_replayed(s, k) ? PROSE_NEAR_TIE_REPLAYED
						  : PROSE_NEAR_TIE_CEILING,
			    rec_kind_name(k), s->steps.step_med_ms, p);
	else if (k < REC_KIND_N)
		strbuf_addf(sb, PROSE_NEAR_TIE_UNPREDICTED, rec_kind_name(k));
	else
		strbuf_adds(sb, PROSE_NEAR_TIE_NO_REC);
}

/* Compute advice for a verdict whose runner-up, not compute, takes nearly as much: said, with
 * what the runner-up's own recommendation predicts for the scenario. */
static void near_tie_said(struct strbuf *sb, const struct ana_scenario *s)
{
	const struct verdict_out *v = &s->outcome.v;
	if (v->borderline != BORDERLINE_NEAR || v->runner_share == SHARE_COMPUTE)
		return;
	strbuf_addf(
		sb, PROSE_NEAR_TIE_ADVICE,
		evidence_share_words_of(s, v->runner_share, s->comm.n_stragglers > 0),
		evidence_takes_of(s, v->runner_share), s->in.name,
		evidence_shown_pct(s, v->runner_share, v->runner_pct),
		evidence_shown_pct(s, v->share, v->pct));
	near_tie_prediction(sb, s, advice_kind_of_share(v->runner_share));
}

/* The advice of a cause in words, from its lead scenario's numbers (a straggler's and
 * compute's from each scenario's). */
static void rec_words(struct strbuf *sb, const struct ana_rec *r, const struct ana_run *run)
{
	const struct ana_scenario *s = &run->sc[r->sc[r->lead]];
	switch (r->kind) {
	case REC_COMMUNICATION:
		comm_words(sb, s);
		return;
	case REC_STRAGGLER:
		straggler_words(sb, r, run);
		return;
	case REC_BATCH:
		strbuf_adds(
			sb,
			PROSE_BATCH_DOUBLE);
		strbuf_adds(
			sb,
			advice_kind_of(s) == REC_HOST
				? ". With the host change too, the two gains overlap (the same per-step host work) and do not add"
				: ". With a communication change too, the two gains overlap (the same all-reduce) and do not add");
		return;
	case REC_DATA:
	case REC_IO:
	case REC_HOST:
	case REC_COPIES:
		path_words(sb, r->kind, s);
		return;
	case REC_ELEMENTWISE:
	case REC_KERNELS:
	case REC_MEMORY_PEAK:
	case REC_COLLECT:
	case REC_KIND_N:
		compute_words(sb, r, run);
		near_tie_said(sb, s);
		return;
	}
}

/* What a recommendation's predictions come from, in words. */
static const char *rec_basis_words(enum rec_basis b)
{
	switch (b) {
	case REC_BASIS_NONE:
		return "none";
	case REC_BASIS_HOST:
		return "host step shares";
	case REC_BASIS_GPU:
		return "GPU windows";
	case REC_BASIS_STRAGGLER:
		return "straggler impact";
	case REC_BASIS_REPLAY:
		return "replay";
	}
	return "none";
}

/* What the ceilings of r come from, in words (a replayed scenario's too). */
static const char *ceiling_words(const struct ana_rec *r, const struct ana_run *run)
{
	if (r->basis != REC_BASIS_REPLAY)
		return rec_basis_words(r->basis);
	if (r->kind == REC_STRAGGLER) /* its ceiling is its impact, replayed or not */
		return rec_basis_words(REC_BASIS_STRAGGLER);
	for (size_t i = 0; i < r->n; i++)
		if (r->ceiling_ms[i] >= 0)
			return run->sc[r->sc[i]].outcome.basis == BASIS_GPU ? "GPU windows"
									   : "host step shares";
	return "none";
}

/* Cores busier than this over a changed replay take up what the change frees. */
#define CORES_ABSORB_PCT 80.0

/* Beside a replayed prediction: the unchanged graph's own error, and where the change gains
 * under 2 % (no_gain), why: busy cores (busy_pct of the changed replay) that take up what it
 * frees, or, with cores to spare, other work that sets the step. */
static void replay_fidelity_said(struct strbuf *sb, const struct ana_scenario *s, int no_gain,
				 double busy_pct)
{
	/* busy_pct is the busiest host's: its cores are named */
	const char *whose = s->replay.hosts > 1 ? "busiest node's " : "";
	if (s->replay.by_means)
		strbuf_addf(sb, PROSE_REPLAY_ERROR_BY_MEANS, s->replay.mean_error_pct,
			    replay_means_whose(&s->replay), s->replay.error_pct);
	else
		strbuf_addf(
			sb,
			"; replay error %+.1f %% (the unchanged graph against the measured median)",
			s->replay.error_pct);
	if (fabs(replay_result_error(&s->replay)) > REPLAY_ROUGH_PCT)
		strbuf_addf(sb, PROSE_REPLAY_ROUGH, REPLAY_ROUGH_PCT);
	else if (replay_median_rough(&s->replay))
		strbuf_addf(sb, PROSE_REPLAY_MEDIAN_ROUGH, REPLAY_ROUGH_PCT);
	if (no_gain && busy_pct >= CORES_ABSORB_PCT)
		strbuf_addf(sb, PROSE_NO_GAIN_CORES_BUSY, whose, s->replay.cores, busy_pct);
	else if (no_gain)
		strbuf_addf(sb, PROSE_NO_GAIN_OTHER_WORK, whose, s->replay.cores, busy_pct);
	/* the monitors' figure beside it, where they differ by more than a fifth of the cores */
	if (no_gain && s->mon.have_monitor && s->replay.hosts == 1 &&
	    fabs(s->mon.cpu_util_mean_pct - busy_pct) > 20)
	{
		double per = data_text_monitor_per_node(s);
		char rough[80] = "";
		if (per < MONITORS_FEW_PER_NODE)
			snprintf(rough, sizeof rough, " (rough: %.0f sample%s a node)", per,
				 per == 1 ? "" : "s");
		strbuf_addf(sb, PROSE_REPLAY_BUSY_BESIDE_MONITORS, s->mon.cpu_util_mean_pct, rough);
	}
}

/* The batch per rank doubled, replayed: the step of twice the samples and the samples/s it
 * gives over the measured, with its interval (the rate only where it has one: 5 replayed
 * steps or more, ADVICE_REPLAY_MIN_STEPS, paired). */
static void batch_replayed_words(struct strbuf *sb, const struct ana_rec *r, size_t i,
				 const struct ana_run *run)
{
	const struct ana_scenario *s = &run->sc[r->sc[i]];
	const struct replay_pred *b = &s->replay.batch;
	double x = REPLAY_BATCH_X * s->replay.measured_ms;
	strbuf_addf(sb, "%s%s%s%.2f ms a step -> %.2f ms a step for twice the samples",
		    sb->len ? "; " : "", r->n > 1 ? s->in.name : "", r->n > 1 ? " " : "",
		    r->step_ms[i], b->step_ms);
	/* a host-bound GPU step that twice the kernels leave as long: why, lest it read as a
	 * slip (the doubled kernels still fit under the host's launches) */
	if (s->outcome.v.verdict == VERDICT_HOST && s->gpu.gpu_basis &&
	    fabs(b->step_ms / r->step_ms[i] - 1) < 0.02)
		strbuf_adds(sb, PROSE_BATCH_HOST_BOUND_SAME);
	if (s->replay.steps < ADVICE_REPLAY_MIN_STEPS) /* the interval, not the claim */
		strbuf_addf(
			sb,
			" (%zu step%s replayed: too few for an interval, a rate to claim or a rank among the recommendations)",
			s->replay.steps, s->replay.steps == 1 ? "" : "s");
	else if (b->lo_ms < 0)
		strbuf_addf(sb, " (no interval: %s, so no rate to claim)",
			    PROSE_REPLAY_TOO_FEW_PAIRED);
	else if (b->lo_ms > 0 && b->gemm_bound_step_ms > 0) /* (the interval reaches it) */
		strbuf_addf(sb, PROSE_BATCH_SAMPLES_RATE_GEMM, x / b->step_ms, r->predicted_ms[i],
			    pct0(100 * (r->predicted_ms[i] / r->step_ms[i] - 1)),
			    100 * s->replay.gemm_share, b->gemm_bound_step_ms,
			    x / b->gemm_bound_step_ms, x / b->hi_ms, x / b->lo_ms);
	else if (b->lo_ms > 0) /* (summary.json's throughput_x: the same rule) */
		strbuf_addf(
			sb,
			PROSE_BATCH_SAMPLES_RATE,
			x / b->step_ms, r->predicted_ms[i],
			pct0(100 * (r->predicted_ms[i] / r->step_ms[i] - 1)), x / b->hi_ms,
			x / b->lo_ms);
	replay_fidelity_said(sb, s, x / b->step_ms < 1.02, b->busy_pct);
}

/* A user's DataLoader's bounds, all of its loading waiting and all of it CPU work: by the
 * means (against the measured mean, the medians beside) where the mean leads. */
static void loader_bounds_said(struct strbuf *sb, const struct replay_result *p, double step_ms,
			       int by_means)
{
	double base = p->data.measured_mean_ms;
	int means = by_means && base > 0;
	if (p->loader_wait_step_ms >= 0 && means && p->loader_wait_mean_ms > 0)
		strbuf_addf(sb, PROSE_USER_LOADER_WAITING_MEANS, p->loader_wait_mean_ms,
			    pct0(100 * (p->loader_wait_mean_ms / base - 1)),
			    p->loader_wait_step_ms);
	else if (p->loader_wait_step_ms >= 0)
		strbuf_addf(sb, PROSE_USER_LOADER_WAITING, p->loader_wait_step_ms,
			    pct0(100 * (p->loader_wait_step_ms / step_ms - 1)));
	if (p->loader_cpu_step_ms >= 0 && means && p->loader_cpu_mean_ms > 0)
		strbuf_addf(sb, PROSE_USER_LOADER_ALL_CPU_MEANS, p->loader_cpu_mean_ms,
			    pct0(100 * (p->loader_cpu_mean_ms / base - 1)), p->loader_cpu_step_ms);
	else if (p->loader_cpu_step_ms >= 0)
		strbuf_addf(sb, PROSE_USER_LOADER_ALL_CPU_STEP, p->loader_cpu_step_ms,
			    pct0(100 * (p->loader_cpu_step_ms / step_ms - 1)));
}

/* The loader a data-loading prediction replayed: the trainer's threads, or a DataLoader's
 * workers, with how much of its loading was CPU work, or both bounds where not measured. */
static void loader_said(struct strbuf *sb, const struct ana_scenario *s, double step_ms,
			int by_means)
{
	const struct replay_result *p = &s->replay;
	if (!p->user_loader) {
		strbuf_addf(sb,
			    ", %d loader threads a rank (%zu measured) with a prefetch depth of %d",
			    s->in.loader_workers, p->loaders, s->in.loader_prefetch);
		return;
	}
	strbuf_addf(sb, PROSE_USER_LOADER, s->in.loader_workers, s->in.loader_prefetch);
	if (p->loader_cpu_pct >= 0)
		strbuf_addf(sb, PROSE_USER_LOADER_CPU, p->loader_cpu_pct);
	/* the part its steps must cover: 2 L - (end - start) of the monitored span */
	if (p->loader_cpu_pct >= 0 && p->loader_cpu_span_s > 0)
		strbuf_addf(sb, PROSE_USER_LOADER_CPU_WITHIN,
			    2 * p->loader_cpu_span_s - p->loader_monitored_s,
			    p->loader_by_write ? PROSE_USER_LOADER_WRITTEN
					       : PROSE_USER_LOADER_MONITORS_END,
			    p->loader_cpu_span_s);
	else if (p->loader_cpu_pct < 0 && p->loader_unplaced_s > 0)
		strbuf_addf(sb, PROSE_USER_LOADER_UNPLACED, p->loader_unplaced_s,
			    p->loader_monitored_s,
			    p->loader_by_write ? PROSE_USER_LOADER_BY_WRITE : "");
	else if (p->loader_cpu_pct < 0)
		strbuf_adds(sb, PROSE_USER_LOADER_ALL_CPU);
	loader_bounds_said(sb, p, step_ms, by_means);
}

/* A communication change where the ranks take every core (as many as the replay's hosts have
 * cores, or more): an overlapped all-reduce's threads have no core of their own, so its replay
 * is the most it gives (the trainer's communication-1n, 2 ranks on 2 cores, measured slower
 * than its replay in 4 of 5 rounds). */
static int comm_on_every_core(enum rec_kind k, const struct ana_scenario *s)
{
	return k == REC_COMMUNICATION && s->outcome.basis == BASIS_HOST && s->replay.cores > 0 &&
	       s->replay.hosts > 0 && s->in.ranks >= s->replay.hosts * s->replay.cores;
}

/* Beside r's i-th replayed prediction, the old ceiling: "at most", or, where the replay
 * gains more, why: steps not alike (a median's share bounds nothing), or a gain beyond it. */
static void ceiling_said(struct strbuf *sb, const struct ana_rec *r, size_t i)
{
	if (r->ceiling_ms[i] < 0)
		return;
	double pct = 100 * (1 - r->ceiling_ms[i] / r->step_ms[i]);
	if (r->predicted_ms[i] < r->ceiling_ms[i])
		strbuf_addf(sb,
			    r->by_means[i] ? PROSE_CEILING_BELOW_REPLAY
					   : PROSE_CEILING_BELOW_REPLAY_ALIKE,
			    pct, r->ceiling_ms[i]);
	else if (r->by_means[i]) /* a median's share off: no bound on steps not alike */
		strbuf_addf(sb, PROSE_CEILING_UNALIKE, pct, r->ceiling_ms[i]);
	else
		strbuf_addf(sb, "; at most -%.0f %% (%.2f ms) by the ceiling", pct,
			    r->ceiling_ms[i]);
}

/* A replayed interval in words into buf: "A-B ms", or none where too few steps were replayed
 * or paired for one (replay_pred's -1). */
static const char *interval_words(char *buf, size_t n, double lo, double hi, size_t steps)
{
	if (lo >= 0 && hi - lo < 0.005) /* every step's ratio alike: no spread, not an interval */
		snprintf(buf, n, "none (its replayed steps all moved alike: no spread)");
	else if (lo >= 0)
		snprintf(buf, n, "%.2f-%.2f ms", lo, hi);
	else if (steps < ADVICE_REPLAY_MIN_STEPS)
		snprintf(buf, n, "none (%zu step%s replayed: %d or more give one)", steps,
			 steps == 1 ? "" : "s", ADVICE_REPLAY_MIN_STEPS);
	else
		snprintf(buf, n, "none (%s)", PROSE_REPLAY_TOO_FEW_PAIRED);
	return buf;
}

/* The value of key k in series key s (orchestrator/aggregate.c's series_key:
 * "backend/tasks/gpus;k=v;...;env#N"), its length into *n; NULL when absent. */
static const char *series_value(const char *s, const char *k, size_t *n)
{
	size_t kl = strlen(k);
	for (const char *p = strchr(s, ';'); p; p = strchr(p + 1, ';'))
		if (!strncmp(p + 1, k, kl) && (p[1 + kl] == '=' || p[1 + kl] == '#')) {
			const char *v = p + 2 + kl, *e = strchr(v, ';');
			*n = e ? (size_t)(e - v) : strlen(v);
			return v;
		}
	return NULL;
}

/* Whether series key a has key k[0, kl) with no value of it the same in b (absent from b, or
 * other there). */
static int series_differs(const char *a, const char *k, size_t kl, const char *b)
{
	char key[128];
	size_t na = 0, nb = 0;
	snprintf(key, sizeof key, "%.*s", (int)(kl < sizeof key ? kl : sizeof key - 1), k);
	const char *va = series_value(a, key, &na), *vb = series_value(b, key, &nb);
	return !(va && vb && na == nb && !memcmp(va, vb, na));
}

/* Each key of series key a that b does not hold alike, named into names (",": "`extra`",
 * "the environment"), counted in *n; 0 when a key cannot be read. */
static int keys_apart(struct strbuf *names, size_t *n, const char *a, const char *b,
		      int only_absent)
{
	for (const char *p = strchr(a, ';'); p; p = strchr(p + 1, ';')) {
		size_t kl = strcspn(p + 1, "=#;"), dummy;
		char key[64];
		/* a name a reader can be shown as it is: else what sets them apart is not known */
		if ((p[1 + kl] != '=' && p[1 + kl] != '#') || !kl || kl >= sizeof key ||
		    strspn(p + 1,
			   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") <
			    kl)
			return 0;
		snprintf(key, sizeof key, "%.*s", (int)kl, p + 1);
		if (only_absent ? series_value(b, key, &dummy) != NULL
				: !series_differs(a, p + 1, kl, b))
			continue;
		if (!strcmp(key, "env"))
			strbuf_addf(names, "%sits environment", (*n)++ ? ", " : "");
		else
			strbuf_addf(names, "%sits `%s` parameter", (*n)++ ? ", " : "", key);
	}
	return 1;
}

/* The keys that set series keys s and t apart, named into names and counted in *n; 0 when
 * not known (keys_apart). */
static int apart_of(struct strbuf *names, size_t *n, const char *s, const char *t)
{
	*n = 0;
	return s && t && strncmp(s, "sha256:", 7) && strncmp(t, "sha256:", 7) &&
	       keys_apart(names, n, s, t, 0) && keys_apart(names, n, t, s, 1);
}

/* What sets scenario t apart from s in the campaign, named, never a value (the series keys'
 * parameter names, and the environment's sameness): "its `extra` parameter"; 0 when not
 * known (a key hashed for its length, a name not of [A-Za-z0-9_.-], a value holding ';'
 * and no '=' after it). */
static int differs_said(struct strbuf *sb, const char *s, const char *t)
{
	struct strbuf names = STRBUF_INIT;
	size_t n = 0;
	int known = apart_of(&names, &n, s, t) && n;
	char *last = known && n > 1 ? strrchr(names.buf, ',') : NULL;
	if (last) /* "a, b and c" */
		strbuf_addf(sb, "%.*s and%s", (int)(last - names.buf), names.buf, last + 1);
	else if (known)
		strbuf_adds(sb, names.buf);
	strbuf_free(&names);
	return known;
}

/* Beside a counterpart t: where s's first collective row (its op and size) took a transfer
 * a tenth or more apart from the same row's in t, both, measured: the replay keeps s's
 * (operations as they ran beside the straggler), which the counterpart need not repeat. */
static void transfer_beside(struct strbuf *sb, const struct ana_scenario *s,
			    const struct ana_scenario *t)
{
	if (!s->comm.ncolls)
		return;
	const struct collective *a = &s->comm.colls[0];
	for (size_t k = 0; k < t->comm.ncolls; k++) {
		const struct collective *b = &t->comm.colls[k];
		if (b->op != a->op || b->size_class != a->size_class || a->size_class < 0 ||
		    a->latency_med <= 0 || b->latency_med <= 0)
			continue;
		if (fabs(b->latency_med / a->latency_med - 1) >= 0.1)
			strbuf_addf(sb, PROSE_COUNTERPART_TRANSFER, coll_op_name(a->op),
				    a->latency_med, b->latency_med, t->in.name);
		return;
	}
}

/* How many parameters set scenarios of series keys s and t apart (SIZE_MAX: not known). */
static size_t params_apart(const char *s, const char *t)
{
	struct strbuf names = STRBUF_INIT;
	size_t n = 0;
	int known = apart_of(&names, &n, s, t);
	strbuf_free(&names);
	return known ? n : SIZE_MAX;
}

/* The scenario of s's nodes, ranks and backend with no straggler named that the fewest
 * parameters set apart from s (the first of them; NULL: none): data-loader-4n's was
 * communication-4n, seven parameters apart, where one of a single parameter may exist. */
static const struct ana_scenario *nearest_counterpart(const struct ana_scenario *s,
						      const struct ana_run *run)
{
	const struct ana_scenario *best = NULL;
	size_t best_n = 0;
	for (size_t k = 0; k < run->n; k++) {
		const struct ana_scenario *t = &run->sc[k];
		if (t == s || !t->data.analysed || t->steps.no_steps || t->comm.n_stragglers ||
		    t->in.nodes != s->in.nodes || t->in.ranks != s->in.ranks ||
		    strcmp(t->in.backend ? t->in.backend : "", s->in.backend ? s->in.backend : ""))
			continue;
		size_t n = params_apart(s->in.series, t->in.series);
		if (!best || n < best_n)
			best = t, best_n = n;
	}
	return best;
}

/* A straggler's prediction (kind REC_STRAGGLER) beside what the campaign measured without
 * one: the nearest counterpart (the campaign's even run, where it has one), its median and
 * p95: a counterpart to set the prediction against, not a check of it (what else differs
 * between the two is named, not measured). */
static void counterpart_said(struct strbuf *sb, enum rec_kind kind, const struct ana_scenario *s,
			     const struct ana_run *run)
{
	const struct ana_scenario *t = kind == REC_STRAGGLER ? nearest_counterpart(s, run) : NULL;
	if (t) {
		struct strbuf apart = STRBUF_INIT;
		strbuf_adds(&apart, "set apart by ");
		if (!differs_said(&apart, s->in.series, t->in.series)) {
			strbuf_reset(&apart);
			strbuf_adds(&apart, "what sets it apart is not known");
		}
		strbuf_addf(sb, PROSE_STRAGGLER_COUNTERPART, t->in.name, apart.buf,
			    t->steps.step_med_ms, t->steps.step_p95_ms);
		strbuf_free(&apart);
		transfer_beside(sb, s, t);
	}
}

/* A replayed prediction's interval after its step, with the bound it rests on (the
 * communication change's, the loader's, the storage floor), or why it has none. */
static void interval_said(struct strbuf *sb, const struct ana_rec *r, size_t i,
			  const struct ana_scenario *s, const struct replay_pred *c)
{
	char iv[96];
	interval_words(iv, sizeof iv, r->lo_ms[i], r->hi_ms[i], s->replay.steps);
	if (c->bound)
		strbuf_addf(sb, PROSE_COMM_EARLY_BOUND, iv);
	else if (c->per_call_step_ms >= 0)
		strbuf_addf(
			sb,
			PROSE_COMM_PER_CALL_BOUND,
			c->per_call_step_ms, pct0(100 * (c->per_call_step_ms / r->step_ms[i] - 1)),
			iv);
	else if (c->proportional_step_ms >= 0)
		strbuf_addf(
			sb,
			PROSE_COMM_PROPORTIONAL_BOUND,
			c->proportional_step_ms,
			pct0(100 * (c->proportional_step_ms / r->step_ms[i] - 1)),
			c->bucket_max_bytes / (1024 * 1024), c->fit_max_bytes / (1024 * 1024),
			iv);
	else if (r->kind == REC_DATA && s->replay.user_loader)
		strbuf_addf(sb, PROSE_USER_LOADER_INTERVAL, iv);
	else if (r->kind == REC_IO && s->replay.io_storage_ms > 0)
		strbuf_addf(sb, PROSE_STORAGE_FLOOR, s->replay.io_storage_ms, iv);
	else if (s->replay.steps < ADVICE_REPLAY_MIN_STEPS)
		strbuf_addf(
			sb,
			"; %zu step%s replayed: too few for an interval or a rank among the recommendations)",
			s->replay.steps, s->replay.steps == 1 ? "" : "s");
	else if (r->lo_ms[i] < 0)
		strbuf_addf(sb, "; no interval: %s, so no rank among the recommendations)",
			    PROSE_REPLAY_TOO_FEW_PAIRED);
	else if (r->hi_ms[i] - r->lo_ms[i] < 0.005)
		strbuf_adds(sb,
			    "; its replayed steps all moved alike: no spread to give an interval)");
	else
		strbuf_addf(sb, PROSE_REPLAY_MEDIAN_CI, r->lo_ms[i], r->hi_ms[i]);
}

/* What weakens a replayed gain (2 % or more): its interval reaching the measured median, or
 * the measured mean where the means lead (no gain lies inside it too), and for a median-led
 * one a predicted mean step (the time per sample) that gains under 2 %. */
static void pred_doubts_said(struct strbuf *sb, const struct ana_rec *r, size_t i,
			     const struct replay_pred *c, double gain_pct)
{
	if (r->by_means[i] && 100 * r->gain[i] >= 2 && c->mean_lo_ms >= 0 &&
	    c->mean_lo_ms <= c->measured_mean_ms && c->measured_mean_ms <= c->mean_hi_ms)
		strbuf_addf(sb, PROSE_PRED_MEAN_INTERVAL_HOLDS_NONE, c->measured_mean_ms);
	if (r->by_means[i] || gain_pct < 2)
		return;
	if (r->lo_ms[i] >= 0 && r->lo_ms[i] <= r->step_ms[i] && r->step_ms[i] <= r->hi_ms[i])
		strbuf_addf(sb, PROSE_PRED_INTERVAL_HOLDS_NONE, r->step_ms[i]);
	if (c->mean_ms > 0 && c->measured_mean_ms > 0 && c->mean_ms > 0.98 * c->measured_mean_ms)
		strbuf_addf(sb, PROSE_PRED_MEAN_NO_GAIN, c->measured_mean_ms, c->mean_ms,
			    100 * (c->mean_ms / c->measured_mean_ms - 1));
}

/* One replayed prediction in words: the change, the step, its interval, "no gain" naming
 * the cores when it takes under 2 % off, and the ceiling as "at most". */
static void replayed_words(struct strbuf *sb, const struct ana_rec *r, size_t i,
			   const struct ana_run *run)
{
	const struct ana_scenario *s = &run->sc[r->sc[i]];
	double gain = 100 * (1 - r->predicted_ms[i] / r->step_ms[i]);
	const struct replay_pred *c = advice_replayed(s, r->kind);
	strbuf_addf(sb, "%s%s%s", sb->len ? "; " : "", r->n > 1 ? s->in.name : "",
		    r->n > 1 ? " " : "");
	if (r->by_means[i]) { /* the mean leads: the time per sample, what try checks */
		char miv[160];
		interval_words(miv, sizeof miv, c->mean_lo_ms, c->mean_hi_ms, s->replay.steps);
		if (user_loader_bounds(r, s) && c->mean_lo_ms >= 0) /* (it reaches both) */
			snprintf(miv + strlen(miv), sizeof miv - strlen(miv), "%s",
				 " (from all of its loading waiting to all of it CPU work)");
		strbuf_addf(sb, PROSE_PRED_MEANS_LEAD, c->measured_mean_ms, c->mean_ms,
			    gain_decimals(100 * r->gain[i]),
			    gain_decimals(100 * r->gain[i]) ? -100 * r->gain[i]
							    : pct0(-100 * r->gain[i]),
			    miv);
	}
	strbuf_addf(sb, "%s%.2f -> %.2f ms (%+.*f %%", r->by_means[i] ? "median " : "",
		    r->step_ms[i], r->predicted_ms[i], gain_decimals(gain),
		    gain_decimals(gain) ? -gain : pct0(-gain));
	interval_said(sb, r, i, s, c);
	if (c->fit_colls)
		strbuf_addf(sb,
			    ", each all-reduce %.2f ms + %.2f ms per MiB (fitted on the run's %zu)",
			    c->per_call_ms, c->ms_per_mib, c->fit_colls);
	if (r->kind == REC_DATA)
		loader_said(sb, s, r->step_ms[i], r->by_means[i]);
	if (r->kind == REC_HOST)
		strbuf_adds(
			sb,
			", the host's work up to each kernel's launch (dispatch and the launch call) in half its time");
	if (comm_on_every_core(r->kind, s))
		strbuf_adds(sb, PROSE_COMM_SHARED_CORES);
	pred_doubts_said(sb, r, i, c, gain);
	/* (where the mean leads, its gain says whether there is one; a DataLoader's share not
	 * measured: its least gain is an assumption, the interval says both) */
	int unmeasured = user_loader_bounds(r, s) && s->replay.loader_cpu_pct < 0;
	replay_fidelity_said(sb, s, !unmeasured && (r->by_means[i] ? 100 * r->gain[i] : gain) < 2,
			     c->busy_pct);
	ceiling_said(sb, r, i);
	counterpart_said(sb, r->kind, s, run);
}

/* A straggler's gain that another recommendation's ceiling holds too (advice_overlap),
 * said per kind: which scenarios, and that the gains do not add. */
static void overlap_said(struct strbuf *sb, const struct ana_rec *r, const struct ana_run *run)
{
	for (int k = 0; k < REC_KIND_N; k++) {
		size_t m = 0, predicted = 0;
		struct strbuf names = STRBUF_INIT;
		const struct ana_scenario *with = NULL;
		for (size_t i = 0; i < r->n; i++) {
			const struct ana_scenario *s = &run->sc[r->sc[i]];
			predicted += r->predicted_ms[i] >= 0;
			if (advice_overlap(s) != (enum rec_kind)k)
				continue;
			strbuf_addf(&names, "%s%s", m++ ? ", " : "", s->in.name);
			with = s;
		}
		if (m && m == predicted)
			strbuf_addf(
				sb,
				". %s overlap%s with the %s recommendation's, whose ceiling counts the same waiting with its cause: the two do not add",
				m > 1 ? "These gains" : "This gain", m > 1 ? "" : "s",
				evidence_share_words(with->outcome.wait_to, BASIS_HOST, 1));
		else if (m)
			strbuf_addf(
				sb,
				". For %s the gain overlaps with the %s recommendation's, whose ceiling counts the same waiting with its cause: the two do not add",
				names.buf,
				evidence_share_words(with->outcome.wait_to, BASIS_HOST, 1));
		strbuf_free(&names);
	}
}

/* n's ordinal suffix: 1st, 2nd, 3rd, 4th, 11th. */
static const char *ordinal(int n)
{
	int t = n % 100 / 10 == 1 ? 0 : n % 10;
	return t == 1 ? "st" : t == 2 ? "nd" : t == 3 ? "rd" : "th";
}

/* ". Median step replayed with <the I/O change r replayed> (...): <preds>" ("Step" where a
 * scenario leads with its mean) */
static void io_replayed_said(struct strbuf *sb, const struct replay_result *r, const char *lead,
			     const char *preds)
{
	strbuf_addf(sb, ". %s replayed with ", lead);
	if (r->io_every > 1)
		strbuf_addf(sb, "a checkpoint every %d%s step%s", r->io_every, ordinal(r->io_every),
			    r->io_async ? ", " : "");
	if (r->io_async)
		strbuf_adds(sb, PROSE_ASYNC_CHECKPOINTS);
	strbuf_addf(sb, " instead (the run's own graph, on its cores%s): %s",
		    r->io_every > 1 ? PROSE_IO_RARER : "", preds);
}

/* ". Median step replayed with <the change of kind k> (...): <preds>"; io: the replay of
 * the recommendation's first scenario replayed (its I/O change). */
static void replayed_said(struct strbuf *sb, const struct ana_rec *r,
			  const struct replay_result *io, const char *preds)
{
	enum rec_kind k = r->kind;
	const char *lead = "Median step";
	for (size_t i = 0; i < r->n; i++)
		if (r->by_means[i])
			lead = "Step";
	const char *change =
		"the all-reduce in buckets overlapped with backward (the run's own graph, on its cores)";
	if (k == REC_STRAGGLER)
		change =
			"each straggler's step-thread work in each step brought down to the other ranks' median (the run's own graph, on its cores)";
	else if (k == REC_DATA)
		change =
			PROSE_LOADER_CHANGE;
	else if (k == REC_BATCH)
		change =
			PROSE_BATCH_CHANGE;
	else if (k == REC_HOST)
		change =
			"the launch overhead halved (the run's own graph, its kernels on their streams, on its cores)";
	if (k == REC_IO && io)
		io_replayed_said(sb, io, lead, preds);
	else
		strbuf_addf(sb, ". %s replayed with %s: %s", lead, change, preds);
}

/* A recommendation in words: its scenarios, the advice, each prediction. */
/* Every scenario of r replayed, each gaining under 2 % of its step: what the replay says
 * will not pay, not a step to take first (a batch's gain is in samples/s: never; nor a
 * DataLoader's whose CPU share was not measured: its least gain is an assumption). */
static int replayed_no_gain(const struct ana_rec *r, const struct ana_run *run)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->kind == REC_BATCH || !r->replayed[i] || r->predicted_ms[i] < 0 ||
		    r->step_ms[i] <= 0 || r->gain[i] >= ADVICE_NO_GAIN_PCT / 100 ||
		    (user_loader_bounds(r, &run->sc[r->sc[i]]) &&
		     run->sc[r->sc[i]].replay.loader_cpu_pct < 0))
			return 0;
	return r->n > 0;
}

/* Why replayed_no_gain: every scenario gains under 2 %, or some predict a slower step, or
 * do under the other bound of a communication change (all of its transfer per call). */
static const char *no_gain_words(const struct ana_rec *r, const struct ana_run *run)
{
	size_t slower = 0, bound = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct replay_pred *c = &run->sc[r->sc[i]].replay.comm;
		slower += r->gain[i] < 0;
		bound += r->kind == REC_COMMUNICATION && c->per_call_step_ms > r->step_ms[i];
	}
	if (slower == r->n)
		return "predicts a slower step";
	if (slower)
		return "gains under 2 % or predicts a slower step";
	return bound ? "gains under 2 %, and predicts a slower step under its other bound"
		     : "gains under 2 %";
}

char *rec_text(const struct ana_rec *r, const struct ana_run *run)
{
	struct strbuf sb = STRBUF_INIT, pred = STRBUF_INIT, rep = STRBUF_INIT;
	const struct replay_result *first = NULL; /* the first scenario replayed */
	for (size_t i = 0; i < r->n; i++)
		strbuf_addf(&sb, "%s**%s**", i ? ", " : "", run->sc[r->sc[i]].in.name);
	strbuf_adds(&sb, ": ");
	if (replayed_no_gain(r, run))
		strbuf_addf(&sb,
			    "**no gain predicted** (its replay %s): not a step to take first; ",
			    no_gain_words(r, run));
	rec_words(&sb, r, run);
	for (size_t i = 0; i < r->n; i++) {
		const struct ana_scenario *s = &run->sc[r->sc[i]];
		if (r->predicted_ms[i] < 0 || r->step_ms[i] <= 0)
			continue;
		if (r->replayed[i] && r->kind == REC_BATCH) {
			batch_replayed_words(&rep, r, i, run);
			continue;
		}
		if (r->replayed[i]) {
			first = first ? first : &s->replay;
			replayed_words(&rep, r, i, run);
			continue;
		}
		strbuf_addf(&pred, "%s%s%s%.2f -> %.2f ms (-%.0f %%)", pred.len ? ", " : "",
			    r->n > 1 ? s->in.name : "", r->n > 1 ? " " : "", r->step_ms[i],
			    r->predicted_ms[i], 100 * (1 - r->predicted_ms[i] / r->step_ms[i]));
		if (s->gpu.gpu_limits && r->predicted_ms[i] <= s->gpu.host_step_med_ms)
			strbuf_adds(
				&pred,
				" (no lower than the host's own step: the GPU would then wait for it)");
		counterpart_said(&pred, r->kind, s, run);
	}
	if (rep.len)
		replayed_said(&sb, r, first, rep.buf);
	if (pred.len)
		strbuf_addf(&sb, ". Median step with it removed (a ceiling, from the %s): %s",
			    ceiling_words(r, run), pred.buf);
	if (r->kind == REC_STRAGGLER)
		overlap_said(&sb, r, run);
	strbuf_adds(&sb, ".");
	strbuf_free(&pred);
	strbuf_free(&rep);
	return strbuf_detach(&sb);
}

/* A recommendation's replayed mean steps per scenario, and their intervals, into o
 * (predicted_mean_ms, predicted_mean_interval_ms: null where no replay made one). */
static void rec_means_json(json_t *o, const struct ana_rec *r, const struct ana_run *run)
{
	json_t *mean = json_array(), *iv = json_array();
	double x = advice_per_batch(r->kind);
	for (size_t k = 0; k < r->n; k++) {
		const struct replay_pred *p = r->replayed[k] && r->predicted_ms[k] >= 0
						      ? advice_replayed(&run->sc[r->sc[k]], r->kind)
						      : NULL;
		int known = p && p->mean_ms > 0;
		json_array_append_new(mean, known ? jsonio_real3(x * p->mean_ms) : json_null());
		json_array_append_new(iv,
				      known && p->mean_lo_ms >= 0
					      ? json_pack("[o, o]", jsonio_real3(x * p->mean_lo_ms),
							  jsonio_real3(x * p->mean_hi_ms))
					      : json_null());
	}
	json_object_set_new(o, SK_PREDICTED_MEAN_MS, mean);
	json_object_set_new(o, SK_PREDICTED_MEAN_INTERVAL_MS, iv);
}

/* Scenario k's prediction basis: "ceiling", "replay", or "bound" (a replay of the most the
 * change gains: communication where DDP already overlaps its all-reduce, or where the ranks
 * take every core, which the report says to read as the most it gives). */
static const char *basis_name(const struct ana_run *run, const struct ana_rec *r, size_t k)
{
	if (!r->replayed[k])
		return "ceiling";
	const struct ana_scenario *s = &run->sc[r->sc[k]];
	const struct replay_pred *p = advice_replayed(s, r->kind);
	return (p && p->bound) || comm_on_every_core(r->kind, s) ? "bound" : "replay";
}

/* summary.json's recommendations: kind, scenarios, text, predictions, basis. */
json_t *recs_json(const struct ana_run *run)
{
	json_t *a = json_array();
	for (size_t i = 0; i < run->nrecs; i++) {
		const struct ana_rec *r = &run->recs[i];
		json_t *names = json_array(), *step = json_array(), *pred = json_array(),
		       *gain = json_array(), *ceil = json_array(), *iv = json_array(),
		       *bases = json_array(), *means = json_array();
		size_t replays = 0, ceilings = 0;
		for (size_t k = 0; k < r->n; k++) {
			int p = r->predicted_ms[k] >= 0 && r->step_ms[k] > 0;
			json_array_append_new(names, json_string(run->sc[r->sc[k]].in.name));
			json_array_append_new(step, r->step_ms[k] > 0 ? jsonio_real3(r->step_ms[k])
								      : json_null());
			json_array_append_new(pred,
					      p ? jsonio_real3(r->predicted_ms[k]) : json_null());
			json_array_append_new(gain,
					      p ? jsonio_real3(100 * r->gain[k]) : json_null());
			json_array_append_new(means, json_boolean(p && r->by_means[k]));
			json_array_append_new(ceil,
					      r->ceiling_ms[k] >= 0 && r->step_ms[k] > 0
						      ? jsonio_real3(r->ceiling_ms[k])
						      : json_null());
			json_array_append_new(
				iv,
				p && r->replayed[k] && r->lo_ms[k] >= 0
					? json_pack("[o, o]", jsonio_real3(r->lo_ms[k]),
								jsonio_real3(r->hi_ms[k]))
						    : json_null());
			json_array_append_new(
				bases,
				!p ? json_null() : json_string(basis_name(run, r, k)));
			replays += p && r->replayed[k];
			ceilings += p && !r->replayed[k];
		}
		char *text = rec_text(r, run);
		json_t *o = json_pack("{s:s, s:s, s:o, s:s, s:o, s:o, s:o, s:s}", SK_KIND,
				      rec_kind_name(r->kind), SK_SERIES, r->series, SK_SCENARIOS,
				      names, SK_TEXT, text, SK_STEP_MS, step, SK_PREDICTED_STEP_MS,
				      pred, "predicted_gain_pct", gain, "basis",
				      replays && ceilings ? "replay and ceiling"
				      : replays	  ? "replay"
				      : ceilings	  ? "ceiling"
							  : "none");
		json_object_set_new(o, "prediction_basis", bases);
		json_object_set_new(o, SK_GAIN_BY_MEANS, means);
		json_object_set_new(o, "predicted_interval_ms", iv);
		rec_means_json(o, r, run);
		json_object_set_new(o, "ceiling_step_ms", ceil);
		json_object_set_new(o, "ceiling_from", json_string(ceiling_words(r, run)));
		json_array_append_new(a, o);
		free(text);
	}
	return a;
}

/* A series whose per-rank compute grew on oversubscribed emulated nodes: its model
 * predicts nothing, so the advice rests on the measured efficiency of its widest. */
static int contended_advice(struct rec *r, const struct ana_model *m)
{
	const struct model_contention *c = &m->contention;
	if (c->wide_eff <= 0 || c->wide_eff >= MODEL_ADVICE_EFFICIENCY)
		return 0;
	struct strbuf sb = STRBUF_INIT;
	char ci[64] = "";
	const char *means = c->wide_by_means ? " by the means" : "";
	if (c->wide_eff_ci.known)
		snprintf(ci, sizeof ci, "%s (95 %% CI %.*f-%.*f %%)", means,
			 stats_bound_decimals(100 * c->wide_eff_ci.lo, 100, 0),
			 100 * c->wide_eff_ci.lo,
			 stats_bound_decimals(100 * c->wide_eff_ci.hi, 100, 0),
			 100 * c->wide_eff_ci.hi);
	else
		snprintf(ci, sizeof ci, "%s", means);
	char growth[80];
	scaling_text_growth_ci(growth, sizeof growth, c);
	strbuf_addf(
		&sb,
		PROSE_SERIES_MEASURE,
		m->series, c->wide_ms / c->base_ms, growth, c->base_nodes, c->wide_nodes,
		100 * c->wide_eff, ci, c->wide_nodes);
	r->gain = 0;
	r->text = strbuf_detach(&sb);
	return 1;
}

/* A scaling series whose fitted model loses efficiency by 16 nodes: 1 when
 * there is advice (in r). */
int series_advice(struct rec *r, const struct ana_model *m, const struct ana_run *run)
{
	double t16 = m->b / 16 + m->a + m->c * 4,
	       over = t16 > 0 ? 100 * (m->a + m->c * 4) / t16 : 0;
	if (m->contention.found && m->contention.oversubscribed)
		return contended_advice(r, m);
	/* efficient enough, or a model that predicts nothing: no advice */
	if (!m->predicts || m->eff16 >= MODEL_ADVICE_EFFICIENCY)
		return 0;
	struct strbuf sb = STRBUF_INIT;
	char share[32];
	scaling_text_pct(share, sizeof share, over);
	/* ranked by what its words predict: contention and step times alone predict no share */
	r->gain = m->step_only || m->contention.found ? 0 : over;
	if (m->contention.found)
		strbuf_addf(
			&sb,
			"**Series of %s**: measure scaling where each rank has its own resources (%s); the model's %.0f %% efficiency at 16 nodes reflects contention.",
			m->series,
			run->host_cpus > 0 ? "real nodes, not ranks sharing this machine"
					   : "fewer ranks per node, or exclusive nodes",
			100 * m->eff16);
	else if (m->step_only)
		strbuf_addf(
			&sb,
			PROSE_SERIES_SCALE_STEPS,
			m->series, 100 * m->eff16);
	else
		strbuf_addf(
			&sb,
			PROSE_SERIES_SCALE_MODEL,
			m->series, 100 * m->eff16, m->c, share);
	r->text = strbuf_detach(&sb);
	return 1;
}
