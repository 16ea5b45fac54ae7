/* SPDX-License-Identifier: MIT */
#include "analyzers/write/prose.h"
#include "analyzers/write/evidence.h"

#include "analyzers/read/metrics.h"
#include "analyzers/write/data_text.h"
#include "analyzers/write/share_text.h"

#include <math.h>
#include <string.h>

const char *evidence_share_words(enum share_kind k, enum verdict_basis basis, int straggler)
{
	int gpu = basis == BASIS_GPU;
	switch (k) {
	case SHARE_COMPUTE:
		return gpu ? "compute kernels" : "compute";
	case SHARE_COMMUNICATION:
		return gpu || straggler ? "exposed communication"
					: "exposed communication and waiting for peers";
	case SHARE_PEER_WAIT:
		return "waiting for slower ranks";
	case SHARE_DATA:
		return gpu ? "the GPU idle while the host loaded data" : "data loading";
	case SHARE_IO:
		return "checkpoint and other I/O";
	case SHARE_HOST:
		return gpu ? "the GPU waiting for the host"
			   : "host overhead (time under no operator: Python, launches)";
	case SHARE_COPIES:
		return "exposed host-device copies";
	case SHARE_N:
		break;
	}
	return "?";
}

/* The verb after evidence_share_words: "takes", or "take" for a plural. */
static const char *takes(enum share_kind k, enum verdict_basis basis)
{
	return k == SHARE_COPIES || (k == SHARE_COMPUTE && basis == BASIS_GPU) ? "take" : "takes";
}

const char *evidence_cause_words(enum straggler_cause k)
{
	switch (k) {
	case STRAGGLER_COMPUTE:
		return "compute";
	case STRAGGLER_DATA:
		return "data loading";
	case STRAGGLER_IO:
		return "I/O";
	case STRAGGLER_OTHER:
		return "host/other";
	case STRAGGLER_UNKNOWN:
		break;
	}
	return "unknown";
}

static int has_straggler(const struct ana_scenario *s)
{
	return s->comm.n_stragglers > 0 && !s->steps.no_steps;
}

/* Between the k-th of n names: "", ", " or " and ". */
static const char *list_sep(size_t k, size_t n)
{
	return k == 0 ? "" : k + 1 == n ? " and " : ", ";
}

void evidence_straggler_names(struct strbuf *sb, const struct straggler *g, size_t len)
{
	int one_node = len > 1 && g[0].node[0] != '\0';
	for (size_t k = 1; k < len; k++)
		one_node &= !strcmp(g[k].node, g[0].node);
	if (one_node) {
		strbuf_adds(sb, "ranks ");
		for (size_t k = 0; k < len; k++)
			strbuf_addf(sb, "%s%d", list_sep(k, len), g[k].rank);
		strbuf_addf(sb, " on %s", g[0].node);
		return;
	}
	for (size_t k = 0; k < len; k++)
		strbuf_addf(sb, "%srank %d%s%s", list_sep(k, len), g[k].rank,
			    g[k].node[0] ? " on " : "", g[k].node);
}

double evidence_wait_pct(const struct ana_scenario *s)
{
	if (s->outcome.basis == BASIS_GPU)
		return s->gpu.peer_wait_known ? s->gpu.peer_wait_pct : 0;
	return s->shares.sync_wait_pct;
}

double evidence_own_pct(const struct ana_scenario *s, enum share_kind k)
{
	const struct ana_shares *h = &s->shares;
	if (s->outcome.basis == BASIS_GPU) /* (its communication's transfer: the table's Comm) */
		return k == SHARE_COMMUNICATION && s->gpu.peer_wait_known
			       ? share_text_pct(s, COL_COMM)
			       : -1;
	switch (k) {
	case SHARE_COMPUTE:
		return h->compute_pct;
	case SHARE_COMMUNICATION:
		return h->comm_pct;
	case SHARE_PEER_WAIT:
		return h->sync_wait_pct;
	case SHARE_DATA:
		return h->data_pct;
	case SHARE_IO:
		return h->io_pct;
	case SHARE_HOST:
		return h->other_pct;
	case SHARE_COPIES:
	case SHARE_N:
		break;
	}
	return -1;
}

