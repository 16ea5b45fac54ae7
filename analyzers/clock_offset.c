/* clock_offset: per-node clock offsets from the ends of matched blocking
 * collectives (see clock_offset.h). */
#include "analyzers/clock_offset.h"

#include "analyzers/collective.h"
#include "analyzers/read/metrics.h"
#include "analyzers/stats.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct diffs {
	double *v;
	size_t n, cap;
};

static void push(struct diffs *d, double v)
{
	XGROW(d->v, d->n, d->cap, 64);
	d->v[d->n++] = v;
}

static int by_instance_node_rank(const void *pa, const void *pb)
{
	const struct clock_end *a = pa, *b = pb;
	if (a->instance != b->instance)
		return a->instance < b->instance ? -1 : 1;
	if (a->node != b->node)
		return a->node - b->node;
	return a->rank - b->rank;
}

/* The median end (µs) of the ranks of one node, e[0, n) all of it. */
static double node_end(const struct clock_end *e, size_t n)
{
	double *v = xcalloc(n + 1, sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = e[i].end_us;
	double m = stats_percentile(v, n, STATS_MEDIAN);
	free(v);
	return m;
}

/* One instance's ends e[0, n) (by node, then rank): each other node's and
 * each rank's difference to the reference node's end, in ms. */
static void instance_diffs(const struct clock_end *e, size_t n, int nnodes, struct diffs *dn,
			   struct diffs *dr)
{
	size_t ref_n = 0;
	while (ref_n < n && e[ref_n].node == 0)
		ref_n++;
	if (ref_n == 0)
		return; /* the reference node has no end for it */
	double ref = node_end(e, ref_n);
	push(&dn[0], 0); /* the instances the reference node has */
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && e[j].node == e[i].node; j++)
			;
		if (e[i].node > 0 && e[i].node < nnodes)
			push(&dn[e[i].node], (node_end(e + i, j - i) - ref) / 1000.0);
	}
	for (size_t i = 0; i < n; i++)
		push(&dr[e[i].rank], (e[i].end_us - ref) / 1000.0);
}

static void node_summary(struct clock_node *c, int node, struct diffs *d)
{
	c->node = node;
	c->instances = d->n;
	c->known = node == 0 || d->n >= CLOCK_MIN_INSTANCES;
	if (node == 0 || !c->known)
		return;
	c->offset_ms = stats_percentile(d->v, d->n, STATS_MEDIAN);
	c->uncertainty_ms =
		(stats_percentile(d->v, d->n, 75) - stats_percentile(d->v, d->n, 25)) / 2;
}

/* The ranks whose own estimate is off their node's beyond the uncertainty
 * of both (a rank of the reference node is measured against its node's
 * median end, so its own spread counts too). */
static void odd_ranks(struct clock_offsets *out, struct diffs *dr, const int *node_of,
		      int nranks)
{
	for (int r = 0; r < nranks; r++) {
		int node = node_of[r];
		if (dr[r].n < CLOCK_MIN_INSTANCES || node < 0 || !out->nodes[node].known)
			continue;
		const struct clock_node *c = &out->nodes[node];
		double est = stats_percentile(dr[r].v, dr[r].n, STATS_MEDIAN);
		double own = (stats_percentile(dr[r].v, dr[r].n, 75) -
			      stats_percentile(dr[r].v, dr[r].n, 25)) / 2;
		/* beyond both uncertainties: the node's and the rank's own */
		if (fabs(est - c->offset_ms) <= fmax(c->uncertainty_ms + own, CLOCK_RESOLUTION_MS))
			continue;
		out->odd = xrealloc(out->odd, (out->nodd + 1) * sizeof *out->odd);
		out->odd[out->nodd++] = (struct clock_rank){ r, node, est };
	}
}

static int max_rank(const struct clock_end *ends, size_t n)
{
	int m = -1;
	for (size_t i = 0; i < n; i++)
		if (ends[i].rank > m)
			m = ends[i].rank;
	return m;
}

