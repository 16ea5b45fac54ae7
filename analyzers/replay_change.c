/* replay_change: the changes a recommendation makes to a replay graph before it is replayed
 * (Daydream's transformation primitives; docs/analysis.md, "Transformations"). It works on
 * the builder's protos (replay_proto.h), after their measured costs are known.
 * SPDX-License-Identifier: MIT */
#include "analyzers/replay_proto.h"
#include "analyzers/collective.h"
#include "analyzers/phases.h"

#include "analyzers/replay/graph.h"
#include "analyzers/stats.h"
#include "util/err.h"
#include "util/sort.h"
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

/* By rank, step_arg, then start. */
static int by_batch(const void *x, const void *y, void *ctx)
{
	const struct builder *b = ctx;
	const struct proto *p = &b->p[*(const int *)x], *q = &b->p[*(const int *)y];
	if (p->rank_i != q->rank_i)
		return p->rank_i < q->rank_i ? -1 : 1;
	if (p->step_arg != q->step_arg)
		return p->step_arg < q->step_arg ? -1 : 1;
	return (p->s > q->s) - (p->s < q->s);
}

/* The protos of which(b, proto), sorted by batch: their indexes, *n of them. */
static int *protos_where(struct builder *b, int (*which)(const struct builder *,
							 const struct proto *), size_t *n)
{
	int *ix = xcalloc(b->np + 1, sizeof *ix);
	*n = 0;
	for (size_t i = 0; i < b->np; i++)
		if (which(b, &b->p[i]))
			ix[(*n)++] = (int)i;
	qsort_r(ix, *n, sizeof *ix, by_batch, b);
	return ix;
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
				return err_set(
					ERR_USAGE,
					"a step has more than %d collectives on its step thread",
					MAX_COLLS);
			sp->colls[sp->ncolls++] = o->ix[j];
			sp->after = -1;
		} else if (is_layer(b, p) && sp->ncolls == 0) {
			if (sp->nlayers == MAX_LAYERS)
				return err_set(ERR_USAGE,
					       "a step has more than %d backward layer ranges",
					       MAX_LAYERS);
			sp->layers[sp->nlayers++] = o->ix[j];
			sp->bytes += p->grad_bytes;
			sp->unsized += p->grad_bytes <= 0;
		} else if (sp->ncolls && sp->after < 0) {
			sp->after = o->ix[j];
		}
	}
	if (sp->ncolls && (!sp->nlayers || sp->unsized))
		return err_set(
			ERR_USAGE,
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
	b->info.fit_max_bytes = hi;
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
		if (by > b->info.bucket_max_bytes)
			b->info.bucket_max_bytes = by;
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

/* Whether p is an all-reduce another thread ran in a step (DDP's, on gloo's thread). */
static int is_off_thread_allreduce(const struct builder *b, const struct proto *p)
{
	return p->kind == RNODE_COLL && p->op == COLL_ALL_REDUCE && p->step >= 0 &&
	       p->lane != b->main_lane[p->rank_i];
}

static int is_backward(const struct builder *b, const struct proto *p)
{
	const int *ph = b->in->ranks[p->rank_i].phase;
	return p->kind == RNODE_CPU && p->name >= 0 && ph && ph[p->name] == PH_BACKWARD;
}

/* Rank ri's step-thread proto that ended last before its first backward range of step k
 * (the phases') started: where backward begins; -1 none (no backward in the step, or
 * nothing before it on the step thread). */
static int before_backward(const struct builder *b, int ri, int k)
{
	struct step_ops o;
	double s = -1;
	int at = -1;
	step_ops_of(b, ri, k, &o);
	for (size_t j = 0; j < o.n && s < 0; j++)
		if (is_backward(b, &b->p[o.ix[j]]))
			s = b->p[o.ix[j]].s;
	free(o.ix);
	for (size_t i = 0; s >= 0 && i < b->np; i++) {
		const struct proto *p = &b->p[i];
		if (p->rank_i == ri && p->lane == b->main_lane[ri] && p->e <= s &&
		    (at < 0 || p->e > b->p[at].e))
			at = (int)i;
	}
	return at;
}

/* Per proto: 1 for an off-thread all-reduce that a backward range handed off (an edge from
 * one into it: DDP's hook launched it); what the early change moves. */
static unsigned char *launched_by_backward(const struct builder *b)
{
	unsigned char *mark = xcalloc(b->np + 1, 1);
	for (size_t i = 0; i < b->ne; i++) {
		const struct proto *from = &b->p[b->e[i].from], *to = &b->p[b->e[i].to];
		if (is_off_thread_allreduce(b, to) && from->lane != to->lane &&
		    is_backward(b, from))
			mark[b->e[i].to] = 1;
	}
	return mark;
}

/* Each off-thread all-reduce a backward range handed off (DDP's buckets; not one issued
 * before backward or after it, as a loss's) started as soon as its rank's backward begins,
 * after what ran before it on its thread without the idle time between them: the earliest that
 * smaller buckets can start it (REPLAY_CHANGE_BUCKETS where DDP already overlaps it: a
 * bound, info.early). Its transfer stays what it measured. */
static int change_early_allreduce(struct builder *b)
{
	size_t n = 0;
	int *ix = protos_where(b, is_off_thread_allreduce, &n);
	for (size_t r = 0; r < b->in->n; r++)
		if (!b->in->ranks[r].phase)
			n = 0; /* backward is not known */
	unsigned char *moved = launched_by_backward(b);
	int *start = xcalloc(n + 1, sizeof *start);
	/* where backward begins, found once per rank and step (ix is by rank, then start) */
	int at_rank = -1, at_step = -1, at = -1;
	for (size_t i = 0; i < n; i++) {
		const struct proto *p = &b->p[ix[i]];
		if (moved[ix[i]] && (p->rank_i != at_rank || p->step != at_step)) {
			at_rank = p->rank_i, at_step = p->step;
			at = before_backward(b, at_rank, at_step);
		}
		start[i] = moved[ix[i]] ? at : -1;
		moved[ix[i]] = start[i] >= 0;
	}
	size_t kept = 0;
	for (size_t i = 0; i < b->ne; i++) { /* what started them as measured goes; their */
		struct pedge *e = &b->e[i];  /* thread's order stays, without its idle time */
		if (moved[e->to] && b->p[e->from].lane != b->p[e->to].lane)
			continue;
		if (moved[e->to])
			e->delay_us = 0;
		b->e[kept++] = *e;
	}
	b->ne = kept;
	for (size_t i = 0; i < n; i++)
		if (moved[ix[i]]) {
			replay_proto_edge(b, start[i], ix[i], 0);
			b->info.moved_colls++;
		}
	b->info.early = b->info.moved_colls > 0;
	free(ix);
	free(start);
	free(moved);
	return b->info.early
		? 0
		: err_set(ERR_USAGE,
			  "no collective runs on its step thread, nor an all-reduce on another thread after a backward range the phases know");
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
	if (b->in->change->proportional)
		a = bb = 0; /* (the fit's figures stay in info) */
	else if (!b->info.fit_colls && b->in->change->all_per_call)
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
		rc = change_early_allreduce(b);
	return rc < 0 ? rc : 0;
}

#define CHECKPOINT_NAME "checkpoint"

/* The parts of a checkpoint on a step thread: the reference trainer's (one range in traces
 * of its older versions, CK_WHOLE), the step thread's wait for an asynchronous write. */
enum ckpt_part { CK_NONE, CK_WHOLE, CK_SNAPSHOT, CK_WRITE, CK_FSYNC, CK_WAIT };

static enum ckpt_part ckpt_part_of(const struct builder *b, const struct proto *p)
{
	static const char *const parts[] = { [CK_SNAPSHOT] = "snapshot", [CK_WRITE] = "write",
					     [CK_FSYNC] = "fsync", [CK_WAIT] = "wait" };
	const char *nm = name_of(b, p), *n = CHECKPOINT_NAME;
	if (p->step < 0 || p->lane != b->main_lane[p->rank_i] || strncmp(nm, n, strlen(n)))
		return CK_NONE;
	nm += strlen(n);
	if (!*nm)
		return CK_WHOLE;
	for (int k = CK_SNAPSHOT; k <= CK_WAIT && *nm == ':'; k++)
		if (!strcmp(nm + 1, parts[k]))
			return (enum ckpt_part)k;
	return CK_NONE;
}

static int is_ckpt(const struct builder *b, const struct proto *p)
{
	return ckpt_part_of(b, p) != CK_NONE;
}

/* Each proto's edges out, in b->e's order: edge[first[i]] .. edge[first[i + 1] - 1]; valid
 * until edges are added or dropped. */
struct out_edges {
	size_t *first, *edge;
};

static void out_edges_of(const struct builder *b, struct out_edges *o)
{
	o->first = xcalloc(b->np + 2, sizeof *o->first);
	o->edge = xcalloc(b->ne + 1, sizeof *o->edge);
	for (size_t k = 0; k < b->ne; k++)
		o->first[b->e[k].from + 1]++;
	for (size_t i = 0; i < b->np; i++)
		o->first[i + 1] += o->first[i];
	size_t *at = xcalloc(b->np + 1, sizeof *at);
	for (size_t k = 0; k < b->ne; k++) {
		size_t f = (size_t)b->e[k].from;
		o->edge[o->first[f] + at[f]++] = k;
	}
	free(at);
}

static void out_edges_free(struct out_edges *o)
{
	free(o->first);
	free(o->edge);
}

/* Proto i costs nothing: a sleep's span, which its edges out (o) carry, taken off them. */
static void make_free(struct builder *b, size_t i, const struct out_edges *o)
{
	struct proto *p = &b->p[i];
	if (p->kind == RNODE_WAIT && p->sleep)
		for (size_t x = o->first[i]; x < o->first[i + 1]; x++) {
			struct pedge *e = &b->e[o->edge[x]];
			double d = e->delay_us - (p->e - p->s);
			e->delay_us = d > 0 ? d : 0;
		}
	p->sleep = 0;
	p->fixed = 1;
	p->cost_ms = 0;
}

/* The every-N part of the checkpoint change: one step of every `every` keeps its checkpoint,
 * the others' parts cost nothing (their edges kept); kept[i] marks the parts kept. */
static void thin_checkpoints(struct builder *b, const int *ix, size_t n, unsigned char *kept)
{
	struct out_edges o;
	out_edges_of(b, &o);
	for (size_t j = 0; j < n; j++) {
		const struct proto *p = &b->p[ix[j]];
		if ((p->step + 1 + b->in->change->phase) % b->in->change->every == 0) {
			kept[ix[j]] = 1;
			continue;
		}
		enum ckpt_part k = ckpt_part_of(b, p);
		make_free(b, (size_t)ix[j], &o);
		b->info.dropped += k == CK_WHOLE || k == CK_SNAPSHOT; /* (a checkpoint once) */
	}
	out_edges_free(&o);
}

/* The step-thread operation after i: the proto the first edge from i (o) leads to on i's
 * lane; -1. */
static int next_on_lane(const struct builder *b, int i, const struct out_edges *o)
{
	for (size_t x = o->first[i]; x < o->first[i + 1]; x++)
		if (b->p[b->e[o->edge[x]].to].lane == b->p[i].lane)
			return b->e[o->edge[x]].to;
	return -1;
}

/* Every edge into or out of a proto marked in moved dropped. */
static void drop_edges_of(struct builder *b, const unsigned char *moved)
{
	size_t n = 0;
	for (size_t i = 0; i < b->ne; i++)
		if (!moved[b->e[i].from] && !moved[b->e[i].to])
			b->e[n++] = b->e[i];
	b->ne = n;
}

static double delay_after(const struct proto *j, double s);

/* The lane id of a rank's checkpoint writer (loader threads are -2 - w, w < 256). */
#define WRITER_ID (-300)

/* One checkpoint made asynchronous: its write (w) and fsync (f) moved from the step thread
 * onto lane, after its snapshot (s), which waits for the write before it (*prev_f, -1: none);
 * the step thread goes on after the snapshot where it went on after the fsync (next). */
static void write_behind(struct builder *b, int s, int w, int f, int next, int lane, int *prev_f)
{
	struct proto *pw = &b->p[w], *pf = &b->p[f];
	if (next >= 0) {
		double gap = b->p[next].s - pf->e;
		replay_proto_edge(b, s, next, gap > 0 ? gap : 0);
	}
	pw->lane = pf->lane = lane;
	pw->step = pf->step = -1; /* in no step: the steps go on without them */
	replay_proto_edge(b, s, w, 0);
	replay_proto_edge(b, w, f, 0);
	if (*prev_f >= 0) /* one write in flight: the snapshot waits for the one before */
		replay_proto_edge(b, *prev_f, s, delay_after(&b->p[*prev_f], -1));
	*prev_f = f;
	b->info.async_writes++;
}

/* Why the asynchronous change does not apply to rank ri's checkpoint parts ix[lo, hi) of one
 * step (by start): 0 when they are a snapshot, its write and its fsync. */
static int async_refused(const struct builder *b, const int *ix, size_t lo, size_t hi)
{
	enum ckpt_part k[3] = { CK_NONE, CK_NONE, CK_NONE };
	for (size_t j = lo; j < hi && j - lo < 3; j++)
		k[j - lo] = ckpt_part_of(b, &b->p[ix[j]]);
	int rank = b->in->ranks[b->p[ix[lo]].rank_i].rank;
	if (hi - lo != 3 || k[0] != CK_SNAPSHOT || k[1] != CK_WRITE || k[2] != CK_FSYNC)
		return err_set(
			ERR_USAGE,
			"rank %d's checkpoints are not told apart into " CHECKPOINT_NAME
			":snapshot, :write and :fsync (each is one range: %s), so the write cannot be moved off the step",
			rank,
			"a script's own, or the reference trainer's before it told them apart");
	return 0;
}

/* The end of the group of parts ix[lo, ...) of one rank and step (the step they start in). */
static size_t step_group_end(const struct builder *b, const int *ix, size_t n, size_t lo)
{
	size_t hi = lo + 1;
	while (hi < n && b->p[ix[hi]].rank_i == b->p[ix[lo]].rank_i &&
	       b->p[ix[hi]].step == b->p[ix[lo]].step)
		hi++;
	return hi;
}

/* One checkpoint's use of its host's storage: from its write's start to its fsync's end (µs,
 * the first rank's clock). */
struct storage_use {
	int step, host;
	double s, e;
};

static int by_step_host_start(const void *x, const void *y)
{
	const struct storage_use *a = x, *c = y;
	if (a->step != c->step)
		return a->step < c->step ? -1 : 1;
	if (a->host != c->host)
		return a->host < c->host ? -1 : 1;
	return (a->s > c->s) - (a->s < c->s);
}

/* Per step, the time the busiest host's storage was in use by a checkpoint (the union of its
 * ranks' uses), u[0..steps) (ms); how many steps. */
static size_t storage_busy(struct storage_use *u, size_t n, double *busy)
{
	size_t steps = 0;
	int last = -1;
	sort_runs(u, n, sizeof *u, by_step_host_start);
	for (size_t i = 0, j; i < n; i = j) { /* each host's uses in a step: their union */
		double total = 0, s = u[i].s, e = u[i].e;
		for (j = i + 1; j < n && u[j].step == u[i].step && u[j].host == u[i].host; j++) {
			if (u[j].s > e)
				total += e - s, s = u[j].s;
			e = u[j].e > e ? u[j].e : e;
		}
		total = (total + e - s) / 1000;
		if (!steps || u[i].step != last)
			busy[steps++] = total, last = u[i].step;
		else if (total > busy[steps - 1])
			busy[steps - 1] = total;
	}
	return steps;
}

/* Into b->info, the time the busiest host's storage was in use by the kept checkpoints (ix, n
 * of them, by rank, step and start; each a snapshot, its write, its fsync): per step over
 * the traced steps (its mean), and its median over the checkpoints where every traced step
 * kept one (else 0). Asynchronous checkpoints overlap training, not each other's use of the
 * storage. */
static void storage_floor(struct builder *b, const int *ix, size_t n, const unsigned char *kept)
{
	struct storage_use *u = xcalloc(n + 1, sizeof *u);
	double *busy = xcalloc(n + 1, sizeof *busy);
	size_t k = 0, steps;
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		hi = step_group_end(b, ix, n, lo);
		if (!kept[ix[lo]]) /* (a kept one is a snapshot, its write, its fsync) */
			continue;
		const struct proto *w = &b->p[ix[lo + 1]], *f = &b->p[ix[lo + 2]];
		double off = b->info.offset_us[w->rank_i];
		u[k++] = (struct storage_use){ w->step, b->in->ranks[w->rank_i].host, w->s - off,
					       f->e - off };
	}
	steps = storage_busy(u, k, busy);
	int traced = 0;
	for (size_t r = 0; r < b->in->n; r++)
		traced = b->in->ranks[r].nsteps > traced ? b->in->ranks[r].nsteps : traced;
	b->info.storage_busy_mean_ms = steps && traced ? stats_mean(busy, steps) * (double)steps /
								 (double)traced
						       : 0;
	b->info.storage_busy_ms =
		steps && steps == (size_t)traced ? stats_percentile_unordered(busy, steps, 50) : 0;
	free(u);
	free(busy);
}

