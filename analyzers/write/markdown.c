/* markdown: BOTTLENECK_ANALYSIS.md, section by section: the executive summary, the
 * scenarios, scaling, the fabric, the recommendations and the method.
 * SPDX-License-Identifier: MIT */
#include "analyzers/analysis.h"
#include "analyzers/write/report.h"
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
	strbuf_addf(md, ": %s %.1f %% of step time, and %.1f %% ",
		    evidence_share_words(v->share, BASIS_HOST, 1), evidence_own_pct(s, v->share),
		    s->shares.sync_wait_pct);
	if (n && !s->steps.no_steps)
		strbuf_addf(md, "the other ranks waiting for the %s extra %s",
			    straggler_group_len(s->comm.stragglers, n, 0) > 1 ? "stragglers'"
									      : "straggler's",
			    evidence_cause_words(s->comm.stragglers[0].cause_kind));
	else
		strbuf_adds(md, "waiting for peers");
	strbuf_addf(md, " (%.1f %% in all)", v->pct);
}

/* The monitors' figure beside their verdict: " (CPUs busy 99.7 %)"; nothing on another basis. */
static void monitor_figure(struct strbuf *md, const struct ana_scenario *s)
{
	struct strbuf f = STRBUF_INIT;
	if (evidence_monitor_figure(&f, s))
		strbuf_addf(md, " (%s)", f.buf);
	strbuf_free(&f);
}

/* One analysed scenario's line of the summary: its verdict and share, its
 * step time, its scaling. */
static void md_summary_line(struct strbuf *md, const struct ana_scenario *s)
{
	strbuf_addf(md, "- **%s** (%d node%s, %d rank%s, %s): **%s**%s", s->in.name, s->in.nodes,
		    s->in.nodes == 1 ? "" : "s", s->in.ranks, s->in.ranks == 1 ? "" : "s",
		    s->in.backend, verdict_name(s->outcome.v.verdict),
		    s->outcome.v.borderline ? " (borderline)" : "");
	if (evidence_share_holds_wait(s) && s->shares.sync_wait_pct > 0)
		md_summary_share(md, s);
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
	strbuf_adds(md, ". ");
	if (s->steps.no_steps)
		strbuf_addf(md, "No step boundaries: from the %s over a %.2f ms profiled window",
			    s->gpu.gpu_basis ? "GPU timeline" : "host's operators",
			    s->steps.step_med_ms);
	else
		strbuf_addf(md, "Median step %.2f ms, %.1f %s", s->steps.step_med_ms,
			    s->steps.throughput, data_text_throughput_unit(s));
	if (s->scaling.baseline[0] && !s->scaling.is_baseline &&
	    s->scaling.mode != SCALING_UNKNOWN) {
		strbuf_addf(md, "; %s scaling: ", scaling_text_mode(s->scaling.mode));
		scaling_text_speedup(md, s);
		strbuf_adds(md, " and efficiency ");
		scaling_text_efficiency(md, s);
		strbuf_addf(md, " against %s", s->scaling.baseline);
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
			md_summary_line(md, &run->sc[i]);
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
			"GPU time in the traces (HTA's definitions, %zu rank%s with kernels): idle %.1f %%, compute %.1f %%, non-compute %.1f %% of %.2f ms of kernel time (from each rank's first kernel start to its last kernel end, summed over ranks)",
			s->data.trace_gpu_files, s->data.trace_gpu_files == 1 ? "" : "s",
			s->gpu.gpu_idle_pct, s->gpu.gpu_compute_pct, s->gpu.gpu_non_compute_pct,
			s->gpu.gpu_kernel_ms);
		if (s->gpu.gpu_overlap_pct >= 0)
			strbuf_addf(md,
				    "; %.1f %% of communication kernels' time overlaps computation",
				    s->gpu.gpu_overlap_pct);
		strbuf_adds(md, ". Top kernels:\n\n");
		md_op_table(md, s->gpu.top_kernels, s->gpu.n_top_kernels, s->gpu.kernels_total_ms,
			    "Time");
	}
	if (!s->data.n_top_ops)
		return;
	strbuf_addf(
		md,
		"Top CPU operators by self time (all ranks and profiled steps, %zu trace file%s):\n\n",
		s->data.trace_files, s->data.trace_files == 1 ? "" : "s");
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
		"| Collective | Size | Per step | Time per step (ms) | Latency (ms, median / p95) | Wait (ms, median / p95) | algbw (GB/s) | busbw (GB/s) |%s\n|---|---|---:|---:|---:|---:|---:|---:|%s\n",
		fab ? " Of the fabric |" : "", fab ? "---:|" : "");
	size_t concurrent = 0, rough_rows = 0;
	for (size_t i = 0; i < s->comm.ncolls; i++) {
		const struct collective *c = &s->comm.colls[i];
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
		strbuf_addf(md, "| %s | %s | %.2f | %s | %.3f / %.3f%s | %.3f / %.3f%s | %s | %s |",
			    coll_op_name(c->op), bytes, c->count_per_step, ms, c->latency_med,
			    c->latency_p95, rough(c->steps), c->wait_med, c->wait_p95,
			    rough(c->steps), alg, bus);
		if (fab && c->size_class >= 0 && c->fabric_busbw_gbps > 0)
			strbuf_addf(md, " %.0f %% of %s |",
				    100 * c->busbw_gbps / c->fabric_busbw_gbps,
				    share_text_rate(alg, sizeof alg, c->fabric_busbw_gbps, 3));
		else if (fab)
			strbuf_adds(md, " – |");
		strbuf_adds(md, "\n");
	}
	if (s->comm.insp.colls_used)
		strbuf_adds(md, "\nFrom the NCCL Inspector's dumps (below).");
	else
		strbuf_adds(
			md,
			"\nEach collective is matched across ranks (same step, process group, operation and order); latency is its shortest duration over ranks (the transfer once every rank has arrived), wait each rank's excess over it; busbw applies nccl-tests' factors (all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast 1).");
	if (concurrent)
		strbuf_adds(
			md,
			" Time per step is, per rank and step, the union of the row's instances: those that ran at the same time (as DDP's gradient buckets all-reduce together) count once; then averaged over ranks and steps. Summed is their times added up, as if they had run one after another.");
	if (rough_rows)
		strbuf_addf(md, " A p95 marked (rough) comes from fewer than %d steps.",
			    STATS_P95_MIN_N);
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

