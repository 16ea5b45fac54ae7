/* clock_offset: per-node clock offsets from the ends of matched blocking
 * collectives (see clock_offset.h).
 * SPDX-License-Identifier: MIT */
#include "analyzers/clock_offset.h"

#include "analyzers/collective.h"
#include "analyzers/inspector.h"
#include "analyzers/read/metrics.h"
#include "analyzers/stats.h"
#include "util/sort.h"
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

/* The end of rank ref among e[0, n), or NAN. */
static double end_of(const struct clock_end *e, size_t n, int ref)
{
	for (size_t i = 0; i < n; i++)
		if (e[i].rank == ref)
			return e[i].end_us;
	return NAN;
}

/* One instance's ends e[0, n) (by node, then rank): each node's median end
 * and each rank's end less the reference rank's, in ms. */
static void instance_diffs(const struct clock_end *e, size_t n, int ref_rank, struct diffs *dn,
			   struct diffs *dr)
{
	double ref = end_of(e, n, ref_rank);
	if (isnan(ref))
		return; /* the reference rank has no end for it */
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && e[j].node == e[i].node; j++)
			;
		push(&dn[e[i].node], (node_end(e + i, j - i) - ref) / 1000.0);
	}
	for (size_t i = 0; i < n; i++)
		push(&dr[e[i].rank], (e[i].end_us - ref) / 1000.0);
}

static struct clock_est est_of(struct diffs *d)
{
	struct clock_est e = { 0, 0, d->n, d->n >= CLOCK_MIN_INSTANCES };
	if (e.known) {
		e.offset_ms = stats_percentile(d->v, d->n, STATS_MEDIAN);
		e.uncertainty_ms =
			(stats_percentile(d->v, d->n, 75) - stats_percentile(d->v, d->n, 25)) / 2;
	}
	return e;
}

static int agrees(const struct clock_est *rank, const struct clock_est *node)
{
	return fabs(rank->offset_ms - node->offset_ms) <=
	       fmax(node->uncertainty_ms + rank->uncertainty_ms, CLOCK_RESOLUTION_MS);
}

/* Whether each node's ranks share its clock (most of them agree with it),
 * and which ranks of a shared node do not. */
static void sharing(struct clock_offsets *out)
{
	size_t nn = out->nnodes;
	int *agree = xcalloc(nn + 1, sizeof *agree);
	for (size_t i = 0; i < out->nranks; i++) {
		const struct clock_rank *r = &out->ranks[i];
		struct clock_node *k = &out->nodes[r->node];
		if (!r->est.known || !k->est.known)
			continue;
		k->nranks++;
		agree[r->node] += agrees(&r->est, &k->est);
	}
	for (size_t k = 0; k < nn; k++)
		out->nodes[k].shared = out->nodes[k].nranks > 0 &&
				       2 * agree[k] > out->nodes[k].nranks;
	for (size_t i = 0; i < out->nranks; i++) {
		struct clock_rank *r = &out->ranks[i];
		const struct clock_node *k = &out->nodes[r->node];
		r->odd = k->shared && r->est.known && !agrees(&r->est, &k->est);
	}
	free(agree);
}

static int max_rank(const struct clock_end *ends, size_t n)
{
	int m = -1;
	for (size_t i = 0; i < n; i++)
		if (ends[i].rank > m)
			m = ends[i].rank;
	return m;
}

/* The ends with a rank and a node in range, to the front; how many. */
static size_t keep_valid(struct clock_end *ends, size_t n, int nnodes, int *ref_rank)
{
	size_t kept = 0;
	*ref_rank = -1;
	for (size_t i = 0; i < n; i++)
		if (ends[i].rank >= 0 && ends[i].node >= 0 && ends[i].node < nnodes) {
			ends[kept++] = ends[i];
			if (*ref_rank < 0 || ends[i].rank < *ref_rank)
				*ref_rank = ends[i].rank;
		}
	return kept;
}

