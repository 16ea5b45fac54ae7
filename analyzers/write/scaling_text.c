/* SPDX-License-Identifier: MIT */
#include "analyzers/write/prose.h"
#include "analyzers/write/scaling_text.h"

#include "analyzers/write/evidence.h"

#include "util/jsonio.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>

const char *scaling_text_mode(enum scaling_mode m)
{
	switch (m) {
	case SCALING_UNKNOWN:
		return "";
	case SCALING_WEAK:
		return "weak";
	case SCALING_STRONG:
		return "strong";
	}
	return "";
}

void scaling_text_note(struct strbuf *sb, const struct ana_scenario *s)
{
	const struct ana_scaling *c = &s->scaling;
	long b = s->steps.global_batch;
	int r = s->in.ranks;
	switch (c->note) {
	case SCALING_NOTE_NONE:
		return;
	case SCALING_NOTE_BATCHES_DIFFER:
		strbuf_addf(sb,
			    PROSE_SCALING_SPEEDUP_BATCH_SEMANTICS,
			    c->baseline, b, r, r == 1 ? "" : "s", c->base_batch, c->base_ranks);
		return;
	case SCALING_NOTE_DECLARED:
		strbuf_addf(
			sb,
			"analysis.scaling says %s, but the batches (%ld at %d rank%s against %ld at %d) say %s scaling; the batches are used",
			scaling_text_mode(c->declared), b, r, r == 1 ? "" : "s", c->base_batch,
			c->base_ranks, scaling_text_mode(c->mode));
		return;
	case SCALING_NOTE_ONE_BATCH:
		strbuf_addf(
			sb,
			"no speedup: the batch of %s is known and that of %s is not; give both (analysis.batch_per_rank or analysis.global_batch)",
			b > 0 ? s->in.name : c->baseline, b > 0 ? c->baseline : s->in.name);
		return;
	case SCALING_NOTE_NO_BATCH:
		strbuf_adds(sb, PROSE_SCALING_SPEEDUP_SAMPLES_PER);
		return;
	case SCALING_NOTE_SUPERLINEAR:
		if (c->efficiency_ci.known)
			strbuf_addf(sb,
				    PROSE_SCALING_EFFICIENCY_ABOVE_BEYOND,
				    100 * c->efficiency,
				    stats_bound_decimals(100 * c->efficiency_ci.lo, 100, 0),
				    100 * c->efficiency_ci.lo, 100 * c->efficiency_ci.hi);
		else
			strbuf_addf(sb,
				    PROSE_SCALING_EFFICIENCY_ABOVE_NOT,
				    100 * c->efficiency, s->steps.spread_pct, c->base_spread_pct);
		return;
	}
}

/* After a speedup or an efficiency of steps not alike (ana_scaling.by_means). */
#define BY_MEANS " by the means"

/* Why an interval is missing, for the words after a number. */
static void no_interval(struct strbuf *sb)
{
	strbuf_addf(sb, " (no interval: fewer than %d steps on a side)", STATS_BOOTSTRAP_MIN_N);
}

void scaling_text_speedup(struct strbuf *sb, const struct ana_scenario *s)
{
	const struct ana_scaling *c = &s->scaling;
	const struct stats_interval *ci = &c->speedup_ci;
	strbuf_addf(sb, "speedup %.2fx%s", c->speedup, c->by_means ? BY_MEANS : "");
	if (!ci->known) {
		no_interval(sb);
		return;
	}
	/* (no change from the baseline is no speedup: the ideal says what was wanted) */
	double ideal = c->efficiency > 0 ? c->speedup / c->efficiency : 0;
	strbuf_addf(sb, " (95 %% CI %.*f-%.*f", stats_bound_decimals(ci->lo, 1, 2), ci->lo,
		    stats_bound_decimals(ci->hi, 1, 2), ci->hi);
	/* (a baseline wider than the scenario, analysis.baseline, has an ideal under 1) */
	if (stats_interval_holds(ci, 1.0) && ideal > 1)
		strbuf_addf(sb, "; no measurable speedup over the baseline, where the ideal is %gx",
			    round(100 * ideal) / 100);
	else if (stats_interval_holds(ci, 1.0) && ideal > 0 && fabs(ideal - 1) > 1e-9)
		strbuf_addf(sb, "; no measurable change from the baseline, where the ideal is %gx",
			    round(100 * ideal) / 100);
	else if (stats_interval_holds(ci, 1.0))
		strbuf_adds(sb, "; no measurable change from the baseline");
	else if (c->speedup < 1)
		strbuf_adds(sb, "; slower than the baseline");
	strbuf_addch(sb, ')');
}

