/* gpu_breakdown: per-rank GPU time breakdown with Holistic Trace Analysis's exact
 * definitions (see ../shared/traces/README.md): kernel time, idle,
 * compute, non-compute, communication/computation overlap, and the top
 * kernels per category.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_GPU_BREAKDOWN_H
#define ANALYZERS_GPU_BREAKDOWN_H

#include "analyzers/read/kineto.h"
#include "analyzers/read/rules.h"

#include <jansson.h>

/* Idle time of one stream split as HTA does: host wait (the next kernel's
 * runtime call started after the previous kernel ended), kernel wait (a gap
 * under GPU_BREAKDOWN_KERNEL_WAIT_US otherwise), other. */
#define GPU_BREAKDOWN_KERNEL_WAIT_US 30.0
struct gpu_breakdown_idle {
	int stream;
	double host_wait, kernel_wait, other;
};

/* Kernel launches (cudaLaunchKernel/MemcpyAsync/MemsetAsync joined to their
 * GPU work by correlation id); delay = GPU start - runtime call end. */
struct gpu_breakdown_launch {
	long n, gpu_shorter, runtime_outliers, delay_outliers; /* > 50 us, > 100 us */
	double cpu_mean, gpu_mean, delay_mean, delay_p50;
};

struct gpu_breakdown_rank {
	int rank;
	size_t events;
	double kernel_time, idle, compute, non_compute;
	double comm_union, overlap; /* overlap: |U(COMP) n U(COMM)| */
	double busy;                /* |U(all GPU events)| */
	json_t *types;              /* kernel-type sweep: label -> {us, pct of busy} */
	int has_comm;
	json_t *top; /* per category: the top kernels */
	double unit_per_us;
	struct gpu_breakdown_idle *streams; /* idle split per stream, by stream */
	size_t nstreams;
	struct gpu_breakdown_launch launch;
};

/* The GPU view of one step of one rank (trace units). The profiled region
 * is cut into consecutive windows: a step's window begins where the previous
 * step's ended (the first at the first step's first kernel) and ends where
 * the last GPU work the step launched ends, so windows never overlap and add
 * up to the region. GPU work of any step that runs in a window is busy there:
 * compute = |U(COMPUTATION)|, comm = communication not overlapped by
 * compute, memcpy = copies overlapped by neither, other = the rest of the
 * busy time; idle = window - busy, split as HTA splits it (waiting for the
 * host, the part of that wait the host spent loading data, kernel-to-kernel
 * gaps under GPU_BREAKDOWN_KERNEL_WAIT_US, other). The parts add up to window. */
struct gpu_breakdown_step {
	double window, compute, comm, memcpy, other;
	double idle_host, idle_data, idle_kernel, idle_other;
	/* of compute: matrix kernels (GEMM, convolution, attention); the rest is
	 * elementwise-like */
	double gemm;
	double end; /* where the window ends (trace units) */
};
/* A kernel name of a matrix multiply, convolution or attention (cuBLAS,
 * CUTLASS, cuDNN, rocBLAS, flash attention); FBGEMM's embedding kernels are not. */
int gpu_breakdown_is_gemm(const char *name);

/* For each host step steps[k] = {start, end} (trace units, sorted by start):
 * the GPU work it launched (by its runtime call; by its start without one)
 * broken down as above; window 0 for a step that launched none. data: the
 * host's data-loading ranges. Categories must be set (gpu_breakdown_analyse first). */
/* Of windows [start, end) sorted by start, the last that starts at or
 * before t; n when none does. */
size_t gpu_breakdown_window_at(const double (*win)[2], size_t n, double t);
void gpu_breakdown_steps(const struct gpu_trace *t, const struct rules *r, const double (*steps)[2],
			 size_t nsteps, const double (*data)[2], size_t ndata,
			 struct gpu_breakdown_step *out);
/* Classifies t's events with r and computes the breakdown. */
void gpu_breakdown_analyse(struct gpu_trace *t, const struct rules *r, int top_n,
			   struct gpu_breakdown_rank *out);
/* h at the trace's resolution, as HTA gives it (campaign-analyze's gpu_breakdown_detail):
 * times in µs, shares rounded to 0.01, the kernel types, the idle split per stream, the
 * launches and the top kernels per category; null where h has no GPU event. */
json_t *gpu_breakdown_json(const struct gpu_breakdown_rank *h);
void gpu_breakdown_rank_free(struct gpu_breakdown_rank *h);

#endif