int evidence_share_holds_wait(const struct ana_scenario *s)
{
	const struct verdict_out *v = &s->outcome.v;
	return (s->outcome.basis == BASIS_HOST || s->outcome.basis == BASIS_GPU) &&
	       v->verdict != VERDICT_UNDETERMINED && v->share != SHARE_PEER_WAIT &&
	       v->share == s->outcome.wait_to && evidence_own_pct(s, v->share) >= 0;
}

/* Per rank of a straggler group, how much more it spent in its cause's phase: "38.62 ms a
 * step", or "rank 2 14.94 ms, rank 3 14.56 ms a step". */
static void cause_ms_said(struct strbuf *sb, const struct straggler *g, size_t len)
{
	for (size_t k = 0; k < len && len > 1; k++)
		strbuf_addf(sb, "%srank %d %.2f ms", k ? ", " : "", g[k].rank, g[k].cause_ms);
	if (len == 1)
		strbuf_addf(sb, "%.2f ms", g[0].cause_ms);
	strbuf_adds(sb, " a step more than the others' median");
}

/* The host's step breakdown, every share. */
static void host_shares(struct strbuf *sb, const struct ana_scenario *s)
{
	const struct ana_shares *h = &s->shares;
	strbuf_addf(
		sb,
		"compute %.1f %%, exposed communication %.1f %%, waiting for peers %.1f %%, data loading %.1f %%, I/O %.1f %%, host overhead %.1f %%",
		h->compute_pct, h->comm_pct, h->sync_wait_pct, h->data_pct, h->io_pct,
		h->other_pct);
	if (h->ops_pct > ANA_NEGLIGIBLE_PCT)
		strbuf_addf(
			sb,
			"; of compute, %.1f %% of step time in operators outside the model's phases",
			h->ops_pct);
	if (h->gemm_pct + h->elementwise_pct > 0)
		strbuf_addf(
			sb,
			"; compute is %.1f %% elementwise (memory-bandwidth-bound) and %.1f %% GEMM",
			h->elementwise_pct, h->gemm_pct);
	if (h->gemm_pct + h->elementwise_pct > 0)
		evidence_split_cover(sb, s);
}

void evidence_split_cover(struct strbuf *sb, const struct ana_scenario *s)
{
	double c = s->shares.split_cover_pct;
	if (c > 0 && c < 95)
		strbuf_addf(sb, ", of the %.1f %% of compute timed as one or the other", c);
}

/* Where the GPU's exposed communication is 5 % or more of its time: how much of the ranks'
 * time in collectives is the transfer (each instance's shortest duration over ranks, as the
 * collectives table has it) and how much waiting inside them for the last rank to arrive,
 * which the kernels' time holds as well and a faster network would not shorten. */
static void gpu_comm_waits(struct strbuf *sb, const struct ana_scenario *s)
{
	double in = 0, transfer = 0;
	for (size_t i = 0; i < s->comm.ncolls; i++) {
		const struct collective *c = &s->comm.colls[i];
		if (c->latency_med < 0 || c->count_per_step <= 0 || c->ms_per_step_summed <= 0)
			return; /* (a row without its transfer: none said) */
		in += c->ms_per_step_summed;
		transfer += c->transfer_ms_per_step;
	}
	/* (said where the waiting is a tenth of that time or more) */
	if (s->gpu.gpu_pct[GPU_COMM] < 5 || in <= 0 || transfer > 0.9 * in || s->in.ranks < 2)
		return;
	strbuf_addf(sb, PROSE_EVIDENCE_GPU_COMM_WAITS, transfer, in, 100 * transfer / in);
}

