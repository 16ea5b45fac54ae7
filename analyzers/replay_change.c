/* replay_change: the changes a recommendation makes to a replay graph before it is replayed
 * (Daydream's transformation primitives; docs/analysis.md, "Transformations"). It works on
 * the builder's protos (replay_proto.h), after their measured costs are known.
 * SPDX-License-Identifier: MIT */
#include "analyzers/replay_proto.h"

#include "analyzers/replay/graph.h"
#include "util/err.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

#define LAYER_PREFIX "backward:layer"
/* The most backward layer ranges and step-thread collectives a step may hold: a bucket ends
 * at a layer, so a step has at most MAX_LAYERS buckets. */
#define MAX_LAYERS 256
#define MAX_COLLS 1024

/* One step of one rank on its step thread: its protos by start. */
struct step_ops {
	int *ix;
	size_t n;
};

static const char *name_of(const struct builder *b, const struct proto *p)
{
	return p->name >= 0 ? b->in->ranks[p->rank_i].t->names[p->name] : "";
}

static int is_layer(const struct builder *b, const struct proto *p)
{
	return p->kind == RNODE_CPU && !strncmp(name_of(b, p), LAYER_PREFIX, strlen(LAYER_PREFIX));
}

static int by_proto_start(const void *x, const void *y, void *ctx)
{
	const struct builder *b = ctx;
	const struct proto *a = &b->p[*(const int *)x], *c = &b->p[*(const int *)y];
	if (a->s != c->s)
		return a->s < c->s ? -1 : 1;
	return *(const int *)x < *(const int *)y ? -1 : 1;
}

/* Rank ri's protos of step k on its step thread, by start. */
static void step_ops_of(const struct builder *b, int ri, int k, struct step_ops *o)
{
	o->ix = xcalloc(b->np + 1, sizeof *o->ix);
	o->n = 0;
	for (size_t i = 0; i < b->np; i++)
		if (b->p[i].rank_i == ri && b->p[i].step == k && b->p[i].lane == b->main_lane[ri])
			o->ix[o->n++] = (int)i;
	qsort_r(o->ix, o->n, sizeof *o->ix, by_proto_start, (void *)b);
}

/* What a step of a rank holds for the bucket change. */
struct step_part {
	int layers[MAX_LAYERS], nlayers; /* backward's layer ranges, as run */
	int colls[MAX_COLLS], ncolls;    /* the step thread's collectives */
	int after;                       /* the first proto after the last collective, -1: none */
	double bytes;                    /* the layers' gradient bytes */
	int unsized;                     /* layers without their gradient bytes */
};

static int step_part_of(const struct builder *b, const struct step_ops *o, struct step_part *sp)
{
	memset(sp, 0, sizeof *sp);
	sp->after = -1;
	for (size_t j = 0; j < o->n; j++) {
		const struct proto *p = &b->p[o->ix[j]];
		if (p->kind == RNODE_COLL) {
			if (sp->ncolls == MAX_COLLS)
				return err_set(ERR_USAGE, "a step has more than %d collectives on its step thread",
					       MAX_COLLS);
			sp->colls[sp->ncolls++] = o->ix[j];
			sp->after = -1;
		} else if (is_layer(b, p) && sp->ncolls == 0) {
			if (sp->nlayers == MAX_LAYERS)
				return err_set(ERR_USAGE, "a step has more than %d backward layer ranges",
					       MAX_LAYERS);
			sp->layers[sp->nlayers++] = o->ix[j];
			sp->bytes += p->grad_bytes;
			sp->unsized += p->grad_bytes <= 0;
		} else if (sp->ncolls && sp->after < 0) {
			sp->after = o->ix[j];
		}
	}
	if (sp->ncolls && (!sp->nlayers || sp->unsized))
		return err_set(ERR_USAGE,
			       "its traces have no backward layer ranges with gradient sizes (" LAYER_PREFIX
			       "<k>, args.grad_bytes) to know when each gradient is ready");
	return 0;
}

/* The layer (position in sp->layers) that ends each bucket, from the last layer run first:
 * a bucket closes once it holds bucket_bytes of gradients. */
static int bucket_plan(const struct builder *b, const struct step_part *sp, double cap,
		       int *ends)
{
	int n = 0;
	double acc = 0;
	for (int j = 0; j < sp->nlayers; j++) {
		acc += b->p[sp->layers[j]].grad_bytes;
		if (acc >= cap || j == sp->nlayers - 1) {
			ends[n++] = j;
			acc = 0;
		}
	}
	return n;
}

