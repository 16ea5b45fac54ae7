/* torchtrace: a scenario's PyTorch-profiler traces (Kineto JSON or the legacy array form,
 * plain or gzip), or its Nsight Systems exports' NVTX ranges, as per-step telemetry: each
 * file read (on a pool of threads, or its result taken from a map step's shard), reduced
 * (trace_reduce.h) and merged in file order into the scenario's trace set. One file is one
 * rank (trace_files.h says which).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_TORCHTRACE_H
#define ANALYZERS_TORCHTRACE_H

#include "analyzers/op_table.h"
#include "analyzers/read/kineto.h"
#include "analyzers/read/metrics.h"
#include "analyzers/read/rules.h"
#include "analyzers/trace_files.h"
#include "analyzers/trace_reduce.h"

struct gpu_breakdown_rank; /* analyzers/gpu_breakdown.h */

struct trace_set {
	struct scenario_metrics m; /* the ranks whose trace has steps */
	struct op_table ops;
	size_t files;              /* trace files found */
	size_t unreadable;         /* not a trace, or damaged */
	size_t no_steps;           /* read, but without ProfilerStep#N ranges */
	size_t gpu_files;          /* traces with GPU kernels */
	long malformed;            /* events skipped: impossible times */
	size_t partial_steps;      /* last steps left out: trace_reduce_drop_partial_step */
	/* GPU time of every trace with kernels, HTA's definitions summed over ranks (µs) */
	double gpu_kernel_us, gpu_idle_us, gpu_compute_us, gpu_non_compute_us, gpu_comm_us,
		gpu_overlap_us;
	struct op_table kernels;   /* GPU kernels by total time (self_ms = their time) */
	char problem[320];         /* the first file that could not be used, and why */
	size_t not_analysed;       /* files whose shard failed twice (analyzers/shard.h) */
	char *not_analysed_names;  /* their names, ", "-separated; NULL when none */
};

/* Where a file's result may come from instead of reading the file: a map
 * step's partial result (analyzers/shard.h). part (NULL: none) returns 1
 * when it filled *out (zeroed before), 0 to read the file here.
 * timeline_dir (NULL: none): the folder of the timeline fragments
 * (analyzers/timeline_fragment.h) of the files the timeline shows, which a file read
 * here gets (a shard writes those of its files itself). */
struct trace_source {
	int (*part)(void *ctx, const char *dir, const char *name, struct trace_set *out);
	void *ctx;
	const char *timeline_dir;
};

/* Reads every *.json / *.json.gz of dir, the files on up to `jobs` threads
 * (< 1: every CPU), merged in file-name order: the same result whatever
 * jobs is. With src, a file src has a result for is not read. ERR_NOTFOUND
 * when dir has no trace file; 0 otherwise (ts->m.n may still be 0: see
 * unreadable, no_steps). */
int torchtrace_load_dir(const char *dir, const struct rules *phases, const struct rules *kernels,
			int jobs, const struct trace_source *src, struct trace_set *ts);
/* The same for the Nsight Systems exports (*.sqlite) of dir: one file is one
 * rank; NVTX ranges are the host ranges, a range named step (step N,
 * iteration N, ProfilerStep#N) is a step; the GPU work adds the GPU breakdown. */
int torchtrace_load_nsys_dir(const char *dir, const struct rules *phases,
			     const struct rules *kernels, int jobs, const struct trace_source *src,
			     struct trace_set *ts);
/* One file of dir (nsys: an export) as the one-file trace_set the
 * directory readers merge; order is its rank when the trace does not say
 * (trace_files_rank_hints). With frag (NULL: none), from the same reading,
 * the file's timeline fragment written there (analyzers/timeline_fragment.h). */
void torchtrace_load_file(const char *dir, const char *name, int nsys, int order,
			  const struct rules *phases, const struct rules *kernels,
			  const char *frag, struct trace_set *part);
/* A trace t already read (from path; name and order give its rank where it does not say)
 * added to ts as a directory's file is, its host side already reduced into *reduced
 * (trace_reduce_rank with phases, its operators into ts->ops; taken, zeroed): its GPU work
 * broken down with kernels (NULL: none; done: t's breakdown already made with kernels, which
 * classified its kernels; NULL: made here) and its steps' GPU side added. */
void trace_set_add_kineto(struct trace_set *ts, struct gpu_trace *t, struct rank_metrics *reduced,
			  const char *name, int order, const char *path,
			  const struct rules *phases, const struct rules *kernels,
			  const struct gpu_breakdown_rank *done);
/* t's GPU work alone (an Nsight Systems export's process and device) added to ts's GPU
 * breakdown and kernels, as trace_set_add_kineto does. */
void trace_set_add_gpu(struct trace_set *ts, struct gpu_trace *t, const struct rules *kernels,
		       const struct gpu_breakdown_rank *done);
void trace_set_free(struct trace_set *ts);

#endif