/* The asynchronous part of the checkpoint change on the kept parts (ix, n of them, by rank,
 * step and start): each rank's writes on a thread of its own (write_behind). */
static int async_checkpoints(struct builder *b, const int *ix, size_t n, const unsigned char *kept)
{
	unsigned char *moved = xcalloc(b->np + 1, 1);
	int *next = xcalloc(n + 1, sizeof *next), rc = 0, lane = -1, lane_ri = -1, prev_f = -1;
	struct out_edges o;
	out_edges_of(b, &o);
	for (size_t lo = 0, hi; rc >= 0 && lo < n; lo = hi) { /* each step's parts checked */
		hi = step_group_end(b, ix, n, lo);
		if (kept[ix[lo]] && (rc = async_refused(b, ix, lo, hi)) >= 0) {
			next[lo] = next_on_lane(b, ix[lo + 2], &o);
			moved[ix[lo + 1]] = moved[ix[lo + 2]] = 1;
		}
	}
	out_edges_free(&o);
	if (rc >= 0) {
		storage_floor(b, ix, n, kept);
		drop_edges_of(b, moved);
	}
	for (size_t lo = 0, hi; rc >= 0 && lo < n; lo = hi) {
		hi = step_group_end(b, ix, n, lo);
		int ri = b->p[ix[lo]].rank_i;
		if (!kept[ix[lo]])
			continue;
		if (ri != lane_ri) { /* the rank's writer: a thread known by an id no trace gives */
			rc = lane = rgraph_add_lane(b->g, RLANE_THREAD, b->in->ranks[ri].rank,
						    WRITER_ID);
			lane_ri = ri, prev_f = -1;
		}
		if (rc >= 0)
			write_behind(b, ix[lo], ix[lo + 1], ix[lo + 2], next[lo], lane, &prev_f);
	}
	free(moved);
	free(next);
	return rc < 0 ? rc : 0;
}