void clock_offsets_estimate(struct clock_end *ends, size_t n, int nnodes,
			    enum clock_basis basis, struct clock_offsets *out)
{
	memset(out, 0, sizeof *out);
	if (nnodes <= 0)
		return;
	int nranks = max_rank(ends, n) + 1;
	struct diffs *dn = xcalloc((size_t)nnodes, sizeof *dn);
	struct diffs *dr = xcalloc((size_t)nranks + 1, sizeof *dr);
	int *node_of = xcalloc((size_t)nranks + 1, sizeof *node_of);
	for (int r = 0; r < nranks; r++)
		node_of[r] = -1;
	size_t kept = 0; /* ends with a rank and a node in range */
	for (size_t i = 0; i < n; i++)
		if (ends[i].rank >= 0 && ends[i].node >= 0 && ends[i].node < nnodes)
			ends[kept++] = ends[i];
	if (kept)
		qsort(ends, kept, sizeof *ends, by_instance_node_rank);
	for (size_t i = 0, j; i < kept; i = j) {
		for (j = i; j < kept && ends[j].instance == ends[i].instance; j++)
			node_of[ends[j].rank] = ends[j].node;
		instance_diffs(ends + i, j - i, nnodes, dn, dr);
	}
	out->nnodes = (size_t)nnodes;
	out->nodes = xcalloc((size_t)nnodes, sizeof *out->nodes);
	for (int k = 0; k < nnodes; k++) {
		node_summary(&out->nodes[k], k, &dn[k]);
		if (k > 0 && out->nodes[k].known)
			out->basis = basis;
	}
	odd_ranks(out, dr, node_of, nranks);
	for (int k = 0; k < nnodes; k++)
		free(dn[k].v);
	for (int r = 0; r < nranks; r++)
		free(dr[r].v);
	free(dn);
	free(dr);
	free(node_of);
}

double clock_offset_of(const struct clock_offsets *c, int node)
{
	if (node < 0 || (size_t)node >= c->nnodes || !c->nodes[node].known)
		return 0;
	return c->nodes[node].offset_ms;
}

void clock_offsets_free(struct clock_offsets *c)
{
	free(c->nodes);
	free(c->odd);
	memset(c, 0, sizeof *c);
}

/* The index of host among k's nodes, added when new. */
static int node_index(struct ana_clocks *k, const char *host)
{
	for (size_t i = 0; i < k->nnodes; i++)
		if (!strcmp(k->node[i], host))
			return (int)i;
	k->node = xrealloc(k->node, (k->nnodes + 1) * sizeof *k->node);
	snprintf(k->node[k->nnodes], sizeof *k->node, "%s", host);
	return (int)k->nnodes++;
}

void clocks_of_scenario(const struct scenario_metrics *m, int one_clock, struct ana_clocks *out)
{
	memset(out, 0, sizeof *out);
	out->one_clock = one_clock;
	int *node_of = xcalloc(m->n + 1, sizeof *node_of);
	for (size_t i = 0; i < m->n; i++) {
		node_of[i] = node_index(out, m->ranks[i].host);
		if (m->ranks[i].rank + 1 > out->nranks)
			out->nranks = m->ranks[i].rank + 1;
	}
	out->rank_node = xcalloc((size_t)out->nranks + 1, sizeof *out->rank_node);
	for (int r = 0; r < out->nranks; r++)
		out->rank_node[r] = -1;
	for (size_t i = 0; i < m->n; i++)
		if (m->ranks[i].rank >= 0)
			out->rank_node[m->ranks[i].rank] = node_of[i];
	struct clock_end *ends = NULL;
	/* even on one machine: the traces may have been made elsewhere */
	size_t n = out->nnodes > 1 ? collective_clock_ends(m, node_of, &ends) : 0;
	clock_offsets_estimate(ends, n, (int)out->nnodes, CLOCK_COLLECTIVES, &out->c);
	free(ends);
	free(node_of);
}

double clocks_shift_us(const struct ana_clocks *k, int rank)
{
	if (rank < 0 || rank >= k->nranks)
		return 0;
	return clock_offset_of(&k->c, k->rank_node[rank]) * 1000.0;
}

void clocks_free(struct ana_clocks *k)
{
	clock_offsets_free(&k->c);
	free(k->node);
	free(k->rank_node);
	memset(k, 0, sizeof *k);
}
