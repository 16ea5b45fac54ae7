/* summary_json: the analysis as JSON: summary.json for the run and analysis.json
 * per scenario (the keys of analyzers/summary_keys.h), numbers with fixed rounding.
 * SPDX-License-Identifier: MIT */
#include "analyzers/stats.h"
#include "analyzers/analysis.h"
#include "analyzers/write/report.h"
#include "analyzers/write/clock_text.h"
#include "util/run_layout.h"
#include "analyzers/advice.h"
#include "analyzers/contamination.h"
#include "analyzers/write/prediction_check_text.h"
#include "analyzers/write/data_text.h"
#include "analyzers/write/evidence.h"
#include "analyzers/write/scaling_text.h"
#include "analyzers/read/metrics.h"
#include "analyzers/replay_build.h"
#include "analyzers/summary_keys.h"
#include "analyzers/write/summary_objects.h"

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
	const struct ana_foreign *f = &s->mon.foreign;
	return !s->mon.have_monitor
		? json_null()
		: json_pack("{s:i, s:I, s:o, s:o, s:o, s:o}", "nodes", s->mon.monitor_nodes,
			    "samples", (json_int_t) s->mon.monitor_samples, "cpu_util_mean_pct",
			    jsonio_real3(s->mon.cpu_util_mean_pct), "iowait_mean_pct",
			    jsonio_real3(s->mon.iowait_mean_pct), "mem_peak_pct",
			    jsonio_real3(s->mon.mem_peak_pct), "foreign_cpu_pct",
			    f->known ? jsonio_real3(f->cpu_pct) : json_null());
}

/* Measured beside other load: null, or the CPU of processes outside the job and the
 * commands that used most, and the scenarios that shared its nodes. */
static json_t *contaminated_json(const struct ana_scenario *s)
{
	const struct ana_foreign *f = &s->mon.foreign;
	if (!contamination_any(s))
		return json_null();
	json_t *what = json_array();
	for (int i = 0; f->contaminated && i < f->n_what; i++)
		json_array_append_new(what, json_string(f->what[i]));
	return json_pack("{s:o, s:o, s:o}", "cpu_pct",
			 f->known ? jsonio_real3(f->cpu_pct) : json_null(), "what", what,
			 "scenarios",
			 s->data.contaminated[0] ? json_string(s->data.contaminated) : json_null());
}

static json_t *top_ops_json(const struct ana_op *ops, int n, double total, const char *what)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(
			a,
			json_pack("{s:s, s:o, s:I, s:o}", "name", ops[i].name, what,
				  jsonio_real3(ops[i].self_ms), "count", (json_int_t) ops[i].count,
				  "pct",
				  jsonio_real3(total > 0 ? 100 * ops[i].self_ms / total : 0)));
	return a;
}

/* A node monitor summary: CPU busy, iowait, memory peak, GPU busy (null unmonitored). */
static json_t *mon_json(const struct monitor_summary *m)
{
	return json_pack("{s:i, s:o, s:o, s:o, s:o}", "nodes", m->nodes, "cpu_util_mean_pct",
			 jsonio_real3(m->cpu_util_mean_pct), "iowait_mean_pct",
			 jsonio_real3(m->iowait_mean_pct), "mem_peak_pct",
			 jsonio_real3(m->mem_peak_pct), "gpu_util_mean_pct",
			 m->gpu_util_n ? jsonio_real3(m->gpu_util_mean_pct) : json_null());
}

/* v[0..n) as an array of numbers to 0.001 */
static json_t *real3_array(const double *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; v && i < n; i++)
		json_array_append_new(a, jsonio_real3(v[i]));
	return a;
}

/* What a collective row keeps for compare's intervals, each an array (empty: none). */
static json_t *kept_json(const struct collective *c)
{
	static const char *const key[COLL_KEPT] = { SK_STEP_MS, SK_WAIT_MS, SK_BUSBW_GBPS };
	json_t *o = json_object();
	for (int k = 0; k < COLL_KEPT; k++)
		json_object_set_new(o, key[k], real3_array(c->kept[k], c->nkept[k]));
	return o;
}

