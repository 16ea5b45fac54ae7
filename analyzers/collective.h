/* collective: every collective instance of a scenario, matched across its
 * ranks (same step, process group, operation and order within them), and
 * their aggregate per operation and size class: latency (the shortest
 * duration over ranks: the transfer once everyone has arrived; no clock
 * alignment needed), each rank's wait (its excess over that), algorithm and
 * bus bandwidth with nccl-tests' factors. Also: naming a collective from a
 * trace (record_param_comms args, gloo:<op> ranges, NCCL kernel names).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_COLLECTIVE_H
#define ANALYZERS_COLLECTIVE_H

#include "analyzers/read/kineto.h"
#include "analyzers/read/metrics.h"

#include <stddef.h>

enum coll_op {
	COLL_UNKNOWN,
	COLL_ALL_REDUCE,
	COLL_ALL_GATHER,
	COLL_REDUCE_SCATTER,
	COLL_ALL_TO_ALL,
	COLL_BROADCAST,
	COLL_REDUCE,
	COLL_GATHER,
	COLL_SCATTER,
	COLL_SEND_RECV,
	COLL_BARRIER,
	COLL_OPS
};

/* The operation a name says: a "Collective name" arg (allreduce,
 * _allgather_base, reduce_scatter_tensor ...), a gloo:<op> range or an NCCL
 * kernel (ncclKernel_AllReduce_..., ncclDevKernel_AllGather_...); -1 when it
 * names none (wait, coalesced, anything else). */
int coll_op_of(const char *name);
/* What a trace's NCCL kernels did, from the nccl:<op> host range around each one's launch
 * (PyTorch's record_function: an all-to-all runs as SendRecv kernels, a send or a receive
 * too). */
struct coll_namer;
struct coll_namer *coll_namer_new(const struct gpu_trace *t);
/* The op of the nccl:<op> range around the launch of the kernel of correlation id corr,
 * else op. */
int coll_namer_op(const struct coll_namer *nm, long corr, int op);
void coll_namer_free(struct coll_namer *nm);
const char *coll_op_name(int op);
/* 1 for an operation every rank of the group leaves at the same instant: all-reduce,
 * all-gather, reduce-scatter, all-to-all, barrier. */
int coll_blocking(int op);
/* nccl-tests' bus bandwidth factor for n ranks: all-reduce 2(n-1)/n,
 * all-gather, reduce-scatter, all-to-all, gather, scatter (n-1)/n, else 1. */
double coll_busbw_factor(int op, int n);

/* One rank's collectives as coll_recs of out (whose steps are set): the
 * GPU's collective kernels when the trace has any (their args, else their
 * names), else the host's gloo:<op> ranges, else record_param_comms ranges;
 * sizes from the record_param_comms args where the kernel or range has
 * none (the same operation's n-th of the step). win: each step of out as
 * [start, end) in µs, in out's order. gpu: the trace holding the GPU's
 * kernels (may be host itself; its own time unit). */
void collective_recs(const struct gpu_trace *host, const struct gpu_trace *gpu,
		     const double (*win)[2], size_t nwin, struct rank_metrics *out);

/* What a row keeps of its values for campaign compare's intervals (summary.json's
 * samples): per step with collectives its time (the mean is ms_per_step; none when the
 * instances' steps are not known), each rank's wait per instance (ms), each instance's
 * busbw (GB/s; none when the bytes are not known); at most COLL_KEPT_MAX each, evenly
 * spaced over them. */
enum coll_kept { COLL_KEPT_STEP_MS, COLL_KEPT_WAIT_MS, COLL_KEPT_BUSBW, COLL_KEPT };
#define COLL_KEPT_MAX 1000