/* The GPU's partitioned windows, every share. */
static void gpu_shares(struct strbuf *sb, const struct ana_scenario *s)
{
	const double *g = s->gpu.gpu_pct;
	double idle = g[GPU_IDLE_HOST] + g[GPU_IDLE_DATA] + g[GPU_IDLE_KERNEL] + g[GPU_IDLE_OTHER];
	if (s->steps.no_steps)
		strbuf_adds(sb, "on the GPU (its timeline over the profiled window)");
	else
		strbuf_addf(sb, "on the GPU (its timeline over %zu rank-steps, %.2f ms)",
			    s->gpu.gpu_steps, g[GPU_WINDOW]);
	strbuf_addf(sb,
		    PROSE_EVIDENCE_COMPUTE_EXPOSED_COMMUNICATION,
		    g[GPU_COMPUTE], g[GPU_COMM], g[GPU_MEMCPY], g[GPU_OTHER], idle,
		    g[GPU_IDLE_HOST], g[GPU_IDLE_DATA], g[GPU_IDLE_KERNEL], g[GPU_IDLE_OTHER],
		    g[GPU_COMPUTE] > 0 ? 100 * g[GPU_GEMM] / g[GPU_COMPUTE] : 0);
	if (s->outcome.v.verdict == VERDICT_MEMORY && s->outcome.v.share == SHARE_COMPUTE)
		strbuf_addf(
			sb,
			"; elementwise-like kernels (%.1f %% of the step) outweigh matrix kernels (%.1f %%): the GPU is bound by memory bandwidth",
			g[GPU_COMPUTE] - g[GPU_GEMM], g[GPU_GEMM]);
	if (s->gpu.gpu_limits)
		strbuf_addf(
			sb,
			PROSE_EVIDENCE_GPU_WORK_PER,
			s->gpu.host_step_med_ms, s->gpu.host_ahead_ms);
	gpu_comm_waits(sb, s);
}

int evidence_monitor_figure(struct strbuf *sb, const struct ana_scenario *s)
{
	int gpu_mem = s->mon.gpu_mem_peak_pct >= 0;
	if (s->outcome.basis != BASIS_MONITORS)
		return 0;
	switch (s->outcome.v.verdict) {
	case VERDICT_MEMORY:
		strbuf_addf(sb, "%s memory peak %.1f %%", gpu_mem ? "GPU" : "host",
			    gpu_mem ? s->mon.gpu_mem_peak_pct : s->mon.mem_peak_pct);
		return 1;
	case VERDICT_IO:
		strbuf_addf(sb, "I/O wait %.1f %%", s->mon.iowait_mean_pct);
		return 1;
	case VERDICT_GPU_STARVED:
	case VERDICT_COMPUTE:
		strbuf_addf(sb, "GPUs busy %.1f %%", s->mon.gpu_util_mean_pct);
		return 1;
	case VERDICT_CPU_SATURATED:
		strbuf_addf(sb, "CPUs busy %.1f %%", s->mon.cpu_util_mean_pct);
		return 1;
	case VERDICT_UNDETERMINED:
	case VERDICT_COMMUNICATION:
	case VERDICT_DATA_LOADER:
	case VERDICT_HOST:
	case VERDICT_STRAGGLER:
	case VERDICT_COPY:
	case VERDICT_N:
		break;
	}
	return 0;
}

/* The resource the monitors name, and why; none saturated: what they saw. */
static void monitors_said(struct strbuf *sb, const struct ana_scenario *s,
			  const struct ana_thresholds *th)
{
	int gpu_mem = s->mon.gpu_mem_peak_pct >= 0;
	switch (s->outcome.v.verdict) {
	case VERDICT_MEMORY:
		strbuf_addf(
			sb,
			"from the node monitors: %s memory peaked at %.1f %% (threshold %.0f %%)",
			gpu_mem ? "GPU" : "host",
			gpu_mem ? s->mon.gpu_mem_peak_pct : s->mon.mem_peak_pct, th->memory_pct);
		return;
	case VERDICT_IO:
		strbuf_addf(
			sb,
			"from the node monitors: CPUs wait for I/O %.1f %% of the time (threshold %.0f %%)",
			s->mon.iowait_mean_pct, th->io_pct);
		return;
	case VERDICT_GPU_STARVED:
		strbuf_addf(
			sb,
			"from the node monitors: GPUs are busy %.1f %% of the time (threshold %.0f %%); a trace would say what they wait for",
			s->mon.gpu_util_mean_pct, th->gpu_util_pct);
		return;
	case VERDICT_COMPUTE:
		strbuf_addf(sb, "from the node monitors: GPUs busy %.1f %% of the time",
			    s->mon.gpu_util_mean_pct);
		return;
	case VERDICT_CPU_SATURATED:
		strbuf_addf(sb,
			    PROSE_EVIDENCE_FROM_NODE_MONITORS,
			    s->mon.cpu_util_mean_pct, ANA_CPU_BUSY_PCT);
		return;
	case VERDICT_UNDETERMINED:
	case VERDICT_COMMUNICATION:
	case VERDICT_DATA_LOADER:
	case VERDICT_HOST:
	case VERDICT_STRAGGLER:
	case VERDICT_COPY:
	case VERDICT_N:
		break;
	}
	strbuf_addf(
		sb,
		"from the node monitors: CPUs busy %.1f %%, I/O wait %.1f %%, memory peak %.1f %%: no resource is saturated; the breakdown needs traces or telemetry",
		s->mon.cpu_util_mean_pct, s->mon.iowait_mean_pct, s->mon.mem_peak_pct);
}

