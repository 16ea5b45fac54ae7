/* markdown: BOTTLENECK_ANALYSIS.md, section by section: the executive summary, the
 * scenarios, scaling, the fabric, the recommendations and the method.
 * SPDX-License-Identifier: MIT */
#include "analyzers/analysis.h"
#include "analyzers/write/report.h"
#include "analyzers/prediction_check.h"
#include "analyzers/stats.h"
#include "analyzers/write/prose.h"
#include "analyzers/write/clock_text.h"
#include "util/run_layout.h"
#include "analyzers/advice.h"
#include "analyzers/write/prediction_check_text.h"
#include "analyzers/write/data_text.h"
#include "analyzers/write/evidence.h"
#include "analyzers/write/scaling_text.h"
#include "analyzers/write/share_text.h"
#include "analyzers/read/metrics.h"
#include "analyzers/summary_keys.h"

#include "util/err.h"
#include "analyzers/write/figures.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "util/sort.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzers/write/report_parts.h"

/* ---- markdown --------------------------------------------------------- */

/* A p95 from fewer than STATS_P95_MIN_N values (steps) is rough: what follows it. */
static const char *rough(size_t n)
{
	return n < STATS_P95_MIN_N ? " (rough)" : "";
}

/* The commands outside the job that used most CPU, after lead ("" when none). */
static void foreign_what(struct strbuf *md, const struct ana_foreign *f, const char *lead)
{
	for (int i = 0; i < f->n_what; i++)
		strbuf_addf(md, "%s`%s`", i ? ", " : lead, f->what[i]);
}

/* A verdict's share that holds the waiting for peers, in its two parts, each a column of
 * the table, then their sum (verdict_share). */
static void md_summary_share(struct strbuf *md, const struct ana_scenario *s)
{
	const struct verdict_out *v = &s->outcome.v;
	size_t n = s->comm.n_stragglers;
	/* the parts as printed, and their sum as printed (evidence_shown_pct): a reader adds
	 * them up */
	double own = evidence_printed(evidence_own_pct(s, v->share)),
	       wait = evidence_printed(evidence_wait_pct(s));
	/* with a straggler the waiting is some ranks' alone: its share is of all ranks' time,
	 * not of each rank's step; on a GPU, of the GPU's time (its exposed communication's
	 * transfer, then its waiting) */
	int gpu = s->outcome.basis == BASIS_GPU;
	strbuf_addf(md, ": %s %.1f %% of %s, and %.1f %% ",
		    gpu ? "exposed communication's transfer"
			: evidence_share_words(v->share, BASIS_HOST, 1),
		    own,
		    gpu			     ? "the GPU's time"
		    : n && !s->steps.no_steps ? "all ranks' time"
					      : "step time",
		    wait);
	if (n && !s->steps.no_steps)
		strbuf_addf(md, "the other ranks waiting for the %s extra %s",
			    straggler_group_len(s->comm.stragglers, n, 0) > 1 ? "stragglers'"
									      : "straggler's",
			    evidence_cause_words(s->comm.stragglers[0].cause_kind));
	else
		strbuf_adds(md, "waiting for peers");
	strbuf_addf(md, " (%.1f %% in all)", evidence_shown_pct(s, v->share, v->pct));
}

/* Straggler-bound: who the others wait for, its cause, and that waiting's share. */
static void md_summary_straggler(struct strbuf *md, const struct ana_scenario *s)
{
	const struct straggler *g = s->comm.stragglers;
	size_t len = straggler_group_len(g, s->comm.n_stragglers, 0);
	/* the parts as printed, and their sum as printed (md_summary_share) */
	double wait = evidence_printed(s->shares.sync_wait_pct),
	       own = evidence_printed(s->outcome.excess_pct);
	strbuf_adds(md, ": the other ranks waiting for ");
	evidence_straggler_names(md, g, len);
	if (s->outcome.excess_pct <= 0) {
		strbuf_addf(md, " (%s cause: %s) %.1f %% of all ranks' time",
			    len > 1 ? "their" : "its", evidence_cause_words(g->cause_kind),
			    s->outcome.v.pct);
		return;
	}
	strbuf_addf(
		md,
		" %.1f %% of all ranks' time, and %s own extra compute %.1f %% (%.1f %% in all)",
		wait, len > 1 ? "their" : "its", own,
		evidence_shown_pct(s, SHARE_PEER_WAIT, s->outcome.v.pct));
}

/* The monitors' figure beside their verdict: " (CPUs busy 99.7 %)"; nothing on another basis. */
static void monitor_figure(struct strbuf *md, const struct ana_scenario *s)
{
	struct strbuf f = STRBUF_INIT;
	if (evidence_monitor_figure(&f, s))
		strbuf_addf(md, " (%s)", f.buf);
	strbuf_free(&f);
}

/* Steps not alike (their mean over STATS_UNALIKE_PCT from their median: a checkpoint every
 * few steps, a loader that stalls): the median leaves the slow ones out, so the time per
 * sample over the run, and the throughput, are the mean's; said beside the median's. */
static void unalike_steps(struct strbuf *md, const struct ana_scenario *s)
{
	if (!stats_unalike(s->steps.step_med_ms, s->steps.step_mean_ms))
		return;
	strbuf_addf(md, PROSE_STEPS_UNALIKE, s->steps.step_mean_ms,
		    stats_rate_decimals(s->steps.throughput_at_mean), s->steps.throughput_at_mean,
		    data_text_throughput_unit(s));
}

/* A table's throughput cell of s: at the median step, or at the mean step where s's steps
 * are not alike (the rate over the run, which a median overstates) or mean is set (its
 * speedup compares mean steps), marked so; whether at the mean step. */
static int throughput_cell(char *buf, size_t n, const struct ana_scenario *s, int unit,
			   int mean)
{
	int by_mean = mean || stats_unalike(s->steps.step_med_ms, s->steps.step_mean_ms);
	double rate = by_mean ? s->steps.throughput_at_mean : s->steps.throughput;
	snprintf(buf, n, "%.*f%s%s%s", stats_rate_decimals(rate), rate, unit ? " " : "",
		 unit ? data_text_throughput_unit(s) : "", by_mean ? " (mean step)" : "");
	return by_mean;
}

/* The summary line's verdict share: its two parts, the straggler waited for, the share, or
 * the monitors' figure. */
static void md_summary_verdict(struct strbuf *md, const struct ana_scenario *s)
{
	if (evidence_share_holds_wait(s) && evidence_wait_pct(s) > 0)
		md_summary_share(md, s);
	else if (s->outcome.v.share == SHARE_PEER_WAIT && s->comm.n_stragglers &&
		 !s->steps.no_steps)
		md_summary_straggler(md, s);
	else if (s->outcome.v.share == SHARE_COMPUTE && s->outcome.basis == BASIS_HOST &&
		 s->outcome.excess_pct > 0)
		strbuf_addf(md, PROSE_SUMMARY_COMPUTE_LESS_EXCESS, evidence_compute_less_pct(s),
			    s->shares.compute_pct, s->outcome.excess_pct);
	else if (s->outcome.v.verdict != VERDICT_UNDETERMINED &&
		 (s->outcome.basis == BASIS_HOST || s->outcome.basis == BASIS_GPU))
		strbuf_addf(md, ": %s %.1f %% of %s",
			    evidence_share_words(s->outcome.v.share, s->outcome.basis,
						 s->comm.n_stragglers > 0),
			    s->outcome.v.pct,
			    s->outcome.basis == BASIS_GPU ? "the GPU's time" : "step time");
	else if (s->outcome.basis == BASIS_NONE)
		strbuf_adds(md, ": where step time goes is not known");
	else
		monitor_figure(md, s);
}

/* One analysed scenario's line of the summary: its verdict and share, its
 * step time, its scaling. */
/* "Median step 1.69 ms (95 % CI 1.60-1.70 ms), 18985 samples/s": its bootstrap interval
 * where it has one (the scenario's section says why where it has none). */
static void md_summary_median(struct strbuf *md, const struct ana_scenario *s)
{
	double lo = s->steps.step_med_lo_ms, hi = s->steps.step_med_hi_ms;
	strbuf_addf(md,
		    s->steps.active_steps == 1 ? "One active step, %.2f ms" : "Median step %.2f ms",
		    s->steps.step_med_ms);
	if (lo > 0 && hi > 0)
		strbuf_addf(md, " (95 %% CI %.2f-%.2f ms)", lo, hi);
	strbuf_addf(md, ", %.*f %s", stats_rate_decimals(s->steps.throughput),
		    s->steps.throughput, data_text_throughput_unit(s));
}

