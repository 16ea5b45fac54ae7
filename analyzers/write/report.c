/* report: writes what ana_run_analyse found: BOTTLENECK_ANALYSIS.md and
 * summary.json for the run, analysis.json and report.txt per scenario.
 * Output is deterministic (fixed order and number formatting) so that the
 * same results give the same bytes. */
#include "analyzers/analysis.h"
#include "analyzers/write/report.h"
#include "util/run_layout.h"
#include "analyzers/advice.h"
#include "analyzers/write/evidence.h"
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

static json_t *recs_json(const struct ana_run *run);

static json_t *jnum(double v)
{
	return jsonio_real3(v);
}

/* A probability to two significant digits (it spans orders of magnitude). */
static json_t *jprob(double p)
{
	if (!isfinite(p) || p <= 0)
		return json_real(0);
	double unit = pow(10, floor(log10(p)) - 1);
	return json_real(round(p / unit) * unit);
}

static json_t *monitor_json(const struct ana_scenario *s)
{
	return !s->mon.have_monitor
		? json_null()
		: json_pack("{s:i, s:I, s:o, s:o, s:o}", "nodes", s->mon.monitor_nodes, "samples",
			    (json_int_t) s->mon.monitor_samples, "cpu_util_mean_pct",
			    jnum(s->mon.cpu_util_mean_pct), "iowait_mean_pct",
			    jnum(s->mon.iowait_mean_pct), "mem_peak_pct",
			    jnum(s->mon.mem_peak_pct));
}

static json_t *top_ops_json(const struct ana_op *ops, int n, double total, const char *what)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(
			a,
			json_pack("{s:s, s:o, s:I, s:o}", "name", ops[i].name, what,
				  jnum(ops[i].self_ms), "count", (json_int_t) ops[i].count, "pct",
				  jnum(total > 0 ? 100 * ops[i].self_ms / total : 0)));
	return a;
}

/* An analysed scenario timed from its traces, some of which could not be used. */
/* Trace files were read and some could not be used: said whether or not the
 * steps came from them (telemetry may have been the source). */
static int steps_from_traces(const struct ana_scenario *s)
{
	return s->data.analysed && s->data.trace_unused;
}

/* A node monitor summary: CPU busy, iowait, memory peak, GPU busy (null unmonitored). */
static json_t *mon_json(const struct monitor_summary *m)
{
	return json_pack("{s:i, s:o, s:o, s:o, s:o}", "nodes", m->nodes, "cpu_util_mean_pct",
			 jnum(m->cpu_util_mean_pct), "iowait_mean_pct", jnum(m->iowait_mean_pct),
			 "mem_peak_pct", jnum(m->mem_peak_pct), "gpu_util_mean_pct",
			 m->gpu_util_n ? jnum(m->gpu_util_mean_pct) : json_null());
}

/* summary.json's collectives of a scenario: one row per operation and size class. */
static json_t *collectives_json(const struct ana_scenario *s)
{
	json_t *a = json_array();
	char label[48];
	for (size_t i = 0; i < s->comm.ncolls; i++) {
		const struct collective *c = &s->comm.colls[i];
		int sized = c->size_class >= 0;
		int fab = sized && c->fabric_busbw_gbps > 0;
		json_t *row = json_pack(
			"{s:s, s:s, s:o, s:o, s:{s:o, s:o}, s:{s:o, s:o}, s:o, s:o, s:o, s:I, s:I}",
			SK_OP, coll_op_name(c->op), SK_SIZE_CLASS,
			coll_size_label(c->size_class, label, sizeof label), SK_BYTES,
			sized ? jnum(c->bytes) : json_null(), "count_per_step",
			jnum(c->count_per_step), "latency_ms", "median", jnum(c->latency_med),
			"p95", jnum(c->latency_p95), SK_WAIT_MS, SK_MEDIAN, jnum(c->wait_med),
			SK_P95, jnum(c->wait_p95), "algbw_gbps",
			sized ? jnum(c->algbw_gbps) : json_null(), SK_BUSBW_GBPS,
			sized ? jnum(c->busbw_gbps) : json_null(), SK_MS_PER_STEP,
			jnum(c->ms_per_step), "instances", (json_int_t) c->instances, "steps",
			(json_int_t) c->steps);
		json_object_set_new(row, "fabric_busbw_gbps",
				    fab ? jnum(c->fabric_busbw_gbps) : json_null());
		json_object_set_new(row, "fabric_pct",
				    fab ? jnum(100 * c->busbw_gbps / c->fabric_busbw_gbps)
					: json_null());
		json_array_append_new(a, row);
	}
	return a;
}

/* summary.json's fabric_probes: what each probe measured, per size. */
static json_t *probes_json(const struct ana_run *run)
{
	json_t *a = json_array();
	for (size_t i = 0; i < run->nprobes; i++) {
		const struct ana_probe *p = &run->probes[i];
		json_t *sizes = json_array();
		for (size_t k = 0; k < p->n; k++)
			json_array_append_new(sizes,
					      json_pack("{s:o, s:o, s:o}", SK_BYTES,
							jnum(p->pts[k].bytes), SK_BUSBW_GBPS,
							jnum(p->pts[k].busbw_gbps), "latency_ms",
							jnum(p->pts[k].latency_ms)));
		json_array_append_new(
			a,
			json_pack("{s:s, s:s, s:i, s:i, s:s, s:o, s:o}", SK_NAME, p->name,
				  "backend", p->backend, "nodes", p->nodes, "ranks", p->ranks,
				  "state", p->state, SK_SIZES, sizes, "problem",
				  p->problem[0] ? json_string(p->problem) : json_null()));
	}
	return a;
}

/* Which scenario, how it ended, where it ran. */
static void sc_identity(json_t *o, const struct ana_scenario *s)
{
	json_object_set_new(o, SK_NAME, json_string(s->in.name));
	json_object_set_new(o, SK_STATE, json_string(s->in.state));
	json_object_set_new(o, "exit_code", json_integer(s->in.exit_code));
	json_object_set_new(o, "attempt", json_integer(s->in.attempt ? s->in.attempt : 1));
	json_object_set_new(o, "attempts", json_integer(s->in.attempts ? s->in.attempts : 1));
	json_object_set_new(o, "requeued",
			    s->in.requeued ? json_string(s->in.requeued) : json_null());
	json_object_set_new(o, "reason", json_string(s->in.reason));
	json_object_set_new(o, "backend", json_string(s->in.backend));
	json_object_set_new(o, SK_NODES, json_integer(s->in.nodes));
	json_object_set_new(o, SK_RANKS, json_integer(s->in.ranks));
	json_object_set_new(o, SK_ANALYSED, json_boolean(s->data.analysed));
	json_object_set_new(o, "malformed_lines", json_integer(s->data.bad_lines));
}

/* What the analysis read: profilers, traces, operators, the GPU breakdown. */
static void sc_sources(json_t *o, const struct ana_scenario *s)
{
	json_t *perf = json_null(), *missing = json_array();
	if (s->data.perf) {
		perf = json_object();
		for (int i = 0; i < s->data.perf->n; i++)
			json_object_set_new(perf, s->data.perf->ev[i].name,
					    s->data.perf->ev[i].supported
						    ? jnum(s->data.perf->ev[i].value)
						    : json_null());
	}
	json_object_set_new(o, "perf", perf);
	json_object_set_new(o, "nsys_reports", json_integer(s->data.nsys_reports));
	if (s->data.profile_missing[0]) {
		char buf[128], *save = NULL;
		snprintf(buf, sizeof buf, "%s", s->data.profile_missing);
		for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
			json_array_append_new(missing, json_string(t));
	}
	json_object_set_new(o, "profile_missing", missing);
	json_object_set_new(o, "source",
			    s->data.source[0]               ? json_string(s->data.source)
				    : s->data.monitors_only ? json_string("node monitors")
							    : json_null());
	json_object_set_new(o, "sources", json_string(s->data.sources));
	json_object_set_new(o, "trace_files", json_integer((json_int_t)s->data.trace_files));
	if (s->data.trace_not_analysed)
		json_object_set_new(o, "trace_files_not_analysed",
				    json_string(s->data.trace_not_analysed_names));
	if (steps_from_traces(s)) {
		json_object_set_new(o, "trace_files_unused",
				    json_integer((json_int_t) s->data.trace_unused));
		json_object_set_new(o, "trace_problem", json_string(s->data.trace_problem));
	}
	json_object_set_new(
		o, "top_operators",
		top_ops_json(s->data.top_ops, s->data.n_top_ops, s->data.ops_total_ms, "self_ms"));
	json_object_set_new(
		o, "gpu_breakdown",
		s->gpu.gpu_kernel_ms <= 0
			? json_null()
			: json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "kernel_time_ms",
				    jnum(s->gpu.gpu_kernel_ms), "idle_pct",
				    jnum(s->gpu.gpu_idle_pct), "compute_pct",
				    jnum(s->gpu.gpu_compute_pct), "non_compute_pct",
				    jnum(s->gpu.gpu_non_compute_pct), "comm_comp_overlap_pct",
				    s->gpu.gpu_overlap_pct >= 0 ? jnum(s->gpu.gpu_overlap_pct)
								: json_null(),
				    "top_kernels",
				    top_ops_json(s->gpu.top_kernels, s->gpu.n_top_kernels,
						 s->gpu.kernels_total_ms, "total_ms")));
}

