/* replay_change: the changes a recommendation makes to a replay graph before it is replayed
 * (Daydream's transformation primitives; docs/analysis.md, "Transformations"). It works on
 * the builder's protos (replay_proto.h), after their measured costs are known. */
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
		total += p->on_host ? cost[sp->colls[c]] : (p->e - p->s) / 1000;
		p->kind = RNODE_CPU;
		p->on_host = 0;
		p->coll = -1;
		p->fixed = 1;
		p->cost_ms = 0;
	}
	return total;
}

/* Rank ri's buckets for step k on its communication lane, chained after *prev. */
static void add_buckets(struct builder *b, const struct step_part *sp, const int *ends, int nb,
			int64_t id0, int lane, int *prev, const double *cost)
{
	int on_host;
	const struct proto *first = &b->p[sp->colls[0]];
	struct proto q = *first;
	double total = drop_colls(b, sp, cost, &on_host);
	for (int k = 0, from = 0; k < nb; k++) {
		const struct proto *end = &b->p[sp->layers[ends[k]]];
		double by = 0;
		for (int j = from; j <= ends[k]; j++)
			by += b->p[sp->layers[j]].grad_bytes;
		from = ends[k] + 1;
		q.kind = RNODE_COLL, q.lane = lane, q.on_host = on_host, q.fixed = 1;
		q.coll = id0 + k, q.seq = k, q.s = q.e = end->e;
		q.cost_ms = total * by / sp->bytes;
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
		      const double *cost)
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
		add_buckets(b, &sp, ends, nb, id0, lanes[r], &prev[r], cost);
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
	int *lanes = xcalloc(b->in->n + 1, sizeof *lanes);
	int *prev = xcalloc(b->in->n + 1, sizeof *prev);
	for (size_t r = 0; r < b->in->n && rc >= 0; r++) {
		prev[r] = -1;
		/* a thread of its own, known by an id no trace gives (tids are >= 0) */
		rc = lanes[r] = rgraph_add_lane(b->g, RLANE_THREAD, b->in->ranks[r].rank, -1);
	}
	for (int k = 0; k < steps && rc >= 0; k++)
		rc = apply_step(b, k, id0 + (int64_t)k * MAX_LAYERS, lanes, prev, cost);
	free(lanes);
	free(prev);
	if (rc >= 0 && !b->info.moved_colls)
		rc = err_set(ERR_USAGE, "no collective runs on its step thread: the all-reduce is already overlapped with backward");
	return rc < 0 ? rc : 0;
}

int replay_change_apply(struct builder *b, double **cost)
{
	size_t before = b->np;
	int rc = 0;
	switch (b->in->change->kind) {
	case REPLAY_CHANGE_BUCKETS:
		rc = change_buckets(b, *cost);
		break;
	}
	/* one entry per proto; the protos a change adds carry their own cost (fixed) */
	*cost = xrealloc(*cost, (b->np + 1) * sizeof **cost);
	memset(*cost + before, 0, (b->np + 1 - before) * sizeof **cost);
	return rc;
}