static void md_summary_line(struct strbuf *md, const struct ana_scenario *s,
			    const struct ana_run *run)
{
	strbuf_addf(md, "- **%s** (%d node%s, %d rank%s, %s): **%s**%s", s->in.name, s->in.nodes,
		    s->in.nodes == 1 ? "" : "s", s->in.ranks, s->in.ranks == 1 ? "" : "s",
		    s->in.backend, verdict_name(s->outcome.v.verdict),
		    s->outcome.v.borderline ? " (borderline)" : "");
	md_summary_verdict(md, s);
	if (s->outcome.oversubscribed && s->comm.n_stragglers)
		strbuf_addf(md, PROSE_SUMMARY_STRAGGLER_SHARED_CPUS, s->in.ranks, run->host_cpus,
			    run->host_cpus == 1 ? "" : "s");
	strbuf_adds(md, ". ");
	if (s->steps.no_steps)
		strbuf_addf(md, "No step boundaries: from the %s over a %.2f ms profiled window",
			    s->gpu.gpu_basis ? "GPU timeline" : "host's operators",
			    s->steps.step_med_ms);
	else
		md_summary_median(md, s);
	if (!s->steps.no_steps)
		unalike_steps(md, s);
	if (s->data.lines_s > 0)
		strbuf_addf(md, PROSE_LINES_NOT_TIMED_SHORT, s->data.lines_s, s->data.job_s);
	if (s->scaling.baseline[0] && !s->scaling.is_baseline &&
	    s->scaling.mode != SCALING_UNKNOWN) {
		strbuf_addf(md, "; %s scaling: ", scaling_text_mode(s->scaling.mode));
		scaling_text_speedup(md, s);
		strbuf_adds(md, " and efficiency ");
		scaling_text_efficiency(md, s);
		strbuf_addf(md, " against %s", s->scaling.baseline);
		if (s->outcome.oversubscribed)
			strbuf_addf(md, PROSE_SUMMARY_EMULATED, s->in.nodes, s->in.ranks);
		else if (run->host_cpus > 0 && s->in.nodes > 1)
			strbuf_addf(md, PROSE_SUMMARY_EMULATED_LOOPBACK, s->in.nodes);
	}
	if (s->scaling.note != SCALING_NOTE_NONE) {
		strbuf_adds(md, "; ");
		scaling_text_note(md, s);
	}
	if (s->data.contaminated[0])
		strbuf_addf(md, "; **contaminated**: it shared nodes with %s",
			    s->data.contaminated);
	if (s->mon.foreign.contaminated) {
		strbuf_addf(md, "; **contaminated**: measured beside other load, %.0f %% of a core",
			    s->mon.foreign.cpu_pct);
		foreign_what(md, &s->mon.foreign, ", most ");
	}
	strbuf_addf(md, " (from %s).\n", data_text_source(s->data.source));
}

static void md_summary(struct strbuf *md, const struct ana_run *run)
{
	size_t ok = 0, bad = 0;
	for (size_t i = 0; i < run->n; i++)
		run->sc[i].data.analysed ? ok++ : bad++;
	strbuf_addf(md, "## Executive Summary\n\n%zu scenario%s, %zu analysed", run->n,
		    run->n == 1 ? "" : "s", ok);
	if (bad) {
		strbuf_addf(md, "; not analysed: ");
		for (size_t i = 0, k = 0; i < run->n; i++)
			if (!run->sc[i].data.analysed)
				strbuf_addf(md, "%s**%s** (%s%s%s)", k++ ? ", " : "",
					    run->sc[i].in.name, run->sc[i].in.state,
					    run->sc[i].in.completed  ? ": no step data"
					    : run->sc[i].in.reason[0] ? ": "
								      : "",
					    run->sc[i].in.completed ? "" : run->sc[i].in.reason);
	}
	strbuf_adds(md, ".\n\n");
	for (size_t i = 0; i < run->n; i++)
		if (run->sc[i].data.analysed)
			md_summary_line(md, &run->sc[i], run);
	for (size_t i = 0; i < run->n; i++) {
		if (!run->sc[i].data.monitors_only)
			continue;
		strbuf_addf(md, "- **%s**: no step data; from its node monitors alone: **%s**",
			    run->sc[i].in.name, verdict_name(run->sc[i].outcome.v.verdict));
		monitor_figure(md, &run->sc[i]);
		strbuf_adds(md, ".\n");
	}
	strbuf_adds(md, "\n");
}

static void md_op_table(struct strbuf *md, const struct ana_op *ops, int n, double total,
			const char *what)
{
	strbuf_addf(md, "| Name | %s (ms) | Share | Calls |\n|---|---:|---:|---:|\n", what);
	for (int i = 0; i < n; i++) {
		char name[128];
		size_t k = 0;
		/* a table cell: no | ` or controls */
		for (const char *c = ops[i].name; *c && k + 2 < sizeof name; c++)
			name[k++] = *c == '|' || *c == '`'                ? '/'
				: (unsigned char) *c < 0x20 || *c == 0x7f ? '?'
									  : *c;
		name[k] = '\0';
		strbuf_addf(md, "| `%s` | %.2f | %.1f %% | %ld |\n", name, ops[i].self_ms,
			    total > 0 ? 100 * ops[i].self_ms / total : 0, ops[i].count);
	}
	strbuf_adds(md, "\n");
}

static void md_top_ops(struct strbuf *md, const struct ana_scenario *s)
{
	if (s->gpu.gpu_kernel_ms > 0) {
		strbuf_addf(
			md,
			PROSE_GPU_TIME_LINE,
			s->data.trace_gpu_files, s->data.trace_gpu_files == 1 ? "" : "s",
			s->gpu.gpu_idle_pct, s->gpu.gpu_compute_pct, s->gpu.gpu_non_compute_pct,
			s->gpu.gpu_kernel_ms);
		if (s->gpu.gpu_overlap_pct >= 0)
			strbuf_addf(
				md,
				"; %.1f %% of communication kernels' time overlaps computation (pooled over the ranks)",
				s->gpu.gpu_overlap_pct);
		strbuf_addf(md, PROSE_TOP_KERNELS_SHARE, s->gpu.kernels_total_ms);
		md_op_table(md, s->gpu.top_kernels, s->gpu.n_top_kernels, s->gpu.kernels_total_ms,
			    "Time");
	}
	if (!s->data.n_top_ops)
		return;
	strbuf_addf(
		md,
		PROSE_TOP_OPS_SHARE,
		s->data.trace_files, s->data.trace_files == 1 ? "" : "s", s->data.ops_total_ms);
	md_op_table(md, s->data.top_ops, s->data.n_top_ops, s->data.ops_total_ms, "Self time");
}

/* Trace files a failed shard of the map step left without a result, and
 * those that were read but could not be used. */
static void md_not_analysed(struct strbuf *md, const struct ana_scenario *s,
			    const struct ana_run *run)
{
	if (ana_some_traces_unused(s))
		strbuf_addf(md,
			    "%zu of %zu trace file%s could not be used, the first because: %s.\n\n",
			    s->data.trace_unused, s->data.trace_files,
			    s->data.trace_files == 1 ? "" : "s", s->data.trace_problem);
	if (s->data.analysed && s->data.traces_missed) {
		char *missed = data_text_traces_missed(s, run);
		strbuf_addf(md, "Traces: %s.\n\n", missed);
		free(missed);
	}
	if (s->data.trace_not_analysed)
		strbuf_addf(
			md,
			"**%zu trace file%s not analysed**: the map step's shard failed twice on %s: %s. Run `campaign aggregate` again to analyse them.\n\n",
			s->data.trace_not_analysed,
			s->data.trace_not_analysed == 1 ? " was" : "s were",
			s->data.trace_not_analysed == 1 ? "it" : "them",
			s->data.trace_not_analysed_names);
}

/* A row's time per step; where its instances overlapped, that it is their union, and the
 * summed time beside it. */
static void coll_time_cell(const struct collective *c, char *buf, size_t n)
{
	if (c->concurrent)
		snprintf(buf, n, "%.3f (union of %zu concurrent instances; summed %.3f)",
			 c->ms_per_step, c->concurrent, c->ms_per_step_summed);
	else
		snprintf(buf, n, "%.3f", c->ms_per_step);
}

/* The communication line and a host trace's collectives table count different things: the
 * line every collective range of a rank's threads (the calling thread's too), split per step;
 * the table the backend's own instances, split per instance. The reader is told, where both
 * are printed (the line only on the host's basis; telemetry's rows are its steps' own). */
static int comm_line_differs(const struct ana_scenario *s)
{
	return s->shares.comm_total_pct > 0 && s->outcome.basis == BASIS_HOST &&
	       (s->data.source == SOURCE_TRACES || s->data.source == SOURCE_NSYS) &&
	       !s->comm.insp.colls_used;
}

static void md_collectives_notes(struct strbuf *md, const struct ana_scenario *s,
				 size_t concurrent, size_t rough_rows, size_t step_totals);

/* The step's collectives across ranks: the transfer once all have arrived,
 * the waiting before it, and the bandwidth when the bytes are known. */
