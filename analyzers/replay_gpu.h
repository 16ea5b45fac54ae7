/* replay_gpu: the GPU side of a rank's execution graph (docs/analysis.md, "Replay model"). It
 * owns where a rank's host ranges are cut (at a launch call's end, at a synchronisation's
 * start and end), the kernels and copies as nodes on their streams, and the edges from each
 * launch to its kernel, from the kernel a synchronisation waited for to it, and, inferred from
 * the times, from a kernel on another stream to one that waited for it. Private to the
 * builder (replay_build.c).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_REPLAY_GPU_H
#define ANALYZERS_REPLAY_GPU_H

#include "analyzers/replay_proto.h"

#include <stddef.h>

enum gpu_cut_kind {
	GPU_CUT_LAUNCH,     /* a launch call (cudaLaunchKernel, cudaMemcpyAsync ...) ends */
	GPU_CUT_SYNC_START, /* a synchronisation (cudaStreamSynchronize ...) starts */
	GPU_CUT_SYNC_END,   /* ... and ends */
};

/* A point where a host thread's range is cut, µs. */
struct gpu_cut {
	double at;
	double call_start; /* the call's start (a launch's, to find its kernels) */
	int tid;           /* the trace's thread (a name index) */
	int kind;          /* enum gpu_cut_kind */
	/* the proto of the piece that ends at the cut (a launch's), or of the wait that the
	 * synchronisation is (its end's); -1: none (the range was not replayed) */
	int proto;
};

struct gpu_side;

/* The cuts of t's host threads: NULL when t has no GPU work. */
struct gpu_side *replay_gpu_new(const struct gpu_trace *t);
void replay_gpu_free(struct gpu_side *g);

/* The cuts of thread tid in (s, e], in time order: *n of them (0: none). A cut at e (a launch
 * or a synchronisation that is itself a top-level range) ends the range's last piece. */
struct gpu_cut *replay_gpu_cuts(struct gpu_side *g, int tid, double s, double e, size_t *n);

/* The kernels and copies of rank index ri (trace t) whose launch was replayed, as nodes on
 * their streams, with their edges (the cuts' protos set by then); an NCCL collective's
 * instance is matched in the step window (win, nwin of them) its launch is in, whatever
 * thread launched it. Returns how many. */
size_t replay_gpu_nodes(struct builder *b, struct gpu_side *g, int ri, const double (*win)[2],
			int nwin);

#endif