/* One straggler, or the ranks that arrived last together (one waiting, said once). */
static void md_straggler_group(struct strbuf *md, const struct ana_scenario *s,
			       const struct straggler *g, size_t len)
{
	strbuf_addf(md, " **Straggler%s: ", len > 1 ? "s" : "");
	evidence_straggler_names(md, g, len);
	strbuf_addf(
		md,
		"**: %s arrived last%s at %.0f %% of the collectives and %skeep%s the others waiting %.1f %% of the median step (%s straggler impact, per other rank",
		len > 1 ? "they" : "it", len > 1 ? " together" : "", g->arrived_last_pct,
		len > 1 ? "together " : "", len > 1 ? "" : "s", g->impact_pct,
		len > 1 ? "their" : "its");
	if (s->shares.shares_known)
		strbuf_addf(
			md,
			"; the table's Wait %%, %.1f %%, is every rank's waiting over every rank's step time",
			s->shares.sync_wait_pct);
	strbuf_adds(md, ")");
	md_straggler_causes(md, g, len);
	int same_p = 1;
	for (size_t k = 1; k < len; k++)
		same_p &= g[k].chance_p == g[0].chance_p;
	strbuf_adds(md, "; so many last arrivals by chance alone: p = ");
	for (size_t k = 0; k < len && !same_p; k++)
		strbuf_addf(md, "%s%.1e (rank %d)", k ? ", " : "", g[k].chance_p, g[k].rank);
	if (same_p)
		strbuf_addf(md, "%.1e", g->chance_p);
	strbuf_adds(md, ".");
}