json_t *summary_collectives_json(const struct collective *cs, size_t n)
{
	json_t *a = json_array();
	char label[48];
	for (size_t i = 0; i < n; i++) {
		const struct collective *c = &cs[i];
		int sized = c->size_class >= 0;
		int fab = sized && c->fabric_busbw_gbps > 0;
		json_t *row = json_pack(
			"{s:s, s:s, s:o, s:o, s:{s:o, s:o}, s:{s:o, s:o}, s:o, s:o, s:o, s:I, s:I}",
			SK_OP, coll_op_name(c->op), SK_SIZE_CLASS,
			coll_size_label(c->size_class, label, sizeof label), SK_BYTES,
			sized ? jsonio_real3(c->bytes) : json_null(), "count_per_step",
			jsonio_real3(c->count_per_step), "latency_ms", "median",
			jsonio_real3(c->latency_med), "p95", jsonio_real3(c->latency_p95),
			SK_WAIT_MS, SK_MEDIAN, jsonio_real3(c->wait_med), SK_P95,
			jsonio_real3(c->wait_p95), "algbw_gbps",
			sized ? jsonio_real3(c->algbw_gbps) : json_null(), SK_BUSBW_GBPS,
			sized ? jsonio_real3(c->busbw_gbps) : json_null(), SK_MS_PER_STEP,
			jsonio_real3(c->ms_per_step), "instances", (json_int_t) c->instances,
			"steps", (json_int_t) c->steps);
		json_object_set_new(row, "ms_per_step_summed", jsonio_real3(c->ms_per_step_summed));
		json_object_set_new(row, "transfer_ms_per_step",
				    jsonio_real3(c->transfer_ms_per_step));
		json_object_set_new(row, "step_total", json_boolean(c->step_total));
		json_object_set_new(row, "concurrent_instances",
				    json_integer((json_int_t) c->concurrent));
		json_object_set_new(row, "fabric_busbw_gbps",
				    fab ? jsonio_real3(c->fabric_busbw_gbps) : json_null());
		json_object_set_new(row, "fabric_pct",
				    fab ? jsonio_real3(100 * c->busbw_gbps / c->fabric_busbw_gbps)
					: json_null());
		json_object_set_new(row, SK_SAMPLES, kept_json(c));
		json_array_append_new(a, row);
	}
	return a;
}

/* Why a probe has no result: its job did not complete, or its fabric.json (null: none). */
static json_t *probe_problem(const struct ana_probe *p)
{
	struct strbuf sb = STRBUF_INIT;
	fabric_probe_problem(&sb, p);
	json_t *j = sb.len ? json_string(sb.buf) : json_null();
	strbuf_free(&sb);
	return j;
}

/* summary.json's fabric_probes: what each probe measured, per size. */
static json_t *probes_json(const struct ana_run *run)
{
	json_t *a = json_array();
	for (size_t i = 0; i < run->nprobes; i++) {
		const struct ana_probe *p = &run->probes[i];
		json_t *sizes = json_array();
		for (size_t k = 0; k < p->n; k++)
			json_array_append_new(
				sizes,
				json_pack("{s:o, s:o, s:o}", SK_BYTES,
					  jsonio_real3(p->pts[k].bytes), SK_BUSBW_GBPS,
					  jsonio_real3(p->pts[k].busbw_gbps), "latency_ms",
					  jsonio_real3(p->pts[k].latency_ms)));
		json_array_append_new(
			a,
			json_pack("{s:s, s:s, s:i, s:i, s:s, s:o, s:o}", SK_NAME, p->name,
				  "backend", p->backend, "nodes", p->nodes, "ranks", p->ranks,
				  "state", p->state, SK_SIZES, sizes, "problem", probe_problem(p)));
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

/* What the traces' operators and GPU work took: the host operators with the most self time,
 * the GPU breakdown (null without GPU work). */
static void sc_profile(json_t *o, const struct ana_scenario *s)
{
	json_object_set_new(
		o, "top_operators",
		top_ops_json(s->data.top_ops, s->data.n_top_ops, s->data.ops_total_ms, "self_ms"));
	json_object_set_new(
		o, "gpu_breakdown",
		s->gpu.gpu_kernel_ms <= 0
			? json_null()
			: json_pack(
				  "{s:o, s:o, s:o, s:o, s:o, s:o}", "kernel_time_ms",
				  jsonio_real3(s->gpu.gpu_kernel_ms), "idle_pct",
				  jsonio_real3(s->gpu.gpu_idle_pct), "compute_pct",
				  jsonio_real3(s->gpu.gpu_compute_pct), "non_compute_pct",
				  jsonio_real3(s->gpu.gpu_non_compute_pct), "comm_comp_overlap_pct",
				  s->gpu.gpu_overlap_pct >= 0 ? jsonio_real3(s->gpu.gpu_overlap_pct)
							      : json_null(),
				  "top_kernels",
				  top_ops_json(s->gpu.top_kernels, s->gpu.n_top_kernels,
					       s->gpu.kernels_total_ms, "total_ms")));
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
						    ? jsonio_real3(s->data.perf->ev[i].value)
						    : json_null());
	}
	json_object_set_new(o, "perf", perf);
	json_object_set_new(o, "nsys_reports", json_integer(s->data.nsys_reports));
	for (unsigned bit = PROFILE_NSYS; bit <= PROFILE_INSPECTOR; bit <<= 1)
		if (s->data.profile_missing & bit)
			json_array_append_new(missing, json_string(data_text_profiler(bit)));
	json_object_set_new(o, "profile_missing", missing);
	enum data_source src = s->data.source != SOURCE_NONE ? s->data.source
			       : s->data.monitors_only	     ? SOURCE_MONITORS
							     : SOURCE_NONE;
	json_object_set_new(o, "source",
			    src != SOURCE_NONE ? json_string(data_text_source(src)) : json_null());
	char *sources = data_text_sources(s);
	json_object_set_new(o, "sources", json_string(sources));
	free(sources);
	json_object_set_new(o, "trace_files", json_integer((json_int_t)s->data.trace_files));
	if (s->data.trace_not_analysed)
		json_object_set_new(o, "trace_files_not_analysed",
				    json_string(s->data.trace_not_analysed_names));
	if (ana_some_traces_unused(s)) {
		json_object_set_new(o, "trace_files_unused",
				    json_integer((json_int_t) s->data.trace_unused));
		json_object_set_new(o, "trace_problem", json_string(s->data.trace_problem));
	}
	sc_profile(o, s);
}


