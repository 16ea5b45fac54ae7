/* replay graph: the execution graph a replay simulates (docs/analysis.md, "Replay model").
 * It owns the hosts and their cores, which host each rank is on, the lanes (a rank's host
 * threads and GPU streams), the nodes (CPU operations, blocking waits, GPU kernels and copies,
 * a rank's part in a collective instance), their names, and the dependency edges between
 * them. It knows neither traces (a builder makes the graph) nor time (sim.h replays it).
 * Every fallible function returns a negative code after err_set (util/err.h).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_REPLAY_GRAPH_H
#define ANALYZERS_REPLAY_GRAPH_H

#include "util/strindex.h"

#include <stddef.h>
#include <stdint.h>

enum rnode_kind {
	RNODE_CPU,  /* an operation on a host thread: cost is its CPU demand at full speed */
	RNODE_WAIT, /* a blocking wait on a thread: holds no core, ends when its dependencies do */
	RNODE_GPU,  /* a kernel or copy on a stream: cost is its duration */
	RNODE_COLL, /* one rank's part in a collective instance: cost is the transfer time */
};

enum rlane_kind {
	RLANE_THREAD, /* a host thread of a rank */
	RLANE_STREAM, /* a stream of the rank's GPU */
};

struct rlane {
	int64_t id; /* the trace's thread or stream id */
	int32_t rank;
	uint8_t kind; /* enum rlane_kind */
};

struct rnode {
	double cost_ms;
	int64_t coll;  /* RNODE_COLL: its instance, shared by the ranks' nodes; else -1 */
	int32_t lane;  /* index in lanes */
	int32_t step;  /* the step it belongs to; -1: none */
	uint32_t name; /* index in names */
	/* RNODE_COLL: the step its instance was called in (a kernel's too, whose node belongs
	 * to no step), -1 none; else -1 */
	int32_t coll_step;
	uint8_t kind;  /* enum rnode_kind */
	/* RNODE_COLL: every rank leaves its instance at once (an all-reduce, not a send), so
	 * its end times the step it was called in */
	uint8_t blocking;
};

/* What rgraph_add_node takes. */
struct rnode_spec {
	enum rnode_kind kind;
	int lane;
	int step;
	const char *name;
	double cost_ms;
	int64_t coll;
	uint32_t name_id; /* rgraph_name's of name (then name is not looked up), 0: look it up */
};

struct redge {
	int32_t from, to;
	double delay_ms; /* `to` starts at least this long after `from` ends */
};

/* Read by the simulator; changed only through the functions below. */
struct rgraph {
	int *host_cores;
	int nhosts;
	int *rank_host; /* rank -> host, -1: none yet */
	int nranks;
	struct rlane *lanes;
	int nlanes;
	struct rnode *nodes;
	int nnodes;
	struct redge *edges;
	size_t nedges;
	char **names;
	size_t nnames;
	size_t cap_hosts, cap_ranks, cap_lanes, cap_nodes, cap_edges, cap_names;
	struct strindex name_index;
};

struct rgraph *rgraph_new(void);
void rgraph_free(struct rgraph *g);

/* A host with `cores` cores (at least 1): returns its index. */
int rgraph_add_host(struct rgraph *g, int cores);
/* Puts rank (>= 0) on host; a rank is on one host, which every one of its lanes shares. */
int rgraph_set_rank_host(struct rgraph *g, int rank, int host);
/* A thread or stream of rank, known in the trace as id: returns its index. */
int rgraph_add_lane(struct rgraph *g, enum rlane_kind kind, int rank, int64_t id);
/* A node: returns its index (nodes are numbered from 0 in the order they are added).
 * CPU and WAIT nodes go on threads, GPU nodes on streams, COLL nodes on either (on a stream,
 * an NCCL collective holds the stream until its instance completes). */
int rgraph_add_node(struct rgraph *g, const struct rnode_spec *spec);
/* The id of name among the graph's node names (added when new), for rnode_spec's name_id:
 * a caller that adds many nodes of one name looks it up once. */
uint32_t rgraph_name(struct rgraph *g, const char *name);
/* Collective node `node`'s step (the one its instance was called in, -1 none) and whether
 * every rank leaves it at once (struct rnode's coll_step and blocking; -1 and 0 until set). */
int rgraph_set_coll(struct rgraph *g, int node, int step, int blocking);
/* `to` cannot start before `from` has ended and delay_ms (>= 0) has passed. */
int rgraph_add_edge(struct rgraph *g, int from, int to, double delay_ms);

const char *rgraph_node_name(const struct rgraph *g, int node);
int rgraph_node_rank(const struct rgraph *g, int node);
/* The host a node's rank is on, -1 when the rank has none. */
int rgraph_node_host(const struct rgraph *g, int node);
/* The collective nodes ordered by instance id (then node): malloc'ed, *n of them; the
 * members of one instance stand together. */
int *rgraph_coll_nodes(const struct rgraph *g, size_t *n);

#endif