/* Who keeps the others waiting at the collectives, where and why. */
static void md_stragglers(struct strbuf *md, const struct ana_scenario *s)
{
	if (s->steps.no_steps || (!s->shares.shares_known && !s->comm.insp.stragglers_used) ||
	    s->in.ranks < 2)
		return;
	if (!s->comm.n_stragglers) {
		strbuf_addf(
			md,
			" No rank keeps the others waiting (none arrived last at most collectives, more often than chance would, with an impact of %.0f %% of the step or more).",
			STRAGGLER_MIN_IMPACT_PCT);
		return;
	}
	for (size_t k = 0, len; k < s->comm.n_stragglers; k += len) {
		len = straggler_group_len(s->comm.stragglers, s->comm.n_stragglers, k);
		md_straggler_group(md, s, &s->comm.stragglers[k], len);
	}
	if (!s->shares.shares_known) /* the table above has the step's Wait % as n/a */
		strbuf_adds(
			md,
			" (The waiting is the NCCL Inspector's, per step; the step data does not split the step, so it feeds no verdict.)");
	if (s->comm.slow_node[0])
		strbuf_addf(md,
			    " Every rank of node **%s** is a straggler: the node itself is slow.",
			    s->comm.slow_node);
	if (s->comm.have_slow_mon) {
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

/* The table of every scenario: size, state, step times, shares, verdict. */
static void md_scenario_table(struct strbuf *md, const struct ana_run *run)
{
	int gpu = 0, rough_rows = 0;
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
		char sh[COL_COLS][16], med[32], p95[32], thr[48];
		for (int k = 0; k < COL_COLS; k++)
			share_text_cell(s, k, sh[k], sizeof sh[k]);
		snprintf(med, sizeof med, s->steps.no_steps ? "– (no steps)" : "%.2f",
			 s->steps.step_med_ms);
		if (s->steps.no_steps)
			snprintf(p95, sizeof p95, "–");
		else
			snprintf(p95, sizeof p95, "%.2f%s", s->steps.step_p95_ms,
				 rough(s->steps.active_steps));
		rough_rows += !s->steps.no_steps && s->steps.active_steps < STATS_P95_MIN_N;
		snprintf(thr, sizeof thr, s->steps.no_steps ? "–" : "%.1f %s", s->steps.throughput,
			 data_text_throughput_unit(s));
		gpu |= s->outcome.basis == BASIS_GPU;
		strbuf_addf(
			md,
			"| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%s%s |\n",
			s->in.name, s->in.nodes, s->in.ranks, s->in.state, med, p95, thr, sh[0],
			sh[1], sh[2], sh[3], sh[4], sh[5], verdict_name(s->outcome.v.verdict),
			s->outcome.v.borderline ? " (borderline)" : "",
			s->outcome.basis == BASIS_GPU ? " (GPU)" : "");
	}
	strbuf_adds(md, "\n");
	if (rough_rows)
		strbuf_addf(md, "A p95 marked (rough) comes from fewer than %d active steps.\n\n",
			    STATS_P95_MIN_N);
	if (gpu)
		strbuf_adds(
			md,
			"Rows marked (GPU) give shares of the GPU's time (data: the GPU idle while the host loaded data; comm: exposed communication kernels; other: the rest: exposed host-device copies, other kernels and the GPU waiting for the host); the others shares of the host's step. Each row adds up to 100 %.\n\n");
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
			"The verdict comes from the GPU timeline: on a GPU the host's ranges time kernel launches, not the work, so the host phase shares below are supporting detail.\n\n");
	if (ranks[0])
		strbuf_addf(md, "Ranks: %s.\n\n", ranks);
	free(ranks);
	if (s->data.contaminated[0])
		strbuf_addf(
			md,
			"**Contaminated**: its job ran on the same nodes at the same time as %s, so its step times include their load. Run the series with `slurm.exclusive: true` (the default).\n\n",
			s->data.contaminated);
	if (s->mon.foreign.contaminated) {
		strbuf_addf(
			md,
			"**Contaminated**: while its active steps ran, processes outside its job used %.1f %% of a CPU core on average (more than %.0f %%",
			s->mon.foreign.cpu_pct, ANA_FOREIGN_CPU_PCT);
		foreign_what(md, &s->mon.foreign, "; most: ");
		strbuf_adds(
			md,
			"), so its step times include their load: it was not measured alone. Jobs of campaign runs on the local executor queue for the machine; this load came from elsewhere (another user, a build, a job started by hand). Run it again on a quiet machine.\n\n");
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
	if (!k || s->steps.no_steps)
		return;
	strbuf_addf(
		md,
		" A step's time is the period between the ends of consecutive steps' last collectives, which every rank leaves at once (the median over ranks), for %zu of the %zu steps",
		k, n);
	if (k < n)
		strbuf_addf(md, "; %s the slowest rank's own step, with no collective before %s",
			    n - k == 1 ? "the other is" : "the others are",
			    n - k == 1 ? "it" : "them");
	strbuf_adds(md, ".");
}

/* The step times, or the window when there are no steps; the host's phases. */
static void md_step_times(struct strbuf *md, const struct ana_scenario *s)
{
	if (s->steps.no_steps)
		strbuf_addf(
			md,
			"No step boundaries (no ProfilerStep#N range, no NVTX step range): the shares and the verdict come from the %s over the profiled window (%.2f ms per rank); there are no step statistics and no throughput (call prof.step() once per training step inside the torch.profiler context, or give an `analysis.step_log` pattern for the step lines your script prints).",
			s->gpu.gpu_basis ? "GPU timeline" : "host's operators and phase ranges",
			s->steps.step_med_ms);
	else
		strbuf_addf(
			md,
			"Over %zu active step%s the step time was %.2f ms median, %.2f ms p95 (%smin %.2f, max %.2f; spread %.1f %% of the median)%s.",
			s->steps.active_steps, s->steps.active_steps == 1 ? "" : "s",
			s->steps.step_med_ms, s->steps.step_p95_ms,
			s->steps.active_steps < STATS_P95_MIN_N ? DATA_TEXT_P95_ROUGH "; " : "",
			s->steps.step_min_ms, s->steps.step_max_ms, s->steps.spread_pct,
			s->gpu.gpu_limits
				? ", the GPU's period (its work per step outlasts the host's step)"
				: "");
	md_step_estimator(md, s);
	if (s->steps.partial_steps && !s->steps.no_steps)
		strbuf_addf(
			md,
			" %zu partial step%s left out: the last ProfilerStep of a trace that the profiler cut as it stopped (shorter than a third of the median of the trace's other steps, with no collective), not a step that ended at prof.step().",
			s->steps.partial_steps, s->steps.partial_steps == 1 ? " was" : "s were");
	if (s->steps.window_shares)
		strbuf_adds(
			md,
			" The traces have no step boundaries: the step times come from the step lines of the rank logs, the shares from the traces' whole window.");
	if (s->shares.shares_known && !s->steps.no_steps)
		strbuf_addf(
			md,
			" On the host, forward %.1f %%, backward %.1f %%, optimizer %.1f %%, operators outside them %.1f %%.",
			s->shares.forward_pct, s->shares.backward_pct, s->shares.optimizer_pct,
			s->shares.ops_pct);
}

static void md_scenario_steps(struct strbuf *md, const struct ana_scenario *s)
{
	md_step_times(md, s);
	md_stragglers(md, s);
	if (s->steps.loss_known)
		strbuf_addf(md, " Loss went from %.4f to %.4f.", s->steps.loss_first,
			    s->steps.loss_last);
	strbuf_adds(md, "\n\n");
	char gbps[48] = "", rate[24];
	if (s->comm.allreduce_gbps > 0)
		snprintf(gbps, sizeof gbps, "; %s GB/s all-reduced",
			 share_text_rate(rate, sizeof rate, s->comm.allreduce_gbps, 2));
	if (s->shares.comm_total_pct > 0 && s->outcome.basis == BASIS_HOST)
		strbuf_addf(
			md,
			"Communication: %.1f %% of step time in collectives, %.1f %% of it hidden behind compute; %.1f %% is the transfer itself and %.1f %% waiting for slower ranks%s.\n\n",
			s->shares.comm_total_pct, s->shares.overlap_pct, s->shares.comm_pct,
			s->shares.sync_wait_pct, gbps);
	md_collectives(md, s);
	clock_text_md(md, &s->comm.clocks, s->data.format != METRICS_STEP_LOG);
	md_inspector(md, s);
	if (s->shares.gemm_pct + s->shares.elementwise_pct > 0)
		strbuf_addf(md, "Compute split: %.1f %% GEMM, %.1f %% elementwise.\n\n",
			    s->shares.gemm_pct, s->shares.elementwise_pct);
	if (s->steps.global_batch <= 0 && !s->steps.no_steps) /* throughput in steps/s */
		strbuf_adds(
			md,
			"Throughput is in steps per second: the samples per step are not known (set `analysis.batch_per_rank` or `analysis.global_batch`, for the campaign or the scenario, or a `samples` group in `analysis.step_log`).\n\n");
	else if (s->steps.global_batch > 0)
		strbuf_addf(md, "Global batch %ld sample%s per step (from %s).\n\n",
			    s->steps.global_batch, s->steps.global_batch == 1 ? "" : "s",
			    data_text_batch_from(s->steps.batch_from));
	if (!s->shares.shares_known)
		strbuf_addf(
			md,
			"Where step time goes is not known: the source (%s) gives step times only (data, compute, communication and I/O shares are n/a; the trainer's telemetry or PyTorch-profiler traces give them). The verdict is %s.\n\n",
			data_text_source(s->data.source),
			s->mon.have_monitor
				? "from the node monitors alone"
				: "undetermined: nothing is concluded from unknown shares");
}

/* The FLOPs the rank achieved, and of its peak when that is known. */
static void md_mfu(struct strbuf *md, const struct ana_run *run, const struct ana_scenario *s)
{
	char rate[24], peak[24];
	if (s->steps.achieved_gflops > 0)
		strbuf_addf(
			md,
			"Achieved %s GFLOP/s per rank at the median step (%.2e FLOPs per step per rank)%s",
			share_text_rate(rate, sizeof rate, s->steps.achieved_gflops, 1),
			s->steps.flops_per_step,
			s->steps.mfu_pct >= 0
				? ""
				: "; MFU unknown: set `analysis.peak_gflops_per_rank`.\n\n");
	if (s->steps.mfu_pct >= 0)
		strbuf_addf(md, ": **MFU %.1f %%** of the %s GFLOP/s peak per rank.\n\n",
			    s->steps.mfu_pct,
			    share_text_rate(peak, sizeof peak, run->peak_gflops, 1));
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
		strbuf_addf(
			md,
			"Node monitors (%d node%s, %ld sample%s): CPU busy %.1f %% on average, iowait %.1f %%, memory peak %.1f %% of RAM.\n\n",
			s->mon.monitor_nodes, s->mon.monitor_nodes == 1 ? "" : "s",
			s->mon.monitor_samples, s->mon.monitor_samples == 1 ? "" : "s",
			s->mon.cpu_util_mean_pct, s->mon.iowait_mean_pct, s->mon.mem_peak_pct);
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
		md_scenario_steps(md, s);
		md_scenario_profile(md, run, s);
	}
}

