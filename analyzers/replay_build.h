/* replay_build: the execution graph (analyzers/replay/graph.h) of a scenario's host traces,
 * one loaded trace (kineto.h, with its host ranges) per rank. It owns how the traces become
 * nodes and edges: each thread's top-level ranges as CPU operations (their CPU demand
 * estimated from the host's measured concurrency), the gaps of the step thread as untraced
 * CPU work, gloo:<op> ranges and NCCL kernels as collective instances matched across ranks
 * (each rank starting where it did once their clocks are lined up), the blocking
 * ranges it knows by name (the reference trainer's loader wait and read latency) as waits,
 * the hand-offs and joins between a rank's threads, and the GPU side (replay_gpu.h: kernels
 * and copies on their streams after their launches, synchronisations as waits) (docs/
 * analysis.md, "Replay model"). It reads no file and replays nothing.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_REPLAY_BUILD_H
#define ANALYZERS_REPLAY_BUILD_H

#include "analyzers/read/kineto.h"
#include "analyzers/replay/graph.h"

#include <stddef.h>

/* One rank's trace. */
struct replay_rank_in {
	const struct gpu_trace *t; /* loaded with want_cpu */
	int rank;                  /* >= 0, distinct */
	int host;                  /* index in replay_build_in's hosts */
	/* per name of t: 1 for a step range (ProfilerStep#N): it is no operation, its
	 * window tags the nodes that start in it with the step's position */
	const unsigned char *is_step;
	int nsteps; /* the first nsteps step ranges (by start) are steps; later ones none */
	/* per name of t: its phase (enum phase, phases.h), -1 none; NULL: not known (a batch
	 * change then knows only the reference trainer's names) */
	const int *phase;
};

/* A recommendation's change of the graph (replay_change.c, docs/analysis.md
 * "Transformations"). */
enum replay_change_kind {
	/* the step thread's collectives of each step become buckets of gradients, each
	 * all-reduced on a thread of its own as soon as backward has made its layers' gradients,
	 * overlapped with the rest of backward (DDP's bucketing; the trainer's --ddp bucketed).
	 * Where no collective runs on the step thread but all-reduces run on another (DDP's
	 * buckets already), each starts as soon as its rank's backward begins instead: the most
	 * smaller buckets can gain (info.early) */
	REPLAY_CHANGE_BUCKETS,
	/* the step thread's checkpoint ranges (the reference trainer's) kept in one step of
	 * every `every` only, step N's when (N + 1) % every is 0, as the trainer's
	 * --checkpoint-every does: the others cost nothing. With async, each kept checkpoint's
	 * write and fsync (checkpoint:write, checkpoint:fsync) move to a thread of its own,
	 * after its snapshot (checkpoint:snapshot), which stays on the step thread and waits
	 * for the write before it (one write in flight), as the trainer's --checkpoint-async 1
	 * does */
	REPLAY_CHANGE_CHECKPOINTS,
	/* the reference trainer's loader with `workers` threads and a ring of `depth` batches:
	 * batch b is made by thread b % workers, after its batch b - workers, once step
	 * b - depth has released its slot (after its optimizer), by the same operations
	 * (loader:decode, loader:read) as measured; the step thread's wait for batch b ends
	 * when it is made. Without those ranges, a user's DataLoader that loads in the training
	 * process (PyTorch's num_workers 0: its _SingleProcessDataLoaderIter.__next__ on the step
	 * thread, one a step)
	 * gets `workers` worker processes with `depth` batches in flight in all: batch b made by
	 * worker b % workers after its batch b - workers, once the step thread took batch
	 * b - depth (the first depth from the rank's start: the queue empty), as its range
	 * measured (its CPU demand times cpu share, the rest a delay holding no core); the
	 * step thread waits for it where it loaded */
	REPLAY_CHANGE_LOADERS,
	/* each step's CPU work on the step thread of each of `slow_ranks` brought down to the
	 * median of the other ranks' in that step, where it was more (the straggler's excess
	 * removed; its operations keep their order and their waits) */
	REPLAY_CHANGE_STRAGGLERS,
	/* the host's launch overhead halved: each host piece that ends at a launch call's end
	 * (the operator's work up to its kernel's launch: dispatch and the call) at half its CPU
	 * demand */
	REPLAY_CHANGE_HOST,
	/* the batch per rank REPLAY_BATCH_X times (doubled): each per-sample operation that
	 * many times as long, the rest as
	 * measured (collectives, the optimizer, checkpoints, untraced gaps, waits). Per sample:
	 * the data loading (the loader's decoding, data-loading ranges) always; forward, backward
	 * and operators (phases.h; the trainer's backward:layer<k>) on the CPU of a rank without
	 * GPU work, else the kernels and copies they launch (their host pieces are dispatch);
	 * all-to-all transfers (what they move is per sample) */
	REPLAY_CHANGE_BATCH,
};

/* REPLAY_CHANGE_BATCH: the batch per rank this many times the measured. */
#define REPLAY_BATCH_X 2