static void md_collectives(struct strbuf *md, const struct ana_scenario *s)
{
	if (!s->comm.ncolls)
		return;
	int fab = 0;
	for (size_t i = 0; i < s->comm.ncolls; i++)
		fab |= s->comm.colls[i].fabric_busbw_gbps > 0;
	strbuf_addf(
		md,
		PROSE_COLL_TABLE_HEAD,
		fab ? " Of the fabric |" : "", fab ? "---:|" : "");
	size_t concurrent = 0, rough_rows = 0, step_totals = 0;
	for (size_t i = 0; i < s->comm.ncolls; i++) {
		const struct collective *c = &s->comm.colls[i];
		step_totals += c->step_total;
		char label[48], bytes[96] = "unknown", alg[24] = "n/a", bus[24] = "n/a", ms[96];
		coll_size_label(c->size_class, label, sizeof label);
		if (c->size_class >= 0) {
			snprintf(bytes, sizeof bytes, "%s (median %.0f B)", label, c->bytes);
			share_text_rate(alg, sizeof alg, c->algbw_gbps, 3);
			share_text_rate(bus, sizeof bus, c->busbw_gbps, 3);
		}
		coll_time_cell(c, ms, sizeof ms);
		concurrent += c->concurrent;
		rough_rows += c->steps < STATS_P95_MIN_N;
		strbuf_addf(md,
			    "| %s%s | %s | %.2f | %s | %.3f / %.3f%s | %.3f / %.3f%s | %s | %s |",
			    coll_op_name(c->op), c->step_total ? " (a step's, together)" : "",
			    bytes, c->count_per_step, ms, c->latency_med, c->latency_p95,
			    rough(c->steps), c->wait_med, c->wait_p95, rough(c->steps), alg, bus);
		if (fab && c->size_class >= 0 && c->fabric_busbw_gbps > 0)
			strbuf_addf(md, " %.0f %% of %s |",
				    100 * c->busbw_gbps / c->fabric_busbw_gbps,
				    share_text_rate(alg, sizeof alg, c->fabric_busbw_gbps, 3));
		else if (fab)
			strbuf_adds(md, " – |");
		strbuf_adds(md, "\n");
	}
	md_collectives_notes(md, s, concurrent, rough_rows, step_totals);
}

/* The notes under a collectives table: where its rows come from and how they count, and how
 * the communication line above counts otherwise. */
static void md_collectives_notes(struct strbuf *md, const struct ana_scenario *s,
				 size_t concurrent, size_t rough_rows, size_t step_totals)
{
	if (s->comm.insp.colls_used)
		strbuf_adds(md, "\nFrom the NCCL Inspector's dumps (below).");
	else
		strbuf_adds(
			md,
			PROSE_COLL_TABLE_NOTE);
	if (concurrent)
		strbuf_adds(
			md,
			PROSE_COLL_UNION_NOTE);
	if (rough_rows)
		strbuf_addf(md, " A p95 marked (rough) comes from fewer than %d steps.",
			    STATS_P95_MIN_N);
	if (step_totals)
		strbuf_adds(md, PROSE_COLL_STEP_TOTAL_NOTE);
	if (comm_line_differs(s))
		strbuf_addf(md, PROSE_COLL_LINE_COUNTS_MORE,
			    s->shares.comm_total_pct * s->shares.rank_step_mean_ms / 100,
			    s->shares.rank_step_mean_ms);
	char clause[512];
	fabric_clause(s, clause, sizeof clause);
	strbuf_addf(md, "%s%s\n\n", clause[0] ? " " : "", clause);
}

/* The causes of a straggler group: one when they share it (with each rank's extra time),
 * else each rank's. */
static void md_straggler_causes(struct strbuf *md, const struct straggler *g, size_t len)
{
	int same = 1;
	for (size_t k = 1; k < len; k++)
		same &= g[k].cause_kind == g[0].cause_kind;
	if (!same) {
		for (size_t k = 0; k < len; k++) {
			strbuf_addf(md, "%srank %d %s", k ? ", " : "; causes: ", g[k].rank,
				    evidence_cause_words(g[k].cause_kind));
			if (g[k].cause_kind != STRAGGLER_UNKNOWN)
				strbuf_addf(md,
					    " (%.2f ms more per step than the other ranks' median)",
					    g[k].cause_ms);
		}
		return;
	}
	strbuf_addf(md, "; cause: %s", evidence_cause_words(g[0].cause_kind));
	if (g[0].cause_kind == STRAGGLER_UNKNOWN)
		return;
	strbuf_adds(md, " (");
	for (size_t k = 0; k < len; k++)
		if (len > 1)
			strbuf_addf(md, "%srank %d %.2f ms", k ? ", " : "", g[k].rank,
				    g[k].cause_ms);
		else
			strbuf_addf(md, "%.2f ms", g[k].cause_ms);
	strbuf_adds(md, " more per step than the other ranks' median)");
}

/* How rarely chance alone gives a group's last arrivals: its p, said once where every rank of
 * it has the same; a p that is the node's (its ranks last together) says so, each rank's own
 * beside it, so that a rank is not read as beyond chance on its node's record. */
static void md_straggler_chance(struct strbuf *md, const struct straggler *g, size_t len)
{
	int same = 1;
	for (size_t k = 1; k < len; k++)
		same &= g[k].chance_p == g[0].chance_p && g[k].by_node == g[0].by_node;
	strbuf_adds(md, "; so many last arrivals by chance alone: p = ");
	if (same && !g->by_node) {
		strbuf_addf(md, "%.1e", g->chance_p);
		return;
	}
	if (same) {
		strbuf_addf(md, "%.1e for the ranks of %s node arriving last together (",
			    g->chance_p, len > 1 ? "their" : "its");
		for (size_t k = 0; k < len; k++)
			strbuf_addf(md, "%srank %d alone: %.1e", k ? ", " : "", g[k].rank,
				    g[k].rank_p);
		strbuf_adds(md, ")");
		return;
	}
	for (size_t k = 0; k < len; k++)
		if (g[k].by_node)
			strbuf_addf(
				md,
				"%s%.1e (rank %d's node, its ranks last together; rank %d alone: %.1e)",
				k ? ", " : "", g[k].chance_p, g[k].rank, g[k].rank, g[k].rank_p);
		else
			strbuf_addf(md, "%s%.1e (rank %d)", k ? ", " : "", g[k].chance_p,
				    g[k].rank);
}

/* One straggler, or the ranks that arrived last together (one waiting, said once). */
static void md_straggler_group(struct strbuf *md, const struct ana_scenario *s,
			       const struct straggler *g, size_t len)
{
	strbuf_addf(md, " **Straggler%s: ", len > 1 ? "s" : "");
	evidence_straggler_names(md, g, len);
	strbuf_addf(
		md,
		"**: %s arrived last%s at %.0f %% of the collectives and %skeep%s the others waiting %.1f %% of the median step (%s straggler impact, per rank that waited",
		len > 1 ? "they" : "it", len > 1 ? " together (in the very same steps)" : "",
		g->arrived_last_pct, len > 1 ? "together " : "", len > 1 ? "" : "s", g->impact_pct,
		len > 1 ? "their" : "its");
	if (s->shares.shares_known)
		strbuf_addf(
			md,
			"; the table's Wait %%, %.1f %%, is every rank's waiting over every rank's step time",
			s->shares.sync_wait_pct);
	strbuf_adds(md, ")");
	md_straggler_causes(md, g, len);
	md_straggler_chance(md, g, len);
	strbuf_adds(md, ".");
}

/* Where the group of g[k] (len of them) arrived last with ranks named before it: how often,
 * and the group that did, whose impact counts the same steps' waiting. */
static void md_straggler_shares(struct strbuf *md, const struct straggler *g, size_t n, size_t k,
				size_t len)
{
	size_t i = 0;
	while (g[k].shared_last > 0 && i < k && g[i].rank != g[k].shares_with)
		i++;
	if (g[k].shared_last <= 0 || i == k)
		return;
	while (i > 0 && g[i].together) /* the first of its group */
		i--;
	strbuf_addf(md, PROSE_STRAGGLER_SHARES, g[k].shared_last, len > 1 ? "their" : "its",
		    g[k].last_n);
	evidence_straggler_names(md, &g[i], straggler_group_len(g, n, i));
	strbuf_adds(md, PROSE_STRAGGLER_SHARES_TAIL);
}

/* No straggler: none judged, none the test could name with so few trials, or none. */
static void md_no_straggler(struct strbuf *md, const struct ana_scenario *s)
{
	const struct straggler_test *t = &s->comm.straggler_test;
	const char *what = s->comm.insp.stragglers_used ? "collectives" : "steps",
		   *one = s->comm.insp.stragglers_used ? "collective" : "step";
	if (t->trials <= 0)
		strbuf_addf(md, PROSE_STRAGGLER_NONE_JUDGED, one);
	else if (t->least_p > STRAGGLER_CHANCE)
		strbuf_addf(md, PROSE_STRAGGLER_CANNOT_NAME, t->trials,
			    t->trials == 1 ? one : what, s->in.ranks, t->least_p,
			    100 * STRAGGLER_CHANCE, what);
	else
		strbuf_addf(md, PROSE_NO_STRAGGLER, STRAGGLER_MIN_IMPACT_PCT);
}

