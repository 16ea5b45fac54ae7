/* kineto: PyTorch-profiler Chrome-trace JSON, streamed with yajl: Kineto's
 * object form ({"traceEvents": [...]}) and the legacy array form PyTorch
 * writes without Kineto, plain or gzip-compressed (read streaming). Kept:
 * GPU events (args.stream present and not -1), runtime calls with a
 * correlation id (cat cuda_runtime/cuda_driver), ProfilerStep#N markers,
 * and with want_cpu the host ranges (ph X) for the phase analysis; memory
 * follows the number of kept events, not the file size. GPU timestamps
 * follow HTA: start = ceil(ts), end = floor(ts+dur).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_KINETO_H
#define ANALYZERS_KINETO_H

#include <stddef.h>
#include <stdio.h>

struct gpu_event {
	double start, end; /* in the trace's unit (unit_per_us per microsecond) */
	int name;          /* index into names */
	int cat;           /* category index, set by the analysis */
	int stream;
	long corr;         /* correlation id, -1 when absent */
};

/* A host-side CUDA/HIP runtime (or driver) call that launched GPU work. */
struct rt_event {
	long corr;
	double start, dur;
	int launch;        /* cudaLaunchKernel, cudaMemcpyAsync or cudaMemsetAsync */
};

/* A host range (ph "X" without a GPU stream): an operator, an annotation,
 * a ProfilerStep#N. Times in µs as in the file. */
struct cpu_range {
	double start, end; /* µs, whatever the trace's unit (an Nsight Systems export's ns too) */
	int name;          /* index into names */
	int tid;           /* index into names: the thread, as the trace names it */
	double flops;      /* args.flops (profiles recorded with_flops); 0 when absent */
	/* args.grad_bytes: the gradient bytes the range makes final (the reference trainer's
	 * backward:layer<k>: a bucket change sizes its buckets by them); 0 when absent */
	double grad_bytes;
	/* args.step: the reference trainer's step of the range (a loader range's: the batch it
	 * makes); -1 when absent */
	long step_arg;
};

/* A collective as PyTorch 2.x records it (args "Collective name" ... on
 * record_param_comms host ranges and on NCCL kernels). Times as the
 * event's kind keeps them: GPU events HTA's way, host ranges as in the file. */
struct comm_event {
	double start, end;
	/* index into names: "Collective name" as written (allreduce, _allgather_base ...) */
	int coll;
	int pg;            /* index into names: "Process Group Name" ("" when absent) */
	/* max(In, Out msg nelems) x the dtype's size (nccl-tests' size); -1 unknown */
	double bytes;
	int group_size;    /* -1 unknown */
	int gpu;           /* a GPU kernel (else a host range) */
};

struct gpu_trace {
	int rank;          /* from distributedInfo, -1 when absent */
	/* baseTimeNanoseconds / 1000: the Unix time (µs) its ts count from (newer Kineto);
	 * 0: its ts are Unix time already, or its own (the legacy form) */
	double base_us;
	char label[64];    /* e.g. "pid144_dev0" for Nsight Systems processes */
	long pid;          /* Nsight Systems: the process and its GPU; 0 for Kineto */
	int device;
	double unit_per_us; /* 1 for Kineto (µs), 1000 for Nsight Systems (ns) */
	struct gpu_event *ev;
	size_t n, cap;
	struct rt_event *rt; /* runtime calls with a correlation id */
	size_t nrt, rtcap;
	/* gpu_trace_index_rt's, where the ids are dense: per id from rt_first_corr, 1 + the
	 * index of its first call in rt (0: none); NULL: found by bisection */
	unsigned *rt_at;
	long rt_first_corr;
	size_t nrt_at;
	char **names;
	size_t nnames, names_cap;
	int *slots;        /* open-addressed hash of names */
	size_t nslots;
	double last_step_ts; /* start of the last ProfilerStep#N when >= 2 distinct, else -1 */
	int steps;           /* distinct ProfilerStep#N names */
	long dropped;        /* GPU events of the dropped last step */
	long malformed;      /* events skipped: non-finite or negative times */
	int want_cpu;        /* set before loading: keep the host ranges too */
	int legacy;          /* the file was the legacy array form */
	struct cpu_range *cpu;
	size_t ncpu, cpucap;
	struct comm_event *comm; /* events carrying a collective's args, in file order */
	size_t ncomm, commcap;
};