/* Links the figures that were drawn and have data behind them. */
static void md_figures(struct strbuf *md, const struct ana_run *run)
{
	enum { ALWAYS, SERIES, SIZED, SHARES };
	static const struct { const char *file, *alt; int need; } figs[] = {
		{ "scaling", "Parallel efficiency per series, measured and fitted", SERIES },
		{ "breakdown", "Where step time goes, per scenario", SHARES },
		{ "timeline", "Step time per step, rank 0 of each scenario", ALWAYS },
		{ "phases", "The median step of the widest scenario, per rank", SHARES },
		{ "collectives", "Bus bandwidth of the collectives against message size", SIZED },
	};
	size_t analysed = 0, series = 0, sized = 0, shares = 0;
	for (size_t i = 0; i < run->n; i++) {
		analysed += run->sc[i].data.analysed;
		/* step times alone draw no breakdown: no figure of nothing */
		shares += run->sc[i].data.analysed && run->sc[i].shares.shares_known;
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
			strbuf_addf(md, "![%s](figures/%s.svg)\n\n", figs[i].alt, figs[i].file);
			any = 1;
		}
		strbuf_free(&p);
	}
	strbuf_addf(
		md,
		"%sA merged multi-rank timeline of every scenario is in `timeline.json` (open it in https://ui.perfetto.dev or chrome://tracing).\n\n",
		any ? "Figures (SVG and PNG, with their data and gnuplot scripts) are in `figures/`. "
		    : "No figure was drawn (is gnuplot installed?). ");
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
		int other = strcmp(unit, data_text_throughput_unit(base)) != 0;
		strbuf_addf(md,
			    "| %s | %d | %d | %s | %.1f%s%s | %s | %s | %s | %s | %s | %s | %s |\n",
			    s->in.name, s->in.nodes, s->in.ranks, gb, s->steps.throughput,
			    other ? " " : "", other ? unit : "",
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
	else
		strbuf_addf(
			md,
			"\nFrom %d to %d ranks, communication moves from %.1f %% to %.1f %% of %s, compute from %.1f %% to %.1f %% and %s from %.1f %% to %.1f %%; parallel efficiency at %d ranks is %s.\n\n",
			base->in.ranks, last->in.ranks, share_text_pct(base, COL_COMM),
			share_text_pct(last, COL_COMM), gpu ? "the GPU's time" : "step time",
			share_text_pct(base, COL_COMPUTE), share_text_pct(last, COL_COMPUTE),
			gpu ? "the GPU idle while the host loaded data" : "data loading",
			share_text_pct(base, COL_DATA), share_text_pct(last, COL_DATA),
			last->in.ranks, eff.buf);
	strbuf_free(&eff);
}