/* One aggregate row of summary.json's collectives. */
struct collective {
	/* enum coll_op; COLL_UNKNOWN: the step's collectives, kind unknown */
	int op;
	int size_class;          /* -1 bytes unknown; 0 under 1 KiB; k: [4^(k-1), 4^k) KiB */
	double bytes;            /* median over instances; -1 unknown */
	double count_per_step;   /* instances per step with collectives */
	double latency_med, latency_p95, wait_med, wait_p95; /* ms */
	double algbw_gbps, busbw_gbps; /* medians over instances; -1 when bytes are unknown */
	/* the ranks' mean time in it (latency + wait), per step with collectives: per rank
	 * and step the union of its instances' spans (overlapping instances, as DDP's
	 * buckets' all-reduces, count once; a span not known counts whole) */
	double ms_per_step;
	double ms_per_step_summed; /* the same with every instance's time added up */
	/* each instance's latency (the least of its ranks' times: the transfer itself) added
	 * up, per step with collectives; the rest of ms_per_step_summed is waiting */
	double transfer_ms_per_step;
	size_t instances, steps;
	size_t concurrent; /* instances that overlapped another of the row on some rank */
	double fabric_busbw_gbps; /* what the fabric probe gave at this size; -1 none */
	/* a step's collectives together, one instance a step (telemetry without collective
	 * records: the reference trainer's): bytes summed over its calls, its time as one */
	int step_total;
	double *kept[COLL_KEPT]; /* xmalloc'd (NULL: none), nkept[k] values each */
	size_t nkept[COLL_KEPT];
};
/* Frees n rows and what each keeps, and the array. */
void collectives_free(struct collective *c, size_t n);

/* Collective instances summed per operation and size class: the rows of a table (of a
 * scenario's traces or telemetry, or of the NCCL Inspector's dumps). */
struct coll_sample {
	double *v;
	size_t n, cap, stride, seen;
};
struct coll_acc;
struct coll_aggr {
	struct coll_acc *v;
	size_t n, cap;
	/* values kept per row for its percentiles, at most (0: all); beyond, an evenly spaced
	 * sample of them (every 2nd, 4th ...): the Inspector's dumps of a long run are large */
	size_t keep;
};
/* One instance: its operation, bytes (-1 unknown), process group's size (0: nr) and each
 * of its nr ranks' time in it (ms); its step is not known. */
void coll_aggr_add(struct coll_aggr *a, int op, double bytes, int group, const double *ms,
		   size_t nr);
/* The same, with where it ran: its step (-1 unknown) and each rank's end (µs on that
 * rank's clock; <= 0 unknown), its start being that less its time; a rank's overlapping
 * instances of one row and step then count once in the row's time per step. */
void coll_aggr_add_at(struct coll_aggr *a, int op, double bytes, int group, const double *ms,
		      size_t nr, int step, const double *end_us);
/* a's rows, by time per step (descending), over steps, into *out (xmalloc'd; NULL when
 * none) and *n; a is emptied. */
void coll_aggr_rows(struct coll_aggr *a, size_t steps, struct collective **out, size_t *n);
/* The collectives of m's active steps, by time per step (descending), into
 * *out (xmalloc'd; NULL when none) and *n. Ranks without collective records
 * stand for one per step from their telemetry: the gradient all-reduce of
 * the trainer (bytes known), of other formats the step's communication time
 * (kind and bytes unknown). Nothing for fewer than two ranks. */
void collectives_of(const struct scenario_metrics *m, struct collective **out, size_t *n);
struct clock_end;
/* The ends of m's blocking collectives (all-reduce, all-gather,
 * reduce-scatter, all-to-all, barrier) from the traces' records, each with
 * its instance (step, operation, process group, order) and its rank's node
 * (node_of[i] for m->ranks[i]), into *out (xmalloc'd); how many. */
size_t collective_clock_ends(const struct scenario_metrics *m, const int *node_of,
			     struct clock_end **out);
/* "1-4 MiB" for a size class (-1: "unknown"), into buf. */
const char *coll_size_label(int size_class, char *buf, size_t n);

#endif
