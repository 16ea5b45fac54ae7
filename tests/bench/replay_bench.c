/* replay_bench N [SEED]: builds a random execution graph of about N nodes (tests/unit/
 * replay_gen.h: 8 hosts of 1 to 4 cores, 4 ranks each) and replays it; prints the nodes,
 * the edges, the seconds to build it and to replay it (best of 3), and the makespan.
 * SPDX-License-Identifier: MIT */
#include "analyzers/replay/sim.h"
#include "tests/unit/replay_gen.h"
#include "util/err.h"

#include <stdio.h>
#include <time.h>

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The seconds of one replay of g; -1 on an error. */
static double replay_once(const struct rgraph *g, double *makespan)
{
	struct replay_sim *s = NULL;
	double t0 = seconds();
	if (replay_sim_run(&s, g) < 0) {
		fprintf(stderr, "replay_bench: %s\n", err_last());
		return -1;
	}
	double t = seconds() - t0;
	*makespan = replay_sim_makespan(s);
	replay_sim_free(s);
	return t;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
	double t0 = seconds(), makespan = 0, best = -1, first = -1;
	struct rgraph *g = gen_graph(seed, n, 8, 4, 100);
	double built = seconds() - t0;
	for (int i = 0; i < 3; i++) {
		double t = replay_once(g, &makespan);
		if (t < 0)
			return 1;
		first = i ? first : t;
		best = best < 0 || t < best ? t : best;
	}
	printf("%d nodes, %zu edges: built in %.3f s, replayed in %.3f s (best of 3, %.0f ns a node; the first %.3f s), makespan %.1f ms\n",
	       g->nnodes, g->nedges, built, best, best * 1e9 / g->nnodes, first, makespan);
	rgraph_free(g);
	return 0;
}