/* Who keeps the others waiting at the collectives, where and why. */
static void md_stragglers(struct strbuf *md, const struct ana_scenario *s,
			  const struct ana_run *run)
{
	if (s->steps.no_steps || (!s->shares.shares_known && !s->comm.insp.stragglers_used) ||
	    s->in.ranks < 2)
		return;
	if (!s->comm.n_stragglers) {
		md_no_straggler(md, s);
		return;
	}
	for (size_t k = 0, len; k < s->comm.n_stragglers; k += len) {
		len = straggler_group_len(s->comm.stragglers, s->comm.n_stragglers, k);
		md_straggler_group(md, s, &s->comm.stragglers[k], len);
		const struct straggler *g = &s->comm.stragglers[k];
		if (g->also_last > 0)
			strbuf_addf(md, PROSE_STRAGGLER_ALSO, g->also_rank, len > 1 ? "them" : "it",
				    g->also_last, len > 1 ? "their" : "its", g->last_n,
				    len > 1 ? "their" : "its");
		md_straggler_shares(md, s->comm.stragglers, s->comm.n_stragglers, k, len);
	}
	if (!s->shares.shares_known) /* the table above has the step's Wait % as n/a */
		strbuf_adds(
			md,
			" (The waiting is the NCCL Inspector's, per step; the step data does not split the step, so it feeds no verdict.)");
	if (s->comm.slow_node[0])
		strbuf_addf(
			md,
			s->comm.slow_node_emulated
				? PROSE_SLOW_EMULATED_NODE
				: " Every rank of node **%s** is a straggler: the node itself is slow.",
			s->comm.slow_node);
	else if (s->outcome.oversubscribed)
		strbuf_addf(md, PROSE_STRAGGLERS_SHARED_CPUS, s->in.ranks, run->host_cpus,
			    run->host_cpus == 1 ? "" : "s");
	/* (an emulated node's monitors are this machine's, as its others' are: nothing to set
	 * against each other) */
	if (s->comm.have_slow_mon && !s->comm.slow_node_emulated) {
		const struct monitor_summary *a = &s->comm.slow_mon, *b = &s->comm.rest_mon;
		strbuf_addf(
			md,
			" Its monitors against the %d other node%s: CPU busy %.1f %% (%.1f %%), iowait %.1f %% (%.1f %%), memory peak %.1f %% (%.1f %%)",
			b->nodes, b->nodes == 1 ? "" : "s", a->cpu_util_mean_pct,
			b->cpu_util_mean_pct, a->iowait_mean_pct, b->iowait_mean_pct,
			a->mem_peak_pct, b->mem_peak_pct);
		if (a->gpu_util_n && b->gpu_util_n)
			strbuf_addf(md, ", GPU busy %.1f %% (%.1f %%)", a->gpu_util_mean_pct,
				    b->gpu_util_mean_pct);
		strbuf_adds(md, ".");
	}
}

/* The analysed scenarios whose step's shares are known (step times alone have none). */
static size_t shares_of(const struct ana_run *run)
{
	size_t n = 0;
	for (size_t i = 0; i < run->n; i++)
		n += run->sc[i].data.analysed && run->sc[i].shares.shares_known;
	return n;
}

