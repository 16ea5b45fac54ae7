/* trace_reduce: one loaded trace (host ranges, and GPU work where it has any) reduced to a
 * rank's per-step telemetry: each ProfilerStep#N range a step broken down by the phase rules
 * (phases.c), FLOPs from the operators' flops args, every operator's self time for the top
 * list, the steps' GPU view, the rank's collectives, and a partial last step left out.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_TRACE_REDUCE_H
#define ANALYZERS_TRACE_REDUCE_H

#include "analyzers/op_table.h"
#include "analyzers/read/kineto.h"
#include "analyzers/read/metrics.h"
#include "analyzers/read/rules.h"

/* One loaded trace (kineto_load with want_cpu) as one rank's steps; with
 * loose_steps, NVTX-style step names count as steps too. */
void trace_reduce_rank(const struct gpu_trace *t, const struct rules *phases, int loose_steps,
		       struct rank_metrics *out, struct op_table *ops);
/* Leaves out r's last step (r's steps and collectives from t, in start order) when it is
 * partial, and returns 1: the tail after the last prof.step() that the profiler, not
 * prof.step(), ended as its context closed. Every trace's last step ends where the trace
 * does, as the profiler stops at once after it either way, so what tells a tail is what it
 * holds: less than a third of the median of the other steps' time and no collective. */
int trace_reduce_drop_partial_step(const struct gpu_trace *t, struct rank_metrics *r);
/* The GPU view of each of r's steps (t with kernels, categories set): gpu_breakdown_steps
 * over the steps' host ranges, with the host's data-loading ranges. */
void trace_reduce_gpu_steps(const struct gpu_trace *t, const struct rules *phases,
			    const struct rules *kernels, struct rank_metrics *r);
/* A trace with GPU work but no step boundaries: one step standing for its whole GPU window,
 * broken down as a step is (r->whole_window: no step statistics). */
void trace_reduce_gpu_window(const struct gpu_trace *t, const struct rules *phases,
			     const struct rules *kernels, struct rank_metrics *r);
/* The rank's collectives (collective.h) within its steps' windows; gpu: the trace with its
 * GPU kernels (may be host, or NULL). */
void trace_reduce_collectives(const struct gpu_trace *host, const struct gpu_trace *gpu,
			      struct rank_metrics *r);

#endif