/* A change's replayed prediction: {step_ms, interval_ms, busy_pct} and more's keys (taken),
 * or {step_ms: null, why} where none was made (p->why; why_none where no change was
 * replayed at all). */
static json_t *pred_json(const struct replay_pred *p, json_t *more, const char *why_none)
{
	if (!p->made) {
		json_decref(more);
		return json_pack("{s:n, s:s}", "step_ms", "why", why_none ? why_none : p->why);
	}
	json_t *o = json_pack("{s:o, s:o, s:o}", "step_ms", jsonio_real3(p->step_ms), "interval_ms",
			      p->lo_ms >= 0 ? json_pack("[o, o]", jsonio_real3(p->lo_ms),
							jsonio_real3(p->hi_ms))
					    : json_null(),
			      "busy_pct", jsonio_real3(p->busy_pct));
	json_object_set_new(o, "mean_step_ms",
			    p->mean_ms > 0 ? jsonio_real3(p->mean_ms) : json_null());
	json_object_set_new(o, "mean_interval_ms",
			    p->mean_ms > 0 && p->mean_lo_ms >= 0
				    ? json_pack("[o, o]", jsonio_real3(p->mean_lo_ms),
						jsonio_real3(p->mean_hi_ms))
				    : json_null());
	if (more)
		json_object_update(o, more);
	json_decref(more);
	return o;
}

/* The communication change's prediction, with its buckets and transfer model. */
static json_t *comm_pred_json(const struct replay_pred *c, const char *why_none)
{
	json_t *model = c->fit_colls ? json_pack("{s:o, s:o, s:I, s:o, s:o}", "per_call_ms",
						 jsonio_real3(c->per_call_ms), "ms_per_mib",
						 jsonio_real3(c->ms_per_mib), "collectives",
						 (json_int_t)c->fit_colls, "largest_mib",
						 jsonio_real3(c->fit_max_bytes / 1048576),
						 "bucket_largest_mib",
						 jsonio_real3(c->bucket_max_bytes / 1048576))
				     : json_null();
	return pred_json(c,
			 json_pack("{s:I, s:b, s:o, s:o, s:o}", "buckets", (json_int_t) c->buckets,
				   "bound", c->bound,
				   "transfer_model", model, "proportional_step_ms",
				   c->proportional_step_ms >= 0
					   ? jsonio_real3(c->proportional_step_ms)
					   : json_null(),
				   "all_per_call_step_ms",
				   c->per_call_step_ms >= 0 ? jsonio_real3(c->per_call_step_ms)
							    : json_null()),
			 why_none);
}

/* The batch doubled's prediction, with the samples/s it gives over the measured. */
static json_t *batch_pred_json(const struct replay_result *r, const char *why_none)
{
	const struct replay_pred *b = &r->batch;
	double x = REPLAY_BATCH_X * r->measured_ms; /* twice the samples: throughput x / step */
	json_t *more = json_pack("{s:o, s:o}", "gemm_share",
				 r->gemm_share > 0 ? jsonio_real3(r->gemm_share) : json_null(),
				 "gemm_bound_step_ms",
				 b->gemm_bound_step_ms >= 0 ? jsonio_real3(b->gemm_bound_step_ms)
							    : json_null());
	if (b->made && b->lo_ms > 0) /* (no interval, too few steps: no rate claimed) */
		json_object_update_new(
			more,
			json_pack("{s:o, s:[o, o]}", "throughput_x", jsonio_real3(x / b->step_ms),
				  "throughput_interval_x", jsonio_real3(x / b->hi_ms),
				  jsonio_real3(x / b->lo_ms)));
	return pred_json(b, more, why_none);
}

json_t *summary_replay_rank_json(const struct replay_rank_result *r)
{
	return json_pack("{s:i, s:o, s:o, s:o, s:I}", "rank", r->rank, "step_ms",
			 jsonio_real3(r->step_ms), "measured_ms", jsonio_real3(r->measured_ms),
			 "error_pct", jsonio_real3(r->error_pct), "steps", (json_int_t) r->steps);
}

/* The data-loading change's prediction, with the loader it replayed and a user's DataLoader's
 * bounds (all of its loading waiting, all of it CPU work: medians and means). */
static json_t *data_loading_json(const struct replay_result *r, int loader_workers,
				 int loader_prefetch, const char *none)
{
	return pred_json(
		&r->data,
		json_pack("{s:I, s:i, s:i, s:b, s:o, s:o, s:o, s:o, s:o}", "loaders_measured",
			  (json_int_t) r->loaders, "loader_workers", loader_workers,
			  "loader_prefetch", loader_prefetch, "user_loader", r->user_loader,
			  "loader_cpu_pct",
			  r->loader_cpu_pct >= 0 ? jsonio_real3(r->loader_cpu_pct) : json_null(),
			  "all_waiting_step_ms",
			  r->loader_wait_step_ms >= 0 ? jsonio_real3(r->loader_wait_step_ms)
						      : json_null(),
			  "all_cpu_step_ms",
			  r->loader_cpu_step_ms >= 0 ? jsonio_real3(r->loader_cpu_step_ms)
						     : json_null(),
			  "all_waiting_mean_ms",
			  r->loader_wait_mean_ms > 0 ? jsonio_real3(r->loader_wait_mean_ms)
						     : json_null(),
			  "all_cpu_mean_ms",
			  r->loader_cpu_mean_ms > 0 ? jsonio_real3(r->loader_cpu_mean_ms)
						    : json_null()),
		none);
}