/* A collective's transfer cost as the bucket change counts it (CPU demand on one host, else
 * its time). */
static double coll_cost(const struct proto *p, const double *cost, size_t i)
{
	return p->on_host ? cost[i] : (p->e - p->s) / 1000;
}

/* The transfer model the buckets' costs follow: cost = a + b x bytes, by least squares over
 * the step threads' collectives (each a rank's), when their sizes span a factor of 2 and
 * every one's size is known: a per-call cost that fewer, larger collectives pay less often.
 * A negative a or b falls back to the nearest model without it. fit_colls 0: none. */
static void fit_transfers(struct builder *b, const double *cost, double *a, double *bb)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, lo = 0, hi = 0;
	size_t n = 0;
	for (size_t i = 0; i < b->np; i++) {
		const struct proto *p = &b->p[i];
		if (p->kind != RNODE_COLL || p->step < 0 || p->lane != b->main_lane[p->rank_i])
			continue;
		if (p->msg_bytes <= 0)
			return; /* a size unknown: no model */
		double x = p->msg_bytes, y = coll_cost(p, cost, i);
		lo = n && lo < x ? lo : x;
		hi = hi > x ? hi : x;
		sx += x, sy += y, sxx += x * x, sxy += x * y, n++;
	}
	if (n < 2 || hi < 2 * lo)
		return;
	double mx = sx / (double)n, my = sy / (double)n;
	*bb = (sxy - (double)n * mx * my) / (sxx - (double)n * mx * mx);
	*a = my - *bb * mx;
	if (*a < 0)
		*a = 0, *bb = sy / sx;
	if (*bb < 0)
		*bb = 0, *a = my;
	b->info.fit_colls = n;
	b->info.per_call_ms = *a;
	b->info.ms_per_mib = *bb * 1024 * 1024;
}

/* The step's collectives become no-ops (their edges kept: the step thread goes on past
 * them); returns the rank's transfer cost over them (CPU demand on one host, else time). */
static double drop_colls(struct builder *b, const struct step_part *sp, const double *cost,
			 int *on_host)
{
	double total = 0;
	*on_host = 0;
	for (int c = 0; c < sp->ncolls; c++) {
		struct proto *p = &b->p[sp->colls[c]];
		*on_host |= p->on_host;
		total += coll_cost(p, cost, (size_t)sp->colls[c]);
		p->kind = RNODE_CPU;
		p->on_host = 0;
		p->coll = -1;
		p->fixed = 1;
		p->cost_ms = 0;
	}
	return total;
}

/* The transfer model's cost of the step's collectives as run (a, bb not both 0). */
static double modelled(const struct builder *b, const struct step_part *sp, double a,
		       double bb)
{
	double sum = 0;
	for (int c = 0; c < sp->ncolls; c++)
		sum += a + bb * b->p[sp->colls[c]].msg_bytes;
	return sum;
}

/* Rank ri's buckets for step k on its communication lane, chained after *prev: the rank's
 * measured transfer over the step's collectives, shared out by the transfer model (a, bb). */
static void add_buckets(struct builder *b, const struct step_part *sp, const int *ends, int nb,
			int64_t id0, int lane, int *prev, const double *cost, double a, double bb)
{
	int on_host;
	const struct proto *first = &b->p[sp->colls[0]];
	struct proto q = *first;
	double as_run = a > 0 || bb > 0 ? modelled(b, sp, a, bb) : 0;
	double total = drop_colls(b, sp, cost, &on_host);
	for (int k = 0, from = 0; k < nb; k++) {
		const struct proto *end = &b->p[sp->layers[ends[k]]];
		double by = 0;
		for (int j = from; j <= ends[k]; j++)
			by += b->p[sp->layers[j]].grad_bytes;
		from = ends[k] + 1;
		q.kind = RNODE_COLL, q.lane = lane, q.on_host = on_host, q.fixed = 1;
		q.coll = id0 + k, q.seq = k, q.s = q.e = end->e;
		q.cost_ms = as_run > 0 ? total * (a + bb * by) / as_run : total * by / sp->bytes;
		int i = replay_proto_add(b, &q);
		replay_proto_edge(b, sp->layers[ends[k]], i, 0);
		if (*prev >= 0)
			replay_proto_edge(b, *prev, i, 0);
		*prev = i;
		b->info.buckets++;
	}
	if (sp->after >= 0)
		replay_proto_edge(b, *prev, sp->after, 0);
}

