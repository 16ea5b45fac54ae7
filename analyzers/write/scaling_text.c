#include "analyzers/write/scaling_text.h"

#include "util/strbuf.h"

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
			    "no speedup: its batch semantics differ from %s's (global batch %ld at %d rank%s against %ld at %d: neither the per-rank nor the global batch is the same)",
			    c->baseline, b, r, r == 1 ? "" : "s", c->base_batch, c->base_ranks);
		return;
	case SCALING_NOTE_DECLARED:
		strbuf_addf(sb,
			    "analysis.scaling says %s, but the batches (%ld at %d rank%s against %ld at %d) say %s scaling; the batches are used",
			    scaling_text_mode(c->declared), b, r, r == 1 ? "" : "s", c->base_batch,
			    c->base_ranks, scaling_text_mode(c->mode));
		return;
	case SCALING_NOTE_ONE_BATCH:
		strbuf_addf(sb,
			    "no speedup: the batch of %s is known and that of %s is not; give both (analysis.batch_per_rank or analysis.global_batch)",
			    b > 0 ? s->in.name : c->baseline, b > 0 ? c->baseline : s->in.name);
		return;
	case SCALING_NOTE_NO_BATCH:
		strbuf_adds(sb, "no speedup: the samples per step are not known, so neither samples/s nor the scaling mode can be said; set analysis.global_batch (strong scaling), analysis.batch_per_rank (weak scaling) or analysis.scaling");
		return;
	case SCALING_NOTE_SUPERLINEAR:
		strbuf_addf(sb,
			    "efficiency above 100 %% (%.0f %%) is not expected: most often the baseline was slowed by something the wider scenario escaped (a node shared with another job, see slurm.exclusive; caches the smaller per-rank share now fits), or noise (step spread %.1f %% against %.1f %%)",
			    100 * c->efficiency, s->steps.spread_pct, c->base_spread_pct);
		return;
	}
}

/* What limits scaling, as the model's sentence names it. */
static const char *limit_words(const struct ana_model *m)
{
	if (m->contention.found)
		return "the ranks contending for the machine (see below)";
	switch (m->limit) {
	case SHARE_COMMUNICATION:
		return "communication";
	case SHARE_PEER_WAIT:
		return "waiting for slower ranks";
	case SHARE_DATA:
		return "data loading";
	case SHARE_IO:
		return "I/O";
	case SHARE_COPIES:
		return "host-device copies";
	case SHARE_HOST:
		return m->limit_gpu ? "the GPU waiting for the host" : "host overhead";
	case SHARE_COMPUTE:
	case SHARE_N:
		break;
	}
	return "?";
}

void scaling_text_limit(struct strbuf *sb, const struct ana_model *m)
{
	/* the model at 16 nodes: T(16) = b/16 + a + c log2(16), the overhead a + 4c */
	double n16 = m->b / 16 + m->a + m->c * 4, over16 = m->a + m->c * 4;
	if (m->step_only) {
		strbuf_addf(sb,
			    "Fitted on the step times of %d scenarios (%d to %d nodes) without a compute term (where step time goes is not known, so no part of it can be called compute): %.2f + %.2f x log2(N) ms; predicted efficiency %.0f %% at 8 nodes and %.0f %% at 16. What limits scaling cannot be said from step times alone: a trace with steps or the trainer's telemetry would say.",
			    m->points, m->base_nodes, m->max_nodes, m->a, m->c, 100 * m->eff8,
			    100 * m->eff16);
		return;
	}
	char from[64];
	snprintf(from, sizeof from, "beyond %d nodes", MODEL_MAX_NODES);
	if (m->crossover)
		snprintf(from, sizeof from, "from %d node%s on", m->crossover,
			 m->crossover == 1 ? "" : "s");
	strbuf_addf(sb,
		    "Fitted on %d scenarios (%d to %d nodes), compute takes %.2f ms / N and the rest %.2f + %.2f x log2(N) ms, so scaling is limited by %s, which outgrows compute %s: predicted efficiency %.0f %% at 8 nodes and %.0f %% at 16, where that overhead is %.0f %% of a %.2f ms step.",
		    m->points, m->base_nodes, m->max_nodes, m->b, m->a, m->c, limit_words(m), from,
		    100 * m->eff8, 100 * m->eff16, n16 > 0 ? 100 * over16 / n16 : 0, n16);
}

void scaling_text_fit(struct strbuf *sb, const struct ana_model *m)
{
	int n = m->max_err_nodes;
	if (m->max_err_pct <= MODEL_FITS_PCT)
		strbuf_addf(sb,
			    "The model fits the measured points within %.1f %% (largest error at %d node%s).",
			    m->max_err_pct, n, n == 1 ? "" : "s");
	else
		strbuf_addf(sb,
			    "The model does not fit the measured points: it is off by %.1f %% at %d node%s, so its predictions beyond them are not reliable.",
			    m->max_err_pct, n, n == 1 ? "" : "s");
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
	strbuf_addf(sb,
		    "Per-rank compute grew from %.2f ms at %d node%s to %.2f ms at %d nodes with the same work per rank: the ranks contend for CPUs, memory bandwidth or the network%s, so the slowdown is contention, not communication.",
		    c->base_ms, c->base_nodes, c->base_nodes == 1 ? "" : "s", c->wide_ms,
		    c->wide_nodes, where);
}