/* With no step breakdown: more ranks than CPUs, said once. */
static void shared_cpus_said(struct strbuf *sb, const struct ana_scenario *s,
			     const struct ana_run *run)
{
	if (s->outcome.oversubscribed)
		strbuf_addf(sb,
			    PROSE_EVIDENCE_LOCAL_EXECUTOR_RAN,
			    s->in.ranks, run->host_cpus, run->host_cpus == 1 ? "" : "s");
}

/* A flag's share as the report prints it: exposed communication and waiting for peers on the
 * host's basis as the sum of the two as printed (58.8 where they print 25.4 and 33.4, as the
 * verdict's "in all" says it), not their sum rounded (58.9). */
static double flag_shown_pct(const struct ana_scenario *s, const struct flag *f,
			     enum verdict_basis b)
{
	if (f->kind != FLAG_COMMUNICATION || b != BASIS_HOST)
		return f->pct;
	double wait = s->outcome.wait_to == SHARE_COMMUNICATION ? s->shares.sync_wait_pct : 0;
	return evidence_printed(s->shares.comm_pct) + evidence_printed(wait);
}

/* The thresholds the shares pass, beside the verdict. */
static void flags_said(struct strbuf *sb, const struct ana_scenario *s, const struct verdict_out *v,
		       enum verdict_basis b)
{
	static const char *const words[FLAG_N] = {
		[FLAG_COMMUNICATION] = "exposed communication and waiting for peers",
		[FLAG_DATA] = "data loading",
		[FLAG_IO] = "I/O",
		[FLAG_GPU_IDLE] = "GPU idle",
		[FLAG_MEMORY] = "memory peak",
		[FLAG_COPIES] = "exposed copies",
	};
	/* (the GPU's communication holds its waiting for peers where that is known and some) */
	for (size_t i = 0; i < v->nflags; i++)
		strbuf_addf(sb, "%s%s %.1f %% (threshold %.0f %%)",
			    i ? ", " : "; over their thresholds: ",
			    b == BASIS_GPU && v->flags[i].kind == FLAG_COMMUNICATION &&
					    !(s->gpu.peer_wait_known && s->gpu.peer_wait_pct > 0)
				    ? "exposed communication"
				    : words[v->flags[i].kind],
			    flag_shown_pct(s, &v->flags[i], b), v->flags[i].th);
}

static void straggler_said(struct strbuf *sb, const struct ana_scenario *s)
{
	const struct straggler *g = &s->comm.stragglers[0];
	size_t len = straggler_group_len(g, s->comm.n_stragglers, 0);
	strbuf_adds(sb, ": ");
	evidence_straggler_names(sb, g, len);
	strbuf_addf(
		sb,
		PROSE_EVIDENCE_ARRIVED_LAST_COLLECTIVES,
		len > 1 ? " together (in the very same steps)" : "", g->arrived_last_pct,
		len > 1 ? "" : "s", g->impact_pct,
		len > 1 ? "their" : "its", evidence_cause_words(g->cause_kind),
		g->cause_kind != STRAGGLER_UNKNOWN ? "" : " (no phase explains half of it)");
}