void scaling_text_efficiency(struct strbuf *sb, const struct ana_scenario *s)
{
	const struct ana_scaling *c = &s->scaling;
	const struct stats_interval *ci = &c->efficiency_ci;
	strbuf_addf(sb, "%.0f %%%s", 100 * c->efficiency, c->by_means ? BY_MEANS : "");
	if (!ci->known) {
		no_interval(sb);
		return;
	}
	strbuf_addf(sb, " (95 %% CI %.*f-%.*f %%%s)", stats_bound_decimals(100 * ci->lo, 100, 0),
		    100 * ci->lo, stats_bound_decimals(100 * ci->hi, 100, 0), 100 * ci->hi,
		    stats_interval_holds(ci, 1.0) ? "; no measurable change from 100 %" : "");
}

void scaling_text_cells(const struct ana_scenario *s, char *sp, size_t nsp, char *ef,
			size_t nef)
{
	/* (each from the value summary.json keeps, to 0.001, as the paper's table takes it) */
	struct ana_scaling r = s->scaling, *c = &r;
	r.speedup = jsonio_round3(r.speedup), r.efficiency = jsonio_round3(r.efficiency);
	r.speedup_ci.lo = jsonio_round3(r.speedup_ci.lo);
	r.speedup_ci.hi = jsonio_round3(r.speedup_ci.hi);
	r.efficiency_ci.lo = jsonio_round3(r.efficiency_ci.lo);
	r.efficiency_ci.hi = jsonio_round3(r.efficiency_ci.hi);
	const struct stats_interval *si = &c->speedup_ci, *ei = &c->efficiency_ci;
	if (c->is_baseline) {
		snprintf(sp, nsp, "%.2fx", c->speedup);
		snprintf(ef, nef, "%.0f %%", 100 * c->efficiency);
	} else if (!si->known) {
		snprintf(sp, nsp, "%.2fx (CI n/a)%s", c->speedup, c->by_means ? BY_MEANS : "");
		snprintf(ef, nef, "%.0f %% (CI n/a)%s", 100 * c->efficiency,
			 c->by_means ? BY_MEANS : "");
	} else {
		snprintf(sp, nsp, "%.2fx (%.*f-%.*f)%s", c->speedup,
			 stats_bound_decimals(si->lo, 1, 2), si->lo,
			 stats_bound_decimals(si->hi, 1, 2), si->hi, c->by_means ? BY_MEANS : "");
		snprintf(ef, nef, "%.0f %% (%.*f-%.*f %%)%s", 100 * c->efficiency,
			 stats_bound_decimals(100 * ei->lo, 100, 0), 100 * ei->lo,
			 stats_bound_decimals(100 * ei->hi, 100, 0), 100 * ei->hi,
			 c->by_means ? BY_MEANS : "");
	}
}

void scaling_text_pct(char *buf, size_t n, double pct)
{
	if (pct >= 99.95 && pct < 100)
		snprintf(buf, n, "nearly all");
	else if (pct >= 99.5 && pct < 100)
		snprintf(buf, n, "%.1f %%", pct);
	else
		snprintf(buf, n, "%.0f %%", pct);
}

/* A part of the step in words, on the host's or the GPU's basis. */
static const char *part_words(enum share_kind k, int gpu)
{
	return evidence_share_words(k, gpu ? BASIS_GPU : BASIS_HOST, 0);
}

/* What limits scaling, as the model's sentence names it. */
static void limit_words(struct strbuf *sb, const struct ana_model *m)
{
	const char *w = "?";
	switch (m->limit) {
	case SHARE_COMMUNICATION:
		w = "communication";
		break;
	case SHARE_PEER_WAIT:
		w = "waiting for slower ranks";
		break;
	case SHARE_DATA:
		w = "data loading";
		break;
	case SHARE_IO:
		w = "I/O";
		break;
	case SHARE_COPIES:
		w = "host-device copies";
		break;
	case SHARE_HOST:
		w = m->limit_gpu ? "the GPU waiting for the host" : "host overhead";
		break;
	case SHARE_COMPUTE:
	case SHARE_N:
		break;
	}
	if (!m->contention.found) {
		strbuf_adds(sb, w);
		return;
	}
	strbuf_addf(
		sb,
		"%s (the largest part of the rest at %d nodes), inflated by the ranks contending for the machine (see below)",
		w, m->max_nodes);
}

/* What the rest (a) is made of: the baseline's largest share other than compute. */
static void rest_words(struct strbuf *sb, const struct ana_model *m)
{
	if (m->base_rest_pct < ANA_NEGLIGIBLE_PCT)
		return;
	strbuf_addf(
		sb,
		" (time other than compute; at %d node%s its largest part is %s, %.1f %% of the step)",
		m->base_nodes, m->base_nodes == 1 ? "" : "s",
		part_words(m->base_rest, m->limit_gpu), m->base_rest_pct);
}