json_t *summary_replay_json(const struct replay_result *r, int loader_workers,
			    int loader_prefetch)
{
	const char *none = r->predicted
		? NULL
		: "not predicted: campaign-analyze on trace files replays the graph unchanged; a run's analysis replays each change";
	json_t *ranks = json_array();
	for (size_t k = 0; k < r->nranks; k++)
		json_array_append_new(ranks, summary_replay_rank_json(&r->ranks[k]));
	json_t *rep = json_pack("{s:o, s:o, s:I, s:o, s:i, s:i, s:o}", "step_ms",
				jsonio_real3(r->step_ms), "error_pct", jsonio_real3(r->error_pct),
				"steps", (json_int_t) r->steps, "measured_ms",
				jsonio_real3(r->measured_ms), "hosts", r->hosts, "cores", r->cores,
				"ranks", ranks);
	json_object_set_new(rep, "mean_step_ms", jsonio_real3(r->mean_step_ms));
	json_object_set_new(rep, "measured_mean_ms", jsonio_real3(r->measured_mean_ms));
	json_object_set_new(rep, "mean_error_pct", jsonio_real3(r->mean_error_pct));
	json_object_set_new(rep, "by_means", json_boolean(r->by_means));
	json_object_set_new(rep, "by_means_of",
			    r->by_means == REPLAY_MEANS_MEASURED   ? json_string("measured")
			    : r->by_means == REPLAY_MEANS_REPLAYED ? json_string("replayed")
								   : json_null());
	json_object_set_new(rep, "step_times_ms", real3_array(r->replayed_steps_ms, r->steps));
	json_object_set_new(rep, "measured_step_times_ms",
			    real3_array(r->measured_steps_ms, r->steps));
	json_object_set_new(rep, "compute_core_wait_pct",
			    r->compute_core_wait_pct >= 0 ? jsonio_real3(r->compute_core_wait_pct)
							  : json_null());
	json_object_set_new(rep, "communication", comm_pred_json(&r->comm, none));
	json_object_set_new(
		rep, "io",
		pred_json(&r->io,
			  json_pack("{s:i, s:b, s:o, s:o}", "checkpoint_every", r->io_every,
				    "async", r->io_async, "storage_busy_ms",
				    r->io_storage_ms > 0 ? jsonio_real3(r->io_storage_ms)
							 : json_null(),
				    "storage_busy_mean_ms",
				    r->io_storage_mean_ms > 0 ? jsonio_real3(r->io_storage_mean_ms)
							      : json_null()),
			  none));
	json_object_set_new(rep, "data_loading",
			    data_loading_json(r, loader_workers, loader_prefetch, none));
	json_object_set_new(rep, "straggler", pred_json(&r->straggler, NULL, none));
	json_object_set_new(rep, "host", pred_json(&r->host, NULL, none));
	json_object_set_new(rep, "batch", batch_pred_json(r, none));
	return rep;
}

static void sc_replay(json_t *o, const struct ana_scenario *s)
{
	const struct replay_result *r = &s->replay;
	char *why = r->built ? NULL : data_text_replay_why(r);
	json_object_set_new(o, "replay_why", why ? json_string(why) : json_null());
	free(why);
	json_object_set_new(o, "replay",
			    r->built ? summary_replay_json(r, s->in.loader_workers,
							   s->in.loader_prefetch)
				     : json_null());
}