/* One scaling series: its table, how the shares move, its scaling notes. */
static void md_series(struct strbuf *md, const struct ana_run *run,
		      const struct ana_scenario *base)
{
	strbuf_addf(
		md,
		"Series of **%s** (%s, %d task%s per node), baseline **%s**:\n\n"
		"| Scenario | Nodes | Ranks | Global batch | Throughput (%s) | Mode | Speedup (95 %% CI) | Efficiency (95 %% CI) | Data %% | Compute %% | Comm %% | Shares of |\n"
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
	strbuf_adds(md, "\n");
}

/* One series' model: its form, fit and predictions (or why there are none), contention. */
static void md_model(struct strbuf *md, const struct ana_run *run, const struct ana_model *m)
{
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
	int any = 0;
	for (size_t b = 0; b < run->n; b++) {
		const struct ana_scenario *base = &run->sc[b];
		if (!base->data.analysed || !base->scaling.is_baseline)
			continue;
		any = 1;
		md_series(md, run, base);
	}
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
		"## Fabric\n\nAll-reduce bus bandwidth the fabric gives, measured by a probe job per node count and backend on the same kind of nodes (the reference trainer's all-reduce, as nccl-tests' all_reduce_perf: busbw = bytes / time x 2(n-1)/n):\n\n| Probe | Backend | Nodes | Ranks | busbw (GB/s) by message size |\n|---|---|---:|---:|---|\n");
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

static void md_recommendations(struct strbuf *md, const struct ana_run *run)
{
	struct rec *recs = xcalloc(run->nrecs + run->nmodels + 1, sizeof *recs);
	size_t n = 0;
	for (size_t i = 0; i < run->nrecs; i++)
		recs[n++] = (struct rec){ run->recs[i].gain_pct, rec_text(&run->recs[i], run) };
	for (size_t i = 0; i < run->nmodels; i++)
		n += series_advice(&recs[n], &run->models[i], run);
	qsort(recs, n, sizeof *recs, rec_cmp);
	strbuf_adds(
		md,
		"## Recommendations\n\nOne per cause and series, ranked by the largest share of a median step each is predicted to recover in any of its scenarios (`batch`: of the time the measured batch's samples take, half a replayed step of twice the samples; a replay of the run's graph changed as the recommendation would change it, where one was made; else a ceiling, the cause's accounted share taken off the step; a series' scaling advice by the share of the step its fitted overhead would take at 16 nodes), those without a prediction last:\n\n");
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(md, "%zu. %s\n", i + 1, recs[i].text);
		free(recs[i].text);
	}
	md_unanalysed_advice(md, run);
	strbuf_adds(md, "\n");
	free(recs);
}