struct replay_change {
	enum replay_change_kind kind;
	double bucket_bytes; /* REPLAY_CHANGE_BUCKETS: a bucket's least size */
	/* REPLAY_CHANGE_BUCKETS where no transfer model can be fitted (replay_build_info): 1
	 * shares the transfer out as if all of it were per call (each bucket the cost of one of
	 * the collectives it replaces), 0 in proportion to bytes; the two bound it */
	int all_per_call;
	/* REPLAY_CHANGE_BUCKETS: 1 leaves a fitted transfer model aside, the transfer in
	 * proportion to bytes (fewer calls save nothing): the other bound where the buckets are
	 * larger than any collective the model was fitted on */
	int proportional;
	int every; /* REPLAY_CHANGE_CHECKPOINTS: one step of every `every` checkpoints */
	/* REPLAY_CHANGE_CHECKPOINTS: which one: the steps whose number plus one plus phase
	 * `every` divides (0: the trainer's own, its steps 3, 7, 11 of every 4) */
	int phase;
	int async; /* REPLAY_CHANGE_CHECKPOINTS: each written on a thread of its own */
	int workers, depth; /* REPLAY_CHANGE_LOADERS: loader threads and prefetch slots */
	/* REPLAY_CHANGE_BATCH: the share (0 to 1) of the per-sample compute that was GEMMs,
	 * kept as long as measured (GEMMs bound by reading their weights, whose time twice the
	 * rows need not change): the bound where batching gains most; 0: all of it twice as
	 * long */
	double gemm_share;
	/* REPLAY_CHANGE_LOADERS of a user's DataLoader: the cores the job kept busy on each host
	 * over the traced steps (the node monitors'; < 0 unknown), from which the share of its
	 * ranges' time that was CPU work is taken (what the other work's demand leaves of the
	 * busy cores: an estimate, which counts CPU the traces do not show, as spinning BLAS or
	 * NCCL threads', as loading); where unknown, cpu_share (0 to 1) is */
	double job_cores, cpu_share;
	int host_ranks; /* the ranks launched on each host (0: those traced) */
	const int *slow_ranks; /* REPLAY_CHANGE_STRAGGLERS: their ranks, nslow of them */
	size_t nslow;
};

struct replay_build_in {
	const struct replay_rank_in *ranks;
	size_t n;
	const int *host_cores; /* cores of each host */
	int nhosts;
	const struct replay_change *change; /* NULL: the graph as measured */
};

/* What the builder made, for the report and the tests. */
struct replay_build_info {
	size_t ops, gaps, colls, unmatched_colls, joins;
	/* 1 when collective instances of every rank lined up the ranks' clocks (offset_us):
	 * each rank then starts where it did after the earliest */
	int aligned;
	size_t host_colls; /* instances whose ranks share a host: their transfer is CPU work */
	size_t moved_colls, buckets; /* a bucket change: step-thread parts moved, buckets made */
	/* a bucket change of all-reduces already on another thread (DDP's): each started where
	 * its rank's backward begins (moved_colls of them), the earliest smaller buckets can:
	 * a bound on what they gain, not a prediction of it */
	int early;
	size_t dropped; /* a checkpoint change: checkpoints that cost nothing now */
	size_t async_writes; /* an asynchronous checkpoint change: writes moved off the step */
	/* an asynchronous checkpoint change: the time the busiest host's storage was in use by
	 * its checkpoints (its ranks' writes and fsyncs, as measured), its median over the
	 * checkpoints where every traced step kept one (else 0) and per step over the traced
	 * steps: the replay keeps each fsync's measured length, so where writing behind would
	 * overlap the ranks' uses of the storage more than they did, these floors hold */
	double storage_busy_ms, storage_busy_mean_ms;
	/* a loader change: the loader threads measured (the most of any rank) and the batches
	 * regrouped onto the new ones */
	size_t loaders, batches;
	/* a loader change of a user's DataLoader (loaders 0): the CPU share of its ranges used */
	int user_loader;
	double loader_cpu_share;
	size_t trimmed; /* a straggler or host change: operations made cheaper */
	size_t scaled;  /* a batch change: operations made twice as long */
	size_t waits; /* of ops: waits and sleeps (blocking ranges: no core) */
	/* the graph as measured: its host compute operations' (forward, backward, optimizer,
	 * operators outside them, by the phases) measured time and CPU demand, summed over
	 * ranks and steps: what lies between is time they waited for a core, beside more
	 * traced work than the host's cores */
	double compute_wall_ms, compute_demand_ms;
	size_t kernels; /* GPU kernels and copies (those whose launch was replayed) */
	/* a bucket change's transfer model, fitted on the step thread's collectives (fit_colls
	 * of them, of sizes at least 2x apart): per_call_ms + ms_per_mib x MiB; fit_colls 0: a
	 * bucket's transfer is the rank's measured transfer in proportion to its bytes */
	size_t fit_colls;
	double per_call_ms, ms_per_mib;
	/* the largest collective the model was fitted on, and the largest bucket made (bytes) */
	double fit_max_bytes, bucket_max_bytes;
	/* each rank's clock less the first rank's (µs), from the ends of the matched
	 * collectives (0 without any): used to line the ranks' operations up on their host */
	double *offset_us;
};

/* The graph of in into *out (rgraph_free), changed as in->change says; info (may be NULL;
 * replay_build_info_free) says what it holds. ERR_USAGE naming the rank when a trace cannot
 * be replayed (it has no step range), or saying why the change does not apply to these
 * traces. */
int replay_build(const struct replay_build_in *in, struct rgraph **out,
		 struct replay_build_info *info);
void replay_build_info_free(struct replay_build_info *info);

/* The CPU demand (ms at full speed) of a CPU interval [s, e) (µs) on a host of `cores`
 * cores, given every CPU interval measured on it (starts[i], ends[i], the interval among
 * them): the integral over [s, e) of min(1, cores / n(t)), n(t) the intervals running at
 * t. Exposed for the tests. */
struct replay_load;
struct replay_load *replay_load_new(const double *starts, const double *ends, size_t n,
				    int cores);
double replay_load_demand_ms(const struct replay_load *l, double s, double e);
void replay_load_free(struct replay_load *l);

#endif