/* Reads path (plain or gzip); ERR_IO with the file and byte offset of a
 * parse error. With want_cpu, also the host ranges. */
int kineto_load(const char *path, int want_cpu, struct gpu_trace *t);
/* How to read a trace: with the host ranges; on how many threads a large
 * one is read in chunks (the events, and so every result, the same for any
 * number); the chunks' size (0: KINETO_CHUNK_BYTES, 1 MB): a plain file of
 * more than twice that, and every gzip file, is read in chunks. */
struct kineto_how {
	int want_cpu;
	int threads;
	size_t chunk_bytes;
};
int kineto_load_with(const char *path, const struct kineto_how *how, struct gpu_trace *t);
/* The same from an open (plain) stream; name is used in messages. */
int kineto_load_stream(FILE *f, const char *name, int want_cpu, struct gpu_trace *t);
/* The same, in chunks of how->chunk_bytes (0: whole) when f can seek back to
 * its start (the differential fuzzer's way in). */
int kineto_load_stream_with(FILE *f, const char *name, const struct kineto_how *how,
			    struct gpu_trace *t);
void gpu_trace_free(struct gpu_trace *t);
/* Appends a GPU event / a runtime call (used by the Nsight Systems ingest). */
void gpu_trace_add(struct gpu_trace *t, double start, double end, const char *name, int stream,
		   long corr);
void gpu_trace_add_rt(struct gpu_trace *t, long corr, double start, double dur, const char *name);
/* Appends a host range (µs) of thread tid (used by the Nsight Systems NVTX ingest). */
void gpu_trace_add_cpu(struct gpu_trace *t, double start, double end, const char *name,
		       const char *tid, double flops);
/* The size in bytes of one element of a PyTorch dtype as Kineto names it
 * (Float, BFloat16 ...); 0 when unknown. */
int kineto_dtype_size(const char *dtype);
/* HTA's selection, given the trace's ProfilerStep#N ranges (names, starts
 * in the trace's unit): with two or more distinct, the runtime calls that
 * start before the last step are kept, and a GPU event once per kept call
 * carrying its correlation id (none: dropped, counted in `dropped`); sets
 * steps and last_step_ts. The Kineto readers apply it; nsys.c with NVTX
 * ranges named ProfilerStep#N. */
void gpu_trace_cut_steps(struct gpu_trace *t, char *const *names, const double *ts, int n);
/* 1 when name is one of the n runtime calls, with or without a _v<N> suffix (Nsight Systems
 * names cudaLaunchKernel_v7000 so). */
int kineto_is_call(const char *name, const char *const *calls, size_t n);
/* 1 when name is a runtime call that launches GPU work (cudaLaunchKernel,
 * cudaMemcpyAsync, cudaMemsetAsync, with or without a _v<N> suffix). */
int kineto_is_launch(const char *name);
/* Sorts the runtime calls by correlation id for gpu_trace_rt(). */
void gpu_trace_index_rt(struct gpu_trace *t);
/* The first runtime call with that correlation id, or NULL. */
const struct rt_event *gpu_trace_rt(const struct gpu_trace *t, long corr);
/* A host range in its thread's order: its span, thread and index in cpu[]. */
struct range_ref {
	double s, e;
	int tid;
	size_t i;
};
/* t's host ranges but those whose name skip flags (skip may be NULL), by thread, then start
 * (the longer first), then their order in the file: a counting pass by thread, then each
 * thread's sorted where the file had them out of order (a thread's ranges come mostly in
 * time order). *n of them, xmalloc'd with one more entry, for the caller. */
struct range_ref *gpu_trace_by_thread(const struct gpu_trace *t, const unsigned char *skip,
				      size_t *n);

/* A time span an event of any profiler can really have (microseconds):
 * finite, not negative in length, its start within 9e15 us (where doubles
 * still count single units) and shorter than a day. Events outside these
 * are counted as malformed by every reader (Kineto JSON, nsys exports). */
#define TRACE_MAX_EVENT_US 8.64e10
/* What one trace file may hold: strings up to TRACE_MAX_STRING bytes (a
 * longer one stops the reading, named with its offset), at most
 * TRACE_MAX_GB GiB of JSON once decompressed (CAMPAIGN_TRACE_MAX_MB). */
#define TRACE_MAX_STRING (4 << 20)
#define TRACE_MAX_GB 64
int trace_times_sane(double ts, double dur);

#endif