/* How the step data is read and step time shared out. */
static void md_method_sources(struct strbuf *md)
{
	strbuf_adds(
		md,
		"## Methodology\n\n"
		"- Sources, per scenario, the first present: each rank's trainer telemetry `<scenario>/metrics/rank_<r>.jsonl` (or AORTA-style `rank_<r>_metrics.jsonl`; warm-up steps excluded); PyTorch-profiler traces in `<scenario>/traces/` (one per rank; each `ProfilerStep#N` is a step, but for a trace's last when it is the tail the profiler cut as it stopped: under a third of the median of the others, with no collective; host ranges classified into phases by PCRE2 rules, the campaign's `analysis.phase_rules` before `analyzers/phase_rules.txt`; on each thread the innermost classified range wins, across threads compute > data loading > communication > I/O, so nothing is counted twice); step lines of `<scenario>/logs/rank_<r>.out` matched by `analysis.step_log` (step times only; the first `profile.warmup_steps` lines of each rank skipped); else the node monitors alone (docs/formats.md).\n"
		"- Step time: from traces whose ranks (two or more) share collectives, or the reference trainer's telemetry that records their ends (`coll_end_us`), per step the period between the ends of consecutive steps' last blocking collectives (all-reduce, all-gather, reduce-scatter, all-to-all, barrier), which every rank leaves at once, each on its own clock, the median over ranks (a step with no collective before it: the slowest rank's step); otherwise per step the slowest rank's `step_ms` (no instant common to the ranks marks a step's end, and the ranks need not keep step: the slowest bounds the job); median, p95, min and max over active steps (`step_estimator`). Spread = (p95 - min) / median.\n"
		"- Throughput: global batch / median step time.\n"
		"- Shares: sums over all ranks and active steps of `data_wait_ms`, `forward_ms` + `backward_ms` + `optimizer_ms` and, from traces, operators under none of those phases (compute), `comm_exposed_ms` (communication not hidden behind compute; `comm_ms` when absent) and `io_ms`, divided by the sum of `step_ms`; other = the remainder (host time under no operator). A collective ends for every rank at once, so per step the smallest exposed communication over ranks (the last rank to arrive) is counted as communication and each rank's excess over it as waiting for slower ranks (peer wait). Overlap = 1 - (communication + peer wait) / total all-reduce time. A verdict's share that holds the waiting for peers (waiting for a straggler counts with its cause) is said in its two parts, each a column of the table, then their sum.\n"
		"- Straggler impact (`impact_pct`): per step, the waiting of the ranks that arrived before the straggler (their collective time beyond its), summed and divided by the n - 1 ranks other than it, as a share of the median step; ranks that arrived last in the very same steps are named together, with one impact (one waiting, not one each). It differs from Wait %, which divides every rank's waiting by every rank's step time (the straggler's own steps, with little waiting, among them).\n");
}

