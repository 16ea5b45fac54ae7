/* SPDX-License-Identifier: MIT */
#include "analyzers/replay/span.h"

#include "util/strbuf.h"

#include <stdlib.h>

static void ranks_size(struct rspans *sp, const struct rgraph *g)
{
	sp->nranks = 0;
	for (int l = 0; l < g->nlanes; l++)
		if (g->lanes[l].rank >= sp->nranks)
			sp->nranks = g->lanes[l].rank + 1;
	sp->ranks = xcalloc((size_t) sp->nranks + 1, sizeof *sp->ranks);
	for (int r = 0; r < sp->nranks; r++)
		sp->ranks[r].first_step = -1;
	for (int v = 0; v < g->nnodes; v++) {
		int step = g->nodes[v].step;
		if (step < 0)
			continue;
		struct rspan_rank *r = &sp->ranks[rgraph_node_rank(g, v)];
		if (r->first_step < 0) {
			r->first_step = step;
			r->nsteps = 1;
		} else if (step < r->first_step) {
			r->nsteps += r->first_step - step;
			r->first_step = step;
		} else if (step >= r->first_step + r->nsteps) {
			r->nsteps = step - r->first_step + 1;
		}
	}
}

void rspans_build(struct rspans *sp, const struct rgraph *g, const double *start,
		  const double *end)
{
	ranks_size(sp, g);
	for (int i = 0; i < sp->nranks; i++) {
		struct rspan_rank *r = &sp->ranks[i];
		r->start = xmalloc(((size_t) r->nsteps + 1) * sizeof *r->start);
		r->end = xmalloc(((size_t) r->nsteps + 1) * sizeof *r->end);
		for (int k = 0; k < r->nsteps; k++)
			r->start[k] = r->end[k] = -1;
	}
	for (int v = 0; v < g->nnodes; v++) {
		if (g->nodes[v].step < 0)
			continue;
		struct rspan_rank *r = &sp->ranks[rgraph_node_rank(g, v)];
		int k = g->nodes[v].step - r->first_step;
		if (r->start[k] < 0 || start[v] < r->start[k])
			r->start[k] = start[v];
		if (end[v] > r->end[k])
			r->end[k] = end[v];
	}
}

/* first: the least start, else the greatest end, of rank's step (-1: none). */
static double rank_at(const struct rspans *sp, int rank, int step, int first)
{
	if (rank < 0 || rank >= sp->nranks)
		return -1;
	const struct rspan_rank *r = &sp->ranks[rank];
	int k = step - r->first_step;
	if (r->first_step < 0 || k < 0 || k >= r->nsteps)
		return -1;
	return first ? r->start[k] : r->end[k];
}

static double spans_at(const struct rspans *sp, int rank, int step, int first)
{
	if (rank >= 0)
		return rank_at(sp, rank, step, first);
	double best = -1;
	for (int r = 0; r < sp->nranks; r++) {
		double t = rank_at(sp, r, step, first);
		if (t >= 0 && (best < 0 || (first ? t < best : t > best)))
			best = t;
	}
	return best;
}

double rspans_start(const struct rspans *sp, int rank, int step)
{
	return spans_at(sp, rank, step, 1);
}

double rspans_end(const struct rspans *sp, int rank, int step)
{
	return spans_at(sp, rank, step, 0);
}

void rspans_free(struct rspans *sp)
{
	for (int r = 0; r < sp->nranks; r++) {
		free(sp->ranks[r].start);
		free(sp->ranks[r].end);
	}
	free(sp->ranks);
	sp->ranks = NULL;
	sp->nranks = 0;
}