/* The table of every scenario: size, state, step times, shares, verdict. */
static void md_scenario_table(struct strbuf *md, const struct ana_run *run)
{
	int gpu = 0, rough_rows = 0, mean_rows = 0;
	strbuf_adds(
		md,
		"## Per-Scenario Analysis\n\n"
		"| Scenario | Nodes | Ranks | State | Median step (ms) | p95 (ms) | Throughput | Data % | Compute % | Comm % | Wait % | I/O % | Other % | Verdict |\n"
		"|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
	for (size_t i = 0; i < run->n; i++) {
		const struct ana_scenario *s = &run->sc[i];
		if (!s->data.analysed) {
			strbuf_addf(
				md,
				"| %s | %d | %d | %s | – | – | – | – | – | – | – | – | – | not analysed |\n",
				s->in.name, s->in.nodes, s->in.ranks, s->in.state);
			continue;
		}
		char sh[COL_COLS][16], med[32], p95[32], thr[64];
		for (int k = 0; k < COL_COLS; k++)
			share_text_cell(s, k, sh[k], sizeof sh[k]);
		/* (the times summary.json keeps, to 0.001, as the paper's table prints them) */
		snprintf(med, sizeof med, s->steps.no_steps ? "– (no steps)" : "%.2f",
			 jsonio_round3(s->steps.step_med_ms));
		if (s->steps.no_steps)
			snprintf(p95, sizeof p95, "–");
		else
			snprintf(p95, sizeof p95, "%.2f%s", jsonio_round3(s->steps.step_p95_ms),
				 rough(s->steps.active_steps));
		rough_rows += !s->steps.no_steps && s->steps.active_steps < STATS_P95_MIN_N;
		if (s->steps.no_steps)
			snprintf(thr, sizeof thr, "–");
		else
			mean_rows += throughput_cell(thr, sizeof thr, s, 1, 0);
		gpu |= s->outcome.basis == BASIS_GPU;
		strbuf_addf(
			md,
			"| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%s%s |\n",
			s->in.name, s->in.nodes, s->in.ranks, s->in.state, med, p95, thr, sh[0],
			sh[1], sh[2], sh[3], sh[4], sh[5], verdict_name(s->outcome.v.verdict),
			s->outcome.v.borderline ? " (borderline)" : "",
			s->outcome.basis == BASIS_GPU ? " (GPU)" : "");
	}
	strbuf_adds(md, shares_of(run) ? "\n" PROSE_SCENARIO_TABLE_COLUMNS
				       : "\n" PROSE_SCENARIO_TABLE_NO_SHARES);
	if (rough_rows)
		strbuf_addf(md, "A p95 marked (rough) comes from fewer than %d active steps.\n\n",
			    STATS_P95_MIN_N);
	if (mean_rows)
		strbuf_adds(md, PROSE_THROUGHPUT_MEAN_STEP);
	if (gpu)
		strbuf_adds(
			md,
			PROSE_SHARES_GPU_ROWS);
}

/* A scenario that could not be analysed: why, and where to look; 0 when it was analysed. */
static int md_scenario_unanalysed(struct strbuf *md, const struct ana_scenario *s,
				  const struct ana_run *run)
{
	if (s->data.analysed)
		return 0;
	char *why = data_text_problem(s, run);
	if (s->in.completed) {
		strbuf_addf(
			md,
			"The job **completed**, but left nothing to time its steps from: %s. Its job log is `%s/slurm-*.out`, each rank's output `%s/logs/rank_<r>.out`.\n\n",
			why, s->in.name, s->in.name);
		free(why);
		md_not_analysed(md, s, run);
		if (s->data.monitors_only) {
			char *ev = evidence_of(s, run);
			strbuf_addf(
				md,
				"From the node monitors alone (%d node%s, %ld sample%s): **%s**: %s.\n\n",
				s->mon.monitor_nodes, s->mon.monitor_nodes == 1 ? "" : "s",
				s->mon.monitor_samples, s->mon.monitor_samples == 1 ? "" : "s",
				verdict_name(s->outcome.v.verdict), ev);
			free(ev);
		}
		return 1;
	}
	strbuf_addf(md, "State **%s**", s->in.state);
	if (s->in.exit_code >= 0)
		strbuf_addf(md, ", exit code %d", s->in.exit_code);
	if (s->in.reason[0])
		strbuf_addf(md, " (%s)", s->in.reason);
	strbuf_addf(md, ". Not analysed: %s. Its job log is in `%s/`.\n\n", why, s->in.name);
	free(why);
	return 1;
}

/* The verdict with its evidence and what may weaken it. */
static void md_scenario_head(struct strbuf *md, const struct ana_scenario *s,
			     const struct ana_run *run)
{
	char *ev = evidence_of(s, run), *sources = data_text_sources(s),
	     *ranks = data_text_ranks(s);
	strbuf_addf(md, "**%s**: %s.\n\nSource: %s.\n\n", verdict_name(s->outcome.v.verdict), ev,
		    sources);
	free(ev);
	free(sources);
	if (s->gpu.gpu_basis)
		strbuf_adds(
			md,
			PROSE_VERDICT_FROM_GPU);
	if (ranks[0])
		strbuf_addf(md, "Ranks: %s.\n\n", ranks);
	free(ranks);
	if (s->data.lines_s > 0)
		strbuf_addf(md, PROSE_LINES_NOT_TIMED "\n", s->data.lines_rank, s->data.lines_s,
			    s->data.job_s);
	if (!s->steps.no_steps && s->steps.active_steps < STATS_BOOTSTRAP_MIN_N)
		strbuf_addf(md, PROSE_FEW_STEPS "\n", s->steps.active_steps,
			    s->steps.active_steps == 1 ? "" : "s", STATS_BOOTSTRAP_MIN_N);
	if (s->data.contaminated[0])
		strbuf_addf(
			md,
			PROSE_CONTAMINATED_BY_JOBS,
			s->data.contaminated);
	if (s->mon.foreign.contaminated) {
		strbuf_addf(
			md,
			"**Contaminated**: while its active steps ran, processes outside its job used %.1f %% of a CPU core on average (more than %.0f %%",
			s->mon.foreign.cpu_pct, ANA_FOREIGN_CPU_PCT);
		foreign_what(md, &s->mon.foreign, "; most: ");
		strbuf_adds(
			md,
			PROSE_CONTAMINATED_FOREIGN_TAIL);
	}
	md_not_analysed(md, s, run);
	if (s->data.bad_lines)
		strbuf_addf(
			md, "%ld %s line%s %s and %s skipped.\n\n", s->data.bad_lines,
			s->shares.shares_known ? "telemetry" : "step-log",
			s->data.bad_lines == 1 ? " was" : "s were",
			s->shares.shares_known
				? "malformed or held implausible numbers (non-finite, negative, over 10^9 ms)"
				: "longer than 64 KiB or over the pattern's match budget (100,000 backtracking steps)",
			s->data.bad_lines == 1 ? "was" : "were");
}

/* Step times, stragglers, loss, communication and collectives, throughput. */
/* What a step's time is, where the traces' collectives give the period (docs/analysis.md). */
static void md_step_estimator(struct strbuf *md, const struct ana_scenario *s)
{
	size_t k = s->steps.step_periods, n = s->steps.active_steps;
	double slow = s->steps.slowest_rank_ms, others = s->steps.slowest_others_ms;
	if (!k && !s->steps.no_steps && others > 0 && slow > 0)
		strbuf_addf(md, PROSE_STEP_SLOWEST_RANK, s->steps.slowest_rank, slow, others,
			    100 * (slow / others - 1));
	if (!k || s->steps.no_steps)
		return;
	strbuf_addf(
		md,
		PROSE_STEP_PERIOD_NOTE,
		k, n);
	if (k < n)
		strbuf_addf(md, "; %s the slowest rank's own step, with no collective before %s",
			    n - k == 1 ? "the other is" : "the others are",
			    n - k == 1 ? "it" : "them");
	strbuf_adds(md, ".");
}

/* The median step's interval in words into buf, with the throughput's it gives: " (95 %
 * interval 11.40-15.20 ms, 8421-11228 samples/s)"; why there is none: steps not alike (the
 * mean's said instead), too few of them. */
static const char *median_interval(char *buf, size_t n, const struct ana_scenario *s)
{
	double lo = s->steps.step_med_lo_ms, hi = s->steps.step_med_hi_ms,
	       per = (s->steps.global_batch > 0 ? (double)s->steps.global_batch : 1.0) * 1000.0;
	if ((lo <= 0 || hi <= 0) && stats_unalike(s->steps.step_med_ms, s->steps.step_mean_ms)) {
		snprintf(buf, n, PROSE_MEDIAN_NO_INTERVAL_UNALIKE, s->steps.step_mean_ms);
		return buf;
	}
	if (lo <= 0 || hi <= 0) {
		snprintf(buf, n, PROSE_MEDIAN_NO_INTERVAL_FEW, STATS_BOOTSTRAP_MIN_N);
		return buf;
	}
	snprintf(buf, n, " (95 %% interval %.2f-%.2f ms, %.*f-%.*f %s)", lo, hi,
		 stats_rate_decimals(per / hi), per / hi, stats_rate_decimals(per / lo), per / lo,
		 data_text_throughput_unit(s));
	return buf;
}

/* The mean step and the rate over the run it gives, where it is 5 % or more off the median
 * (yet the steps alike: unalike ones say it in the median's place): a reader citing a
 * throughput for the run wants that rate, which the median's overstates. */
static void md_step_mean(struct strbuf *md, const struct ana_scenario *s)
{
	double med = s->steps.step_med_ms, mean = s->steps.step_mean_ms;
	if (s->steps.no_steps || med <= 0 || mean <= 0 || fabs(mean / med - 1) < 0.05 ||
	    stats_unalike(med, mean))
		return;
	strbuf_addf(md, PROSE_STEP_MEAN_BESIDE, mean, 100 * (mean / med - 1),
		    stats_rate_decimals(s->steps.throughput_at_mean), s->steps.throughput_at_mean,
		    data_text_throughput_unit(s));
}

/* The step times, or the window when there are no steps; the host's phases. */
static void md_step_times(struct strbuf *md, const struct ana_scenario *s)
{
	char iv[160];
	if (s->steps.no_steps)
		strbuf_addf(
			md,
			PROSE_NO_STEP_BOUNDARIES,
			s->gpu.gpu_basis ? "GPU timeline" : "host's operators and phase ranges",
			s->steps.step_med_ms);
	else if (s->steps.active_steps == 1)
		strbuf_addf(
			md, PROSE_ONE_STEP, s->steps.step_med_ms,
			s->gpu.gpu_limits
				? ", the GPU's period (its work per step outlasts the host's step)"
				: "");
	else
		strbuf_addf(
			md,
			"Over %zu active step%s the step time was %.2f ms median%s, %.2f ms p95 (%smin %.2f, max %.2f; spread, p95 - min, %.1f %% of the median)%s.",
			s->steps.active_steps, s->steps.active_steps == 1 ? "" : "s",
			s->steps.step_med_ms, median_interval(iv, sizeof iv, s),
			s->steps.step_p95_ms,
			s->steps.active_steps < STATS_P95_MIN_N ? DATA_TEXT_P95_ROUGH "; " : "",
			s->steps.step_min_ms, s->steps.step_max_ms, s->steps.spread_pct,
			s->gpu.gpu_limits
				? ", the GPU's period (its work per step outlasts the host's step)"
				: "");
	md_step_mean(md, s);
	md_step_estimator(md, s);
	if (s->steps.partial_steps && !s->steps.no_steps)
		strbuf_addf(
			md,
			PROSE_PARTIAL_STEPS,
			s->steps.partial_steps, s->steps.partial_steps == 1 ? " was" : "s were");
	if (s->steps.window_shares)
		strbuf_adds(
			md,
			" The traces have no step boundaries: the step times come from the step lines of the rank logs, the shares from the traces' whole window.");
	if (s->shares.shares_known && !s->steps.no_steps)
		strbuf_addf(
			md,
			PROSE_ON_HOST_PHASES,
			s->shares.forward_pct, s->shares.backward_pct, s->shares.optimizer_pct,
			s->shares.ops_pct,
			100 - s->shares.forward_pct - s->shares.backward_pct -
				s->shares.optimizer_pct - s->shares.ops_pct);
	if (s->shares.shares_known && !s->steps.no_steps && s->replay.built &&
	    s->outcome.basis == BASIS_HOST &&
	    s->replay.compute_core_wait_pct >= REPLAY_CORE_WAIT_SAID_PCT)
		strbuf_addf(md, PROSE_COMPUTE_CORE_WAIT, s->replay.compute_core_wait_pct,
			    s->replay.cores, s->replay.cores == 1 ? "" : "s");
}

/* All communication's share as the communication line prints it: the sum of its parts as
 * printed (the transfer, the waiting, the part hidden behind compute), so that "58.8 % in
 * collectives" is the 55.3 and 3.5 % it then names, and the verdict's "in all", not 58.9. */
static double comm_total_shown(const struct ana_scenario *s)
{
	const struct ana_shares *h = &s->shares;
	double hidden = h->comm_total_pct - h->comm_pct - h->sync_wait_pct;
	return evidence_printed(h->comm_pct) + evidence_printed(h->sync_wait_pct) +
	       (hidden > 0 ? evidence_printed(hidden) : 0);
}

static void md_scenario_steps(struct strbuf *md, const struct ana_scenario *s,
			      const struct ana_run *run)
{
	md_step_times(md, s);
	md_stragglers(md, s, run);
	if (s->steps.loss_known)
		strbuf_addf(
			md,
			" Loss went from %.3f at rank 0's first step (warm-up included) to %.3f at its last active step.",
			s->steps.loss_first, s->steps.loss_last);
	strbuf_adds(md, "\n\n");
	char gbps[256] = "", rate[24];
	if (s->comm.allreduce_gbps > 0) /* (the local executor's nodes: this machine's loopback) */
		snprintf(
			gbps, sizeof gbps,
			"; %s GB/s all-reduced (bytes over the collectives' whole time, waiting included%s)",
			share_text_rate(rate, sizeof rate, s->comm.allreduce_gbps, 2),
			run->host_cpus > 0 ? "; " PROSE_COMM_LOOPBACK : "");
	/* no bytes known: the loopback said alone */
	else if (run->host_cpus > 0 && s->in.ranks > 1)
		snprintf(gbps, sizeof gbps, "; %s", PROSE_COMM_LOOPBACK);
	if (s->shares.comm_total_pct > 0 && s->outcome.basis == BASIS_HOST)
		strbuf_addf(
			md,
			PROSE_COMM_LINE,
			comm_total_shown(s), s->shares.overlap_pct, s->shares.comm_pct,
			s->shares.sync_wait_pct, gbps);
	md_collectives(md, s);
	clock_text_md(md, &s->comm.clocks, s->data.format != METRICS_STEP_LOG);
	md_inspector(md, s);
	if (s->shares.gemm_pct + s->shares.elementwise_pct > 0)
	{
		strbuf_addf(md, "Compute split: %.1f %% GEMM, %.1f %% elementwise",
			    s->shares.gemm_pct, s->shares.elementwise_pct);
		evidence_split_cover(md, s);
		strbuf_adds(md, ".\n\n");
	}
	if (s->steps.global_batch <= 0 && !s->steps.no_steps) /* throughput in steps/s */
		strbuf_adds(
			md,
			PROSE_THROUGHPUT_STEPS);
	else if (s->steps.global_batch > 0)
		strbuf_addf(md, "Global batch %ld sample%s per step (from %s).\n\n",
			    s->steps.global_batch, s->steps.global_batch == 1 ? "" : "s",
			    data_text_batch_from(s->steps.batch_from));
	if (!s->shares.shares_known)
		strbuf_addf(
			md,
			PROSE_SHARES_UNKNOWN,
			data_text_source(s->data.source),
			s->mon.have_monitor
				? "from the node monitors alone"
				: "undetermined: nothing is concluded from unknown shares");
}

/* v to three significant figures, into buf. */
static const char *sig3(char *buf, size_t n, double v)
{
	snprintf(buf, n, "%.*f", stats_sig_decimals(v, 3), v);
	return buf;
}

/* The FLOPs the rank achieved, and of its peak when that is known. */
static void md_mfu(struct strbuf *md, const struct ana_run *run, const struct ana_scenario *s)
{
	char rate[24], peak[24];
	if (s->steps.achieved_gflops > 0)
		strbuf_addf(
			md,
			"Achieved %s GFLOP/s per rank at the median step (%.2e FLOPs per step per rank)%s",
			sig3(rate, sizeof rate, s->steps.achieved_gflops), s->steps.flops_per_step,
			s->steps.mfu_pct >= 0
				? ""
				: "; MFU unknown: set `analysis.peak_gflops_per_rank`.\n\n");
	if (s->steps.mfu_pct >= 0)
		strbuf_addf(md, ": **MFU %.1f %%** of the %s GFLOP/s peak per rank.\n\n",
			    s->steps.mfu_pct,
			    sig3(peak, sizeof peak, run->peak_gflops));
}

/* Node monitors' samples a node under which their means are a glimpse, not the run's. */
/* The node monitors' means, said rough where each node has few samples. */
static void md_monitors(struct strbuf *md, const struct ana_scenario *s)
{
	double per = data_text_monitor_per_node(s);
	strbuf_addf(
		md,
		"Node monitors (%d node%s, %ld sample%s): CPU busy %.1f %% on average, iowait %.1f %%, memory peak %.1f %% of RAM",
		s->mon.monitor_nodes, s->mon.monitor_nodes == 1 ? "" : "s", s->mon.monitor_samples,
		s->mon.monitor_samples == 1 ? "" : "s", s->mon.cpu_util_mean_pct,
		s->mon.iowait_mean_pct, s->mon.mem_peak_pct);
	if (per < MONITORS_FEW_PER_NODE)
		strbuf_addf(md, PROSE_MONITORS_FEW_SAMPLES, per, per == 1 ? "" : "s");
	strbuf_adds(md, ".\n\n");
}

/* Operators, profilers, monitors, FLOPs and MFU. */
static void md_scenario_profile(struct strbuf *md, const struct ana_run *run,
				const struct ana_scenario *s)
{
	md_top_ops(md, s);
	if (s->data.profile_missing) {
		struct strbuf which = STRBUF_INIT;
		for (unsigned bit = PROFILE_NSYS; bit <= PROFILE_INSPECTOR; bit <<= 1)
			if (s->data.profile_missing & bit)
				strbuf_addf(&which, "%s%s", which.len ? ", " : "",
					    data_text_profiler(bit));
		strbuf_addf(
			md,
			"Profile missing: %s was asked for but left no output (not installed on the nodes? the job log says).\n\n",
			which.buf);
		strbuf_free(&which);
	}
	if (s->data.perf) {
		strbuf_addf(md, "perf stat (summed over %d rank%s):", s->data.perf->ranks,
			    s->data.perf->ranks == 1 ? "" : "s");
		for (int i = 0; i < s->data.perf->n; i++) {
			if (s->data.perf->ev[i].supported)
				strbuf_addf(md, "%s %s %.0f%s%s", i ? ";" : "",
					    s->data.perf->ev[i].name, s->data.perf->ev[i].value,
					    s->data.perf->ev[i].unit[0] ? " " : "",
					    s->data.perf->ev[i].unit);
			else
				strbuf_addf(md, "%s %s not supported here", i ? ";" : "",
					    s->data.perf->ev[i].name);
		}
		strbuf_adds(md, ".\n\n");
	}
	if (s->mon.have_monitor)
		md_monitors(md, s);
	else
		strbuf_adds(
			md,
			"Node monitors: no data (`profile.monitor` is off for this campaign).\n\n");
	if (s->mon.gpu_mem_peak_pct >= 0)
		strbuf_addf(
			md,
			"GPU monitors (%d GPU%s): utilisation %.1f %% on average, memory controller %.1f %%, memory peak %.1f %% of GPU memory.\n\n",
			s->mon.gpus, s->mon.gpus == 1 ? "" : "s", s->mon.gpu_util_mean_pct,
			s->mon.gpu_mem_util_mean_pct, s->mon.gpu_mem_peak_pct);
	md_mfu(md, run, s);
}

static void md_scenarios(struct strbuf *md, const struct ana_run *run)
{
	md_scenario_table(md, run);
	for (size_t i = 0; i < run->n; i++) {
		const struct ana_scenario *s = &run->sc[i];
		strbuf_addf(md, "### %s\n\n", s->in.name);
		if (s->in.attempts > 1)
			strbuf_addf(
				md,
				"Attempt %d of %d (the latest %s; every attempt's outputs are kept in `%s/attempts/`).\n\n",
				s->in.attempt, s->in.attempts,
				s->in.attempt == s->in.attempts ? "one" : "that completed",
				s->in.name);
		if (s->in.requeued)
			strbuf_addf(md,
				    "Job history: %s; the analysis uses the last attempt only.\n\n",
				    s->in.requeued);
		if (md_scenario_unanalysed(md, s, run))
			continue;
		md_scenario_head(md, s, run);
		md_scenario_steps(md, s, run);
		md_scenario_profile(md, run, s);
	}
}

/* The scaling figure's caption: a fitted curve only where a series' model predicts. */
static const char *scaling_alt(const struct ana_run *run)
{
	for (size_t i = 0; i < run->nmodels; i++)
		if (run->models[i].predicts)
			return "Parallel efficiency per series, measured and fitted";
	return "Parallel efficiency per series, measured (no model fits well enough to draw)";
}

/* Links the figures that were drawn and have data behind them. */
static void md_figures(struct strbuf *md, const struct ana_run *run)
{
	enum { ALWAYS, SERIES, SIZED, SHARES };
	static const struct { const char *file, *alt; int need;
	} figs[] = {
		{ "scaling", NULL, SERIES },
		{ "breakdown", "Where step time goes, per scenario", SHARES },
		{ "timeline",
		  "Step time per active step of each scenario, as analysed (the steps its median is of)",
		  ALWAYS },
		{ "phases", "The median step of the widest scenario, per rank", SHARES },
		{ "collectives", "Bus bandwidth of the collectives against message size", SIZED },
	};
	/* (step times alone draw no breakdown: no figure of nothing) */
	size_t analysed = 0, series = 0, sized = 0, shares = shares_of(run);
	for (size_t i = 0; i < run->n; i++) {
		analysed += run->sc[i].data.analysed;
		series += run->sc[i].data.analysed && run->sc[i].scaling.baseline[0] &&
			!run->sc[i].scaling.is_baseline;
		for (size_t k = 0; k < run->sc[i].comm.ncolls; k++)
			sized += run->sc[i].comm.colls[k].size_class >= 0;
	}
	if (!analysed) {
		strbuf_adds(md, "No figures: no scenario has step data to plot.\n\n");
		return;
	}
	int any = 0;
	for (size_t i = 0; i < sizeof figs / sizeof *figs; i++) {
		struct strbuf p = STRBUF_INIT;
		strbuf_addf(&p, "%s/" RUN_FIGURES "/%s.svg", run->run_dir, figs[i].file);
		int wanted = figs[i].need == ALWAYS || (figs[i].need == SERIES && series) ||
			(figs[i].need == SIZED && sized) || (figs[i].need == SHARES && shares);
		if (fsio_exists(p.buf) && wanted) {
			strbuf_addf(md, "![%s](figures/%s.svg)\n\n",
				    figs[i].alt ? figs[i].alt : scaling_alt(run), figs[i].file);
			any = 1;
		}
		strbuf_free(&p);
	}
	strbuf_addf(
		md,
		"%sA merged multi-rank timeline of every scenario is in `timeline.json` (open it in https://ui.perfetto.dev or chrome://tracing).\n\n",
		any ? "Figures (SVG, with their data and gnuplot scripts; `campaign paper` draws them as PDF and PNG too) are in `figures/`. "
		    : "No figure was drawn (is gnuplot installed?). ");
}

/* The scenarios of base's series whose speedup compares mean steps, said once. */
static void md_series_by_means(struct strbuf *md, const struct ana_run *run,
			       const struct ana_scenario *base)
{
	struct strbuf names = STRBUF_INIT;
	size_t n = 0;
	for (size_t i = 0; i < run->n; i++) {
		const struct ana_scenario *s = &run->sc[i];
		if (s->data.analysed && !strcmp(s->scaling.baseline, base->in.name) &&
		    s->scaling.by_means && s->scaling.speedup > 0 && !s->scaling.is_baseline)
			strbuf_addf(&names, "%s**%s**", n++ ? ", " : "", s->in.name);
	}
	if (n) {
		strbuf_addf(md, PROSE_SCALING_BY_MEANS, names.buf, n == 1 ? "its" : "their");
		if (base->steps.throughput_at_mean > 0 && /* (the row's is at its median) */
		    !stats_unalike(base->steps.step_med_ms, base->steps.step_mean_ms))
			strbuf_addf(md, PROSE_SCALING_BASE_AT_MEAN, base->in.name,
				    stats_rate_decimals(base->steps.throughput_at_mean),
				    base->steps.throughput_at_mean,
				    data_text_throughput_unit(base));
		strbuf_adds(md, "\n");
	}
	strbuf_free(&names);
}

/* The rows of a series' table; the widest scenario with a known mode. */
static const struct ana_scenario *md_series_rows(struct strbuf *md, const struct ana_run *run,
						 const struct ana_scenario *base)
{
	const struct ana_scenario *last = base;
	for (size_t i = 0; i < run->n; i++) {
		const struct ana_scenario *s = &run->sc[i];
		if (!s->data.analysed || strcmp(s->scaling.baseline, base->in.name))
			continue;
		char gb[24] = "unknown", sp[48] = "–", ef[48] = "–";
		if (s->steps.global_batch > 0)
			snprintf(gb, sizeof gb, "%ld", s->steps.global_batch);
		int moded = s->scaling.mode != SCALING_UNKNOWN;
		if (s->scaling.is_baseline || moded)
			scaling_text_cells(s, sp, sizeof sp, ef, sizeof ef);
		char sh[3][16]; /* on the verdict's basis, as the scenario table; n/a unknown */
		for (int k = 0; k < 3; k++)
			share_text_cell(s, k, sh[k], sizeof sh[k]);
		const char *basis = share_text_basis(s);
		/* the header gives the baseline's unit; a row says its own only when it differs */
		const char *unit = data_text_throughput_unit(s);
		char thr[64];
		throughput_cell(thr, sizeof thr, s, strcmp(unit, data_text_throughput_unit(base)),
				s->scaling.by_means && !s->scaling.is_baseline &&
					s->steps.throughput_at_mean > 0);
		strbuf_addf(md, "| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			    s->in.name, s->in.nodes, s->in.ranks, gb, thr,
			    s->scaling.is_baseline ? "baseline"
				    : moded        ? scaling_text_mode(s->scaling.mode)
						   : "–",
			    sp, ef, sh[0], sh[1], sh[2], basis ? basis : "–");
		if (s->in.ranks > last->in.ranks && (moded || s->scaling.is_baseline))
			last = s;
	}
	return last;
}

/* How the shares move from the baseline to the widest scenario, on the basis of the table
 * above; not compared when one's are unknown or the two are on different bases. */
static void md_series_moves(struct strbuf *md, const struct ana_scenario *base,
			    const struct ana_scenario *last)
{
	const char *bb = share_text_basis(base), *lb = share_text_basis(last);
	int gpu = base->outcome.basis == BASIS_GPU;
	struct strbuf eff = STRBUF_INIT;
	if (last != base)
		scaling_text_efficiency(&eff, last);
	if (last == base)
		strbuf_adds(
			md,
			"\nNo other scenario of this series scales against it with a known mode: no scaling to report.\n\n");
	else if (!bb || !lb)
		strbuf_addf(
			md,
			"\nFrom %d to %d ranks parallel efficiency is %s; how the shares of step time move is not known (no breakdown of the step: %s).\n\n",
			base->in.ranks, last->in.ranks, eff.buf,
			data_text_source((bb ? last : base)->data.source));
	else if (strcmp(bb, lb))
		strbuf_addf(
			md,
			"\nFrom %d to %d ranks parallel efficiency is %s; the shares are not compared: %s's are of %s, %s's of %s (the table's last column).\n\n",
			base->in.ranks, last->in.ranks, eff.buf, base->in.name, bb, last->in.name,
			lb);
	else {
		/* on the host's basis the waiting for peers beside it: it grows with ranks too */
		char wait[96] = "";
		if (share_text_pct(base, COL_WAIT) >= 0 && share_text_pct(last, COL_WAIT) >= 0)
			snprintf(wait, sizeof wait, ", waiting for peers from %.1f %% to %.1f %%",
				 share_text_pct(base, COL_WAIT), share_text_pct(last, COL_WAIT));
		strbuf_addf(
			md,
			PROSE_SCALING_MOVES,
			base->in.ranks, last->in.ranks, share_text_pct(base, COL_COMM),
			share_text_pct(last, COL_COMM), gpu ? "the GPU's time" : "step time", wait,
			share_text_pct(base, COL_COMPUTE), share_text_pct(last, COL_COMPUTE),
			gpu ? "the GPU idle while the host loaded data" : "data loading",
			share_text_pct(base, COL_DATA), share_text_pct(last, COL_DATA),
			last->in.ranks, eff.buf);
	}
	strbuf_free(&eff);
}

/* How many analysed scenarios the series of base holds (base among them). */
static size_t series_size(const struct ana_run *run, const struct ana_scenario *base)
{
	size_t n = 0;
	for (size_t i = 0; i < run->n; i++)
		n += run->sc[i].data.analysed &&
			!strcmp(run->sc[i].scaling.baseline, base->in.name);
	return n;
}

/* One scaling series: its table, how the shares move, its scaling notes. */
static void md_series(struct strbuf *md, const struct ana_run *run,
		      const struct ana_scenario *base)
{
	strbuf_addf(
		md,
		"Series of **%s** (%s, %d task%s per node), baseline **%s**:\n\n"
		PROSE_SCALING_TABLE_HEAD
		"|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|\n",
		base->in.name, base->in.backend, base->in.tasks_per_node,
		base->in.tasks_per_node == 1 ? "" : "s", base->in.name,
		data_text_throughput_unit(base));
	const struct ana_scenario *last = md_series_rows(md, run, base);
	md_series_moves(md, base, last);
	for (size_t i = 0; i < run->n; i++)
		if (run->sc[i].data.analysed &&
		    !strcmp(run->sc[i].scaling.baseline, base->in.name) &&
		    run->sc[i].scaling.note != SCALING_NOTE_NONE) {
			strbuf_addf(md, "- **%s**: ", run->sc[i].in.name);
			scaling_text_note(md, &run->sc[i]);
			strbuf_adds(md, ".\n");
		}
	md_series_by_means(md, run, base);
	strbuf_adds(md, "\n");
}

/* One series' model: its form, fit and predictions (or why there are none), contention. A
 * flat fit of step times alone that does not fit (they fall with the node count, which
 * a + c log2(N) with c >= 0 cannot follow) is no model: said so, not printed. */
static void md_model(struct strbuf *md, const struct ana_run *run, const struct ana_model *m)
{
	if (m->step_only && m->c <= 0 && m->max_err_pct > MODEL_FITS_PCT) {
		strbuf_addf(md, PROSE_SCALING_NO_STEP_MODEL, m->series, m->max_err_pct,
			    m->max_err_nodes, m->max_err_nodes == 1 ? "" : "s");
		return;
	}
	char form[96];
	if (m->step_only)
		snprintf(form, sizeof form, "%.3f + %.3f x log2(N)", m->a, m->c);
	else
		snprintf(form, sizeof form, "%.3f / N + %.3f + %.3f x log2(N)", m->b, m->a, m->c);
	struct strbuf limit = STRBUF_INIT, fit = STRBUF_INIT;
	scaling_text_limit(&limit, m);
	scaling_text_fit(&fit, m);
	strbuf_addf(
		md,
		"**Model for the series of %s**: step time (ms, at the baseline's global batch) T(N) = %s%s. ",
		m->series, form, m->step_only ? " (no compute term: step times only)" : "");
	if (!m->predicts) {
		strbuf_addf(md, "%s ", fit.buf);
		scaling_text_no_prediction(md, m, run->host_cpus);
		strbuf_adds(md, "\n\n");
	} else
		strbuf_addf(
			md,
			"Predicted parallel efficiency: **%.0f %% at 8 nodes, %.0f %% at 16 nodes**.\n\n%s %s\n\n",
			100 * m->eff8, 100 * m->eff16, limit.buf, fit.buf);
	strbuf_free(&limit);
	strbuf_free(&fit);
	if (m->contention.found) {
		strbuf_adds(md, "**Contention.** ");
		scaling_text_contention(md, m, run->host_cpus);
		strbuf_adds(md, "\n\n");
	}
}

static void md_scaling(struct strbuf *md, const struct ana_run *run)
{
	strbuf_adds(md, "## Scaling Analysis\n\n");
	struct strbuf alone = STRBUF_INIT;
	size_t any = 0, n_alone = 0;
	for (size_t b = 0; b < run->n; b++) {
		const struct ana_scenario *base = &run->sc[b];
		if (!base->data.analysed || !base->scaling.is_baseline)
			continue;
		any++;
		if (series_size(run, base) > 1)
			md_series(md, run, base);
		else /* one row of 1.00x says nothing: named once, below */
			strbuf_addf(&alone, "%s**%s** (%d node%s, %d rank%s)",
				    n_alone++ ? ", " : "", base->in.name, base->in.nodes,
				    base->in.nodes == 1 ? "" : "s", base->in.ranks,
				    base->in.ranks == 1 ? "" : "s");
	}
	if (n_alone)
		strbuf_addf(md, PROSE_SCALING_ALONE, n_alone == 1 ? "A series" : "Series",
			    n_alone == 1 ? "" : " each", alone.buf);
	strbuf_free(&alone);
	if (!any)
		strbuf_adds(md, "No analysed scenario to compare against.\n\n");
	for (size_t i = 0; i < run->nmodels; i++)
		md_model(md, run, &run->models[i]);
	md_figures(md, run);
}

/* What each fabric probe measured (analysis.fabric_probe). */
static void md_fabric(struct strbuf *md, const struct ana_run *run)
{
	if (!run->nprobes)
		return;
	strbuf_adds(
		md,
		PROSE_FABRIC_HEAD);
	for (size_t i = 0; i < run->nprobes; i++) {
		const struct ana_probe *p = &run->probes[i];
		strbuf_addf(md, "| %s | %s | %d | %d | ", p->name, p->backend, p->nodes, p->ranks);
		if (!p->n) {
			strbuf_adds(md, "no result: ");
			fabric_probe_problem(md, p);
		}
		for (size_t k = 0; k < p->n; k++) {
			char label[32];
			double b = p->pts[k].bytes;
			snprintf(label, sizeof label, b >= 1048576 ? "%.0f MiB" : "%.0f KiB",
				 b >= 1048576 ? b / 1048576 : b / 1024);
			char bw[24];
			strbuf_addf(md, "%s%s: %s", k ? ", " : "", label,
				    share_text_rate(bw, sizeof bw, p->pts[k].busbw_gbps, 3));
		}
		strbuf_adds(md, " |\n");
	}
	strbuf_adds(md, "\n");
}

/* What to do about the scenarios that were not analysed. */
static void md_unanalysed_advice(struct strbuf *md, const struct ana_run *run)
{
	for (size_t i = 0; i < run->n; i++) {
		const struct ana_scenario *s = &run->sc[i];
		if (s->data.analysed)
			continue;
		if (s->in.completed) {
			char *why = data_text_problem(s, run);
			strbuf_addf(md, "- **%s** completed but cannot be analysed: %s.\n",
				    s->in.name, why);
			free(why);
		} else
			strbuf_addf(
				md,
				"- **%s** ended %s: read `%s/slurm-*.out` (and `%s/logs/`), fix the cause and run it again (`campaign resubmit RUN %s`).\n",
				s->in.name, s->in.state, s->in.name, s->in.name, s->in.name);
	}
}

/* Recommendation r as the list ranks it: its gain, its words, and its gain's 95 % interval
 * where it has one (advice_gain_interval). */
static struct rec rec_ranked(const struct ana_rec *r, const struct ana_run *run)
{
	struct rec x = { r->gain_pct, rec_text(r, run), 0, 0, 0, rec_kind_name(r->kind) };
	x.iv = advice_gain_interval(r, run, &x.lo, &x.hi);
	return x;
}

/* Neighbours of the ranked list whose predicted gains lie within RECS_TIE_POINTS of each
 * other, or whose gains' 95 % intervals overlap: their order says nothing (their
 * predictions are not that exact). */
#define RECS_TIE_POINTS 1.0
static int recs_tie(const struct rec *a, const struct rec *b)
{
	if (a->gain <= 0 || b->gain <= 0)
		return 0;
	return a->gain - b->gain < RECS_TIE_POINTS ||
	       (a->iv && b->iv && a->lo <= b->hi && b->lo <= a->hi);
}

static void md_rec_ties(struct strbuf *md, const struct rec *recs, size_t n)
{
	int any = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		const struct rec *a = &recs[i], *b = &recs[i + 1];
		if (!recs_tie(a, b))
			continue;
		strbuf_addf(md, "%s%zu and %zu (%.1f %% and %.1f %%", any++ ? ", " : PROSE_RECS_TIE,
			    i + 1, i + 2, a->gain, b->gain);
		if (a->iv && b->iv)
			strbuf_addf(md, "; intervals %.1f to %.1f %% and %.1f to %.1f %%", a->lo,
				    a->hi, b->lo, b->hi);
		strbuf_adds(md, ")");
	}
	if (any)
		strbuf_adds(md, ": their order says nothing.\n\n");
}