/* Step times, batch and throughput. */
static void sc_steps(json_t *o, const struct ana_scenario *s)
{
	json_object_set_new(o, "active_steps", json_integer((json_int_t)s->steps.active_steps));
	json_object_set_new(o, "partial_steps_left_out",
			    json_integer((json_int_t)s->steps.partial_steps));
	json_object_set_new(o, "step_boundaries",
			    json_boolean(!s->steps.no_steps && !s->steps.window_shares));
	if (s->steps.no_steps) /* one GPU window, not steps: no statistics, no rate */
		json_object_set_new(o, "profiled_window_ms", jsonio_real3(s->steps.step_med_ms));
	json_object_set_new(
		o, SK_STEP_TIME_MS,
		s->steps.no_steps
			? json_null()
			: json_pack("{s:o, s:o, s:o, s:o, s:o}", SK_MEDIAN,
				    jsonio_real3(s->steps.step_med_ms), SK_P95,
				    jsonio_real3(s->steps.step_p95_ms), "min",
				    jsonio_real3(s->steps.step_min_ms), "max",
				    jsonio_real3(s->steps.step_max_ms), "median_interval",
				    s->steps.step_med_lo_ms > 0
					    ? json_pack("[o, o]",
							jsonio_real3(s->steps.step_med_lo_ms),
							jsonio_real3(s->steps.step_med_hi_ms))
					    : json_null()));
	json_object_set_new(o, "spread_pct",
			    s->steps.no_steps ? json_null() : jsonio_real3(s->steps.spread_pct));
	json_object_set_new(o, SK_STEP_TIMES_MS,
			    real3_array(s->steps.step_ms,
					s->steps.no_steps ? 0 : s->steps.active_steps));
	/* what a step's time is (docs/analysis.md): the period between consecutive steps' last
	 * collectives where the traces give it, the slowest rank's step otherwise */
	json_object_set_new(o, SK_STEP_ESTIMATOR,
			    s->steps.no_steps ? json_null()
			    : json_string(s->steps.step_periods ? "collective_period"
								: "rank_step"));
	json_object_set_new(o, "period_steps", json_integer((json_int_t)s->steps.step_periods));
	int samples = s->steps.global_batch > 0;
	json_object_set_new(o, SK_GLOBAL_BATCH,
			    samples ? json_integer(s->steps.global_batch) : json_null());
	json_object_set_new(o, "batch_from",
			    samples ? json_string(data_text_batch_from(s->steps.batch_from))
				    : json_null());
	json_object_set_new(o, "throughput",
			    s->steps.no_steps ? json_null() : jsonio_real3(s->steps.throughput));
	json_object_set_new(o, "throughput_unit", json_string(data_text_throughput_unit(s)));
	json_object_set_new(o, "throughput_at_mean_step", /* the rate over the run */
			    s->steps.throughput_at_mean > 0
				    ? jsonio_real3(s->steps.throughput_at_mean)
				    : json_null());
	json_object_set_new(o, SK_THROUGHPUT_SAMPLES_PER_S,
			    samples && !s->steps.no_steps ? jsonio_real3(s->steps.throughput)
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
				    SK_DATA_LOADING, jsonio_real3(s->shares.data_pct), SK_COMPUTE,
				    jsonio_real3(s->shares.compute_pct), "compute_outside_phases",
				    jsonio_real3(s->shares.ops_pct), "forward",
				    jsonio_real3(s->shares.forward_pct), "backward",
				    jsonio_real3(s->shares.backward_pct), "optimizer",
				    jsonio_real3(s->shares.optimizer_pct), SK_COMMUNICATION,
				    jsonio_real3(s->shares.comm_pct), "communication_total",
				    jsonio_real3(s->shares.comm_total_pct), SK_PEER_WAIT,
				    jsonio_real3(s->shares.sync_wait_pct), SK_IO,
				    jsonio_real3(s->shares.io_pct), SK_OTHER,
				    jsonio_real3(s->shares.other_pct)));
	int known = s->shares.shares_known,
	    split = s->shares.gemm_pct + s->shares.elementwise_pct > 0;
	json_object_set_new(o, SK_OVERLAP_PCT,
			    known ? jsonio_real3(s->shares.overlap_pct) : json_null());
	json_object_set_new(o, "compute_split_pct",
			    split ? json_pack("{s:o, s:o, s:o}", "gemm",
					      jsonio_real3(s->shares.gemm_pct), "elementwise",
					      jsonio_real3(s->shares.elementwise_pct), "of_compute",
					      jsonio_real3(s->shares.split_cover_pct))
				  : json_null());
	json_object_set_new(o, "allreduce_gbps",
			    s->comm.allreduce_gbps > 0 ? jsonio_real3(s->comm.allreduce_gbps)
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
				    s->mon.gpu_util_mean_pct < 0
					    ? json_null()
					    : jsonio_real3(s->mon.gpu_util_mean_pct),
				    "memory_util_mean_pct",
				    s->mon.gpu_mem_util_mean_pct < 0
					    ? json_null()
					    : jsonio_real3(s->mon.gpu_mem_util_mean_pct),
				    "memory_peak_pct", jsonio_real3(s->mon.gpu_mem_peak_pct)));
}

/* The step data's format, FLOPs, and the step figures' data. */
static void sc_step_data(json_t *o, const struct ana_scenario *s)
{
	json_object_set_new(o, "telemetry_format",
			    json_string(metrics_format_name(s->data.format)));
	json_object_set_new(o, "flops_per_step_per_rank",
			    s->steps.flops_per_step > 0 ? jsonio_real3(s->steps.flops_per_step)
							: json_null());
	json_object_set_new(o, SK_ACHIEVED_GFLOPS_PER_RANK,
			    s->steps.achieved_gflops > 0 ? jsonio_real3(s->steps.achieved_gflops)
							 : json_null());
	json_object_set_new(o, SK_MFU_PCT,
			    s->steps.mfu_pct >= 0 ? jsonio_real3(s->steps.mfu_pct) : json_null());
	json_t *rows = json_array();
	for (int r = 0; r < s->steps.tl_ranks; r++) {
		json_t *row = json_array();
		for (int k = 0; k < 7; k++)
			json_array_append_new(row, jsonio_real3(s->steps.tl[r][k]));
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
						jsonio_real3(s->steps.rank0[i][1]),
						s->steps.rank0[i][2] != 0));
	json_object_set_new(o, SK_RANK0_STEPS, steps);
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
						   jsonio_real3(v->flags[i].pct), "threshold_pct",
						   jsonio_real3(v->flags[i].th)));
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
						"pct", jsonio_real3(v->pct))
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
	json_object_set_new(o, SK_VERDICT_BASIS, json_string(basis_name(s->outcome.basis)));
	json_object_set_new(o, "oversubscribed", json_boolean(s->outcome.oversubscribed));
	free(ev);
}

