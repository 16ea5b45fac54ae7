/* replay_proto: the replay builder's nodes and edges to be, before they become a graph
 * (replay_build.c makes them from the traces; replay_change.c changes them as a
 * recommendation would; replay_proto.c adds them). Private to those files.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_REPLAY_PROTO_H
#define ANALYZERS_REPLAY_PROTO_H

#include "analyzers/replay_build.h"

#include <stddef.h>
#include <stdint.h>

/* A node to be: an operation or a gap, in µs on its rank's own clock. */
struct proto {
	double s, e;
	int rank_i; /* index in the input's ranks */
	int lane;   /* graph lane */
	int kind;   /* enum rnode_kind */
	int step;   /* position of the step it starts in, -1: none */
	int name;   /* index into its trace's names; -1: an untraced gap */
	int sleep;  /* RNODE_WAIT: 1 for a sleep (its span a delay), 0 for a wait on a thread */
	int op, seq; /* RNODE_COLL: operation and order among the step's of that operation */
	/* RNODE_COLL: the step its instance is matched in (a host range's own; an NCCL kernel's
	 * that of the piece that launched it: a kernel is in no step's span), and its process
	 * group (a hash of its name, 0: the default or unknown) and size (0: unknown) */
	int cstep;
	uint32_t group;
	int group_size;
	int64_t coll;
	/* RNODE_COLL of an instance whose ranks share one host: its last arrival (µs, first
	 * rank's clock); the transfer after it is that host's CPU work (on_host 1) */
	double last;
	int on_host;
	/* a cost set by a change (fixed 1): the CPU demand, or a transfer's time (ms); the
	 * measured span is then not its cost */
	int fixed;
	double cost_ms;
	double grad_bytes; /* its range's args.grad_bytes, 0: none */
	double msg_bytes;  /* RNODE_COLL: its message's bytes (the collective's args), 0: unknown */
	/* its range's args.step (the reference trainer's step: a loader range's is the batch it
	 * makes), -1: none */
	long step_arg;
	int launches; /* a host piece that ends where a launch call does (replay_gpu.h) */
	int from; /* RNODE_GPU and an NCCL kernel's RNODE_COLL: the host piece that launched it */
	int gpu_wait; /* RNODE_WAIT: a synchronisation with the GPU (released by a kernel only) */
};

struct pedge {
	int from, to;
	double delay_us;
};

struct builder {
	const struct replay_build_in *in;
	struct rgraph *g;
	struct proto *p;
	size_t np, pcap;
	struct pedge *e;
	size_t ne, ecap;
	int *main_lane; /* per rank index: the lane of its step thread, -1: none */
	/* per rank index: the wait its threads start after (replay_build.c rank_starts) and its
	 * delay (µs); -1: none (the rank starts at 0) */
	int *origin;
	double *origin_us;
	uint32_t **gname; /* per rank index, per name of its trace: its rgraph_name, 0: not yet */
	struct replay_build_info info;
};

int replay_proto_add(struct builder *b, const struct proto *p);
/* The position of the window (step windows [start, end) by start, n of them) holding time
 * x, -1: none. */
int replay_window_at(const double (*win)[2], int n, double x);
void replay_proto_edge(struct builder *b, int from, int to, double delay_us);

/* Applies b->in->change to the protos (cost: each one's measured cost, ms; *cost grown to
 * the protos added, whose cost is their own: fixed). Returns 0, or ERR_USAGE saying why the
 * change does not apply to these traces (no prediction is then made). */
int replay_change_apply(struct builder *b, double **cost);

#endif
