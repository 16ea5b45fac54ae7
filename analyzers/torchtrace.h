/* torchtrace: a scenario's PyTorch-profiler traces (Kineto JSON or the
 * legacy array form, plain or gzip), or its Nsight Systems exports' NVTX
 * ranges, as per-step telemetry. One file is one
 * rank; each ProfilerStep#N range is a step whose time phases.c breaks down
 * by the phase rules; FLOPs come from operators' flops args (recorded
 * with_flops); every operator's self time is summed for the top list.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_TORCHTRACE_H
#define ANALYZERS_TORCHTRACE_H

#include "analyzers/read/kineto.h"
#include "analyzers/trace_names.h"
#include "analyzers/read/metrics.h"
#include "analyzers/read/ranklines.h"
#include "analyzers/read/rules.h"
#include "util/strindex.h"

struct op_stat {
	char *name;
	double self_ms; /* summed over ranks and steps */
	long count;
};

struct op_table {
	struct op_stat *v;
	size_t n, cap;
	double total_ms; /* self time of every operator */
	struct strindex index; /* of v by name (rebuilt after a sort) */
};

struct trace_set {
	struct scenario_metrics m; /* the ranks whose trace has steps */
	struct op_table ops;
	size_t files;              /* trace files found */
	size_t unreadable;         /* not a trace, or damaged */
	size_t no_steps;           /* read, but without ProfilerStep#N ranges */
	size_t gpu_files;          /* traces with GPU kernels */
	long malformed;            /* events skipped: impossible times */
	size_t partial_steps;      /* last steps left out: torchtrace_drop_partial_step */
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
 * (torchtrace_rank_hints). With frag (NULL: none), from the same reading,
 * the file's timeline fragment written there (analyzers/timeline_fragment.h). */
void torchtrace_load_file(const char *dir, const char *name, int nsys, int order,
			  const struct rules *phases, const struct rules *kernels,
			  const char *frag, struct trace_set *part);
/* One loaded trace (kineto_load with want_cpu) as one rank's steps; with
 * loose_steps, NVTX-style step names count as steps too. */
void torchtrace_rank(const struct gpu_trace *t, const struct rules *phases, int loose_steps,
		     struct rank_metrics *out, struct op_table *ops);
/* Leaves out r's last step (r's steps and collectives from t, in start order) when it is
 * partial, and returns 1: the tail after the last prof.step() that the profiler, not
 * prof.step(), ended as its context closed. Every trace's last step ends where the trace
 * does, as the profiler stops at once after it either way, so what tells a tail is what it
 * holds: less than a third of the median of the other steps' time and no collective. */
int torchtrace_drop_partial_step(const struct gpu_trace *t, struct rank_metrics *r);
/* The rank each file of dir (names from torchtrace_list) belongs to when
 * the trace does not say: the launcher's record (<job>/ranks/rank_<r>.json:
 * host and pid) of the process a torch.profiler name carries
 * (<host>_<pid>.<time>.pt.trace.json), else a rank-like name (rank3,
 * worker_3), else the order of its process among the files': the files
 * of one process (profiler cycles) get one rank. */
void torchtrace_rank_hints(const char *dir, char *const *names, size_t n, int *hints);
/* Ranks of m without a host get the node of the launcher's record of them
 * (<job_dir>/ranks/rank_<r>.json): when there is one record per rank, or
 * for a per-node launcher's worker recorded with its RANK (the record has
 * local_rank; the launchers' own launcher_<n>.json are no ranks). */
void torchtrace_rank_nodes(const char *job_dir, struct scenario_metrics *m);
/* The trace files (nsys: the *.sqlite exports) of dir, sorted by name. */
int torchtrace_list(const char *dir, int nsys, char ***names, size_t *n);
/* By time, descending (then name); drops the name index. */
void op_table_sort(struct op_table *ops);
void op_table_free(struct op_table *ops);
void trace_set_free(struct trace_set *ts);

#endif