/* The ranked recommendations' kinds, which a campaign's knobs: and `campaign try` name. */
static void md_rec_kinds(struct strbuf *md, const struct rec *recs, size_t n)
{
	int any = 0, none = 0;
	for (size_t i = 0; i < n; i++)
		if (recs[i].kind)
			strbuf_addf(md, "%sitem %zu `%s`", any++ ? ", " : PROSE_REC_KINDS, i + 1,
				    recs[i].kind);
	for (size_t i = 0; any && i < n; i++)
		if (!recs[i].kind)
			strbuf_addf(md, "%s%zu", none++ ? ", " : "; none for item ", i + 1);
	if (none)
		strbuf_adds(md, " (a series' scaling advice)");
	if (any)
		strbuf_adds(md, PROSE_REC_KINDS_END);
}

static void md_recommendations(struct strbuf *md, const struct ana_run *run)
{
	struct rec *recs = xcalloc(run->nrecs + run->nmodels + 1, sizeof *recs);
	size_t n = 0;
	for (size_t i = 0; i < run->nrecs; i++)
		recs[n++] = rec_ranked(&run->recs[i], run);
	for (size_t i = 0; i < run->nmodels; i++)
		n += series_advice(&recs[n], &run->models[i], run);
	sort_runs(recs, n, sizeof *recs, rec_cmp);
	strbuf_adds(
		md,
		PROSE_RECOMMENDATIONS_HEAD);
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(md, "%zu. %s\n", i + 1, recs[i].text);
		free(recs[i].text);
	}
	md_unanalysed_advice(md, run);
	int ranked = 0;
	for (size_t i = 0; i < run->nrecs; i++)
		ranked |= run->recs[i].lead_ranks;
	if (run->nrecs >= 2 && !ranked && !run->nmodels)
		strbuf_adds(md, PROSE_RECOMMENDATIONS_UNRANKED);
	strbuf_adds(md, "\n");
	md_rec_kinds(md, recs, n);
	md_rec_ties(md, recs, n);
	free(recs);
}