/* The GPU view, the slowest rank, loss. */
static void sc_verdict(json_t *o, const struct ana_scenario *s, const struct ana_run *run)
{
	sc_outcome(o, s, run);
	json_object_set_new(
		o, "gpu_limits",
		!s->gpu.gpu_basis
			? json_null()
			: json_pack("{s:b, s:o, s:o}", "gpu_is_the_limit", s->gpu.gpu_limits,
				    "host_step_ms", jsonio_real3(s->gpu.host_step_med_ms),
				    "host_ahead_ms", jsonio_real3(s->gpu.host_ahead_ms)));
	json_object_set_new(o, "gpu_compute_split_pct",
			    !s->gpu.gpu_basis ? json_null()
					      : json_pack("{s:o, s:o}", "matrix",
							  jsonio_real3(s->gpu.gpu_pct[GPU_GEMM]),
							  "elementwise",
							  jsonio_real3(s->gpu.gpu_pct[GPU_COMPUTE] -
								       s->gpu.gpu_pct[GPU_GEMM])));
	json_object_set_new(
		o, SK_GPU_SHARES_PCT,
		!s->gpu.gpu_basis
			? json_null()
			: json_pack(
				  "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I}", SK_COMPUTE,
				  jsonio_real3(s->gpu.gpu_pct[GPU_COMPUTE]), SK_COMMUNICATION,
				  jsonio_real3(s->gpu.gpu_pct[GPU_COMM]), SK_MEMCPY,
				  jsonio_real3(s->gpu.gpu_pct[GPU_MEMCPY]), SK_OTHER_KERNELS,
				  jsonio_real3(s->gpu.gpu_pct[GPU_OTHER]), SK_IDLE_HOST_WAIT,
				  jsonio_real3(s->gpu.gpu_pct[GPU_IDLE_HOST]), SK_IDLE_DATA_LOADING,
				  jsonio_real3(s->gpu.gpu_pct[GPU_IDLE_DATA]), SK_IDLE_KERNEL_WAIT,
				  jsonio_real3(s->gpu.gpu_pct[GPU_IDLE_KERNEL]), SK_IDLE_OTHER,
				  jsonio_real3(s->gpu.gpu_pct[GPU_IDLE_OTHER]), "window_ms",
				  jsonio_real3(s->gpu.gpu_pct[GPU_WINDOW]), "rank_steps",
				  (json_int_t) s->gpu.gpu_steps));
	/* of communication, the waiting for slower ranks (null: fewer than two ranks a step) */
	if (s->gpu.gpu_basis)
		json_object_set_new(json_object_get(o, SK_GPU_SHARES_PCT), SK_PEER_WAIT,
				    s->gpu.peer_wait_known ? jsonio_real3(s->gpu.peer_wait_pct)
							   : json_null());
	json_object_set_new(o, "slowest_rank",
			    json_pack("{s:i, s:o, s:o}", "rank", s->steps.slowest_rank,
				      "mean_step_ms", jsonio_real3(s->steps.slowest_rank_ms),
				      "others_mean_step_ms",
				      s->steps.slowest_others_ms > 0
					      ? jsonio_real3(s->steps.slowest_others_ms)
					      : json_null()));
	/* (null where the steps carry no loss: a 0 would read as one measured) */
	json_object_set_new(o, "loss",
			    !s->steps.loss_known
				    ? json_null()
				    : json_pack("{s:o, s:o}", "first",
						jsonio_real3(s->steps.loss_first), "last",
						jsonio_real3(s->steps.loss_last)));
}

/* A string, or null when it is empty; frees it. */
static json_t *text_or_null(char *text)
{
	json_t *j = text[0] ? json_string(text) : json_null();
	free(text);
	return j;
}

/* [lo, hi] of a known interval, else null. */
static json_t *interval_json(const struct stats_interval *ci)
{
	return ci && ci->known ? json_pack("[o, o]", jsonio_real3(ci->lo), jsonio_real3(ci->hi))
			       : json_null();
}