/* out's ranks (those with ends, by rank) and nodes from the differences. */
static void summarise(struct clock_offsets *out, struct diffs *dn, struct diffs *dr,
		      const int *node_of, int nranks, int ref_rank)
{
	out->ranks = xcalloc((size_t)nranks + 1, sizeof *out->ranks);
	for (int r = 0; r < nranks; r++) {
		if (node_of[r] < 0)
			continue;
		struct clock_rank *x = &out->ranks[out->nranks++];
		x->rank = r;
		x->node = node_of[r];
		x->est = est_of(&dr[r]);
		x->est.known |= r == ref_rank;
		if (r == ref_rank)
			out->ref_node = x->node;
		if (r != ref_rank && x->est.known)
			out->basis = CLOCK_COLLECTIVES;
	}
	for (size_t k = 0; k < out->nnodes; k++)
		out->nodes[k].est = est_of(&dn[k]);
	sharing(out);
}

void clock_offsets_estimate(struct clock_end *ends, size_t n, int nnodes,
			    enum clock_basis basis, struct clock_offsets *out)
{
	memset(out, 0, sizeof *out);
	if (nnodes <= 0)
		return;
	int ref_rank;
	size_t kept = keep_valid(ends, n, nnodes, &ref_rank);
	int nranks = max_rank(ends, kept) + 1;
	struct diffs *dn = xcalloc((size_t)nnodes, sizeof *dn);
	struct diffs *dr = xcalloc((size_t)nranks + 1, sizeof *dr);
	int *node_of = xcalloc((size_t)nranks + 1, sizeof *node_of);
	for (int r = 0; r < nranks; r++)
		node_of[r] = -1;
	if (kept)
		sort_runs(ends, kept, sizeof *ends, by_instance_node_rank);
	for (size_t i = 0, j; i < kept; i = j) {
		for (j = i; j < kept && ends[j].instance == ends[i].instance; j++)
			node_of[ends[j].rank] = ends[j].node;
		instance_diffs(ends + i, j - i, ref_rank, dn, dr);
	}
	out->nnodes = (size_t)nnodes;
	out->nodes = xcalloc((size_t)nnodes, sizeof *out->nodes);
	summarise(out, dn, dr, node_of, nranks, ref_rank);
	if (out->basis != CLOCK_NONE)
		out->basis = basis;
	for (int k = 0; k < nnodes; k++)
		free(dn[k].v);
	for (int r = 0; r < nranks; r++)
		free(dr[r].v);
	free(dn);
	free(dr);
	free(node_of);
}

static int by_rank_key(const void *key, const void *elem)
{
	int a = *(const int *)key, b = ((const struct clock_rank *)elem)->rank;
	return (a > b) - (a < b);
}

/* rank's estimate, or NULL when it has no matched end (c->ranks is in rank order). */
static const struct clock_rank *rank_of(const struct clock_offsets *c, int rank)
{
	return c->nranks ? bsearch(&rank, c->ranks, c->nranks, sizeof *c->ranks, by_rank_key)
			 : NULL;
}

double clock_shift_ms(const struct clock_offsets *c, int rank)
{
	const struct clock_rank *r = rank_of(c, rank);
	if (!r)
		return 0;
	const struct clock_node *k = &c->nodes[r->node];
	if (k->shared) /* the first rank's own node is its clock */
		return r->node == c->ref_node ? 0 : k->est.offset_ms;
	return r->est.known ? r->est.offset_ms : 0;
}

void clock_offsets_free(struct clock_offsets *c)
{
	free(c->nodes);
	free(c->ranks);
	memset(c, 0, sizeof *c);
}

static int add_node(struct ana_clocks *k, const char *host)
{
	k->node = xrealloc(k->node, (k->nnodes + 1) * sizeof *k->node);
	snprintf(k->node[k->nnodes], sizeof *k->node, "%s", host);
	return (int)k->nnodes++;
}

/* The index of host among k's nodes, added when new. */
static int node_index(struct ana_clocks *k, const char *host)
{
	for (size_t i = 0; i < k->nnodes; i++)
		if (!strcmp(k->node[i], host))
			return (int)i;
	return add_node(k, host);
}

/* Records rank's node (grown as needed). */
static void set_rank_node(struct ana_clocks *k, int rank, int node)
{
	if (rank < 0)
		return;
	if (rank >= k->nrank_node) {
		k->rank_node = xrealloc(k->rank_node, (size_t)(rank + 1) * sizeof *k->rank_node);
		for (int r = k->nrank_node; r <= rank; r++)
			k->rank_node[r] = -1;
		k->nrank_node = rank + 1;
	}
	k->rank_node[rank] = node;
}