/* The rank index of the first rank whose checkpoints are written off its step thread (its
 * wait for the write in flight, or a write on another thread: a wait of no length is no
 * range of its own), -1 none. */
static int written_behind(const struct builder *b)
{
	for (size_t i = 0; i < b->np; i++) {
		const struct proto *p = &b->p[i];
		const char *nm = name_of(b, p);
		if ((p->lane == b->main_lane[p->rank_i] && !strcmp(nm, CHECKPOINT_NAME ":wait")) ||
		    (p->lane != b->main_lane[p->rank_i] && !strcmp(nm, CHECKPOINT_NAME ":write")))
			return p->rank_i;
	}
	return -1;
}

/* REPLAY_CHANGE_CHECKPOINTS: the checkpoints thinned to one step of every `every`, then,
 * with async, each one kept written on a thread of its own. Refused without a checkpoint on
 * a step thread, where they are asynchronous already, or where it changes nothing. */
static int change_checkpoints(struct builder *b)
{
	const struct replay_change *ch = b->in->change;
	size_t n;
	int *ix = protos_where(b, is_ckpt, &n), rc = 0, behind = written_behind(b);
	unsigned char *kept = xcalloc(b->np + 1, 1);
	if (behind >= 0)
		rc = err_set(ERR_USAGE, "rank %d writes its checkpoints asynchronously already",
			     b->in->ranks[behind].rank);
	else if (!n)
		rc = err_set(ERR_USAGE, "its traces have no " CHECKPOINT_NAME
					" range on a step thread (the reference trainer's)");
	if (rc >= 0)
		thin_checkpoints(b, ix, n, kept);
	if (rc >= 0 && ch->async)
		rc = async_checkpoints(b, ix, n, kept);
	else if (rc >= 0 && !b->info.dropped)
		rc = err_set(ERR_USAGE, "it checkpoints once in %d steps or less often already",
			     ch->every);
	free(ix);
	free(kept);
	return rc < 0 ? rc : 0;
}

