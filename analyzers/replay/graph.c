/* SPDX-License-Identifier: MIT */
#include "analyzers/replay/graph.h"

#include "util/err.h"
#include "util/sort.h"
#include "util/strbuf.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

/* Node and edge indexes travel in 31 bits through the simulator's events. */
#define RGRAPH_MAX ((size_t) INT32_MAX)

struct rgraph *rgraph_new(void)
{
	return xcalloc(1, sizeof(struct rgraph));
}

void rgraph_free(struct rgraph *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nnames; i++)
		free(g->names[i]);
	free(g->names);
	strindex_clear(&g->name_index);
	free(g->host_cores);
	free(g->rank_host);
	free(g->lanes);
	free(g->nodes);
	free(g->edges);
	free(g);
}

int rgraph_add_host(struct rgraph *g, int cores)
{
	if (cores < 1)
		return err_set(ERR_USAGE, "replay: a host of %d cores: a host has at least 1",
			       cores);
	g->host_cores = xgrow(g->host_cores, g->nhosts, &g->cap_hosts, sizeof(int), 8);
	g->host_cores[g->nhosts] = cores;
	return g->nhosts++;
}

int rgraph_set_rank_host(struct rgraph *g, int rank, int host)
{
	if (rank < 0 || host < 0 || host >= g->nhosts)
		return err_set(ERR_USAGE, "replay: rank %d on host %d: the graph has %d hosts",
			       rank, host, g->nhosts);
	while (g->nranks <= rank) {
		g->rank_host = xgrow(g->rank_host, g->nranks, &g->cap_ranks, sizeof(int), 8);
		g->rank_host[g->nranks++] = -1;
	}
	g->rank_host[rank] = host;
	return 0;
}

int rgraph_add_lane(struct rgraph *g, enum rlane_kind kind, int rank, int64_t id)
{
	if (rank < 0)
		return err_set(ERR_USAGE, "replay: a lane of rank %d: ranks count from 0", rank);
	g->lanes = xgrow(g->lanes, g->nlanes, &g->cap_lanes, sizeof *g->lanes, 16);
	g->lanes[g->nlanes] = (struct rlane) { .id = id, .rank = rank, .kind = (uint8_t) kind };
	return g->nlanes++;
}

static const char *name_at(const void *array, size_t i)
{
	return ((char *const *) array)[i];
}

/* The index of name in the graph's names, added when new: a trace's million operations
 * share a few thousand names. */
static uint32_t name_intern(struct rgraph *g, const char *name)
{
	size_t *slot = strindex_slot(&g->name_index, name, g->names, g->nnames, name_at);
	if (*slot)
		return (uint32_t) (*slot - 1);
	g->names = xgrow(g->names, g->nnames, &g->cap_names, sizeof(char *), 64);
	g->names[g->nnames] = xstrdup(name);
	*slot = ++g->nnames;
	return (uint32_t) (g->nnames - 1);
}

uint32_t rgraph_name(struct rgraph *g, const char *name)
{
	return name_intern(g, name ? name : "") + 1;
}

static int spec_check(const struct rgraph *g, const struct rnode_spec *s)
{
	if (s->lane < 0 || s->lane >= g->nlanes)
		return err_set(ERR_USAGE, "replay: node \"%s\" on lane %d: the graph has %d lanes",
			       s->name, s->lane, g->nlanes);
	int on_stream = g->lanes[s->lane].kind == RLANE_STREAM;
	if ((s->kind == RNODE_GPU && !on_stream) ||
	    ((s->kind == RNODE_CPU || s->kind == RNODE_WAIT) && on_stream))
		return err_set(ERR_USAGE, "replay: node \"%s\": a %s goes on a %s", s->name,
			       s->kind == RNODE_GPU ? "kernel" : "host operation",
			       s->kind == RNODE_GPU ? "stream" : "thread");
	if (!(s->cost_ms >= 0) || !isfinite(s->cost_ms))
		return err_set(ERR_USAGE, "replay: node \"%s\" costs %g ms: a cost is finite, >= 0",
			       s->name, s->cost_ms);
	if ((size_t) g->nnodes >= RGRAPH_MAX)
		return err_set(ERR_USAGE, "replay: more than %zu nodes", RGRAPH_MAX);
	return 0;
}