void clocks_of_scenario(const struct scenario_metrics *m, int one_clock, struct ana_clocks *out)
{
	memset(out, 0, sizeof *out);
	out->one_clock = one_clock;
	for (size_t i = 0; i < m->n; i++)
		out->per_rank |= m->ranks[i].own_clock;
	int *node_of = xcalloc(m->n + 1, sizeof *node_of);
	for (size_t i = 0; i < m->n; i++)
		node_of[i] = out->per_rank ? add_node(out, m->ranks[i].host)
					   : node_index(out, m->ranks[i].host);
	for (size_t i = 0; i < m->n; i++)
		set_rank_node(out, m->ranks[i].rank, node_of[i]);
	struct clock_end *ends = NULL;
	/* even on one node: traces may time each rank from its own start */
	size_t n = m->n > 1 ? collective_clock_ends(m, node_of, &ends) : 0;
	clock_offsets_estimate(ends, n, (int)out->nnodes, CLOCK_COLLECTIVES, &out->c);
	free(ends);
	free(node_of);
}

/* The node of rank when it has no matched end of its own (-1: none, or it has). */
static int node_without_ends(const struct ana_clocks *k, int rank)
{
	if (rank_of(&k->c, rank))
		return -1;
	return rank >= 0 && rank < k->nrank_node ? k->rank_node[rank] : -1;
}

double clocks_shift_us(const struct ana_clocks *k, int rank)
{
	int node = node_without_ends(k, rank);
	if (node < 0 || (size_t)node >= k->c.nnodes)
		return clock_shift_ms(&k->c, rank) * 1000.0;
	const struct clock_node *c = &k->c.nodes[node];
	if (!c->shared || node == k->c.ref_node)
		return 0;
	return c->est.offset_ms * 1000.0;
}

int clocks_corrected(const struct ana_clocks *k, int rank)
{
	int node = node_without_ends(k, rank);
	if (node >= 0 && (size_t)node < k->c.nnodes)
		return k->c.nodes[node].shared;
	const struct clock_rank *r = rank_of(&k->c, rank);
	return r && (k->c.nodes[r->node].shared || r->est.known);
}

void clocks_free(struct ana_clocks *k)
{
	clock_offsets_free(&k->c);
	free(k->node);
	free(k->rank_node);
	memset(k, 0, sizeof *k);
}

struct proc_rank {
	int rank; /* -1 unknown: last */
	size_t proc;
};

static int by_proc_rank(const void *pa, const void *pb)
{
	const struct proc_rank *a = pa, *b = pb;
	unsigned ra = (unsigned)a->rank, rb = (unsigned)b->rank; /* -1 sorts last */
	if (ra != rb)
		return ra < rb ? -1 : 1;
	return a->proc < b->proc ? -1 : a->proc > b->proc;
}

void clocks_from_inspector(const struct insp_summary *in, struct ana_clocks *k)
{
	if (k->c.basis != CLOCK_NONE || !in->n_ends)
		return;
	int one = k->one_clock;
	clocks_free(k);
	k->one_clock = one;
	/* nodes in the order of their lowest rank, as from the traces */
	struct proc_rank *order = xcalloc(in->procs + 1, sizeof *order);
	int *node_of = xcalloc(in->procs + 1, sizeof *node_of);
	for (size_t p = 0; p < in->procs; p++)
		order[p] = (struct proc_rank){ in->proc_rank[p], p };
	if (in->procs)
		sort_runs(order, in->procs, sizeof *order, by_proc_rank);
	for (size_t i = 0; i < in->procs; i++) {
		node_of[order[i].proc] = node_index(k, in->proc_node[order[i].proc]);
		set_rank_node(k, order[i].rank, node_of[order[i].proc]);
	}
	struct clock_end *ends = xcalloc(in->n_ends + 1, sizeof *ends);
	size_t n = 0;
	for (size_t i = 0; i < in->n_ends; i++) {
		size_t p = in->ends[i].proc;
		if (p < in->procs && in->proc_rank[p] >= 0)
			ends[n++] = (struct clock_end){ in->ends[i].instance, in->proc_rank[p],
							node_of[p], in->ends[i].stop_us };
	}
	clock_offsets_estimate(ends, n, (int)k->nnodes, CLOCK_INSPECTOR, &k->c);
	free(ends);
	free(node_of);
	free(order);
}