/* Each scenario's replay of its unchanged execution graph against what was measured, or
 * why it has none. */
static void md_method_replay(struct strbuf *md, const struct ana_run *run)
{
	strbuf_adds(
		md,
		"- Replay fidelity (docs/analysis.md, \"Replay model\"): the execution graph built from the traces, replayed unchanged over every active step; the replayed median step against the measured one, each step timed as the step times above (the period between consecutive steps' last collectives where the traces give it, else the slowest rank's step):");
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
		strbuf_addf(
			md,
			"%.2f ms against %.2f ms (%+.1f %%, %zu step%s, %d host%s of %d core%s; per rank",
			r->step_ms, r->measured_ms, r->error_pct, r->steps,
			r->steps == 1 ? "" : "s", r->hosts, r->hosts == 1 ? "" : "s", r->cores,
			r->cores == 1 ? "" : "s");
		for (size_t k = 0; k < r->nranks; k++)
			strbuf_addf(md, "%s %d: %+.1f %%", k ? "," : "", r->ranks[k].rank,
				    r->ranks[k].error_pct);
		strbuf_adds(md, ")");
	}
	strbuf_adds(md, ".\n");
}

static void md_method(struct strbuf *md, const struct ana_run *run)
{
	md_method_sources(md);
	md_method_replay(md, run);
	strbuf_addf(
		md,
		"- Verdict (docs/accounting.md): every instant of a step is attributed once, and the verdict is the share whose removal would recover the most step time: compute (memory-bound when elementwise work outweighs GEMMs), exposed communication with waiting for peers (straggler-bound apart when one rank keeps the others waiting most), data loading, I/O, host overhead (time under no operator); on the GPU timeline (traces with kernels) the GPU's compute kernels, exposed communication, exposed copies, and the GPU idle waiting for the host (data-loader-bound for the part the host spent loading data), over windows cut one after another (a step's GPU window begins where the previous step's GPU work ended). Borderline when the runner-up is within 20 %% of it (or takes the larger share in a quarter of the steps). Waiting for a straggler counts with its cause; straggler-bound when no phase explains it. The thresholds (`analysis.thresholds`: communication > %.0f %%, data loading > %.0f %%, I/O > %.0f %%, GPU busy < %.0f %%, memory peak > %.0f %%) are flags listed beside the verdict, never a reason to name a smaller share. A share that is unknown (step times only) is n/a and feeds no verdict, recommendation or model term; with node monitors alone the verdict names a saturated resource.\n"
		"- Recommendations: one per cause and series; each predicts the median step with the cause's accounted share taken off (a ceiling; on a GPU that is the limit, never below the host's own step); compute itself has no such ceiling. They are ranked by the largest share of a median step (%%, not ms) each predicts to recover in any of its scenarios, a series' scaling advice by the share of the step its fitted overhead would take at 16 nodes; those with no such figure come last. A straggler's waiting counted with its cause is in both that cause's ceiling and the straggler's: those gains overlap and do not add.\n"
		"- MFU: the telemetry's FLOPs per step per rank / median step time, over `analysis.peak_gflops_per_rank`.\n"
		"- Scaling model: per series, step times scaled to the baseline's global batch are split into compute (fitted as b/N by least squares) and the rest (fitted as a + c log2 N with a, c >= 0); efficiency(N) = T(N0) N0 / (T(N) N).\n"
		"- Scaling: weak when the per-rank batch is the baseline's, strong when the global batch is (from the batches; without them from `analysis.scaling`); speedup = samples/s / baseline samples/s (the step-rate ratio at strong scaling, x ranks / baseline ranks at weak scaling when the batch is unknown); efficiency = speedup x baseline ranks / ranks. Scenarios whose batch semantics differ from the baseline's get no speedup. The model needs three node counts. A series is the scenarios with the same backend and tasks per node; its baseline is `analysis.baseline` when that is in the series, else the one with the fewest nodes.\n",
		run->th.comm_pct, run->th.data_pct, run->th.io_pct, run->th.gpu_util_pct,
		run->th.memory_pct);
}

int write_markdown(const struct ana_run *run)
{
	struct strbuf md = STRBUF_INIT, path = STRBUF_INIT;
	strbuf_addf(
		&md,
		"# Bottleneck analysis: %s\n\nRun `%s`. Every number below is in `summary.json`.\n\n",
		run->campaign, run->run_id);
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