int rgraph_add_node(struct rgraph *g, const struct rnode_spec *spec)
{
	int rc = spec_check(g, spec);
	if (rc < 0)
		return rc;
	g->nodes = xgrow(g->nodes, g->nnodes, &g->cap_nodes, sizeof *g->nodes, 1024);
	g->nodes[g->nnodes] = (struct rnode) {
		.cost_ms = spec->kind == RNODE_WAIT ? 0 : spec->cost_ms,
		.coll = spec->kind == RNODE_COLL ? spec->coll : -1,
		.lane = spec->lane,
		.step = spec->step < 0 ? -1 : spec->step,
		.name = spec->name_id ? spec->name_id - 1
				      : name_intern(g, spec->name ? spec->name : ""),
		.coll_step = -1,
		.kind = (uint8_t) spec->kind,
	};
	return g->nnodes++;
}

int rgraph_set_coll(struct rgraph *g, int node, int step, int blocking)
{
	if (node < 0 || node >= g->nnodes || g->nodes[node].kind != RNODE_COLL)
		return err_set(ERR_USAGE, "replay graph: node %d is no collective", node);
	g->nodes[node].coll_step = step < 0 ? -1 : step;
	g->nodes[node].blocking = blocking != 0;
	return 0;
}

int rgraph_add_edge(struct rgraph *g, int from, int to, double delay_ms)
{
	if (from < 0 || to < 0 || from >= g->nnodes || to >= g->nnodes)
		return err_set(ERR_USAGE, "replay: edge %d -> %d: the graph has %d nodes", from, to,
			       g->nnodes);
	if (!(delay_ms >= 0) || !isfinite(delay_ms))
		return err_set(ERR_USAGE, "replay: edge %d -> %d delays %g ms: a delay is >= 0",
			       from, to, delay_ms);
	if (g->nedges >= RGRAPH_MAX)
		return err_set(ERR_USAGE, "replay: more than %zu edges", RGRAPH_MAX);
	g->edges = xgrow(g->edges, g->nedges, &g->cap_edges, sizeof *g->edges, 1024);
	g->edges[g->nedges++] = (struct redge) { from, to, delay_ms };
	return 0;
}

const char *rgraph_node_name(const struct rgraph *g, int node)
{
	return g->names[g->nodes[node].name];
}

int rgraph_node_rank(const struct rgraph *g, int node)
{
	return g->lanes[g->nodes[node].lane].rank;
}

int rgraph_node_host(const struct rgraph *g, int node)
{
	int rank = rgraph_node_rank(g, node);
	return rank < g->nranks ? g->rank_host[rank] : -1;
}

struct coll_key {
	int64_t coll;
	int node;
};

static int coll_key_cmp(const void *a, const void *b)
{
	const struct coll_key *x = a, *y = b;
	if (x->coll != y->coll)
		return x->coll < y->coll ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

int *rgraph_coll_nodes(const struct rgraph *g, size_t *n)
{
	struct coll_key *k = xmalloc(((size_t) g->nnodes + 1) * sizeof *k);
	size_t m = 0;
	for (int v = 0; v < g->nnodes; v++)
		if (g->nodes[v].kind == RNODE_COLL)
			k[m++] = (struct coll_key) { g->nodes[v].coll, v };
	sort_runs(k, m, sizeof *k, coll_key_cmp);
	int *out = xmalloc((m ? m : 1) * sizeof *out);
	for (size_t i = 0; i < m; i++)
		out[i] = k[i].node;
	free(k);
	*n = m;
	return out;
}