/* The plan of the first rank's step k, which every rank follows: the same layers end the
 * same buckets, so the ranks' buckets are instances of one another. */
static int apply_step(struct builder *b, int k, int64_t id0, const int *lanes, int *prev,
		      const double *cost, double a, double bb)
{
	int ends[MAX_LAYERS], nb = 0, layers = -1, rc = 0;
	for (size_t r = 0; r < b->in->n && rc >= 0; r++) {
		struct step_ops o;
		struct step_part sp;
		step_ops_of(b, (int)r, k, &o);
		rc = step_part_of(b, &o, &sp);
		free(o.ix);
		if (rc < 0 || !sp.ncolls)
			continue;
		if (layers < 0) {
			layers = sp.nlayers;
			nb = bucket_plan(b, &sp, b->in->change->bucket_bytes, ends);
		} else if (sp.nlayers != layers) {
			return err_set(ERR_USAGE, "its ranks ran different layers in step %d", k);
		}
		add_buckets(b, &sp, ends, nb, id0, lanes[r], &prev[r], cost, a, bb);
		b->info.moved_colls += (size_t)sp.ncolls;
	}
	return rc;
}

static int change_buckets(struct builder *b, const double *cost)
{
	int64_t id0 = 1;
	int steps = 0, rc = 0;
	for (size_t i = 0; i < b->np; i++) {
		id0 = b->p[i].coll >= id0 ? b->p[i].coll + 1 : id0;
		steps = b->p[i].step + 1 > steps ? b->p[i].step + 1 : steps;
	}
	double a = 0, bb = 0;
	fit_transfers(b, cost, &a, &bb);
	if (!b->info.fit_colls && b->in->change->all_per_call)
		a = 1; /* every call costs the same, whatever its bytes */
	int *lanes = xcalloc(b->in->n + 1, sizeof *lanes);
	int *prev = xcalloc(b->in->n + 1, sizeof *prev);
	for (size_t r = 0; r < b->in->n && rc >= 0; r++) {
		prev[r] = -1;
		/* a thread of its own, known by an id no trace gives (tids are >= 0) */
		rc = lanes[r] = rgraph_add_lane(b->g, RLANE_THREAD, b->in->ranks[r].rank, -1);
	}
	for (int k = 0; k < steps && rc >= 0; k++)
		rc = apply_step(b, k, id0 + (int64_t)k * MAX_LAYERS, lanes, prev, cost, a, bb);
	free(lanes);
	free(prev);
	if (rc >= 0 && !b->info.moved_colls)
		rc = err_set(ERR_USAGE, "no collective runs on its step thread: the all-reduce is already overlapped with backward");
	return rc < 0 ? rc : 0;
}

#define CHECKPOINT_NAME "checkpoint"

/* One step of every `every` keeps its checkpoint; the others' become no-ops (their edges
 * kept). Refused without any checkpoint range on a step thread. */
static int change_checkpoints(struct builder *b)
{
	size_t seen = 0;
	for (size_t i = 0; i < b->np; i++) {
		struct proto *p = &b->p[i];
		if (p->kind != RNODE_CPU || p->step < 0 || p->lane != b->main_lane[p->rank_i] ||
		    strcmp(name_of(b, p), CHECKPOINT_NAME))
			continue;
		seen++;
		if ((p->step + 1) % b->in->change->every == 0)
			continue;
		p->fixed = 1;
		p->cost_ms = 0;
		b->info.dropped++;
	}
	if (!seen)
		return err_set(ERR_USAGE, "its traces have no " CHECKPOINT_NAME " range on a step thread (the reference trainer's)");
	if (!b->info.dropped)
		return err_set(ERR_USAGE, "it checkpoints once in %d steps or less often already",
			       b->in->change->every);
	return 0;
}

int replay_change_apply(struct builder *b, double **cost)
{
	size_t before = b->np;
	int rc = 0;
	switch (b->in->change->kind) {
	case REPLAY_CHANGE_BUCKETS:
		rc = change_buckets(b, *cost);
		break;
	case REPLAY_CHANGE_CHECKPOINTS:
		rc = change_checkpoints(b);
		break;
	}
	/* one entry per proto; the protos a change adds carry their own cost (fixed) */
	*cost = xrealloc(*cost, (b->np + 1) * sizeof **cost);
	memset(*cost + before, 0, (b->np + 1 - before) * sizeof **cost);
	return rc;
}
