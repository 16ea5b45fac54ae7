/* replay span: the first start and the last end of each rank's steps in a replay (the nodes
 * tagged with that rank and step), which the replay's step times are read from. It owns those
 * tables, built once after a replay; a rank's table runs from its first step to its last.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_REPLAY_SPAN_H
#define ANALYZERS_REPLAY_SPAN_H

#include "analyzers/replay/graph.h"

struct rspan_rank {
	int first_step, nsteps;
	double *start, *end; /* -1: no node of that step */
};

struct rspans {
	struct rspan_rank *ranks;
	int nranks;
};

void rspans_build(struct rspans *sp, const struct rgraph *g, const double *start,
		  const double *end);
/* Of (rank, step); rank -1: of every rank. -1 when no node has that tag. */
double rspans_start(const struct rspans *sp, int rank, int step);
double rspans_end(const struct rspans *sp, int rank, int step);
void rspans_free(struct rspans *sp);

#endif