/* Step times, batch and throughput. */
static void sc_steps(json_t *o, const struct ana_scenario *s)
{
	json_object_set_new(o, "active_steps", json_integer((json_int_t)s->steps.active_steps));
	json_object_set_new(o, "step_boundaries",
			    json_boolean(!s->steps.no_steps && !s->steps.window_shares));
	if (s->steps.no_steps) /* one GPU window, not steps: no statistics, no rate */
		json_object_set_new(o, "profiled_window_ms", jnum(s->steps.step_med_ms));
	json_object_set_new(
		o, SK_STEP_TIME_MS,
		s->steps.no_steps
			? json_null()
			: json_pack("{s:o, s:o, s:o, s:o}", SK_MEDIAN, jnum(s->steps.step_med_ms),
				    SK_P95, jnum(s->steps.step_p95_ms), "min",
				    jnum(s->steps.step_min_ms), "max", jnum(s->steps.step_max_ms)));
	json_object_set_new(o, "spread_pct",
			    s->steps.no_steps ? json_null() : jnum(s->steps.spread_pct));
	json_t *times = json_array();
	for (size_t i = 0; i < s->steps.active_steps && !s->steps.no_steps; i++)
		json_array_append_new(times, jnum(s->steps.step_ms[i]));
	json_object_set_new(o, SK_STEP_TIMES_MS, times);
	int samples = s->steps.global_batch > 0;
	json_object_set_new(o, SK_GLOBAL_BATCH,
			    samples ? json_integer(s->steps.global_batch) : json_null());
	json_object_set_new(o, "batch_from",
			    samples ? json_string(s->steps.batch_from) : json_null());
	json_object_set_new(o, "throughput",
			    s->steps.no_steps ? json_null() : jnum(s->steps.throughput));
	json_object_set_new(o, "throughput_unit", json_string(s->steps.throughput_unit));
	json_object_set_new(o, SK_THROUGHPUT_SAMPLES_PER_S,
			    samples && !s->steps.no_steps ? jnum(s->steps.throughput)
							  : json_null());
}

/* Where step time goes, the monitors, FLOPs, the median step per rank and rank 0's steps. */
static void sc_shares(json_t *o, const struct ana_scenario *s)
{
	json_object_set_new(
		o, SK_SHARES_PCT,
		!s->shares.shares_known
			? json_null()
			: json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
				    SK_DATA_LOADING, jnum(s->shares.data_pct), SK_COMPUTE,
				    jnum(s->shares.compute_pct), "compute_outside_phases",
				    jnum(s->shares.ops_pct), "forward",
				    jnum(s->shares.forward_pct), "backward",
				    jnum(s->shares.backward_pct), "optimizer",
				    jnum(s->shares.optimizer_pct), SK_COMMUNICATION,
				    jnum(s->shares.comm_pct), "communication_total",
				    jnum(s->shares.comm_total_pct), SK_PEER_WAIT,
				    jnum(s->shares.sync_wait_pct), SK_IO, jnum(s->shares.io_pct),
				    SK_OTHER, jnum(s->shares.other_pct)));
	int known = s->shares.shares_known,
	    split = s->shares.gemm_pct + s->shares.elementwise_pct > 0;
	json_object_set_new(o, SK_OVERLAP_PCT, known ? jnum(s->shares.overlap_pct) : json_null());
	json_object_set_new(o, "compute_split_pct",
			    split ? json_pack("{s:o, s:o}", "gemm", jnum(s->shares.gemm_pct),
					      "elementwise", jnum(s->shares.elementwise_pct))
				  : json_null());
	json_object_set_new(o, "allreduce_gbps",
			    s->comm.allreduce_gbps > 0 ? jnum(s->comm.allreduce_gbps)
						       : json_null());
}

/* The node and GPU monitors. */
static void sc_monitors(json_t *o, const struct ana_scenario *s)
{
	json_object_set_new(o, "monitor", monitor_json(s));
	json_object_set_new(
		o, "gpu_monitor",
		s->mon.gpu_mem_peak_pct < 0
			? json_null()
			: json_pack("{s:i, s:o, s:o, s:o}", "gpus", s->mon.gpus, "util_mean_pct",
				    s->mon.gpu_util_mean_pct < 0 ? json_null()
								 : jnum(s->mon.gpu_util_mean_pct),
				    "memory_util_mean_pct",
				    s->mon.gpu_mem_util_mean_pct < 0
					    ? json_null()
					    : jnum(s->mon.gpu_mem_util_mean_pct),
				    "memory_peak_pct", jnum(s->mon.gpu_mem_peak_pct)));
}

/* The step data's format, FLOPs, and the step figures' data. */
static void sc_step_data(json_t *o, const struct ana_scenario *s)
{
	json_object_set_new(o, "telemetry_format",
			    json_string(metrics_format_name(s->data.format)));
	json_object_set_new(o, "flops_per_step_per_rank",
			    s->steps.flops_per_step > 0 ? jnum(s->steps.flops_per_step)
							: json_null());
	json_object_set_new(o, SK_ACHIEVED_GFLOPS_PER_RANK,
			    s->steps.achieved_gflops > 0 ? jnum(s->steps.achieved_gflops)
							 : json_null());
	json_object_set_new(o, SK_MFU_PCT,
			    s->steps.mfu_pct >= 0 ? jnum(s->steps.mfu_pct) : json_null());
	json_t *rows = json_array();
	for (int r = 0; r < s->steps.tl_ranks; r++) {
		json_t *row = json_array();
		for (int k = 0; k < 7; k++)
			json_array_append_new(row, jnum(s->steps.tl[r][k]));
		json_array_append_new(rows, row);
	}
	if (!s->shares.shares_known) /* step times alone: no phases to show */
		json_decref(rows);
	json_object_set_new(o, SK_MEDIAN_STEP,
			    !s->shares.shares_known
				    ? json_null()
				    : json_pack("{s:I, s:[s,s,s,s,s,s,s], s:o}", SK_STEP,
						(json_int_t) s->steps.tl_step, "phases",
						"data_loading", "forward", "backward",
						"communication_and_wait", "optimizer",
						"compute_outside_phases", "other", SK_RANKS, rows));
	json_t *steps = json_array();
	for (size_t i = 0; i < s->steps.n_rank0; i++)
		json_array_append_new(steps,
				      json_pack("[I, o, b]", (json_int_t) s->steps.rank0[i][0],
						jnum(s->steps.rank0[i][1]),
						s->steps.rank0[i][2] != 0));
	json_object_set_new(o, SK_RANK0_STEPS, steps);
}

/* The evidence of s's verdict in words (the caller frees it). */
static char *evidence_of(const struct ana_scenario *s, const struct ana_run *run)
{
	struct strbuf sb = STRBUF_INIT;
	evidence_write(&sb, s, run);
	return strbuf_detach(&sb);
}

static const char *basis_name(enum verdict_basis b)
{
	switch (b) {
	case BASIS_NONE:
		return "none";
	case BASIS_MONITORS:
		return "monitors";
	case BASIS_HOST:
		return "host";
	case BASIS_GPU:
		return "gpu";
	}
	return "none";
}

/* The thresholds passed, as flags beside the verdict. */
static json_t *flags_json(const struct verdict_out *v)
{
	json_t *a = json_array();
	for (size_t i = 0; i < v->nflags; i++)
		json_array_append_new(a, json_pack("{s:s, s:o, s:o}", "kind",
						   flag_kind_name(v->flags[i].kind), "share_pct",
						   jnum(v->flags[i].pct), "threshold_pct",
						   jnum(v->flags[i].th)));
	return a;
}

/* The verdict, its share, flags, evidence and basis. */
static void sc_outcome(json_t *o, const struct ana_scenario *s, const struct ana_run *run)
{
	const struct verdict_out *v = &s->outcome.v;
	int decided = s->outcome.basis == BASIS_HOST || s->outcome.basis == BASIS_GPU;
	char *ev = evidence_of(s, run);
	json_object_set_new(o, SK_VERDICT, json_string(verdict_name(v->verdict)));
	json_object_set_new(o, "verdict_share",
			    decided && v->verdict != VERDICT_UNDETERMINED
				    ? json_pack("{s:s, s:o}", "kind", share_kind_name(v->share),
						"pct", jnum(v->pct))
				    : json_null());
	json_object_set_new(o, "evidence", json_string(ev));
	json_object_set_new(o, "borderline", json_boolean(v->borderline));
	json_object_set_new(o, "runner_up",
			    v->borderline ? json_string(verdict_name(v->runner_up)) : json_null());
	json_object_set_new(o, "flags", flags_json(v));
	json_object_set_new(o, "verdict_from",
			    json_string(decided			   ? "step breakdown"
					: s->outcome.basis == BASIS_MONITORS ? "node monitors"
									       : "nothing"));
	json_object_set_new(o, "verdict_basis", json_string(basis_name(s->outcome.basis)));
	json_object_set_new(o, "oversubscribed", json_boolean(s->outcome.oversubscribed));
	free(ev);
}