#define LOADER_PREFIX "loader:"
#define WAIT_NAME "wait_for_batch"
#define RELEASE_NAME "optimizer" /* the trainer releases a step's batch slot after it */

/* A loader thread's range that names its batch (the reference trainer's). */
static int is_loader(const struct builder *b, const struct proto *p)
{
	return p->lane != b->main_lane[p->rank_i] && p->step_arg >= 0 &&
	       !strncmp(name_of(b, p), LOADER_PREFIX, sizeof LOADER_PREFIX - 1);
}

static int is_wait_or_release(const struct builder *b, const struct proto *p)
{
	return p->lane == b->main_lane[p->rank_i] && p->step_arg >= 0 &&
	       (!strcmp(name_of(b, p), WAIT_NAME) || !strcmp(name_of(b, p), RELEASE_NAME));
}

/* Rank ri's step-thread proto `name` of step `step` among ix (by_batch order); -1 none. */
static int step_op(const struct builder *b, const int *ix, size_t n, int ri, long step,
		   const char *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct proto *p = &b->p[ix[mid]];
		if (p->rank_i < ri || (p->rank_i == ri && p->step_arg < step))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && b->p[ix[lo]].rank_i == ri && b->p[ix[lo]].step_arg == step; lo++)
		if (!strcmp(name_of(b, &b->p[ix[lo]]), name))
			return ix[lo];
	return -1;
}