/* The verdict's share with the waiting for a straggler counted with its cause: both parts. */
static void wait_with_cause_said(struct strbuf *sb, const struct ana_scenario *s)
{
	const struct straggler *g = &s->comm.stragglers[0];
	size_t len = straggler_group_len(g, s->comm.n_stragglers, 0);
	strbuf_addf(sb, ": %.1f %% %s itself and %.1f %% the other ranks waiting for ",
		    evidence_own_pct(s, s->outcome.v.share),
		    evidence_share_words(s->outcome.v.share, BASIS_HOST, 1),
		    s->shares.sync_wait_pct);
	evidence_straggler_names(sb, g, len);
	strbuf_addf(sb, ", for %s extra %s (", len > 1 ? "their" : "its",
		    evidence_cause_words(g->cause_kind));
	cause_ms_said(sb, g, len);
	strbuf_adds(sb, ")");
}

double evidence_printed(double pct)
{
	return round(10 * pct) / 10;
}

double evidence_compute_less_pct(const struct ana_scenario *s)
{
	if (s->outcome.excess_pct <= 0)
		return s->shares.compute_pct;
	return evidence_printed(s->shares.compute_pct) - evidence_printed(s->outcome.excess_pct);
}

const char *evidence_share_words_of(const struct ana_scenario *s, enum share_kind k, int str)
{
	if (k == SHARE_PEER_WAIT && s->outcome.excess_pct > 0)
		return "waiting for slower ranks and their own extra compute";
	if (k == SHARE_COMPUTE && s->outcome.basis == BASIS_HOST && s->outcome.excess_pct > 0)
		return "compute beyond the slower ranks' own extra";
	return evidence_share_words(k, s->outcome.basis, str);
}

const char *evidence_takes_of(const struct ana_scenario *s, enum share_kind k)
{
	return k == SHARE_PEER_WAIT && s->outcome.excess_pct > 0 ? "take"
								 : takes(k, s->outcome.basis);
}

double evidence_shown_pct(const struct ana_scenario *s, enum share_kind k, double pct)
{
	if (k == s->outcome.v.share && evidence_share_holds_wait(s) && evidence_wait_pct(s) > 0)
		return evidence_printed(evidence_own_pct(s, k)) +
		       evidence_printed(evidence_wait_pct(s));
	if (s->outcome.basis != BASIS_HOST || s->outcome.excess_pct <= 0)
		return pct;
	if (k == SHARE_COMPUTE)
		return evidence_compute_less_pct(s);
	if (k == SHARE_PEER_WAIT)
		return evidence_printed(s->shares.sync_wait_pct) +
		       evidence_printed(s->outcome.excess_pct);
	return pct;
}

/* The verdict's share in its parts: the straggler waited for, its cause with the waiting for
 * it, or on a GPU its communication's transfer and waiting. */
static void parts_said(struct strbuf *sb, const struct ana_scenario *s, int with_cause)
{
	const struct verdict_out *v = &s->outcome.v;
	if (v->share == SHARE_PEER_WAIT)
		straggler_said(sb, s);
	else if (with_cause)
		wait_with_cause_said(sb, s);
	else if (s->outcome.basis == BASIS_GPU && evidence_share_holds_wait(s) &&
		 evidence_wait_pct(s) > 0)
		strbuf_addf(sb, PROSE_EVIDENCE_GPU_COMM_SPLIT,
			    evidence_printed(evidence_own_pct(s, v->share)),
			    evidence_printed(evidence_wait_pct(s)));
}