/* The GPU view, the slowest rank, loss. */
static void sc_verdict(json_t *o, const struct ana_scenario *s, const struct ana_run *run)
{
	sc_outcome(o, s, run);
	json_object_set_new(o, "gpu_limits",
			    !s->gpu.gpu_basis
				    ? json_null()
				    : json_pack("{s:b, s:o, s:o}", "gpu_is_the_limit",
						s->gpu.gpu_limits, "host_step_ms",
						jnum(s->gpu.host_step_med_ms), "host_ahead_ms",
						jnum(s->gpu.host_ahead_ms)));
	json_object_set_new(
		o, "gpu_compute_split_pct",
		!s->gpu.gpu_basis
			? json_null()
			: json_pack("{s:o, s:o}", "matrix", jnum(s->gpu.gpu_pct[GPU_GEMM]),
				    "elementwise",
				    jnum(s->gpu.gpu_pct[GPU_COMPUTE] - s->gpu.gpu_pct[GPU_GEMM])));
	json_object_set_new(
		o, SK_GPU_SHARES_PCT,
		!s->gpu.gpu_basis
			? json_null()
			: json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I}",
				    SK_COMPUTE, jnum(s->gpu.gpu_pct[GPU_COMPUTE]), SK_COMMUNICATION,
				    jnum(s->gpu.gpu_pct[GPU_COMM]), SK_MEMCPY,
				    jnum(s->gpu.gpu_pct[GPU_MEMCPY]), SK_OTHER_KERNELS,
				    jnum(s->gpu.gpu_pct[GPU_OTHER]), SK_IDLE_HOST_WAIT,
				    jnum(s->gpu.gpu_pct[GPU_IDLE_HOST]), SK_IDLE_DATA_LOADING,
				    jnum(s->gpu.gpu_pct[GPU_IDLE_DATA]), SK_IDLE_KERNEL_WAIT,
				    jnum(s->gpu.gpu_pct[GPU_IDLE_KERNEL]), SK_IDLE_OTHER,
				    jnum(s->gpu.gpu_pct[GPU_IDLE_OTHER]), "window_ms",
				    jnum(s->gpu.gpu_pct[GPU_WINDOW]), "rank_steps",
				    (json_int_t) s->gpu.gpu_steps));
	json_object_set_new(o, "slowest_rank",
			    json_pack("{s:i, s:o}", "rank", s->steps.slowest_rank, "mean_step_ms",
				      jnum(s->steps.slowest_rank_ms)));
	json_object_set_new(o, "loss",
			    json_pack("{s:o, s:o}", "first", jnum(s->steps.loss_first), "last",
				      jnum(s->steps.loss_last)));
}

/* Against the baseline; what the traces missed; ranks with data. */
static void sc_scaling(json_t *o, const struct ana_scenario *s)
{
	json_object_set_new(o, SK_BASELINE,
			    s->scaling.baseline[0] ? json_string(s->scaling.baseline)
						   : json_null());
	int scaled =
		s->scaling.baseline[0] && (s->scaling.is_baseline || s->scaling.scaling_mode[0]);
	json_object_set_new(o, SK_SPEEDUP, scaled ? jnum(s->scaling.speedup) : json_null());
	json_object_set_new(o, SK_EFFICIENCY, scaled ? jnum(s->scaling.efficiency) : json_null());
	json_object_set_new(o, "scaling_mode",
			    s->scaling.scaling_mode[0] ? json_string(s->scaling.scaling_mode)
						       : json_null());
	json_object_set_new(o, "scaling_note",
			    s->scaling.scaling_note[0] ? json_string(s->scaling.scaling_note)
						       : json_null());
	json_object_set_new(o, "traces_missed",
			    s->data.traces_missed ? json_string(s->data.traces_missed)
						  : json_null());
	json_object_set_new(o, "ranks_with_data", json_integer(s->data.ranks_with_data));
	json_object_set_new(o, "ranks_note",
			    s->data.ranks_note[0] ? json_string(s->data.ranks_note) : json_null());
}

/* Stragglers, collectives, a slow node, contamination. */
static void sc_comm(json_t *o, const struct ana_scenario *s)
{
	json_t *str = json_array();
	for (size_t k = 0; k < s->comm.n_stragglers; k++) {
		const struct straggler *g = &s->comm.stragglers[k];
		json_array_append_new(
			str,
			json_pack("{s:i, s:o, s:s, s:o, s:o, s:o, s:o}", SK_RANK, g->rank, SK_NODE,
				  g->node[0] ? json_string(g->node) : json_null(), SK_CAUSE,
				  g->cause, "cause_ms_per_step", jnum(g->cause_ms), SK_IMPACT_PCT,
				  jnum(g->impact_pct), "arrived_last_pct",
				  jnum(g->arrived_last_pct), "chance_p", jprob(g->chance_p)));
	}
	json_object_set_new(o, SK_STRAGGLERS, str);
	json_object_set_new(o, SK_COLLECTIVES, collectives_json(s));
	json_object_set_new(o, "slow_node",
			    s->comm.slow_node[0] ? json_string(s->comm.slow_node) : json_null());
	json_object_set_new(o, "slow_node_monitors",
			    !s->comm.have_slow_mon
				    ? json_null()
				    : json_pack("{s:o, s:o}", "node", mon_json(&s->comm.slow_mon),
						"other_nodes", mon_json(&s->comm.rest_mon)));
	json_object_set_new(o, "contaminated_by",
			    s->data.contaminated[0] ? json_string(s->data.contaminated)
						    : json_null());
}

static json_t *scenario_json(const struct ana_scenario *s, const struct ana_run *run)
{
	json_t *o = json_object();
	sc_identity(o, s);
	sc_sources(o, s);
	if (!s->data.analysed) {
		json_object_set_new(o, "problem",
				    json_string(s->data.problem ? s->data.problem : ""));
		json_object_set_new(o, "monitor", monitor_json(s));
		if (s->data.monitors_only)
			sc_outcome(o, s, run);
		else
			json_object_set_new(o, SK_VERDICT, json_null());
		return o;
	}
	sc_steps(o, s);
	sc_shares(o, s);
	sc_monitors(o, s);
	sc_step_data(o, s);
	sc_verdict(o, s, run);
	sc_scaling(o, s);
	sc_comm(o, s);
	return o;
}

static json_t *models_json(const struct ana_run *run)
{
	json_t *a = json_array();
	for (size_t i = 0; i < run->nmodels; i++) {
		const struct ana_model *m = &run->models[i];
		json_array_append_new(
			a,
			json_pack("{s:s, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:s}",
				  SK_SERIES, m->series, "points", m->points, SK_BASE_NODES,
				  m->base_nodes, "max_nodes", m->max_nodes, SK_A_MS, jnum(m->a),
				  SK_B_MS, jnum(m->b), SK_C_MS, jnum(m->c), "efficiency_8_nodes",
				  jnum(m->eff8), "efficiency_16_nodes", jnum(m->eff16),
				  "overhead_exceeds_compute_from_nodes",
				  m->crossover ? json_integer(m->crossover) : json_null(), "model",
				  "step_ms(N) = b/N + a + c*log2(N)", "limit", m->limit));
		json_t *o = json_array_get(a, json_array_size(a) - 1);
		json_object_set_new(o, "compute_term", json_boolean(!m->step_only));
		if (m->step_only)
			json_object_set_new(o, "model", json_string("step_ms(N) = a + c*log2(N)"));
		json_object_set_new(o, "max_error_pct", jnum(m->max_err_pct));
		json_object_set_new(o, "max_error_nodes", json_integer(m->max_err_nodes));
		json_object_set_new(o, "fit", json_string(m->fit));
		json_object_set_new(o, "contention",
				    m->contention[0] ? json_string(m->contention) : json_null());
	}
	return a;
}

/* A variant's parent, kind and knob (campaign try); null for any other run. */
static json_t *variant_json(const struct ana_variant *v)
{
	json_t *knob = v->knob ? json_loads(v->knob, 0, NULL) : NULL;
	return v->of ? json_pack("{s:s, s:s, s:o}", SK_OF, v->of, SK_KIND, v->kind, SK_KNOB,
				 knob ? knob : json_null())
		     : json_null();
}

static json_t *summary_json(const struct ana_run *run)
{
	json_t *list = json_array(), *failed = json_array();
	for (size_t i = 0; i < run->n; i++) {
		json_array_append_new(list, scenario_json(&run->sc[i], run));
		if (!run->sc[i].in.completed)
			json_array_append_new(failed, json_string(run->sc[i].in.name));
	}
	return json_pack("{s:s, s:s, s:o, s:{s:o, s:o, s:o, s:o, s:o}, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "campaign", run->campaign, SK_RUN_ID, run->run_id, "baseline",
			 run->baseline ? json_string(run->baseline) : json_null(), "thresholds",
			 "communication_pct", jnum(run->th.comm_pct), "data_loading_pct",
			 jnum(run->th.data_pct), "io_pct", jnum(run->th.io_pct), "gpu_util_pct",
			 jnum(run->th.gpu_util_pct), "memory_pct", jnum(run->th.memory_pct),
			 SK_SCENARIOS, list, "failed", failed, SK_SCALING_MODELS, models_json(run),
			 "peak_gflops_per_rank",
			 run->peak_gflops > 0 ? jnum(run->peak_gflops) : json_null(),
			 SK_FABRIC_PROBES, probes_json(run), SK_RECOMMENDATIONS, recs_json(run),
			 SK_VARIANT, variant_json(&run->variant), SK_CHECKED_PREDICTIONS,
			 checked_json(&run->variant));
}

/* ---- markdown --------------------------------------------------------- */

/* One analysed scenario's line of the summary: its verdict and share, its
 * step time, its scaling. */