/* Every edge into or out of a loader range (ix, n of them) dropped: the change makes their
 * own. */
static void drop_loader_edges(struct builder *b, const int *ix, size_t n)
{
	unsigned char *loader = xcalloc(b->np + 1, 1);
	for (size_t i = 0; i < n; i++)
		loader[ix[i]] = 1;
	drop_edges_of(b, loader);
	free(loader);
}

/* The delay of an edge from j to what starts at s (µs; s < 0: as soon as j ends): a
 * sleep's span is its edges' (it holds no time of its own), and the measured idle gap. */
static double delay_after(const struct proto *j, double s)
{
	double d = j->sleep ? j->e - j->s : 0;
	return s >= 0 && s > j->e ? d + (s - j->e) : d;
}

/* Where rank ri's replay starts: its first operation's start (µs; a range that ran across
 * its first step's start is cut there). */
static double rank_start(const struct builder *b, int ri)
{
	double s = 1e300;
	for (size_t i = 0; i < b->np; i++)
		if (b->p[i].rank_i == ri && b->p[i].s < s)
			s = b->p[i].s;
	return s;
}

/* How many loader threads (lanes) rank ri's loader ranges ran on. */
static size_t loaders_of(const struct builder *b, const int *ix, size_t n, int ri)
{
	int seen[256]; /* the trainer runs at most 256 */
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		int lane = b->p[ix[i]].lane, j = 0;
		if (b->p[ix[i]].rank_i != ri)
			continue;
		while (j < (int)k && seen[j] != lane)
			j++;
		if (j == (int)k && k < sizeof seen / sizeof *seen)
			seen[k++] = lane;
	}
	return k;
}

/* One batch, loader protos ix[lo, hi) of one rank, onto lane after *last: its ranges
 * chained as measured, started once step batch - depth released its slot, and the step
 * thread's wait for it ended by its last range. */
static void place_batch(struct builder *b, const int *ix, size_t lo, size_t hi, int lane,
			int *last, const int *steps, size_t nsteps)
{
	const struct proto *first = &b->p[ix[lo]];
	int ri = first->rank_i, depth = b->in->change->depth;
	for (size_t i = lo; i < hi; i++) {
		b->p[ix[i]].lane = lane;
		if (i > lo)
			replay_proto_edge(b, ix[i - 1], ix[i],
					  delay_after(&b->p[ix[i - 1]], b->p[ix[i]].s));
	}
	if (*last >= 0)
		replay_proto_edge(b, *last, ix[lo], delay_after(&b->p[*last], -1));
	else if (b->origin[ri] >= 0) /* a new thread starts with its rank (rank_starts) */
		replay_proto_edge(b, b->origin[ri], ix[lo], b->origin_us[ri]);
	int rel = step_op(b, steps, nsteps, ri, first->step_arg - depth, RELEASE_NAME);
	if (rel >= 0)
		replay_proto_edge(b, rel, ix[lo], 0);
	int wait = step_op(b, steps, nsteps, ri, first->step_arg, WAIT_NAME);
	if (wait >= 0)
		replay_proto_edge(b, ix[hi - 1], wait, delay_after(&b->p[ix[hi - 1]], -1));
	*last = ix[hi - 1];
	b->info.batches++;
}

/* Rank ri's `workers` new loader threads into lanes, none of them with a batch yet (last):
 * each a thread of its own, known by an id no trace gives. */
static int new_threads(struct builder *b, int ri, int workers, int *lanes, int *last)
{
	int rc = 0;
	for (int w = 0; w < workers && rc >= 0; w++) {
		last[w] = -1;
		rc = lanes[w] = rgraph_add_lane(b->g, RLANE_THREAD, b->in->ranks[ri].rank, -2 - w);
	}
	return rc;
}

/* A user's DataLoader loading in the training process: a step-thread range of the
 * data-loading phase, one per batch (PyTorch's _SingleProcessDataLoaderIter.__next__). */
#define SINGLE_PROCESS_ITER "_SingleProcessDataLoaderIter"
#define MULTI_PROCESS_ITER "_MultiProcessingDataLoaderIter"

static int is_user_loader(const struct builder *b, const struct proto *p)
{
	return p->kind == RNODE_CPU && p->step >= 0 && p->lane == b->main_lane[p->rank_i] &&
	       strstr(name_of(b, p), SINGLE_PROCESS_ITER);
}

/* Why the user loader change does not apply to ix (n of them, by rank then start): none,
 * a DataLoader with workers already, or more than one batch a step; 0: it applies. */
static int user_loaders_refused(const struct builder *b, const int *ix, size_t n)
{
	for (size_t i = 0; !n && i < b->np; i++)
		if (b->p[i].lane == b->main_lane[b->p[i].rank_i] &&
		    strstr(name_of(b, &b->p[i]), MULTI_PROCESS_ITER))
			return err_set(
				ERR_USAGE,
				"its DataLoader loads in worker processes already (" MULTI_PROCESS_ITER
				")");
	if (!n)
		return err_set(
			ERR_USAGE,
			"its traces have no loader ranges: neither the reference trainer's (" LOADER_PREFIX
			"decode, " LOADER_PREFIX
			"read) nor a DataLoader's loading in the training process (" SINGLE_PROCESS_ITER
			".__next__ on the step thread)");
	for (size_t i = 1; i < n; i++)
		if (b->p[ix[i]].rank_i == b->p[ix[i - 1]].rank_i &&
		    b->p[ix[i]].step == b->p[ix[i - 1]].step)
			return err_set(
				ERR_USAGE,
				"rank %d takes more than one batch from its DataLoader in a step",
				b->in->ranks[b->p[ix[i]].rank_i].rank);
	return b->in->change->workers > 256
		       ? err_set(ERR_USAGE, "%d DataLoader workers: the replay makes at most 256",
				 b->in->change->workers)
		       : 0;
}

