/* replay_gen: a random execution graph for the replay's tests and benchmark, the same for a
 * seed: hosts of 1 to 4 cores, ranks with threads and streams, CPU operations, waits, kernels
 * and collective instances over every rank, program and stream order per lane, random earlier
 * dependencies (some delayed). A collective's nodes are added together, so that none of them
 * can depend on another's successor, and every lane is in program order: the graph never
 * deadlocks.
 * SPDX-License-Identifier: MIT */
#ifndef TESTS_REPLAY_GEN_H
#define TESTS_REPLAY_GEN_H

#include "analyzers/replay/graph.h"

#include <stdint.h>
#include <stdlib.h>

struct gen {
	uint64_t s;
	struct rgraph *g;
	int nranks, lanes_per_rank, threads_per_rank;
	int *last; /* per lane: its last node, -1 */
	int64_t ncoll;
};

static uint64_t gen_next(struct gen *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return r->s;
}

static double gen_unit(struct gen *r)
{
	return (double) (gen_next(r) >> 11) / 9007199254740992.0;
}

/* A node on lane (of the graph's lane order), tied to its lane's last node and to up to two
 * random earlier nodes within `window`. */
static int gen_node(struct gen *r, enum rnode_kind kind, int lane, int step, double cost,
		    int64_t coll, int window, int avoid_from)
{
	static const char *names[] = { "aten::mm", "wait", "kernel", "allreduce" };
	struct rnode_spec sp = { kind, lane, step, names[kind], cost, coll, 0 };
	int v = rgraph_add_node(r->g, &sp);
	if (r->last[lane] >= 0)
		rgraph_add_edge(r->g, r->last[lane], v, 0);
	r->last[lane] = v;
	int extra = (int) (gen_next(r) % 3), lo = avoid_from;
	for (int i = 0; i < extra && lo > 0; i++) {
		int from = lo - 1 - (int) (gen_next(r) % (uint64_t) (window < lo ? window : lo));
		double delay = gen_next(r) % 10 == 0 ? gen_unit(r) : 0;
		rgraph_add_edge(r->g, from, v, delay);
	}
	return v;
}

static double gen_cost(struct gen *r)
{
	return gen_next(r) % 20 == 0 ? 0 : 0.01 + 2 * gen_unit(r);
}

/* One step of the generator: a node, or a collective instance (one node per rank). */
static void gen_one(struct gen *r, int step, int window)
{
	int n = r->g->nnodes, kind = (int) (gen_next(r) % 20);
	if (kind < 2 && n > 0) {
		double cost = gen_cost(r);
		for (int rank = 0; rank < r->nranks; rank++) {
			int lane = rank * r->lanes_per_rank +
				(int) (gen_next(r) % (uint64_t) r->lanes_per_rank);
			gen_node(r, RNODE_COLL, lane, step, cost * (1 + gen_unit(r)), r->ncoll,
				 window, n);
		}
		r->ncoll++;
		return;
	}
	int rank = (int) (gen_next(r) % (uint64_t) r->nranks);
	int gpu = kind >= 15 && r->lanes_per_rank > r->threads_per_rank;
	int pick = gpu ? r->threads_per_rank + (int) (gen_next(r) % (uint64_t) (r->lanes_per_rank -
								       r->threads_per_rank))
		       : (int) (gen_next(r) % (uint64_t) r->threads_per_rank);
	enum rnode_kind k = gpu ? RNODE_GPU : kind < 4 ? RNODE_WAIT : RNODE_CPU;
	gen_node(r, k, rank * r->lanes_per_rank + pick, step, gen_cost(r), -1, window, n);
}

/* A graph of about n nodes over `hosts` hosts of `ranks_per_host` ranks each. */
static struct rgraph *gen_graph(uint64_t seed, int n, int hosts, int ranks_per_host, int steps)
{
	struct gen r = { .s = seed ? seed : 1, .g = rgraph_new(), .nranks = hosts * ranks_per_host,
			 .threads_per_rank = 3, .lanes_per_rank = 5 };
	for (int h = 0; h < hosts; h++)
		rgraph_add_host(r.g, 1 + h % 4);
	for (int k = 0; k < r.nranks; k++) {
		rgraph_set_rank_host(r.g, k, k / ranks_per_host);
		for (int l = 0; l < r.lanes_per_rank; l++)
			rgraph_add_lane(r.g, l < r.threads_per_rank ? RLANE_THREAD : RLANE_STREAM,
					k, 100 * k + l);
	}
	r.last = malloc((size_t) r.nranks * (size_t) r.lanes_per_rank * sizeof *r.last);
	for (int l = 0; l < r.nranks * r.lanes_per_rank; l++)
		r.last[l] = -1;
	while (r.g->nnodes < n)
		gen_one(&r, (int) ((int64_t) r.g->nnodes * steps / n), 64);
	free(r.last);
	return r.g;
}

#endif