/* Against the baseline; what the traces missed; ranks with data. */
static void sc_scaling(json_t *o, const struct ana_scenario *s, const struct ana_run *run)
{
	struct strbuf note = STRBUF_INIT;
	json_object_set_new(o, SK_BASELINE,
			    s->scaling.baseline[0] ? json_string(s->scaling.baseline)
						   : json_null());
	int scaled = s->scaling.baseline[0] &&
		(s->scaling.is_baseline || s->scaling.mode != SCALING_UNKNOWN);
	json_object_set_new(o, SK_SPEEDUP, scaled ? jsonio_real3(s->scaling.speedup) : json_null());
	json_object_set_new(o, SK_EFFICIENCY,
			    scaled ? jsonio_real3(s->scaling.efficiency) : json_null());
	json_object_set_new(o, SK_SPEEDUP_INTERVAL,
			    interval_json(scaled ? &s->scaling.speedup_ci : NULL));
	json_object_set_new(o, SK_EFFICIENCY_INTERVAL,
			    interval_json(scaled ? &s->scaling.efficiency_ci : NULL));
	json_object_set_new(o, SK_SPEEDUP_BY_MEANS,
			    json_boolean(scaled && !s->scaling.is_baseline && s->scaling.by_means));
	json_object_set_new(o, "scaling_mode",
			    s->scaling.mode != SCALING_UNKNOWN
				    ? json_string(scaling_text_mode(s->scaling.mode))
				    : json_null());
	scaling_text_note(&note, s);
	json_object_set_new(o, "scaling_note", text_or_null(strbuf_detach(&note)));
	json_object_set_new(o, "traces_missed", text_or_null(data_text_traces_missed(s, run)));
	json_object_set_new(o, "ranks_with_data", json_integer(s->data.ranks_with_data));
	json_object_set_new(o, "ranks_note", text_or_null(data_text_ranks(s)));
	json_object_set_new(o, SK_STEP_LINES_EXCEED_JOB,
			    s->data.lines_s <= 0
				    ? json_null()
				    : json_pack("{s:i, s:o, s:o}", "rank", s->data.lines_rank,
						"lines_s", jsonio_real3(s->data.lines_s), "job_s",
						jsonio_real3(s->data.job_s)));
}

/* The other ranks that arrived last in the very steps straggler k did (its group). */
static json_t *together_json(const struct straggler *g, size_t n, size_t k)
{
	size_t first = k;
	while (first > 0 && g[first].together)
		first--;
	json_t *a = json_array();
	for (size_t j = first, e = first + straggler_group_len(g, n, first); j < e; j++)
		if (j != k)
			json_array_append_new(a, json_integer(g[j].rank));
	return a;
}

/* Another rank a straggler arrived last with in `steps` of its `of` last arrivals; null
 * where in none. */
static json_t *last_with_json(int rank, long steps, long of)
{
	return steps > 0 ? json_pack("{s:i, s:I, s:I}", SK_RANK, rank, "steps", (json_int_t)steps,
				     "of", (json_int_t)of)
			 : json_null();
}

json_t *summary_stragglers_json(const struct straggler *gs, size_t n)
{
	json_t *str = json_array();
	for (size_t k = 0; k < n; k++) {
		const struct straggler *g = &gs[k];
		json_array_append_new(
			str,
			json_pack("{s:i, s:o, s:s, s:o, s:o, s:o, s:o, s:s, s:o, s:o}", SK_RANK,
				  g->rank, SK_NODE, g->node[0] ? json_string(g->node) : json_null(),
				  SK_CAUSE, evidence_cause_words(g->cause_kind),
				  "cause_ms_per_step", jsonio_real3(g->cause_ms), SK_IMPACT_PCT,
				  jsonio_real3(g->impact_pct), "arrived_last_pct",
				  jsonio_real3(g->arrived_last_pct), "chance_p", jprob(g->chance_p),
				  "chance_of", g->by_node ? "node" : "rank", "rank_chance_p",
				  jprob(g->rank_p), "together_with", together_json(gs, n, k)));
		json_object_set_new(json_array_get(str, k), "unnamed_last_with",
				    last_with_json(g->also_rank, g->also_last, g->last_n));
		json_object_set_new(json_array_get(str, k), "shares_last_with",
				    last_with_json(g->shares_with, g->shared_last, g->last_n));
	}
	return str;
}

/* Stragglers, collectives, a slow node, contamination. */
static void sc_comm(json_t *o, const struct ana_scenario *s)
{
	json_object_set_new(o, SK_STRAGGLERS,
			    summary_stragglers_json(s->comm.stragglers, s->comm.n_stragglers));
	const struct straggler_test *t = &s->comm.straggler_test; /* no trials: never run */
	double least = t->trials > 0 ? t->least_p : 1;
	json_object_set_new(o, SK_STRAGGLER_TEST,
			    json_pack("{s:I, s:o, s:b}", "trials", (json_int_t)t->trials,
				      "least_p", jprob(least), "can_name",
				      least <= STRAGGLER_CHANCE));
	json_object_set_new(o, SK_COLLECTIVES,
			    summary_collectives_json(s->comm.colls, s->comm.ncolls));
	clock_text_json(o, &s->comm.clocks, s->data.format != METRICS_STEP_LOG);
	if (s->comm.insp.found) /* only then: runs without dumps keep their bytes */
		json_object_set_new(o, "nccl_inspector", inspector_json(s));
	json_object_set_new(o, "slow_node",
			    s->comm.slow_node[0] ? json_string(s->comm.slow_node) : json_null());
	json_object_set_new(o, "slow_node_monitors",
			    !s->comm.have_slow_mon
				    ? json_null()
				    : json_pack("{s:o, s:o}", "node", mon_json(&s->comm.slow_mon),
						"other_nodes", mon_json(&s->comm.rest_mon)));
	json_object_set_new(o, SK_CONTAMINATED_BY, contaminated_json(s));
}

void summary_traces_json(json_t *o, const struct ana_scenario *s)
{
	sc_profile(o, s);
	json_object_set_new(o, SK_ANALYSED, json_boolean(s->data.analysed));
	if (s->data.analysed) {
		sc_steps(o, s);
		sc_shares(o, s);
	}
}