static int ranks_on_host(const struct builder *b, int host)
{
	int n = 0;
	for (size_t r = 0; r < b->in->n; r++)
		n += b->in->ranks[r].host == host;
	return n;
}

/* Each host's busy cores (job_cores) over its ranks' mean step window, less the demand of
 * their other CPU work in the steps, summed; into *rest, the loader ranges' demand into
 * *load (marked in loader). */
static void cpu_budget(const struct builder *b, const double *cost, const unsigned char *loader,
		       double *rest, double *load)
{
	size_t nr = b->in->n;
	double *lo = xcalloc(nr + 1, sizeof *lo), *hi = xcalloc(nr + 1, sizeof *hi);
	for (size_t r = 0; r < nr; r++)
		lo[r] = 1e300, hi[r] = -1e300;
	*rest = *load = 0;
	for (size_t i = 0; i < b->np; i++) {
		const struct proto *p = &b->p[i];
		if (p->step < 0)
			continue;
		if (p->lane == b->main_lane[p->rank_i]) {
			lo[p->rank_i] = p->s < lo[p->rank_i] ? p->s : lo[p->rank_i];
			hi[p->rank_i] = p->e > hi[p->rank_i] ? p->e : hi[p->rank_i];
		}
		if (p->kind == RNODE_CPU || p->on_host) {
			if (loader[i])
				*load += cost[i];
			else
				*rest -= cost[i];
		}
	}
	for (size_t r = 0; r < nr; r++) {
		/* each rank's share of its host's busy cores: of the ranks launched there, or of
		 * those traced where more were */
		int on = ranks_on_host(b, b->in->ranks[r].host), all = b->in->change->host_ranks;
		if (hi[r] > lo[r])
			*rest += b->in->change->job_cores * (hi[r] - lo[r]) / 1000 /
				 (all > on ? all : on);
	}
	free(lo);
	free(hi);
}

/* The share of the loader ranges' (ix, n of them) CPU demand that was CPU work: what the
 * job's measured busy cores leave of the step window beyond the other work's demand, over
 * theirs (0 to 1); the change's cpu_share where the monitors did not measure it. */