/* How the step data is read and step time shared out. */
static void md_method_sources(struct strbuf *md)
{
	strbuf_adds(md, PROSE_METHOD_SOURCES);
}

/* Each scenario's replay of its unchanged execution graph against what was measured, or
 * why it has none. */
static void md_method_replay(struct strbuf *md, const struct ana_run *run)
{
	strbuf_adds(
		md,
		PROSE_METHOD_REPLAY);
	for (size_t i = 0; i < run->n; i++) {
		const struct ana_scenario *s = &run->sc[i];
		const struct replay_result *r = &s->replay;
		strbuf_addf(md, "%s `%s` ", i ? ";" : "", s->in.name);
		if (!r->built) {
			char *why = data_text_replay_why(r);
			strbuf_addf(md, "none (%s)", why);
			free(why);
			continue;
		}
		if (r->by_means)
			strbuf_addf(md, PROSE_REPLAY_BY_MEANS, r->mean_step_ms, r->measured_mean_ms,
				    r->mean_error_pct, replay_means_whose(r), r->step_ms,
				    r->measured_ms, r->error_pct);
		else
			strbuf_addf(md, "%.2f ms against %.2f ms (%+.1f %%", r->step_ms,
				    r->measured_ms, r->error_pct);
		strbuf_addf(md, ", %zu step%s, %d host%s of %d core%s; per rank%s", r->steps,
			    r->steps == 1 ? "" : "s", r->hosts, r->hosts == 1 ? "" : "s", r->cores,
			    r->cores == 1 ? "" : "s", r->by_means ? ", by the medians," : "");
		for (size_t k = 0; k < r->nranks; k++)
			strbuf_addf(md, "%s %d: %+.1f %%", k ? "," : "", r->ranks[k].rank,
				    r->ranks[k].error_pct);
		strbuf_adds(md, ")");
		if (fabs(replay_result_error(r)) > REPLAY_ROUGH_PCT)
			strbuf_addf(md, PROSE_REPLAY_ROUGH, REPLAY_ROUGH_PCT);
		else if (replay_median_rough(r))
			strbuf_addf(md, PROSE_REPLAY_MEDIAN_ROUGH, REPLAY_ROUGH_PCT);
		if (s->mon.foreign.contaminated)
			strbuf_addf(md, PROSE_REPLAY_BESIDE_LOAD, s->mon.foreign.cpu_pct);
	}
	strbuf_adds(md, ".\n");
}

static void md_method(struct strbuf *md, const struct ana_run *run)
{
	md_method_sources(md);
	md_method_replay(md, run);
	strbuf_addf(md, PROSE_METHOD_RULES,
		run->th.comm_pct, run->th.data_pct, run->th.io_pct, run->th.gpu_util_pct,
		run->th.memory_pct, STATS_BOOTSTRAP_ROUNDS, STATS_BOOTSTRAP_MIN_N);
}

int write_markdown(const struct ana_run *run)
{
	struct strbuf md = STRBUF_INIT, path = STRBUF_INIT;
	strbuf_addf(&md, PROSE_REPORT_HEAD, run->campaign, run->run_id);
	md_summary(&md, run);
	prediction_check_md(&md, &run->variant);
	md_scenarios(&md, run);
	md_scaling(&md, run);
	md_fabric(&md, run);
	md_recommendations(&md, run);
	md_method(&md, run);
	strbuf_addf(&path, "%s/" RUN_REPORT, run->run_dir);
	int rc = fsio_write_atomic(path.buf, md.buf, md.len, 0644);
	strbuf_free(&md);
	strbuf_free(&path);
	return rc;
}