static void md_summary_line(struct strbuf *md, const struct ana_scenario *s)
{
	strbuf_addf(md, "- **%s** (%d node%s, %d rank%s, %s): **%s**%s", s->in.name, s->in.nodes,
		    s->in.nodes == 1 ? "" : "s", s->in.ranks, s->in.ranks == 1 ? "" : "s",
		    s->in.backend, verdict_name(s->outcome.v.verdict),
		    s->outcome.v.borderline ? " (borderline)" : "");
	if (s->outcome.v.verdict != VERDICT_UNDETERMINED &&
	    (s->outcome.basis == BASIS_HOST || s->outcome.basis == BASIS_GPU))
		strbuf_addf(md, ": %s %.1f %% of %s",
			    evidence_share_words(s->outcome.v.share, s->outcome.basis,
						 s->comm.n_stragglers > 0),
			    s->outcome.v.pct,
			    s->outcome.basis == BASIS_GPU ? "the GPU's time" : "step time");
	else if (s->outcome.basis == BASIS_NONE)
		strbuf_adds(md, ": where step time goes is not known");
	strbuf_adds(md, ". ");
	if (s->steps.no_steps)
		strbuf_addf(md, "No step boundaries: from the %s over a %.2f ms profiled window",
			    s->gpu.gpu_basis ? "GPU timeline" : "host's operators",
			    s->steps.step_med_ms);
	else
		strbuf_addf(md, "Median step %.2f ms, %.1f %s", s->steps.step_med_ms,
			    s->steps.throughput, s->steps.throughput_unit);
	if (s->scaling.baseline[0] && !s->scaling.is_baseline && s->scaling.scaling_mode[0])
		strbuf_addf(md, "; %s scaling: speedup %.2fx%s and efficiency %.0f %% against %s",
			    s->scaling.scaling_mode, s->scaling.speedup,
			    s->scaling.speedup < 1 ? " (slower than the baseline)" : "",
			    100 * s->scaling.efficiency, s->scaling.baseline);
	if (s->scaling.scaling_note[0])
		strbuf_addf(md, "; %s", s->scaling.scaling_note);
	if (s->data.contaminated[0])
		strbuf_addf(md, "; **contaminated**: it shared nodes with %s",
			    s->data.contaminated);
	strbuf_addf(md, " (from %s).\n", s->data.source);
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
	for (size_t i = 0; i < run->n; i++)
		if (run->sc[i].data.monitors_only)
			strbuf_addf(
				md,
				"- **%s**: no step data; from its node monitors alone: **%s**.\n",
				run->sc[i].in.name, verdict_name(run->sc[i].outcome.v.verdict));
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
		strbuf_addf(md,
			    "GPU time in the traces (HTA's definitions, %zu rank%s with kernels): idle %.1f %%, compute %.1f %%, non-compute %.1f %% of %.2f ms of kernel time",
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
	strbuf_addf(md,
		    "Top CPU operators by self time (all ranks and profiled steps, %zu trace file%s):\n\n",
		    s->data.trace_files, s->data.trace_files == 1 ? "" : "s");
	md_op_table(md, s->data.top_ops, s->data.n_top_ops, s->data.ops_total_ms, "Self time");
}

/* Trace files a failed shard of the map step left without a result, and
 * those that were read but could not be used. */
static void md_not_analysed(struct strbuf *md, const struct ana_scenario *s)
{
	if (steps_from_traces(s))
		strbuf_addf(md,
			    "%zu of %zu trace file%s could not be used, the first because: %s.\n\n",
			    s->data.trace_unused, s->data.trace_files,
			    s->data.trace_files == 1 ? "" : "s", s->data.trace_problem);
	if (s->data.analysed && s->data.traces_missed)
		strbuf_addf(md, "Traces: %s.\n\n", s->data.traces_missed);
	if (s->data.trace_not_analysed)
		strbuf_addf(md,
			    "**%zu trace file%s not analysed**: the map step's shard failed twice on %s: %s. Run `campaign aggregate` again to analyse them.\n\n",
			    s->data.trace_not_analysed,
			    s->data.trace_not_analysed == 1 ? " was" : "s were",
			    s->data.trace_not_analysed == 1 ? "it" : "them",
			    s->data.trace_not_analysed_names);
}

/* The step's collectives across ranks: the transfer once all have arrived,
 * the waiting before it, and the bandwidth when the bytes are known. */
/* How the costliest collective of known size compares with what the fabric
 * probe gave at its size, as a sentence into buf ("" without a probe). */
static void fabric_clause(const struct ana_scenario *s, char *buf, size_t n)
{
	buf[0] = '\0';
	for (size_t k = 0; k < s->comm.ncolls; k++) {
		const struct collective *c = &s->comm.colls[k];
		char label[48];
		if (c->size_class < 0 || c->fabric_busbw_gbps <= 0)
			continue;
		double pct = 100 * c->busbw_gbps / c->fabric_busbw_gbps;
		coll_size_label(c->size_class, label, sizeof label);
		if (pct >= FABRIC_LIMIT_PCT)
			snprintf(buf, n,
				 "Its %s messages of %s reach %.0f %% of the %.3f GB/s bus bandwidth the fabric gives at that size (fabric probe on %d node%s): the fabric itself is the limit; send fewer bytes (bf16 gradients, compression) or use a faster interconnect.",
				 coll_op_name(c->op), label, pct, c->fabric_busbw_gbps, s->in.nodes,
				 s->in.nodes == 1 ? "" : "s");
		else
			snprintf(buf, n,
				 "Its %s messages of %s reach only %.0f %% of the %.3f GB/s bus bandwidth the fabric gives at that size (fabric probe on %d node%s): not the fabric; look at message sizes (larger buckets), overlap with compute and waiting for peers.",
				 coll_op_name(c->op), label, pct, c->fabric_busbw_gbps, s->in.nodes,
				 s->in.nodes == 1 ? "" : "s");
		return;
	}
}

static void md_collectives(struct strbuf *md, const struct ana_scenario *s)
{
	if (!s->comm.ncolls)
		return;
	int fab = 0;
	for (size_t i = 0; i < s->comm.ncolls; i++)
		fab |= s->comm.colls[i].fabric_busbw_gbps > 0;
	strbuf_addf(md,
		    "| Collective | Size | Per step | Time per step (ms) | Latency (ms, median / p95) | Wait (ms, median / p95) | algbw (GB/s) | busbw (GB/s) |%s\n|---|---|---:|---:|---:|---:|---:|---:|%s\n",
		    fab ? " Of the fabric |" : "", fab ? "---:|" : "");
	for (size_t i = 0; i < s->comm.ncolls; i++) {
		const struct collective *c = &s->comm.colls[i];
		char label[48], bytes[96] = "unknown", alg[24] = "n/a", bus[24] = "n/a";
		coll_size_label(c->size_class, label, sizeof label);
		if (c->size_class >= 0) {
			snprintf(bytes, sizeof bytes, "%s (median %.0f B)", label, c->bytes);
			snprintf(alg, sizeof alg, "%.3f", c->algbw_gbps);
			snprintf(bus, sizeof bus, "%.3f", c->busbw_gbps);
		}
		strbuf_addf(md, "| %s | %s | %.2f | %.3f | %.3f / %.3f | %.3f / %.3f | %s | %s |",
			    coll_op_name(c->op), bytes, c->count_per_step, c->ms_per_step,
			    c->latency_med, c->latency_p95, c->wait_med, c->wait_p95, alg, bus);
		if (fab && c->size_class >= 0 && c->fabric_busbw_gbps > 0)
			strbuf_addf(md, " %.0f %% of %.3f |",
				    100 * c->busbw_gbps / c->fabric_busbw_gbps,
				    c->fabric_busbw_gbps);
		else if (fab)
			strbuf_adds(md, " – |");
		strbuf_adds(md, "\n");
	}
	strbuf_adds(md,
		    "\nEach collective is matched across ranks (same step, process group, operation and order); latency is its shortest duration over ranks (the transfer once every rank has arrived), wait each rank's excess over it; busbw applies nccl-tests' factors (all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast 1).");
	char clause[512];
	fabric_clause(s, clause, sizeof clause);
	strbuf_addf(md, "%s%s\n\n", clause[0] ? " " : "", clause);
}

/* Who keeps the others waiting at the collectives, where and why. */
static void md_stragglers(struct strbuf *md, const struct ana_scenario *s)
{
	if (s->steps.no_steps || !s->shares.shares_known || s->in.ranks < 2)
		return;
	if (!s->comm.n_stragglers) {
		strbuf_addf(md,
			    " No rank keeps the others waiting (none arrived last at most collectives, more often than chance would, with an impact of %.0f %% of the step or more).",
			    STRAGGLER_MIN_IMPACT_PCT);
		return;
	}
	for (size_t k = 0; k < s->comm.n_stragglers; k++) {
		const struct straggler *g = &s->comm.stragglers[k];
		strbuf_addf(md,
			    " **Straggler: rank %d%s%s**: it arrived last at %.0f %% of the collectives and keeps the others waiting %.1f %% of the median step; cause: %s",
			    g->rank, g->node[0] ? " on " : "", g->node, g->arrived_last_pct,
			    g->impact_pct, g->cause);
		if (strcmp(g->cause, "unknown"))
			strbuf_addf(md, " (%.2f ms more per step than the other ranks' median)",
				    g->cause_ms);
		strbuf_addf(md, "; so many last arrivals by chance alone: p = %.1e.", g->chance_p);
	}
	if (s->comm.slow_node[0])
		strbuf_addf(md,
			    " Every rank of node **%s** is a straggler: the node itself is slow.",
			    s->comm.slow_node);
	if (s->comm.have_slow_mon) {
		const struct monitor_summary *a = &s->comm.slow_mon, *b = &s->comm.rest_mon;
		strbuf_addf(md,
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
/* The table's six share cells of s: the host's step, or on the GPU basis the
 * GPU's time (data: idle while the host loaded data; other: the rest, the GPU
 * waiting for the host among it); n/a when unknown, never 0. */
static void share_cells(const struct ana_scenario *s, char sh[6][16])
{
	const double *g = s->gpu.gpu_pct;
	double host[6] = { s->shares.data_pct, s->shares.compute_pct,   s->shares.comm_pct,
			   s->shares.sync_wait_pct, s->shares.io_pct, s->shares.other_pct };
	double gpu[6] = { g[GPU_IDLE_DATA], g[GPU_COMPUTE], g[GPU_COMM], -1, -1,
			  100 - g[GPU_IDLE_DATA] - g[GPU_COMPUTE] - g[GPU_COMM] };
	for (int k = 0; k < 6; k++) {
		double v = s->outcome.basis == BASIS_GPU ? gpu[k] : host[k];
		if (s->outcome.basis != BASIS_GPU && !s->shares.shares_known)
			snprintf(sh[k], sizeof sh[k], "n/a");
		else if (v < 0)
			snprintf(sh[k], sizeof sh[k], "–");
		else
			snprintf(sh[k], sizeof sh[k], "%.1f", v < 0.05 ? 0 : v);
	}
}

static void md_scenario_table(struct strbuf *md, const struct ana_run *run)
{
	int gpu = 0;
	strbuf_adds(md, "## Per-Scenario Analysis\n\n"
		    "| Scenario | Nodes | Ranks | State | Median step (ms) | p95 (ms) | Throughput | Data % | Compute % | Comm % | Wait % | I/O % | Other % | Verdict |\n"
		    "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
	for (size_t i = 0; i < run->n; i++) {
		const struct ana_scenario *s = &run->sc[i];
		if (!s->data.analysed) {
			strbuf_addf(md,
				    "| %s | %d | %d | %s | – | – | – | – | – | – | – | – | – | not analysed |\n",
				    s->in.name, s->in.nodes, s->in.ranks, s->in.state);
			continue;
		}
		char sh[6][16], med[32], p95[32], thr[48];
		share_cells(s, sh);
		snprintf(med, sizeof med, s->steps.no_steps ? "– (no steps)" : "%.2f",
			 s->steps.step_med_ms);
		snprintf(p95, sizeof p95, s->steps.no_steps ? "–" : "%.2f", s->steps.step_p95_ms);
		snprintf(thr, sizeof thr, s->steps.no_steps ? "–" : "%.1f %s", s->steps.throughput,
			 s->steps.throughput_unit);
		gpu |= s->outcome.basis == BASIS_GPU;
		strbuf_addf(md,
			    "| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%s%s |\n",
			    s->in.name, s->in.nodes, s->in.ranks, s->in.state, med, p95, thr, sh[0],
			    sh[1], sh[2], sh[3], sh[4], sh[5], verdict_name(s->outcome.v.verdict),
			    s->outcome.v.borderline ? " (borderline)" : "",
			    s->outcome.basis == BASIS_GPU ? " (GPU)" : "");
	}
	strbuf_adds(md, "\n");
	if (gpu)
		strbuf_adds(md,
			    "Rows marked (GPU) give shares of the GPU's time (data: the GPU idle while the host loaded data; comm: exposed communication kernels; other: the rest, the GPU waiting for the host among it); the others shares of the host's step. Each row adds up to 100 %.\n\n");
}

/* A scenario that could not be analysed: why, and where to look; 0 when it was analysed. */
static int md_scenario_unanalysed(struct strbuf *md, const struct ana_scenario *s,
				  const struct ana_run *run)
{
	if (!s->data.analysed && s->in.completed) {
		strbuf_addf(md,
			    "The job **completed**, but left nothing to time its steps from: %s. Its job log is `%s/slurm-*.out`, each rank's output `%s/logs/rank_<r>.out`.\n\n",
			    s->data.problem ? s->data.problem : "", s->in.name, s->in.name);
		md_not_analysed(md, s);
		if (s->data.monitors_only) {
			char *ev = evidence_of(s, run);
			strbuf_addf(md,
				    "From the node monitors alone (%d node%s, %ld sample%s): **%s**: %s.\n\n",
				    s->mon.monitor_nodes, s->mon.monitor_nodes == 1 ? "" : "s",
				    s->mon.monitor_samples, s->mon.monitor_samples == 1 ? "" : "s",
				    verdict_name(s->outcome.v.verdict), ev);
			free(ev);
		}
		return 1;
	}
	if (!s->data.analysed) {
		strbuf_addf(md, "State **%s**", s->in.state);
		if (s->in.exit_code >= 0)
			strbuf_addf(md, ", exit code %d", s->in.exit_code);
		if (s->in.reason[0])
			strbuf_addf(md, " (%s)", s->in.reason);
		strbuf_addf(md, ". Not analysed: %s. Its job log is in `%s/`.\n\n",
			    s->data.problem ? s->data.problem : "", s->in.name);
		return 1;
	}
	return 0;
}

/* The verdict with its evidence and what may weaken it. */
static void md_scenario_head(struct strbuf *md, const struct ana_scenario *s,
			     const struct ana_run *run)
{
	char *ev = evidence_of(s, run);
	strbuf_addf(md, "**%s**: %s.\n\nSource: %s.\n\n", verdict_name(s->outcome.v.verdict), ev,
		    s->data.sources);
	free(ev);
	if (s->gpu.gpu_basis)
		strbuf_adds(md,
			    "The verdict comes from the GPU timeline: on a GPU the host's ranges time kernel launches, not the work, so the host phase shares below are supporting detail.\n\n");
	if (s->data.ranks_note[0])
		strbuf_addf(md, "Ranks: %s.\n\n", s->data.ranks_note);
	if (s->data.contaminated[0])
		strbuf_addf(md,
			    "**Contaminated**: its job ran on the same nodes at the same time as %s, so its step times include their load. Run the series with `slurm.exclusive: true` (the default).\n\n",
			    s->data.contaminated);
	md_not_analysed(md, s);
	if (s->data.bad_lines)
		strbuf_addf(md, "%ld %s line%s %s and %s skipped.\n\n", s->data.bad_lines,
			    s->shares.shares_known ? "telemetry" : "step-log",
			    s->data.bad_lines == 1 ? " was" : "s were",
			    s->shares.shares_known
				    ? "malformed or held implausible numbers (non-finite, negative, over 10^9 ms)"
				    : "longer than 64 KiB or over the pattern's match budget (100,000 backtracking steps)",
			    s->data.bad_lines == 1 ? "was" : "were");
}

/* Step times, stragglers, loss, communication and collectives, throughput. */
/* The step times, or the window when there are no steps; the host's phases. */
static void md_step_times(struct strbuf *md, const struct ana_scenario *s)
{
	if (s->steps.no_steps)
		strbuf_addf(md,
			    "No step boundaries (no ProfilerStep#N range, no NVTX step range): the shares and the verdict come from the %s over the profiled window (%.2f ms per rank); there are no step statistics and no throughput (call prof.step() once per training step inside the torch.profiler context, or give an `analysis.step_log` pattern for the step lines your script prints).",
			    s->gpu.gpu_basis ? "GPU timeline" : "host's operators and phase ranges",
			    s->steps.step_med_ms);
	else
		strbuf_addf(md,
			    "Over %zu active step%s the step time was %.2f ms median, %.2f ms p95 (min %.2f, max %.2f; spread %.1f %% of the median)%s.",
			    s->steps.active_steps, s->steps.active_steps == 1 ? "" : "s",
			    s->steps.step_med_ms, s->steps.step_p95_ms,
			    s->steps.step_min_ms, s->steps.step_max_ms, s->steps.spread_pct,
			    s->gpu.gpu_limits ? ", the GPU's period (its work per step outlasts the host's step)"
					      : "");
	if (s->steps.window_shares)
		strbuf_adds(md, " The traces have no step boundaries: the step times come from the step lines of the rank logs, the shares from the traces' whole window.");
	if (s->shares.shares_known && !s->steps.no_steps)
		strbuf_addf(md,
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
	char gbps[48] = "";
	if (s->comm.allreduce_gbps > 0)
		snprintf(gbps, sizeof gbps, "; %.2f GB/s all-reduced", s->comm.allreduce_gbps);
	if (s->shares.comm_total_pct > 0 && s->outcome.basis == BASIS_HOST)
		strbuf_addf(md,
			    "Communication: %.1f %% of step time in collectives, %.1f %% of it hidden behind compute; %.1f %% is the transfer itself and %.1f %% waiting for slower ranks%s.\n\n",
			    s->shares.comm_total_pct, s->shares.overlap_pct, s->shares.comm_pct,
			    s->shares.sync_wait_pct, gbps);
	md_collectives(md, s);
	if (s->shares.gemm_pct + s->shares.elementwise_pct > 0)
		strbuf_addf(md, "Compute split: %.1f %% GEMM, %.1f %% elementwise.\n\n",
			    s->shares.gemm_pct, s->shares.elementwise_pct);
	if (!strcmp(s->steps.throughput_unit, "steps/s"))
		strbuf_adds(md,
			    "Throughput is in steps per second: the samples per step are not known (set `analysis.batch_per_rank` or `analysis.global_batch`, for the campaign or the scenario, or a `samples` group in `analysis.step_log`).\n\n");
	else
		strbuf_addf(md, "Global batch %ld sample%s per step (from %s).\n\n",
			    s->steps.global_batch, s->steps.global_batch == 1 ? "" : "s",
			    s->steps.batch_from);
	if (!s->shares.shares_known)
		strbuf_addf(md,
			    "Where step time goes is not known: the source (%s) gives step times only (data, compute, communication and I/O shares are n/a; the trainer's telemetry or PyTorch-profiler traces give them). The verdict is %s.\n\n",
			    s->data.source,
			    s->mon.have_monitor
				    ? "from the node monitors alone"
				    : "undetermined: nothing is concluded from unknown shares");
}

/* Operators, profilers, monitors, FLOPs and MFU. */
static void md_scenario_profile(struct strbuf *md, const struct ana_run *run,
				const struct ana_scenario *s)
{
	md_top_ops(md, s);
	if (s->data.profile_missing[0])
		strbuf_addf(md,
			    "Profile missing: %s was asked for but left no output (not installed on the nodes? the job log says).\n\n",
			    s->data.profile_missing);
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
		strbuf_addf(md,
			    "Node monitors (%d node%s, %ld sample%s): CPU busy %.1f %% on average, iowait %.1f %%, memory peak %.1f %% of RAM.\n\n",
			    s->mon.monitor_nodes, s->mon.monitor_nodes == 1 ? "" : "s",
			    s->mon.monitor_samples, s->mon.monitor_samples == 1 ? "" : "s",
			    s->mon.cpu_util_mean_pct,
			    s->mon.iowait_mean_pct, s->mon.mem_peak_pct);
	else
		strbuf_adds(
			md,
			"Node monitors: no data (`profile.monitor` is off for this campaign).\n\n");
	if (s->mon.gpu_mem_peak_pct >= 0)
		strbuf_addf(md,
			    "GPU monitors (%d GPU%s): utilisation %.1f %% on average, memory controller %.1f %%, memory peak %.1f %% of GPU memory.\n\n",
			    s->mon.gpus, s->mon.gpus == 1 ? "" : "s", s->mon.gpu_util_mean_pct,
			    s->mon.gpu_mem_util_mean_pct, s->mon.gpu_mem_peak_pct);
	if (s->steps.achieved_gflops > 0)
		strbuf_addf(md,
			    "Achieved %.1f GFLOP/s per rank at the median step (%.3g FLOPs per step per rank)%s",
			    s->steps.achieved_gflops, s->steps.flops_per_step,
			    s->steps.mfu_pct >= 0
				    ? ""
				    : "; MFU unknown: set `analysis.peak_gflops_per_rank`.\n\n");
	if (s->steps.mfu_pct >= 0)
		strbuf_addf(md, ": **MFU %.1f %%** of the %.1f GFLOP/s peak per rank.\n\n",
			    s->steps.mfu_pct, run->peak_gflops);
}

static void md_scenarios(struct strbuf *md, const struct ana_run *run)
{
	md_scenario_table(md, run);
	for (size_t i = 0; i < run->n; i++) {
		const struct ana_scenario *s = &run->sc[i];
		strbuf_addf(md, "### %s\n\n", s->in.name);
		if (s->in.attempts > 1)
			strbuf_addf(md,
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
	strbuf_addf(md,
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
		char gb[24] = "unknown", sp[24] = "–", ef[24] = "–";
		if (s->steps.global_batch > 0)
			snprintf(gb, sizeof gb, "%ld", s->steps.global_batch);
		if (s->scaling.is_baseline || s->scaling.scaling_mode[0]) {
			snprintf(sp, sizeof sp, "%.2fx", s->scaling.speedup);
			snprintf(ef, sizeof ef, "%.0f %%", 100 * s->scaling.efficiency);
		}
		char sh[3][16];
		const double pct[3] = { s->shares.data_pct, s->shares.compute_pct,
					s->shares.comm_pct };
		for (int k = 0; k < 3; k++) /* unknown shares are n/a, never 0 */
			snprintf(sh[k], sizeof sh[k], s->shares.shares_known ? "%.1f" : "n/a",
				 pct[k]);
		strbuf_addf(md, "| %s | %d | %d | %s | %.1f %s | %s | %s | %s | %s | %s | %s |\n",
			    s->in.name, s->in.nodes, s->in.ranks, gb, s->steps.throughput,
			    s->steps.throughput_unit,
			    s->scaling.is_baseline               ? "baseline"
				    : s->scaling.scaling_mode[0] ? s->scaling.scaling_mode
								 : "–",
			    sp, ef, sh[0], sh[1], sh[2]);
		if (s->in.ranks > last->in.ranks &&
		    (s->scaling.scaling_mode[0] || s->scaling.is_baseline))
			last = s;
	}
	return last;
}

/* One scaling series: its table, how the shares move, its scaling notes. */
static void md_series(struct strbuf *md, const struct ana_run *run,
		      const struct ana_scenario *base)
{
	strbuf_addf(md,
		    "Series of **%s** (%s, %d task%s per node), baseline **%s**:\n\n"
		    "| Scenario | Nodes | Ranks | Global batch | Throughput (%s) | Mode | Speedup | Efficiency | Data %% | Compute %% | Comm %% |\n"
		    "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|\n",
		    base->in.name, base->in.backend, base->in.tasks_per_node,
		    base->in.tasks_per_node == 1 ? "" : "s", base->in.name,
		    base->steps.throughput_unit);
	const struct ana_scenario *last = md_series_rows(md, run, base);
	if (last != base && (!base->shares.shares_known || !last->shares.shares_known))
		strbuf_addf(md,
			    "\nFrom %d to %d ranks parallel efficiency is %.0f %%; how the shares of step time move is not known (no breakdown of the step: %s).\n\n",
			    base->in.ranks, last->in.ranks, 100 * last->scaling.efficiency,
			    base->data.source);
	else if (last != base)
		strbuf_addf(md,
			    "\nFrom %d to %d ranks, communication moves from %.1f %% to %.1f %% of step time, compute from %.1f %% to %.1f %% and data loading from %.1f %% to %.1f %%; parallel efficiency at %d ranks is %.0f %%.\n\n",
			    base->in.ranks, last->in.ranks, base->shares.comm_pct,
			    last->shares.comm_pct, base->shares.compute_pct,
			    last->shares.compute_pct, base->shares.data_pct,
			    last->shares.data_pct, last->in.ranks,
			    100 * last->scaling.efficiency);
	else
		strbuf_adds(md,
			    "\nNo other scenario of this series scales against it with a known mode: no scaling to report.\n\n");
	for (size_t i = 0; i < run->n; i++)
		if (run->sc[i].data.analysed &&
		    !strcmp(run->sc[i].scaling.baseline, base->in.name) &&
		    run->sc[i].scaling.scaling_note[0])
			strbuf_addf(md, "- **%s**: %s.\n", run->sc[i].in.name,
				    run->sc[i].scaling.scaling_note);
	strbuf_adds(md, "\n");
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
	for (size_t i = 0; i < run->nmodels; i++) {
		const struct ana_model *m = &run->models[i];
		char form[96];
		if (m->step_only)
			snprintf(form, sizeof form, "%.3f + %.3f x log2(N)", m->a, m->c);
		else
			snprintf(form, sizeof form, "%.3f / N + %.3f + %.3f x log2(N)", m->b, m->a,
				 m->c);
		if (m->max_err_pct > MODEL_FITS_PCT)
			strbuf_addf(
				md,
				"**Model for the series of %s**: step time (ms, at the baseline's global batch) T(N) = %s%s. %s No prediction is drawn from it.\n\n",
				m->series, form,
				m->step_only ? " (no compute term: step times only)" : "", m->fit);
		else
			strbuf_addf(
				md,
				"**Model for the series of %s**: step time (ms, at the baseline's global batch) T(N) = %s%s. Predicted parallel efficiency: **%.0f %% at 8 nodes, %.0f %% at 16 nodes**.\n\n%s %s\n\n",
				m->series, form,
				m->step_only ? " (no compute term: step times only)" : "",
				100 * m->eff8, 100 * m->eff16, m->limit, m->fit);
		if (m->contention[0])
			strbuf_addf(md, "**Contention.** %s\n\n", m->contention);
	}
	md_figures(md, run);
}

/* What each fabric probe measured (analysis.fabric_probe). */
static void md_fabric(struct strbuf *md, const struct ana_run *run)
{
	if (!run->nprobes)
		return;
	strbuf_adds(md,
		    "## Fabric\n\nAll-reduce bus bandwidth the fabric gives, measured by a probe job per node count and backend on the same kind of nodes (the reference trainer's all-reduce, as nccl-tests' all_reduce_perf: busbw = bytes / time x 2(n-1)/n):\n\n| Probe | Backend | Nodes | Ranks | busbw (GB/s) by message size |\n|---|---|---:|---:|---|\n");
	for (size_t i = 0; i < run->nprobes; i++) {
		const struct ana_probe *p = &run->probes[i];
		strbuf_addf(md, "| %s | %s | %d | %d | ", p->name, p->backend, p->nodes, p->ranks);
		if (!p->n)
			strbuf_addf(md, "no result: %s", p->problem);
		for (size_t k = 0; k < p->n; k++) {
			char label[32];
			double b = p->pts[k].bytes;
			snprintf(label, sizeof label, b >= 1048576 ? "%.0f MiB" : "%.0f KiB",
				 b >= 1048576 ? b / 1048576 : b / 1024);
			strbuf_addf(md, "%s%s: %.3f", k ? ", " : "", label, p->pts[k].busbw_gbps);
		}
		strbuf_adds(md, " |\n");
	}
	strbuf_adds(md, "\n");
}

/* One entry of the ranked list: a cause's recommendation or a series'. */
struct rec {
	double gain;
	char *text;
};

static int rec_cmp(const void *a, const void *b)
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
		strbuf_addf(sb,
			    "ranks wait for each other more (%.1f %% of step time) than they transfer (%.1f %%), but no one rank arrives last most of the time: the waiting is spread (jitter, noisy nodes); pin threads, keep other work off the nodes, then tune the collectives",
			    s->shares.sync_wait_pct, s->shares.comm_pct);
	else if (overlap >= ANA_OVERLAP_ENOUGH_PCT)
		strbuf_addf(sb,
			    "%.1f %% of communication is already hidden behind compute, so more overlap gains little; what is still exposed shrinks with less gradient volume (bf16 gradients, compression) or a larger per-rank batch that amortises each all-reduce",
			    overlap);
	else if (overlap > ANA_NEGLIGIBLE_PCT)
		strbuf_addf(sb,
			    "only %.1f %% of communication overlaps compute: hide the gradient all-reduce behind backward (bucketed DDP, gradient_as_bucket_view), raise the per-rank batch to amortise it, or reduce gradient volume",
			    overlap);
	else
		strbuf_adds(sb, "no communication overlaps compute: hide the gradient all-reduce behind backward (bucketed DDP, gradient_as_bucket_view), raise the per-rank batch to amortise it, or reduce gradient volume");
	fabric_clause(s, clause, sizeof clause);
	if (clause[0])
		strbuf_addf(sb, ". %.*s", (int)strlen(clause) - 1, clause);
}

/* What to change about the step's path (a straggler, data, I/O, the host, copies). */
static void path_words(struct strbuf *sb, enum rec_kind k, const struct ana_scenario *s)
{
	int gpu = s->outcome.basis == BASIS_GPU;
	const struct straggler *g = &s->comm.stragglers[0];
	switch (k) {
	case REC_STRAGGLER:
		strbuf_addf(sb,
			    "rank %d%s%s keeps the others waiting (its cause: %s%s); balance its data or work, or move it off a busy node, before tuning the collectives",
			    g->rank, g->node[0] ? " on " : "", g->node, g->cause,
			    strcmp(g->cause, "unknown") ? "" : ": no phase explains half of it");
		return;
	case REC_DATA:
		strbuf_adds(sb, gpu ? "the GPU idles while the host loads data: add data-loader workers or prefetch depth, pin memory, or make decoding cheaper, so that loading hides behind the GPU's work"
				    : "add data-loader workers or prefetch depth, or make decoding cheaper, so that loading hides behind compute");
		return;
	case REC_IO:
		strbuf_adds(sb, "checkpoint less often, write asynchronously or from one rank to fast local storage");
		return;
	case REC_HOST:
		strbuf_adds(sb,
			    gpu ? "the GPU waits for the host to launch its work: remove per-step host synchronisation (.item(), printing), cut launch overhead (CUDA graphs, torch.compile, fewer larger kernels)"
				: "host time under no operator (Python, launches, synchronisation) is the largest share: profile the Python side and remove per-step host work and synchronisation");
		return;
	case REC_COPIES:
		strbuf_adds(sb, "host-device copies are hidden behind nothing: pin host memory and copy with non_blocking=True on a side stream, or keep the data on the GPU");
		return;
	case REC_COMMUNICATION:
	case REC_ELEMENTWISE:
	case REC_KERNELS:
	case REC_MEMORY_PEAK:
	case REC_COLLECT:
	case REC_KIND_N:
		break;
	}
}

/* What to change about compute itself, memory, or what to collect. */
static void compute_words(struct strbuf *sb, enum rec_kind k, const struct ana_scenario *s)
{
	int gpu = s->outcome.basis == BASIS_GPU;
	double compute = gpu ? s->gpu.gpu_pct[GPU_COMPUTE] : s->shares.compute_pct;
	switch (k) {
	case REC_ELEMENTWISE:
		strbuf_addf(
			sb,
			"compute (%.1f %% of %s) is mostly elementwise, bandwidth-bound work: fuse elementwise operations (torch.compile, fused optimizers) and keep activations smaller or recompute them; the accounting gives no ceiling for this (compute is the work itself)",
			compute, gpu ? "the GPU's time" : "step time");
		return;
	case REC_KERNELS:
		strbuf_addf(sb,
			    "compute-bound (%.1f %% compute): gains come from faster kernels (larger GEMMs, mixed precision) rather than from the data path or communication; the accounting gives no ceiling for this (compute is the work itself)",
			    compute);
		if (!gpu && s->outcome.wait_to == SHARE_COMPUTE && s->comm.n_stragglers)
			strbuf_addf(sb,
				    "; the %.1f %% of step time the other ranks wait for rank %d's extra compute goes with its own recommendation",
				    s->shares.sync_wait_pct, s->comm.stragglers[0].rank);
		return;
	case REC_MEMORY_PEAK:
		strbuf_addf(sb,
			    "memory is nearly full (%s memory peaked at %.1f %%): lower the per-rank batch, shard optimizer state or activations, or use activation checkpointing before it fails or swaps",
			    s->mon.gpu_mem_peak_pct >= 0 ? "GPU" : "host",
			    s->mon.gpu_mem_peak_pct >= 0 ? s->mon.gpu_mem_peak_pct
							 : s->mon.mem_peak_pct);
		return;
	case REC_COMMUNICATION:
	case REC_STRAGGLER:
	case REC_DATA:
	case REC_IO:
	case REC_HOST:
	case REC_COPIES:
	case REC_COLLECT:
	case REC_KIND_N:
		break;
	}
	strbuf_addf(sb,
		    "where step time goes is not known (%s): no recommendation is drawn from unknown shares; collect a PyTorch-profiler trace with steps (prof.step() once per step, profile.traces) or the trainer's telemetry, and profile.monitor for utilisation",
		    s->data.source[0] ? s->data.source : "node monitors alone");
}

/* The advice of a cause in words, from its lead scenario's numbers. */
static void rec_words(struct strbuf *sb, const struct ana_rec *r, const struct ana_scenario *s)
{
	switch (r->kind) {
	case REC_COMMUNICATION:
		comm_words(sb, s);
		return;
	case REC_STRAGGLER:
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
		compute_words(sb, r->kind, s);
		return;
	}
}

/* A recommendation in words: its scenarios, the advice, each prediction. */
static char *rec_text(const struct ana_rec *r, const struct ana_run *run)
{
	struct strbuf sb = STRBUF_INIT, pred = STRBUF_INIT;
	for (size_t i = 0; i < r->n; i++)
		strbuf_addf(&sb, "%s**%s**", i ? ", " : "", run->sc[r->sc[i]].in.name);
	strbuf_adds(&sb, ": ");
	rec_words(&sb, r, &run->sc[r->sc[r->lead]]);
	for (size_t i = 0; i < r->n; i++) {
		const struct ana_scenario *s = &run->sc[r->sc[i]];
		if (r->predicted_ms[i] < 0 || r->step_ms[i] <= 0)
			continue;
		strbuf_addf(&pred, "%s%s%s%.2f -> %.2f ms (-%.0f %%)", pred.len ? ", " : "",
			    r->n > 1 ? s->in.name : "", r->n > 1 ? " " : "", r->step_ms[i],
			    r->predicted_ms[i], 100 * (1 - r->predicted_ms[i] / r->step_ms[i]));
		if (s->gpu.gpu_limits && r->predicted_ms[i] <= s->gpu.host_step_med_ms)
			strbuf_adds(&pred, " (no lower than the host's own step: the GPU would then wait for it)");
	}
	if (pred.len)
		strbuf_addf(&sb, ". Median step with it removed (a ceiling, from the %s): %s",
			    r->basis, pred.buf);
	strbuf_adds(&sb, ".");
	strbuf_free(&pred);
	return strbuf_detach(&sb);
}

/* summary.json's recommendations: kind, scenarios, text, predictions, basis. */
static json_t *recs_json(const struct ana_run *run)
{
	json_t *a = json_array();
	for (size_t i = 0; i < run->nrecs; i++) {
		const struct ana_rec *r = &run->recs[i];
		json_t *names = json_array(), *step = json_array(), *pred = json_array(),
		       *gain = json_array();
		for (size_t k = 0; k < r->n; k++) {
			int p = r->predicted_ms[k] >= 0 && r->step_ms[k] > 0;
			json_array_append_new(names, json_string(run->sc[r->sc[k]].in.name));
			json_array_append_new(step, r->step_ms[k] > 0 ? jnum(r->step_ms[k])
								      : json_null());
			json_array_append_new(pred, p ? jnum(r->predicted_ms[k]) : json_null());
			json_array_append_new(gain, p ? jnum(100 * (1 - r->predicted_ms[k] /
								     r->step_ms[k]))
						      : json_null());
		}
		char *text = rec_text(r, run);
		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:s, s:o, s:o, s:o, s:s}",
						   SK_KIND, rec_kind_name(r->kind), SK_SERIES,
						   r->series, SK_SCENARIOS, names, SK_TEXT, text,
						   SK_STEP_MS, step, SK_PREDICTED_STEP_MS, pred,
						   "predicted_gain_pct", gain, "basis", r->basis));
		free(text);
	}
	return a;
}

/* A scaling series whose fitted model loses efficiency by 16 nodes: 1 when
 * there is advice (in r). */
static int series_advice(struct rec *r, const struct ana_model *m, const struct ana_run *run)
{
	double t16 = m->b / 16 + m->a + m->c * 4,
	       over = t16 > 0 ? 100 * (m->a + m->c * 4) / t16 : 0;
	struct strbuf sb = STRBUF_INIT;
	/* efficient enough, or a poor fit: no advice */
	if (m->eff16 >= MODEL_ADVICE_EFFICIENCY || m->max_err_pct > MODEL_FITS_PCT)
		return 0;
	r->gain = m->step_only ? 0 : over;
	if (m->contention[0])
		strbuf_addf(&sb,
			    "**Series of %s**: measure scaling where each rank has its own resources (%s); the model's %.0f %% efficiency at 16 nodes reflects contention.",
			    m->series,
			    run->host_cpus > 0 ? "real nodes, not ranks sharing this machine"
					       : "fewer ranks per node, or exclusive nodes",
			    100 * m->eff16);
	else if (m->step_only)
		strbuf_addf(&sb,
			    "**Series of %s at scale**: fitted on step times alone, the model predicts %.0f %% efficiency at 16 nodes; what limits it is not known (no breakdown of the step): collect a trace with steps or the trainer's telemetry before asking for more nodes.",
			    m->series, 100 * m->eff16);
	else
		strbuf_addf(&sb,
			    "**Series of %s at scale**: the fitted model predicts %.0f %% efficiency at 16 nodes, where the overhead that grows with log2(N) (%.2f ms per doubling) would be %.0f %% of the step; reduce it (overlap communication, larger per-rank batch, gradient compression) before asking for more nodes.",
			    m->series, 100 * m->eff16, m->c, over);
	r->text = strbuf_detach(&sb);
	return 1;
}

/* What to do about the scenarios that were not analysed. */
static void md_unanalysed_advice(struct strbuf *md, const struct ana_run *run)
{
	for (size_t i = 0; i < run->n; i++) {
		const struct ana_scenario *s = &run->sc[i];
		if (s->data.analysed)
			continue;
		if (s->in.completed)
			strbuf_addf(md, "- **%s** completed but cannot be analysed: %s.\n",
				    s->in.name, s->data.problem ? s->data.problem : "");
		else
			strbuf_addf(md,
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
	strbuf_adds(md, "## Recommendations\n\nOne per cause and series, ranked by the step time each is predicted to recover (a ceiling: the cause's accounted share taken off the step):\n\n");
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
		"- Sources, per scenario, the first present: each rank's trainer telemetry `<scenario>/metrics/rank_<r>.jsonl` (or AORTA-style `rank_<r>_metrics.jsonl`; warm-up steps excluded); PyTorch-profiler traces in `<scenario>/traces/` (one per rank; each `ProfilerStep#N` is a step; host ranges classified into phases by PCRE2 rules, the campaign's `analysis.phase_rules` before `analyzers/phase_rules.txt`; on each thread the innermost classified range wins, across threads compute > data loading > communication > I/O, so nothing is counted twice); step lines of `<scenario>/logs/rank_<r>.out` matched by `analysis.step_log` (step times only; the first `profile.warmup_steps` lines of each rank skipped); else the node monitors alone (docs/formats.md).\n"
		"- Step time: per step, the slowest rank's `step_ms` (a data-parallel step ends when the last rank does); median, p95, min and max over active steps. Spread = (p95 - min) / median.\n"
		"- Throughput: global batch / median step time.\n"
		"- Shares: sums over all ranks and active steps of `data_wait_ms`, `forward_ms` + `backward_ms` + `optimizer_ms` and, from traces, operators under none of those phases (compute), `comm_exposed_ms` (communication not hidden behind compute; `comm_ms` when absent) and `io_ms`, divided by the sum of `step_ms`; other = the remainder (host time under no operator). A collective ends for every rank at once, so per step the smallest exposed communication over ranks (the last rank to arrive) is counted as communication and each rank's excess over it as waiting for slower ranks (peer wait). Overlap = 1 - (communication + peer wait) / total all-reduce time.\n");
}

static void md_method(struct strbuf *md, const struct ana_run *run)
{
	md_method_sources(md);
	strbuf_addf(
		md,
		"- Verdict (docs/accounting.md): every instant of a step is attributed once, and the verdict is the share whose removal would recover the most step time: compute (memory-bound when elementwise work outweighs GEMMs), exposed communication with waiting for peers (straggler-bound apart when one rank keeps the others waiting most), data loading, I/O, host overhead (time under no operator); on the GPU timeline (traces with kernels) the GPU's compute kernels, exposed communication, exposed copies, and the GPU idle waiting for the host (data-loader-bound for the part the host spent loading data), over windows cut one after another (a step's GPU window begins where the previous step's GPU work ended). Borderline when the runner-up is within 20 %% of it (or takes the larger share in a quarter of the steps). Waiting for a straggler counts with its cause; straggler-bound when no phase explains it. The thresholds (`analysis.thresholds`: communication > %.0f %%, data loading > %.0f %%, I/O > %.0f %%, GPU busy < %.0f %%, memory peak > %.0f %%) are flags listed beside the verdict, never a reason to name a smaller share. A share that is unknown (step times only) is n/a and feeds no verdict, recommendation or model term; with node monitors alone the verdict names a saturated resource.\n"
		"- Recommendations: one per cause and series; each predicts the median step with the cause's accounted share taken off (a ceiling; on a GPU that is the limit, never below the host's own step); compute itself has no such ceiling.\n"
		"- MFU: the telemetry's FLOPs per step per rank / median step time, over `analysis.peak_gflops_per_rank`.\n"
		"- Scaling model: per series, step times scaled to the baseline's global batch are split into compute (fitted as b/N by least squares) and the rest (fitted as a + c log2 N with a, c >= 0); efficiency(N) = T(N0) N0 / (T(N) N).\n"
		"- Scaling: weak when the per-rank batch is the baseline's, strong when the global batch is (from the batches; without them from `analysis.scaling`); speedup = samples/s / baseline samples/s (the step-rate ratio at strong scaling, x ranks / baseline ranks at weak scaling when the batch is unknown); efficiency = speedup x baseline ranks / ranks. Scenarios whose batch semantics differ from the baseline's get no speedup. The model needs three node counts. A series is the scenarios with the same backend and tasks per node; its baseline is `analysis.baseline` when that is in the series, else the one with the fewest nodes.\n",
		run->th.comm_pct, run->th.data_pct, run->th.io_pct, run->th.gpu_util_pct,
		run->th.memory_pct);
}

static int write_markdown(const struct ana_run *run)
{
	struct strbuf md = STRBUF_INIT, path = STRBUF_INIT;
	strbuf_addf(&md,
		    "# Bottleneck analysis: %s\n\nRun `%s`. Every number below is in `summary.json`.\n\n",
		    run->campaign, run->run_id);
	md_summary(&md, run);
	checked_md(&md, &run->variant);
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

static int write_scenario_files(const struct ana_scenario *s, const struct ana_run *run)
{
	struct strbuf p = STRBUF_INIT, txt = STRBUF_INIT;
	json_t *j = scenario_json(s, run);
	strbuf_addf(&p, "%s/" JOB_ANALYSIS, s->in.job_dir);
	int rc = jsonio_write(p.buf, j);
	json_decref(j);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/" JOB_REPORT, s->in.job_dir);
	if (s->data.analysed) {
		char *ev = evidence_of(s, run);
		strbuf_addf(
			&txt, "scenario %s: %s%s\n%s\nmedian step %.2f ms, p95 %.2f ms, %.1f %s\n",
			s->in.name, verdict_name(s->outcome.v.verdict),
			s->outcome.v.borderline ? " (borderline)" : "", ev, s->steps.step_med_ms,
			s->steps.step_p95_ms, s->steps.throughput, s->steps.throughput_unit);
		free(ev);
		if (s->shares.shares_known)
			strbuf_addf(&txt,
				    "data %.1f %%, compute %.1f %%, communication %.1f %% (+ %.1f %% waiting for peers), other %.1f %%\n",
				    s->shares.data_pct, s->shares.compute_pct, s->shares.comm_pct,
				    s->shares.sync_wait_pct, s->shares.other_pct);
		else
			strbuf_adds(&txt, "data, compute, communication: n/a (step times only)\n");
	}
	else
		strbuf_addf(&txt, "scenario %s: %s, not analysed: %s\n", s->in.name, s->in.state,
			    s->data.problem ? s->data.problem : "");
	if (rc == 0)
		rc = fsio_write_atomic(p.buf, txt.buf, txt.len, 0644);
	strbuf_free(&p);
	strbuf_free(&txt);
	return rc;
}

int ana_run_write(const struct ana_run *run)
{
	int rc = 0;
	for (size_t i = 0; i < run->n && rc == 0; i++)
		if (fsio_is_dir(run->sc[i].in.job_dir))
			rc = write_scenario_files(&run->sc[i], run);
	if (rc == 0) {
		struct strbuf p = STRBUF_INIT, figs = STRBUF_INIT;
		json_t *j = summary_json(run);
		strbuf_addf(&p, "%s/" RUN_SUMMARY, run->run_dir);
		rc = jsonio_write(p.buf, j);
		strbuf_addf(&figs, "%s/" RUN_FIGURES, run->run_dir);
		if (rc == 0 &&
		    figures_draw(run->run_dir, j, figs.buf, run->epoch, FIG_SVG | FIG_PNG) < 0)
			fprintf(stderr, "campaign: warning: the figures were not drawn: %s\n",
				err_last());
		if (rc == 0)
			rc = timeline_write(run);
		json_decref(j);
		strbuf_free(&p);
		strbuf_free(&figs);
	}
	return rc == 0 ? write_markdown(run) : rc;
}