json_t *scenario_json(const struct ana_scenario *s, const struct ana_run *run)
{
	json_t *o = json_object();
	sc_identity(o, s);
	sc_sources(o, s);
	sc_replay(o, s);
	if (!s->data.analysed) {
		char *why = data_text_problem(s, run);
		json_object_set_new(o, "problem", json_string(why));
		free(why);
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
	sc_scaling(o, s, run);
	sc_comm(o, s);
	return o;
}

/* One of the model's sentences (scaling_text.h) as a JSON string, null when empty. */
static json_t *model_words(void (*say)(struct strbuf *, const struct ana_model *),
			   const struct ana_model *m)
{
	struct strbuf sb = STRBUF_INIT;
	say(&sb, m);
	return text_or_null(strbuf_detach(&sb));
}

static json_t *models_json(const struct ana_run *run)
{
	json_t *a = json_array();
	for (size_t i = 0; i < run->nmodels; i++) {
		const struct ana_model *m = &run->models[i];
		struct strbuf contention = STRBUF_INIT;
		scaling_text_contention(&contention, m, run->host_cpus);
		json_array_append_new(
			a,
			json_pack("{s:s, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:o}",
				  SK_SERIES, m->series, "points", m->points, SK_BASE_NODES,
				  m->base_nodes, "max_nodes", m->max_nodes, SK_A_MS,
				  jsonio_real3(m->a), SK_B_MS, jsonio_real3(m->b), SK_C_MS,
				  jsonio_real3(m->c), "efficiency_8_nodes",
				  m->predicts ? jsonio_real3(m->eff8) : json_null(),
				  "efficiency_16_nodes",
				  m->predicts ? jsonio_real3(m->eff16) : json_null(),
				  "overhead_exceeds_compute_from_nodes",
				  m->crossover && m->predicts ? json_integer(m->crossover)
							      : json_null(),
				  "model", "step_ms(N) = b/N + a + c*log2(N)", "limit",
				  m->predicts ? model_words(scaling_text_limit, m) : json_null()));
		json_t *o = json_array_get(a, json_array_size(a) - 1);
		json_object_set_new(o, "compute_term", json_boolean(!m->step_only));
		if (m->step_only)
			json_object_set_new(o, "model", json_string("step_ms(N) = a + c*log2(N)"));
		json_object_set_new(o, "max_error_pct", jsonio_real3(m->max_err_pct));
		json_object_set_new(o, "max_error_nodes", json_integer(m->max_err_nodes));
		json_object_set_new(o, "fit", model_words(scaling_text_fit, m));
		json_object_set_new(o, "contention", text_or_null(strbuf_detach(&contention)));
		json_object_set_new(o, "predicts", json_boolean(m->predicts));
		if (!m->predicts) {
			struct strbuf why = STRBUF_INIT;
			scaling_text_no_prediction(&why, m, run->host_cpus);
			json_object_set_new(o, "no_prediction", json_string(why.buf));
			strbuf_free(&why);
		} else
			json_object_set_new(o, "no_prediction", json_null());
	}
	return a;
}

/* A variant's parent, kind and knob (campaign try); null for any other run. */
static json_t *variant_json(const struct ana_variant *v)
{
	json_t *knob = v->knob ? json_loads(v->knob, 0, NULL) : NULL;
	json_t *o = v->of ? json_pack("{s:s, s:s, s:o}", SK_OF, v->of, SK_KIND, v->kind, SK_KNOB,
				      knob ? knob : json_null())
			  : json_null();
	if (v->of && v->control) /* (only then: variants without one keep their bytes) */
		json_object_set_new(o, SK_CONTROL, json_string(v->control));
	return o;
}

json_t *summary_json(const struct ana_run *run)
{
	json_t *list = json_array(), *failed = json_array();
	for (size_t i = 0; i < run->n; i++) {
		json_array_append_new(list, scenario_json(&run->sc[i], run));
		if (!run->sc[i].in.completed)
			json_array_append_new(failed, json_string(run->sc[i].in.name));
	}
	json_t *o = json_pack(
		"{s:s, s:s, s:o, s:{s:o, s:o, s:o, s:o, s:o}, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		"campaign", run->campaign, SK_RUN_ID, run->run_id, "baseline",
		run->baseline ? json_string(run->baseline) : json_null(), "thresholds",
		"communication_pct", jsonio_real3(run->th.comm_pct), "data_loading_pct",
		jsonio_real3(run->th.data_pct), "io_pct", jsonio_real3(run->th.io_pct),
		"gpu_util_pct", jsonio_real3(run->th.gpu_util_pct), "memory_pct",
		jsonio_real3(run->th.memory_pct), SK_SCENARIOS, list, "failed", failed,
		SK_SCALING_MODELS, models_json(run), "peak_gflops_per_rank",
		run->peak_gflops > 0 ? jsonio_real3(run->peak_gflops) : json_null(),
		SK_FABRIC_PROBES, probes_json(run), SK_RECOMMENDATIONS, recs_json(run), SK_VARIANT,
		variant_json(&run->variant), SK_CHECKED_PREDICTIONS,
		prediction_check_json(&run->variant), "side_effects",
		prediction_check_side_json(&run->variant));
	json_object_set_new(o, SK_CHECKED_TALLY, prediction_check_tally_json(&run->variant));
	return o;
}