static double loader_cpu_share(const struct builder *b, const double *cost, const int *ix,
			       size_t n)
{
	if (b->in->change->job_cores < 0)
		return b->in->change->cpu_share;
	unsigned char *loader = xcalloc(b->np + 1, 1);
	for (size_t i = 0; i < n; i++)
		loader[ix[i]] = 1;
	double rest, load;
	cpu_budget(b, cost, loader, &rest, &load);
	free(loader);
	double x = load > 0 ? rest / load : 1;
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* The pieces a user's batch is loaded in on its worker where part of it is CPU work and
 * part waiting: its samples interleave both, so its CPU demand is spread over its time (in
 * one piece, every worker's CPU work would fall at once). */
#define USER_BATCH_PIECES 16

/* Batch k of a rank's loader ranges (proto at, the step thread's range) onto worker lane
 * after *last (its trailing wait *idle): pieces of CPU work (share of its demand), each
 * followed by its part of the waiting; started once batch k - depth (slot, or -1) is taken;
 * the step thread waits for its end. */
static void place_user_batch(struct builder *b, int at, int slot, int lane, double cost,
			     double share, int *last, double *idle)
{
	struct proto q = b->p[at];
	int ri = q.rank_i, pieces = share > 0 && share < 1 ? USER_BATCH_PIECES : 1;
	double wait_us = (1 - share) * (q.e - q.s) / pieces;
	b->p[at].kind = RNODE_WAIT, b->p[at].sleep = 0;
	q.kind = RNODE_CPU, q.lane = lane, q.step = -1, q.fixed = 1;
	q.cost_ms = share * cost / pieces;
	for (int k = 0; k < pieces; k++) {
		int piece = replay_proto_add(b, &q);
		if (*last >= 0)
			replay_proto_edge(b, *last, piece, *idle);
		else if (b->origin[ri] >= 0) /* a new worker starts with its rank (rank_starts) */
			replay_proto_edge(b, b->origin[ri], piece, b->origin_us[ri]);
		if (k == 0 && slot >= 0) /* its slot taken */
			replay_proto_edge(b, slot, piece, 0);
		*last = piece, *idle = wait_us;
	}
	replay_proto_edge(b, *last, at, wait_us);
	b->info.batches++;
}

/* Rank ri's loader ranges ix[lo, hi) (by start, batch k the k-th) onto its new workers
 * (REPLAY_CHANGE_LOADERS of a user's DataLoader): the step thread waits where it loaded. */
static void place_user_batches(struct builder *b, const double *cost, const int *ix, size_t lo,
			       size_t hi, const int *lanes, double share)
{
	const struct replay_change *ch = b->in->change;
	int last[256], depth = ch->depth;
	double idle[256] = { 0 };
	for (int w = 0; w < ch->workers; w++)
		last[w] = -1;
	for (size_t k = 0; k < hi - lo; k++) {
		int w = (int)(k % (size_t)ch->workers);
		int slot = (int)k >= depth ? ix[lo + k - (size_t)depth] : -1;
		place_user_batch(b, ix[lo + k], slot, lanes[w], cost[ix[lo + k]], share, &last[w],
				 &idle[w]);
	}
}

/* REPLAY_CHANGE_LOADERS of a user's DataLoader (replay_build.h); refused where
 * user_loaders_refused says why. */
static int change_user_loaders(struct builder *b, const double *cost)
{
	const struct replay_change *ch = b->in->change;
	size_t n;
	int *ix = protos_where(b, is_user_loader, &n), rc = user_loaders_refused(b, ix, n);
	int *lanes = xcalloc((size_t)ch->workers + 1, sizeof *lanes);
	int *last = xcalloc((size_t)ch->workers + 1, sizeof *last);
	double share = rc < 0 ? 0 : loader_cpu_share(b, cost, ix, n);
	b->info.user_loader = 1, b->info.loader_cpu_share = share;
	for (size_t lo = 0, hi; rc >= 0 && lo < n; lo = hi) {
		int ri = b->p[ix[lo]].rank_i;
		for (hi = lo + 1; hi < n && b->p[ix[hi]].rank_i == ri; hi++)
			;
		rc = new_threads(b, ri, ch->workers, lanes, last);
		if (rc >= 0)
			place_user_batches(b, cost, ix, lo, hi, lanes, share);
	}
	free(ix);
	free(lanes);
	free(last);
	return rc < 0 ? rc : 0;
}

/* The loader ranges regrouped onto `workers` new threads per rank (REPLAY_CHANGE_LOADERS);
 * without the trainer's, a user's DataLoader given workers (change_user_loaders). */
static int change_loaders(struct builder *b, const double *cost)
{
	int workers = b->in->change->workers, rc = 0;
	size_t n, nsteps;
	double start = 0;
	if (workers < 1 || b->in->change->depth < 1)
		return err_set(ERR_USAGE, "no loader workers or prefetch depth to replay");
	int *ix = protos_where(b, is_loader, &n);
	if (!n) {
		free(ix);
		return change_user_loaders(b, cost);
	}
	int *steps = protos_where(b, is_wait_or_release, &nsteps);
	int *lanes = xcalloc((size_t)workers + 1, sizeof *lanes);
	int *last = xcalloc((size_t)workers + 1, sizeof *last);
	drop_loader_edges(b, ix, n);
	for (size_t lo = 0, hi; rc >= 0 && lo < n; lo = hi) {
		const struct proto *p = &b->p[ix[lo]];
		if (lo == 0 || p->rank_i != b->p[ix[lo - 1]].rank_i) { /* a rank's new threads */
			size_t k = loaders_of(b, ix, n, p->rank_i);
			start = rank_start(b, p->rank_i);
			b->info.loaders = k > b->info.loaders ? k : b->info.loaders;
			rc = new_threads(b, p->rank_i, workers, lanes, last);
		}
		for (hi = lo + 1; hi < n && b->p[ix[hi]].rank_i == p->rank_i &&
				  b->p[ix[hi]].step_arg == p->step_arg;
		     hi++)
			;
		int w = (int)(p->step_arg % workers);
		/* a batch begun before the replay's start is made already (its first ranges are
		 * not there to regroup): it costs nothing, and its thread starts with the next */
		if (p->s <= start)
			for (size_t i = lo; i < hi; i++)
				b->p[ix[i]].fixed = 1, b->p[ix[i]].cost_ms = 0;
		else if (rc >= 0)
			place_batch(b, ix, lo, hi, lanes[w], &last[w], steps, nsteps);
	}
	free(ix);
	free(steps);
	free(lanes);
	free(last);
	return rc < 0 ? rc : 0;
}

/* Whether rank index ri is one of the change's slow ranks. */
static int is_slow(const struct builder *b, int ri)
{
	const struct replay_change *ch = b->in->change;
	for (size_t k = 0; k < ch->nslow; k++)
		if (ch->slow_ranks[k] == b->in->ranks[ri].rank)
			return 1;
	return 0;
}

/* A step-thread CPU operation of a step: what the straggler change compares across ranks. */
static int is_step_work(const struct builder *b, const struct proto *p)
{
	return p->kind == RNODE_CPU && p->step >= 0 && p->lane == b->main_lane[p->rank_i];
}

/* By step, then name (an untraced gap's is ""), then rank. */
static int by_step_name(const void *x, const void *y, void *ctx)
{
	const struct builder *b = ctx;
	const struct proto *p = &b->p[*(const int *)x], *q = &b->p[*(const int *)y];
	if (p->step != q->step)
		return p->step < q->step ? -1 : 1;
	int c = strcmp(name_of(b, p), name_of(b, q));
	return c ? c : (p->rank_i > q->rank_i) - (p->rank_i < q->rank_i);
}

static double cost_of(const struct builder *b, const double *cost, int i)
{
	return b->p[i].fixed ? b->p[i].cost_ms : cost[i];
}

/* One operation of every rank's step (ix[lo, hi): one step, one name): each slow rank's
 * demand in it down to the median of the other ranks' (0 for a rank without it). */
static void trim_group(struct builder *b, const double *cost, const int *ix, size_t lo,
		       size_t hi, double *total, double *others)
{
	size_t n = b->in->n, m = 0;
	memset(total, 0, n * sizeof *total);
	for (size_t i = lo; i < hi; i++)
		total[b->p[ix[i]].rank_i] += cost_of(b, cost, ix[i]);
	for (size_t r = 0; r < n; r++)
		if (!is_slow(b, (int)r))
			others[m++] = total[r];
	double med = stats_percentile_unordered(others, m, 50);
	for (size_t i = lo; i < hi; i++) {
		struct proto *p = &b->p[ix[i]];
		double t = total[p->rank_i];
		if (!is_slow(b, p->rank_i) || t <= med)
			continue;
		p->cost_ms = cost_of(b, cost, ix[i]) * med / t;
		p->fixed = 1;
		b->info.trimmed++;
	}
}

/* Each slow rank's step-thread operations of each step down to the other ranks' median of
 * the same operation (REPLAY_CHANGE_STRAGGLERS): its excess removed, wherever it was.
 * Refused without a slow rank among the traces' or without another rank. */
static int change_stragglers(struct builder *b, const double *cost)
{
	size_t n = b->in->n, slow = 0, np;
	for (size_t r = 0; r < n; r++)
		slow += is_slow(b, (int)r);
	if (!slow || slow == n)
		return err_set(ERR_USAGE,
			       "its traces hold no straggler's rank beside another rank");
	int *ix = xcalloc(b->np + 1, sizeof *ix);
	np = 0;
	for (size_t i = 0; i < b->np; i++)
		if (is_step_work(b, &b->p[i]))
			ix[np++] = (int)i;
	qsort_r(ix, np, sizeof *ix, by_step_name, b);
	double *total = xcalloc(n + 1, sizeof *total), *others = xcalloc(n + 1, sizeof *others);
	for (size_t lo = 0, hi; lo < np; lo = hi) {
		const struct proto *p = &b->p[ix[lo]];
		for (hi = lo + 1; hi < np && b->p[ix[hi]].step == p->step &&
				  !strcmp(name_of(b, &b->p[ix[hi]]), name_of(b, p));
		     hi++)
			;
		trim_group(b, cost, ix, lo, hi, total, others);
	}
	free(ix);
	free(total);
	free(others);
	return 0;
}

/* Each host piece that ends at a launch at half its CPU demand (REPLAY_CHANGE_HOST). */
static int change_host(struct builder *b, const double *cost)
{
	for (size_t i = 0; i < b->np; i++) {
		struct proto *p = &b->p[i];
		if (!p->launches || p->kind != RNODE_CPU)
			continue;
		p->fixed = 1;
		p->cost_ms = cost[i] / 2;
		b->info.trimmed++;
	}
	return b->info.trimmed
		? 0
		: err_set(ERR_USAGE, "its traces launch no GPU work: no launch overhead to halve");
}

/* What a batch change does to an operation of the host: 2 when it is per-sample work on any
 * rank (data loading), 1 per-sample compute (forward, backward, operators: on a rank with GPU
 * work, its kernels are), 0 none. */
static int per_sample(const struct builder *b, const struct proto *p)
{
	if (p->name < 0)
		return 0;
	const char *nm = name_of(b, p);
	const int *ph = b->in->ranks[p->rank_i].phase;
	int x = ph ? ph[p->name] : -1;
	if (!strcmp(nm, "loader:decode") || x == PH_DATA)
		return 2;
	return !strncmp(nm, LAYER_PREFIX, strlen(LAYER_PREFIX)) || x == PH_FORWARD ||
	       x == PH_BACKWARD || x == PH_OPS;
}

/* Each per-sample operation at REPLAY_BATCH_X times its cost (REPLAY_CHANGE_BATCH); of host
 * compute, the change's gemm_share as long as it was. */
static int change_batch(struct builder *b, const double *cost)
{
	unsigned char *gpu = xcalloc(b->in->n + 1, 1);
	for (size_t i = 0; i < b->np; i++)
		gpu[b->p[i].rank_i] |= b->p[i].kind == RNODE_GPU;
	for (size_t i = 0; i < b->np; i++) {
		struct proto *p = &b->p[i];
		int k = p->kind == RNODE_CPU ? per_sample(b, p) : 0;
		if (k == 2 || (k == 1 && !gpu[p->rank_i])) {
			double g = k == 1 ? b->in->change->gemm_share : 0;
			p->fixed = 1;
			p->cost_ms = (g + (1 - g) * REPLAY_BATCH_X) * cost[i];
			b->info.scaled++;
		} else if (p->kind == RNODE_GPU && per_sample(b, &b->p[p->from])) {
			p->cost_ms *= REPLAY_BATCH_X;
			b->info.scaled++;
		} else if (p->kind == RNODE_COLL && p->op == COLL_ALL_TO_ALL) {
			/* what an all-to-all moves is per sample (DLRM's embeddings), unlike a
			 * gradient all-reduce's: its transfer as many times as long */
			double was = p->on_host ? cost[i] : (p->e - p->s) / 1000;
			p->cost_ms = REPLAY_BATCH_X * (p->fixed ? p->cost_ms : was);
			p->fixed = 1;
			b->info.scaled++;
		}
	}
	free(gpu);
	return b->info.scaled
		? 0
		: err_set(ERR_USAGE,
			  "its traces hold no per-sample work the replay knows (forward, backward, operators, data loading)");
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
	case REPLAY_CHANGE_LOADERS:
		rc = change_loaders(b, *cost);
		break;
	case REPLAY_CHANGE_STRAGGLERS:
		rc = change_stragglers(b, *cost);
		break;
	case REPLAY_CHANGE_HOST:
		rc = change_host(b, *cost);
		break;
	case REPLAY_CHANGE_BATCH:
		rc = change_batch(b, *cost);
		break;
	}
	/* one entry per proto; the protos a change adds carry their own cost (fixed) */
	*cost = xrealloc(*cost, (b->np + 1) * sizeof **cost);
	memset(*cost + before, 0, (b->np + 1 - before) * sizeof **cost);
	return rc;
}