/* The decided verdict: its share first, then every share, the flags, how sure. */
static void decided(struct strbuf *sb, const struct ana_scenario *s, const struct ana_run *run)
{
	const struct verdict_out *v = &s->outcome.v;
	enum verdict_basis b = s->outcome.basis;
	int str = has_straggler(s), with_cause = str && b == BASIS_HOST &&
						  evidence_share_holds_wait(s);
	int excess = v->share == SHARE_PEER_WAIT && s->outcome.excess_pct > 0;
	strbuf_addf(sb, "%s%s%s %s %.1f %% of %s, the largest share",
		    evidence_share_words(v->share, b, str),
		    v->verdict == VERDICT_MEMORY && v->share == SHARE_COMPUTE
			    ? ", mostly elementwise (memory-bandwidth-bound) work,"
			    : excess ? " and the slower ranks' own extra compute"
				     : "",
		    with_cause ? " and the waiting for it" : "",
		    with_cause || excess ? "take" : takes(v->share, b),
		    evidence_shown_pct(s, v->share, v->pct),
		    b == BASIS_GPU ? "the GPU's time"
		    /* some ranks' waiting: of all ranks' time, as the summary line says */
		    : str && (with_cause || v->share == SHARE_PEER_WAIT) ? "all ranks' time"
									  : "step time");
	if (v->share == SHARE_PEER_WAIT && s->outcome.excess_pct > 0)
		strbuf_addf(sb, PROSE_EVIDENCE_STRAGGLER_EXCESS, s->shares.sync_wait_pct,
			    s->outcome.excess_pct);
	if (v->share == SHARE_COMPUTE && b == BASIS_HOST && s->outcome.excess_pct > 0)
		strbuf_addf(sb, PROSE_EVIDENCE_COMPUTE_LESS_EXCESS, s->shares.compute_pct,
			    s->outcome.excess_pct);
	parts_said(sb, s, with_cause);
	strbuf_adds(sb, " (");
	if (b == BASIS_GPU)
		gpu_shares(sb, s);
	else
		host_shares(sb, s);
	strbuf_adds(sb, ")");
	flags_said(sb, s, v, b);
	if (v->borderline == BORDERLINE_NEAR)
		strbuf_addf(
			sb,
			"; **borderline**: %s %s %.1f %%, within %.0f %% of it: %s is a close second",
			evidence_share_words_of(s, v->runner_share, str),
			evidence_takes_of(s, v->runner_share),
			evidence_shown_pct(s, v->runner_share, v->runner_pct), 100 * VERDICT_NEAR,
			verdict_name(v->runner_up));
	if (v->borderline == BORDERLINE_NEAR && fabs(v->pct - v->runner_pct) < 0.05)
		strbuf_addf(sb, " (%.2f against %.2f %%: a tie, which these steps cannot break)",
			    v->pct, v->runner_pct);
	else if (v->borderline == BORDERLINE_FLIPS) /* (a near one is said above) */
		strbuf_addf(
			sb,
			"; **borderline**: %s (%.1f %%) took the larger share in %ld of %ld step%s, a quarter or more: %s is a close second",
			evidence_share_words_of(s, v->runner_share, str),
			evidence_shown_pct(s, v->runner_share, v->runner_pct), v->flips, v->steps,
			v->steps == 1 ? "" : "s", verdict_name(v->runner_up));
	if (s->outcome.oversubscribed)
		strbuf_addf(sb,
			    PROSE_EVIDENCE_LOCAL_EXECUTOR_RAN_B,
			    s->in.ranks, run->host_cpus, run->host_cpus == 1 ? "" : "s");
}

void evidence_write(struct strbuf *sb, const struct ana_scenario *s, const struct ana_run *run)
{
	switch (s->outcome.basis) {
	case BASIS_NONE:
		if (s->data.analysed && !s->shares.shares_known)
			strbuf_addf(sb,
				    PROSE_EVIDENCE_WHERE_STEP_TIME,
				    data_text_source(s->data.source));
		else
			strbuf_adds(
				sb,
				"no breakdown of the step and no node monitor data (profile.monitor: true records utilisation and memory)");
		shared_cpus_said(sb, s, run);
		return;
	case BASIS_MONITORS:
		monitors_said(sb, s, &run->th);
		shared_cpus_said(sb, s, run);
		return;
	case BASIS_HOST:
	case BASIS_GPU:
		if (s->outcome.v.verdict == VERDICT_UNDETERMINED)
			strbuf_adds(sb, "every share of the step is zero: nothing to decide from");
		else
			decided(sb, s, run);
		return;
	}
}

/* The evidence of s's verdict in words (the caller frees it). */
char *evidence_of(const struct ana_scenario *s, const struct ana_run *run)
{
	struct strbuf sb = STRBUF_INIT;
	evidence_write(&sb, s, run);
	return strbuf_detach(&sb);
}
