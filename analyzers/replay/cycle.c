/* SPDX-License-Identifier: MIT */
#include "analyzers/replay/cycle.h"
#include "analyzers/replay/prose.h"

#include "util/err.h"
#include "util/strbuf.h"

#include <stdlib.h>

struct waits {
	const struct rgraph *g;
	const double *start, *end;
	size_t *pred_off; /* the unfinished nodes' unfinished predecessors */
	int *pred;
	int *holder; /* per lane: the node that started on it and never ended */
	int *absent; /* per COLL node: a node of its instance that never arrived, or -1 */
};

/* For each collective instance, one of its nodes that never arrived (never started). */
static void absent_build(struct waits *w)
{
	const struct rgraph *g = w->g;
	size_t n;
	int *k = rgraph_coll_nodes(g, &n);
	w->absent = xmalloc(((size_t) g->nnodes + 1) * sizeof *w->absent);
	for (size_t i = 0, j; i < n; i = j) {
		int missing = -1;
		int64_t coll = g->nodes[k[i]].coll;
		for (j = i; j < n && g->nodes[k[j]].coll == coll; j++)
			if (w->start[k[j]] < 0)
				missing = k[j];
		for (size_t m = i; m < j; m++)
			w->absent[k[m]] = missing;
	}
	free(k);
}

static void preds_build(struct waits *w)
{
	const struct rgraph *g = w->g;
	w->pred_off = xcalloc((size_t) g->nnodes + 2, sizeof *w->pred_off);
	w->pred = xmalloc((g->nedges ? g->nedges : 1) * sizeof *w->pred);
	for (size_t i = 0; i < g->nedges; i++)
		if (w->end[g->edges[i].from] < 0)
			w->pred_off[g->edges[i].to + 2]++;
	for (int v = 0; v < g->nnodes; v++)
		w->pred_off[v + 2] += w->pred_off[v + 1];
	for (size_t i = 0; i < g->nedges; i++)
		if (w->end[g->edges[i].from] < 0)
			w->pred[w->pred_off[g->edges[i].to + 1]++] = g->edges[i].from;
	w->holder = xmalloc(((size_t) g->nlanes + 1) * sizeof *w->holder);
	for (int l = 0; l < g->nlanes; l++)
		w->holder[l] = -1;
	for (int v = 0; v < g->nnodes; v++)
		if (w->start[v] >= 0 && w->end[v] < 0)
			w->holder[g->nodes[v].lane] = v;
}

/* A node that v waits for, -1 when none is found. */
static int waits_for(const struct waits *w, int v)
{
	const struct rnode *n = &w->g->nodes[v];
	if (w->pred_off[v] < w->pred_off[v + 1])
		return w->pred[w->pred_off[v]];
	if (n->kind == RNODE_COLL && w->start[v] >= 0)
		return w->absent[v];
	return w->holder[n->lane]; /* queued on its stream behind one that never ends */
}

static int cycle_report(const struct rgraph *g, const int *path, int len, int from)
{
	int first = path[from];
	for (int i = from; i < len; i++)
		if (path[i] < first)
			first = path[i];
	const struct rlane *l = &g->lanes[g->nodes[first].lane];
	return err_set(ERR_GENERIC, PROSE_REPLAY_CYCLE, first, rgraph_node_name(g, first), l->rank,
		       g->nodes[first].step, l->kind == RLANE_STREAM ? "stream" : "thread",
		       (long long) l->id, len - from);
}

/* Follows what the first unfinished node waits for until a node comes back. */
int replay_cycle_error(const struct rgraph *g, const double *start, const double *end)
{
	struct waits w = { .g = g, .start = start, .end = end };
	preds_build(&w);
	absent_build(&w);
	int *on_path = xcalloc((size_t) g->nnodes + 1, sizeof *on_path); /* place + 1 */
	int *path = xmalloc(((size_t) g->nnodes + 1) * sizeof *path);
	int v = 0, len = 0, rc = 0;
	while (v < g->nnodes && end[v] >= 0)
		v++;
	while (v >= 0 && v < g->nnodes && !on_path[v]) {
		path[len] = v;
		on_path[v] = ++len;
		v = waits_for(&w, v);
	}
	if (v >= 0 && v < g->nnodes)
		rc = cycle_report(g, path, len, on_path[v] - 1);
	else
		rc = err_set(ERR_GENERIC, "replay: node %d (\"%s\") never becomes ready",
			     path[len - 1], rgraph_node_name(g, path[len - 1]));
	free(on_path);
	free(path);
	free(w.pred_off);
	free(w.pred);
	free(w.holder);
	free(w.absent);
	return rc;
}