void scaling_text_limit(struct strbuf *sb, const struct ana_model *m)
{
	/* the model at 16 nodes: T(16) = b/16 + a + c log2(16), the overhead a + 4c */
	double n16 = m->b / 16 + m->a + m->c * 4, over16 = m->a + m->c * 4;
	if (m->step_only) {
		strbuf_addf(sb,
			    PROSE_SCALING_FITTED_STEP_TIMES,
			    m->points, m->base_nodes, m->max_nodes, m->a, m->c, 100 * m->eff8,
			    100 * m->eff16);
		return;
	}
	char from[64], share[32];
	snprintf(from, sizeof from, "beyond %d nodes", MODEL_MAX_NODES);
	if (m->crossover)
		snprintf(from, sizeof from, "from %d node%s on", m->crossover,
			 m->crossover == 1 ? "" : "s");
	scaling_text_pct(share, sizeof share, n16 > 0 ? 100 * over16 / n16 : 0);
	strbuf_addf(
		sb,
		"Fitted on %d scenarios (%d to %d nodes), compute takes %.2f ms / N and the rest %.2f + %.2f x log2(N) ms",
		m->points, m->base_nodes, m->max_nodes, m->b, m->a, m->c);
	rest_words(sb, m);
	strbuf_adds(sb, ", so scaling is limited by ");
	limit_words(sb, m);
	strbuf_addf(
		sb,
		", which outgrows compute %s: predicted efficiency %.0f %% at 8 nodes and %.0f %% at 16, where that overhead is %s of a %.2f ms step.",
		from, 100 * m->eff8, 100 * m->eff16, share, n16);
}

void scaling_text_fit(struct strbuf *sb, const struct ana_model *m)
{
	int n = m->max_err_nodes;
	if (m->max_err_pct <= MODEL_FITS_PCT)
		strbuf_addf(
			sb,
			"The model fits the measured points within %.1f %% (largest error at %d node%s).",
			m->max_err_pct, n, n == 1 ? "" : "s");
	else
		strbuf_addf(
			sb,
			"The model does not fit the measured points: it is off by %.1f %% at %d node%s, so its predictions beyond them are not reliable.",
			m->max_err_pct, n, n == 1 ? "" : "s");
}

void scaling_text_no_prediction(struct strbuf *sb, const struct ana_model *m, int host_cpus)
{
	const struct model_contention *c = &m->contention;
	if (m->emulated_ranks && !(c->found && c->oversubscribed)) {
		strbuf_addf(sb, PROSE_SCALING_NO_PREDICTION_EMULATED, m->emulated_ranks,
			    m->emulated_wide, host_cpus, host_cpus == 1 ? "" : "s");
		return;
	}
	if (!(c->found && c->oversubscribed)) {
		strbuf_adds(sb, "No prediction is drawn from it.");
		return;
	}
	strbuf_addf(
		sb,
		PROSE_SCALING_PREDICTION_DRAWN_FROM,
		c->wide_ranks, c->wide, host_cpus, host_cpus == 1 ? "" : "s");
}

/* What grew besides compute, said after the contention's first clause. */
static void contention_parts(struct strbuf *sb, const struct model_contention *c)
{
	char what[96];
	snprintf(what, sizeof what, "%s", part_words(c->grew, c->gpu));
	if (c->grew_wide_ms - c->grew_base_ms <= c->wide_ms - c->base_ms) {
		strbuf_adds(
			sb,
			"; compute grew more than any other part of the step, so the slowdown is first of all contention.");
		return;
	}
	what[0] = (char)toupper((unsigned char)what[0]);
	strbuf_addf(
		sb,
		PROSE_SCALING_GREW_MORE_FROM,
		what, c->grew_base_ms, c->grew_wide_ms);
}

void scaling_text_growth_ci(char *out, size_t n, const struct model_contention *c)
{
	if (c->growth_ci.known)
		snprintf(out, n, " (95 %% CI %.1f-%.1fx)", c->growth_ci.lo, c->growth_ci.hi);
	else
		snprintf(out, n, " (no interval: %s)",
			 c->gpu ? "GPU windows, not per-step samples"
				: "fewer than 5 steps on a side");
}

void scaling_text_contention(struct strbuf *sb, const struct ana_model *m, int host_cpus)
{
	const struct model_contention *c = &m->contention;
	if (!c->found)
		return;
	char where[160] = "";
	if (host_cpus > 0)
		snprintf(where, sizeof where,
			 " (the local executor ran all %d ranks of %s on this machine's %d CPU%s)",
			 c->wide_ranks, c->wide, host_cpus, host_cpus == 1 ? "" : "s");
	char ci[80];
	scaling_text_growth_ci(ci, sizeof ci, c);
	strbuf_addf(
		sb,
		PROSE_SCALING_PER_RANK_COMPUTE,
		c->wide_ms / c->base_ms, ci, c->base_ms, c->base_nodes,
		c->base_nodes == 1 ? "" : "s", c->wide_ms, c->wide_nodes, where);
	contention_parts(sb, c);
}
