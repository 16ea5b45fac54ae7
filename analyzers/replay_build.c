/* SPDX-License-Identifier: MIT */
#include "analyzers/replay_build.h"
#include "analyzers/prose.h"

#include "analyzers/replay_gpu.h"
#include "analyzers/replay_proto.h"

#include "analyzers/collective.h"
#include "analyzers/phases.h"
#include "analyzers/stats.h"
#include "util/err.h"
#include "util/sort.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* One rank's top-level ranges, and its step windows. */
struct rank_view {
	const struct replay_rank_in *r;
	int ri;
	size_t *top; /* indexes into t->cpu, by lane then start */
	int *top_lane;
	size_t ntop;
	double (*win)[2];
	int nwin;
	double *edge; /* the windows' edges, sorted (2 nwin) */
	int main_tid;
	int *by_end; /* proto indexes of the rank's operations, by end */
	size_t nby_end;
	/* join_of_any's answers by position i in by_end, for waits joinable (1) or not (0): the
	 * last position <= i of a joinable operation, and the last of one on another lane than
	 * that one's; -1: none */
	int *last_join[2], *other_join[2];
	double *msg_bytes; /* per host range of t: a collective's message bytes, 0: none */
	struct gpu_side *gpu; /* its GPU side, NULL without GPU work */
};

static const struct gpu_trace *trace_of(const struct builder *b, int ri)
{
	return b->in->ranks[ri].t;
}

static int by_start(const void *x, const void *y)
{
	const double *a = x, *c = y;
	return a[0] < c[0] ? -1 : a[0] > c[0];
}

/* The step windows of r: its step ranges by start, the first nsteps of them. */
static int step_windows(struct rank_view *v)
{
	const struct gpu_trace *t = v->r->t;
	v->win = xcalloc(t->ncpu + 1, sizeof *v->win);
	double (*all)[3] = xcalloc(t->ncpu + 1, sizeof *all);
	size_t n = 0;
	for (size_t i = 0; i < t->ncpu; i++)
		if (v->r->is_step[t->cpu[i].name])
			all[n][0] = t->cpu[i].start, all[n][1] = t->cpu[i].end,
			all[n++][2] = t->cpu[i].tid;
	sort_runs(all, n, sizeof *all, by_start);
	v->main_tid = n ? (int)all[0][2] : -1;
	for (size_t i = 0; i < n && (int)i < v->r->nsteps; i++)
		v->win[v->nwin][0] = all[i][0], v->win[v->nwin++][1] = all[i][1];
	free(all);
	v->edge = xcalloc(2 * (size_t)v->nwin + 1, sizeof *v->edge);
	for (int w = 0; w < v->nwin; w++)
		v->edge[2 * w] = v->win[w][0], v->edge[2 * w + 1] = v->win[w][1];
	sort_runs(v->edge, 2 * (size_t)v->nwin, sizeof *v->edge, by_start);
	return v->nwin ? 0 : -1;
}

/* The position of the step window holding time x, -1: none. */
static int step_at(const struct rank_view *v, double x)
{
	return replay_window_at((const double (*)[2])v->win, v->nwin, x);
}

/* A range that starts before the last top-level range ends but ends more than this after it
 * (µs) is the next one, not inside it: times written rounded (ts and dur each to 1 ns) make
 * back-to-back ranges overlap by a few ns. */
#define SIBLING_US 0.01

/* Each thread's top-level ranges (not inside another of its thread; step ranges are no
 * operation, so what they hold is top-level), with a graph lane per thread. */
static void top_level(struct builder *b, struct rank_view *v)
{
	const struct gpu_trace *t = v->r->t;
	size_t n = 0;
	struct range_ref *key = gpu_trace_by_thread(t, v->r->is_step, &n);
	v->top = xcalloc(n + 1, sizeof *v->top);
	v->top_lane = xcalloc(n + 1, sizeof *v->top_lane);
	int tid = -1, lane = -1;
	double cur_end = 0;
	for (size_t k = 0; k < n; k++) {
		const struct cpu_range *c = &t->cpu[key[k].i];
		if (c->tid != tid) {
			tid = c->tid;
			lane = rgraph_add_lane(b->g, RLANE_THREAD, v->r->rank, tid);
			cur_end = c->start;
		} else if (c->start < cur_end && c->end <= cur_end + SIBLING_US) {
			continue; /* inside the last top-level range */
		}
		v->top[v->ntop] = key[k].i;
		v->top_lane[v->ntop++] = lane;
		cur_end = c->end;
	}
	free(key);
}

static int is_coll_name(const char *name)
{
	return !strncmp(name, "gloo:", 5) && coll_op_of(name) >= 0;
}

/* The blocking ranges the builder knows by name (the reference trainer's, docs/formats.md):
 * 1 for a wait on another thread (the step thread's wait for the loader's batch, or for the
 * checkpoint write in flight), 2 for a sleep (a loader's read latency, a checkpoint's fsync:
 * blocked on storage), 0 for any other range. */
static int blocking_kind(const char *name)
{
	if (!strcmp(name, "wait_for_batch") || !strcmp(name, "checkpoint:wait"))
		return 1;
	return !strcmp(name, "loader:read") || !strcmp(name, "checkpoint:fsync") ? 2 : 0;
}

/* The rank's operation that ended last at or before x, not on lane, after a; -1 none. A
 * wait or a sleep ending releases no other thread (the operation after it does), but where
 * sleeps is 1 a sleep does: the step thread's wait for the checkpoint write in flight ends
 * with that write's fsync, the writer's last range. */
static int join_of_any(const struct builder *b, const struct rank_view *v, double a, double x,
		       int lane, int sleeps)
{
	size_t lo = 0, hi = v->nby_end;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (b->p[v->by_end[mid]].e <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	int j = lo ? v->last_join[sleeps][lo - 1] : -1;
	if (j >= 0 && b->p[v->by_end[j]].lane == lane)
		j = v->other_join[sleeps][lo - 1];
	if (j < 0 || b->p[v->by_end[j]].e <= a)
		return -1;
	return v->by_end[j];
}

/* join_of_any's positions (v->last_join, v->other_join) once by_end is sorted. */
static void join_index(const struct builder *b, struct rank_view *v)
{
	for (int s = 0; s < 2; s++) {
		int *last = v->last_join[s] = xcalloc(v->nby_end + 1, sizeof *last);
		int *other = v->other_join[s] = xcalloc(v->nby_end + 1, sizeof *other);
		for (size_t i = 0; i < v->nby_end; i++) {
			const struct proto *p = &b->p[v->by_end[i]];
			int l = i ? last[i - 1] : -1, o = i ? other[i - 1] : -1;
			if (p->kind == RNODE_WAIT && !(s && p->sleep)) {
				last[i] = l, other[i] = o;
				continue;
			}
			last[i] = (int)i;
			other[i] = l >= 0 && b->p[v->by_end[l]].lane != p->lane ? l : o;
		}
	}
}

static int join_of(const struct builder *b, const struct rank_view *v, double a, double x,
		   int lane)
{
	return join_of_any(b, v, a, x, lane, 0);
}

/* Whether wait p is released by a sleep (the checkpoint writer's fsync): join_of_any. */
static int released_by_sleep(const struct builder *b, const struct proto *p)
{
	return p->name >= 0 && !strcmp(trace_of(b, p->rank_i)->names[p->name], "checkpoint:wait");
}

/* A proto's sort key: by end, or by collective instance (step, group, op, seq, rank,
 * start). */
struct proto_key {
	double k[6];
	int i;
};

static int by_keys(const void *x, const void *y)
{
	const struct proto_key *a = x, *c = y;
	for (int j = 0; j < 6; j++)
		if (a->k[j] != c->k[j])
			return a->k[j] < c->k[j] ? -1 : 1;
	return a->i < c->i ? -1 : a->i > c->i;
}

/* Sorts idx[0, n) (proto indexes) by each one's key. */
static void sort_by(const struct builder *b, int *idx, size_t n, int by_instance)
{
	struct proto_key *key = xcalloc(n + 1, sizeof *key);
	for (size_t j = 0; j < n; j++) {
		const struct proto *p = &b->p[idx[j]];
		struct proto_key inst = { { p->cstep, p->group, p->op, p->seq, p->rank_i, p->s },
					  idx[j] };
		key[j] = by_instance ? inst : (struct proto_key){ { p->e, 0, 0, 0, 0, 0 }, idx[j] };
	}
	sort_runs(key, n, sizeof *key, by_keys);
	for (size_t j = 0; j < n; j++)
		idx[j] = key[j].i;
	free(key);
}

static int by_start_end(const void *x, const void *y)
{
	const struct range_ref *a = x, *c = y;
	if (a->s != c->s)
		return a->s < c->s ? -1 : 1;
	if (a->e != c->e)
		return a->e < c->e ? -1 : 1;
	return a->i < c->i ? -1 : a->i > c->i;
}

/* Each host range's message bytes: those of the host collective event (t->comm) that is the
 * same event, the same start and end (the reader makes both of one event): of the ranges and
 * events of one start and end, the j-th range (in t->cpu's order) takes the j-th event's. The
 * few events are sorted, the many ranges looked up in them. */
static void message_bytes(struct rank_view *v)
{
	const struct gpu_trace *t = v->r->t;
	struct range_ref *ev = xcalloc(t->ncomm + 1, sizeof *ev);
	unsigned char *used = xcalloc(t->ncomm + 1, 1);
	size_t m = 0;
	v->msg_bytes = xcalloc(t->ncpu + 1, sizeof *v->msg_bytes);
	for (size_t k = 0; k < t->ncomm; k++)
		if (!t->comm[k].gpu && t->comm[k].bytes > 0)
			ev[m++] = (struct range_ref){ t->comm[k].start, t->comm[k].end, 0, k };
	sort_runs(ev, m, sizeof *ev, by_start_end);
	for (size_t i = 0; i < t->ncpu && m; i++) {
		const struct cpu_range *c = &t->cpu[i];
		size_t lo = 0, hi = m;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (ev[mid].s < c->start || (ev[mid].s == c->start && ev[mid].e < c->end))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < m && ev[lo].s == c->start && ev[lo].e == c->end; lo++)
			if (!used[lo]) {
				used[lo] = 1;
				v->msg_bytes[i] = t->comm[ev[lo].i].bytes;
				break;
			}
	}
	free(used);
	free(ev);
}

/* Range p (a CPU operation of thread tid) as protos: one, or where it launches GPU work or
 * synchronises with it, pieces cut at each launch's end and around each synchronisation (a
 * wait: it holds no core), each cut given the piece it ends. Each proto's top-level range
 * (top, its index in t->cpu) and lane go to v's per-proto arrays (*n of them). */
static void add_op(struct builder *b, struct rank_view *v, const struct proto *p, int tid,
		   size_t top, size_t *n, size_t *cap)
{
	size_t nc;
	struct gpu_cut *c = p->kind == RNODE_CPU ? replay_gpu_cuts(v->gpu, tid, p->s, p->e, &nc)
						 : NULL;
	struct proto q = *p;
	int last = -1;
	for (size_t k = 0; k <= (c ? nc : 0); k++) {
		const struct gpu_cut *at = c && k < nc ? &c[k] : NULL;
		int added = 0;
		q.e = at ? at->at : p->e;
		if (q.e > q.s || !c) {
			q.gpu_wait = at && at->kind == GPU_CUT_SYNC_END;
			q.kind = q.gpu_wait ? RNODE_WAIT : p->kind;
			size_t had = *cap;
			XGROW(v->top, *n, *cap, 64);
			if (*cap != had) /* top_lane grows with top */
				v->top_lane = xrealloc(v->top_lane, *cap * sizeof *v->top_lane);
			v->top[*n] = top, v->top_lane[(*n)++] = p->lane;
			last = replay_proto_add(b, &q);
			added = 1;
			b->info.ops += !k;
			b->info.waits += q.kind == RNODE_WAIT;
		}
		/* a launch's kernels wait for the piece that ends with the call (or before it); a
		 * synchronisation that took no time is no wait */
		if (at && at->kind == GPU_CUT_LAUNCH) {
			c[k].proto = last;
			if (last >= 0)
				b->p[last].launches = 1;
		} else if (at && at->kind == GPU_CUT_SYNC_END) {
			c[k].proto = added ? last : -1;
		}
		q.s = q.e;
	}
}

/* Every top-level range of v as an operation: a collective instance's part for a gloo:<op>
 * range, a wait for a blocking range, else a CPU operation (cut where it launches GPU work:
 * add_op). The replay starts at the rank's first step: a range that ended before it is left
 * out (what it made is there), one that runs across its start is cut there. The step a range
 * belongs to is the window it starts in, on the step thread and for collectives (matched by
 * step); other threads' work belongs to no step (a loader's prefetch for later steps): it
 * counts in a step where the step waits for it. Returns the first proto's index. */
static size_t operations(struct builder *b, struct rank_view *v)
{
	const struct gpu_trace *t = v->r->t;
	size_t first = b->np, ntop = v->ntop, n = 0, cap = 0;
	size_t *top = v->top;
	int *lane = v->top_lane;
	v->top = NULL, v->top_lane = NULL;
	for (size_t k = 0; k < ntop; k++) {
		const struct cpu_range *c = &t->cpu[top[k]];
		const char *nm = t->names[c->name];
		int coll = is_coll_name(nm), blocking = coll ? 0 : blocking_kind(nm);
		if (c->end <= v->win[0][0] && c->start < v->win[0][0])
			continue;
		double s = c->start > v->win[0][0] ? c->start : v->win[0][0];
		struct proto p = {
			.s = s, .e = c->end > s ? c->end : s, .rank_i = v->ri, .lane = lane[k],
			.kind = coll ? RNODE_COLL : blocking ? RNODE_WAIT : RNODE_CPU,
			.step = coll || c->tid == v->main_tid ? step_at(v, s) : -1,
			.name = c->name, .sleep = blocking == 2, .op = coll ? coll_op_of(nm) : -1,
			.coll = -1, .grad_bytes = c->grad_bytes,
			.msg_bytes = coll ? v->msg_bytes[top[k]] : 0, .step_arg = c->step_arg,
		};
		p.cstep = p.step;
		add_op(b, v, &p, c->tid, top[k], &n, &cap);
	}
	free(top);
	free(lane);
	v->ntop = n;
	v->nby_end = b->np - first;
	v->by_end = xcalloc(v->nby_end + 1, sizeof *v->by_end);
	for (size_t i = 0; i < v->nby_end; i++)
		v->by_end[i] = (int)(first + i);
	sort_by(b, v->by_end, v->nby_end, 0);
	join_index(b, v);
	return first;
}

/* An untraced gap [a, x) of the step thread as CPU work, cut at the step windows' edges
 * so that each piece counts in its own step; chained after prev. Returns the last piece. */
static int cpu_gap(struct builder *b, const struct rank_view *v, int lane, double a, double x,
		   int prev)
{
	size_t ne = 2 * (size_t)v->nwin, lo = 0, hi = ne;
	while (lo < hi) { /* the first window edge after a */
		size_t mid = lo + (hi - lo) / 2;
		if (v->edge[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (a < x) {
		while (lo < ne && v->edge[lo] <= a)
			lo++;
		double cut = lo < ne && v->edge[lo] < x ? v->edge[lo] : x;
		struct proto p = { .s = a, .e = cut, .rank_i = v->ri, .lane = lane,
				   .kind = RNODE_CPU, .step = step_at(v, a), .name = -1, .op = -1,
				   .coll = -1, .step_arg = -1 };
		int q = replay_proto_add(b, &p);
		b->info.gaps++;
		if (prev >= 0)
			replay_proto_edge(b, prev, q, 0);
		prev = q;
		a = cut;
	}
	return prev;
}

/* Where a step thread's sleep j ends: a wait of no length at its end, in its step, after it
 * (the sleep's span on the edge), so that a step that ends in a sleep (a checkpoint's fsync)
 * ends where the sleep does. */
static int sleep_end(struct builder *b, int j)
{
	const struct proto *p = &b->p[j];
	double span = p->e - p->s;
	struct proto m = { .s = p->e, .e = p->e, .rank_i = p->rank_i, .lane = p->lane,
			   .kind = RNODE_WAIT, .step = p->step, .name = -1, .op = -1,
			   .coll = -1, .step_arg = -1 };
	int q = replay_proto_add(b, &m); /* (b->p may move: p is not used after) */
	replay_proto_edge(b, j, q, span);
	return q;
}

static void add_join(struct builder *b, int j, int i, double at)
{
	/* a sleep's span is its edges' (it ends, as a node, where it starts) */
	replay_proto_edge(b, j, i, at - (b->p[j].sleep ? b->p[j].s : b->p[j].e));
	b->info.joins++;
}

/* The edges into operation i from what came before it on its lane: prev (-1: nothing), which
 * ended at a. After a sleep, a delay from the sleep's start (off the step thread, a join
 * instead where another thread handed it work after the sleep: the checkpoint writer's next
 * write after its snapshot). The gap before an operation is a
 * join when another thread's operation ended in it, nearer the gap's end than its start (the
 * thread waited for it: DDP's wait for a bucket's all-reduce, or a gloo thread handed a
 * bucket): an edge from that operation with the rest of the gap as delay. Else on the step
 * thread (is_main) the gap is untraced CPU work (Python, the framework between operators); on
 * any other thread it is idle: a delay holding no core. */
static void link_op(struct builder *b, const struct rank_view *v, int prev, double a, int i,
		    int is_main)
{
	double s = b->p[i].s;
	int lane = b->p[i].lane, j;
	if (prev >= 0 && b->p[prev].sleep) {
		double e = b->p[prev].e;
		if (is_main) {
			prev = sleep_end(b, prev);
		} else if (s > e && (j = join_of(b, v, e, s, lane)) >= 0 &&
			   s - b->p[j].e <= b->p[j].e - e) { /* handed work after its sleep */
			replay_proto_edge(b, prev, i, e - b->p[prev].s);
			add_join(b, j, i, s);
			return;
		}
		replay_proto_edge(b, prev, i, s - b->p[prev].s);
		return;
	}
	if (prev < 0) { /* a thread's first operation off the step thread: a hand-off */
		if (!is_main && (j = join_of(b, v, -1e300, s, lane)) >= 0)
			add_join(b, j, i, s);
		return;
	}
	if (s > a) {
		j = join_of(b, v, a, s, lane);
		if (j >= 0 && s - b->p[j].e <= b->p[j].e - a) {
			add_join(b, j, i, s);
		} else if (is_main) {
			prev = cpu_gap(b, v, lane, a, s, prev);
		} else {
			replay_proto_edge(b, prev, i, s - a);
			return;
		}
	}
	replay_proto_edge(b, prev, i, 0);
}

/* The edges of one lane's operations (protos [from, to)): program order, the gaps between
 * them (link_op), and what releases each wait: the rank's operation on another thread that
 * ended last inside it, if any (else the wait ends as soon as its thread reaches it). */
static void lane_chain(struct builder *b, const struct rank_view *v, size_t from, size_t to,
		       int is_main)
{
	int prev = -1, j;
	double a = 0;
	if (is_main && v->nwin && v->win[0][0] < b->p[from].s) {
		prev = cpu_gap(b, v, b->p[from].lane, v->win[0][0], b->p[from].s, -1);
		a = b->p[from].s;
	}
	for (size_t i = from; i < to; i++) {
		link_op(b, v, prev, a, (int)i, is_main);
		const struct proto *p = &b->p[i]; /* after link_op, which may add gaps */
		if (p->kind == RNODE_WAIT && !p->sleep && !p->gpu_wait &&
		    (j = join_of_any(b, v, p->s, p->e, p->lane, released_by_sleep(b, p))) >= 0)
			add_join(b, j, (int)i, p->e);
		a = p->e;
		prev = (int)i;
	}
	if (is_main && prev >= 0 && b->p[prev].sleep)
		prev = sleep_end(b, prev);
	if (is_main && v->nwin && v->win[v->nwin - 1][1] > a && prev >= 0)
		cpu_gap(b, v, b->p[prev].lane, a, v->win[v->nwin - 1][1], prev);
}

/* Every lane of v chained (its operations are protos [first, first + ntop)). */
static void rank_edges(struct builder *b, const struct rank_view *v, size_t first)
{
	const struct gpu_trace *t = v->r->t;
	size_t k = 0;
	while (k < v->ntop) {
		size_t end = k;
		while (end < v->ntop && v->top_lane[end] == v->top_lane[k])
			end++;
		int is_main = t->cpu[v->top[k]].tid == v->main_tid;
		if (is_main)
			b->main_lane[v->ri] = v->top_lane[k];
		lane_chain(b, v, first + k, first + end, is_main);
		k = end;
	}
}

/* The collective protos, by (step, group, operation, seq, rank) once seq is numbered: a
 * rank's instances of one operation of a process group in a step in start order, as
 * collective.c matches them. */
static int *coll_protos(struct builder *b, size_t *n)
{
	int *c = xcalloc(b->np + 1, sizeof *c);
	*n = 0;
	for (size_t i = 0; i < b->np; i++)
		if (b->p[i].kind == RNODE_COLL)
			c[(*n)++] = (int)i;
	sort_by(b, c, *n, 1); /* seq 0 for all: by step, op, rank, start */
	for (size_t i = 0; i < *n; i++) {
		struct proto *p = &b->p[c[i]], *q = i ? &b->p[c[i - 1]] : NULL;
		p->seq = q && q->cstep == p->cstep && q->group == p->group && q->op == p->op &&
				 q->rank_i == p->rank_i
			? q->seq + 1 : 0;
	}
	sort_by(b, c, *n, 1);
	return c;
}

/* Marks the matched instances of host threads whose ranks are all on one host (the local
 * executor's emulated nodes, or the ranks of one node): their transfer is that host's CPU
 * work (TCP over loopback, copies, the reduction), and each part's last arrival is set (c:
 * the collective protos by instance). An NCCL kernel's transfer is its GPU's. */
static void on_host_colls(struct builder *b, const int *c, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int64_t id = b->p[c[i]].coll;
		int host = b->in->ranks[b->p[c[i]].rank_i].host, same = 1;
		double last = -1e300;
		while (j < n && b->p[c[j]].coll == id) {
			const struct proto *q = &b->p[c[j]];
			same &= b->in->ranks[q->rank_i].host == host &&
				b->g->lanes[q->lane].kind == RLANE_THREAD;
			if (q->s - b->info.offset_us[q->rank_i] > last)
				last = q->s - b->info.offset_us[q->rank_i];
			j++;
		}
		for (size_t k = i; k < j && same && j - i > 1; k++) {
			b->p[c[k]].on_host = 1;
			b->p[c[k]].last = last;
		}
		b->info.host_colls += same && j - i > 1;
		i = j;
	}
}

/* The end of the instance that starts at c[i] (c: the collective protos by instance): the
 * parts of one step, group, operation and seq. */
static size_t instance_end(const struct builder *b, const int *c, size_t i, size_t n)
{
	const struct proto *p = &b->p[c[i]];
	size_t j = i + 1;
	while (j < n && b->p[c[j]].cstep == p->cstep && b->p[c[j]].group == p->group &&
	       b->p[c[j]].op == p->op && b->p[c[j]].seq == p->seq)
		j++;
	return j;
}

/* Whether the parts c[i, j) are one instance: of distinct ranks, every rank replayed or as
 * many as their process group's size (a subgroup: a tensor-parallel pair of four ranks). */
static int instance_whole(const struct builder *b, const int *c, size_t i, size_t j)
{
	size_t gs = b->p[c[i]].group_size > 1 ? (size_t)b->p[c[i]].group_size : 0;
	if (j - i != b->in->n && j - i != gs)
		return 0;
	for (size_t k = i + 1; k < j; k++)
		if (b->p[c[k]].rank_i <= b->p[c[k - 1]].rank_i)
			return 0;
	return 1;
}

/* Instances held by every rank (or every rank of their group), one part each, share an id;
 * any other part is an instance of its own (it then completes its own measured time after
 * its arrival). Each rank's clock offset: the median over the instances of every rank of its
 * end less the first rank's. */
static void match_colls(struct builder *b)
{
	size_t n, nr = b->in->n;
	int *c = coll_protos(b, &n);
	double **diff = xcalloc(nr, sizeof *diff);
	size_t *nd = xcalloc(nr, sizeof *nd);
	int64_t id = 0;
	for (size_t i = 0; i < n;) {
		size_t j = instance_end(b, c, i, n);
		int whole = instance_whole(b, c, i, j), all = whole && j - i == nr;
		for (size_t k = i; k < j; k++) {
			struct proto *q = &b->p[c[k]];
			q->coll = whole ? id : id + 1 + (int64_t)(k - i);
			b->info.unmatched_colls += !whole;
			if (!all)
				continue;
			if (!diff[k - i])
				diff[k - i] = xcalloc(n + 1, sizeof **diff);
			diff[k - i][nd[k - i]++] = q->e - b->p[c[i]].e;
		}
		b->info.colls += whole;
		b->info.aligned |= all;
		id += whole ? 1 : 1 + (int64_t)(j - i);
		i = j;
	}
	for (size_t r = 0; r < nr; r++) {
		b->info.offset_us[r] = nd[r] ? stats_percentile_unordered(diff[r], nd[r], 50) : 0;
		free(diff[r]);
	}
	free(diff);
	free(nd);
	on_host_colls(b, c, n);
	free(c);
}

/* Whether proto i uses host h's cores: a CPU operation, or an on-host transfer. */
static int uses_cpu(const struct builder *b, size_t i, int h)
{
	const struct proto *p = &b->p[i];
	return (p->kind == RNODE_CPU || p->on_host) && b->in->ranks[p->rank_i].host == h;
}

/* The span in which proto i uses a core, on the first rank's clock: a transfer's from the
 * instance's last arrival (the wait before it holds no core). */
static void cpu_span(const struct builder *b, size_t i, double *s, double *e)
{
	const struct proto *p = &b->p[i];
	double off = b->info.offset_us[p->rank_i];
	*s = p->on_host ? p->last : p->s - off;
	*e = p->e - off;
	if (*s > *e)
		*s = *e;
}

/* 1 for a host CPU operation of the compute phases (forward, backward, optimizer, operators). */
static int is_compute(const struct builder *b, const struct proto *p)
{
	const int *ph = b->in->ranks[p->rank_i].phase;
	int x = ph && p->name >= 0 && p->kind == RNODE_CPU ? ph[p->name] : -1;
	return x == PH_FORWARD || x == PH_BACKWARD || x == PH_OPTIMIZER || x == PH_OPS;
}

/* CPU demands: each host's CPU intervals lined up on the first rank's clock; of the graph as
 * measured, the compute operations' time and demand into b->info. */
static void demands(struct builder *b, double *cost_ms)
{
	for (int h = 0; h < b->in->nhosts; h++) {
		double *s = xcalloc(b->np + 1, sizeof *s), *e = xcalloc(b->np + 1, sizeof *e);
		size_t n = 0;
		for (size_t i = 0; i < b->np; i++)
			if (uses_cpu(b, i, h))
				cpu_span(b, i, &s[n], &e[n]), n++;
		struct replay_load *l = replay_load_new(s, e, n, b->in->host_cores[h]);
		for (size_t i = 0; i < b->np; i++) {
			double a, z;
			if (!uses_cpu(b, i, h))
				continue;
			cpu_span(b, i, &a, &z);
			cost_ms[i] = replay_load_demand_ms(l, a, z);
			if (!b->in->change && is_compute(b, &b->p[i])) {
				b->info.compute_wall_ms += (z - a) / 1000;
				b->info.compute_demand_ms += cost_ms[i];
			}
		}
		replay_load_free(l);
		free(s);
		free(e);
	}
}

/* Node v (< 0: an error, returned) of collective proto p given the step its instance was
 * called in and whether it is blocking (what times a step: replay_scenario.c); v. */
static int coll_marked(struct builder *b, const struct proto *p, int v)
{
	if (v < 0 || p->kind != RNODE_COLL)
		return v;
	return rgraph_set_coll(b->g, v, p->cstep, coll_blocking(p->op)) < 0 ? -1 : v;
}

/* Proto p's nodes: one, or for an on-host transfer three on its lane: the arrival (a
 * collective part of no cost: it ends at the instance's last arrival), the transfer as CPU
 * work, and the completion (a second instance, of no cost: every rank's transfer has ended).
 * in/out: the node that edges into p go to and the one edges out of p leave from. */
static uint32_t graph_name(struct builder *b, const struct proto *p, const char *nm)
{
	if (p->name < 0)
		return rgraph_name(b->g, nm);
	if (!b->gname[p->rank_i])
		b->gname[p->rank_i] = xcalloc(trace_of(b, p->rank_i)->nnames + 1, sizeof(uint32_t));
	uint32_t *id = &b->gname[p->rank_i][p->name];
	return *id ? *id : (*id = rgraph_name(b->g, nm));
}

static int proto_nodes(struct builder *b, const struct proto *p, double cost_ms, int64_t spare,
		       int *in, int *out)
{
	const struct gpu_trace *t = trace_of(b, p->rank_i);
	const char *nm = p->name >= 0 ? t->names[p->name] : "untraced";
	if (p->fixed)
		cost_ms = p->cost_ms;
	struct rnode_spec sp = { p->kind, p->lane, p->step, nm,
				 p->kind == RNODE_COLL && !p->fixed ? (p->e - p->s) / 1000
								     : cost_ms,
				 p->kind == RNODE_COLL ? p->coll : -1, graph_name(b, p, nm) };
	if (!p->on_host) {
		*in = *out = rgraph_add_node(b->g, &sp);
		return coll_marked(b, p, *out);
	}
	sp.cost_ms = 0;
	*in = rgraph_add_node(b->g, &sp);
	struct rnode_spec cpu = { RNODE_CPU, p->lane, p->step, nm, cost_ms, -1, sp.name_id };
	int mid = *in < 0 ? *in : rgraph_add_node(b->g, &cpu);
	sp.coll = spare + p->coll; /* the completion: an instance id past every matched one */
	*out = mid < 0 ? mid : rgraph_add_node(b->g, &sp);
	if (*out >= 0 && (rgraph_add_edge(b->g, *in, mid, 0) < 0 ||
			  rgraph_add_edge(b->g, mid, *out, 0) < 0 || coll_marked(b, p, *in) < 0))
		return -1;
	return coll_marked(b, p, *out);
}

static int make_nodes(struct builder *b)
{
	double *cost = xcalloc(b->np + 1, sizeof *cost);
	demands(b, cost);
	if (b->in->change && replay_change_apply(b, &cost) < 0) {
		free(cost);
		return -1;
	}
	int *in = xcalloc(b->np + 1, sizeof *in), *out = xcalloc(b->np + 1, sizeof *out), rc = 0;
	int64_t spare = 1;
	for (size_t i = 0; i < b->np; i++)
		if (b->p[i].coll >= spare)
			spare = b->p[i].coll + 1;
	for (size_t i = 0; i < b->np && rc >= 0; i++)
		rc = proto_nodes(b, &b->p[i], cost[i], spare, &in[i], &out[i]);
	for (size_t i = 0; i < b->ne && rc >= 0; i++)
		rc = rgraph_add_edge(b->g, out[b->e[i].from], in[b->e[i].to],
				     b->e[i].delay_us / 1000);
	free(cost);
	free(in);
	free(out);
	return rc < 0 ? rc : 0;
}

/* With the ranks' clocks lined up (info.aligned), each rank starts its first step where it
 * did on the first rank's clock: its threads' first operations (the step thread's, and any
 * other's not handed work) after a wait of no core from time 0 as long as it started after
 * the earliest rank (one step of DLRM's 8 ranks began 7.5 ms apart: the early ones waited
 * for the late ones in their first all-to-all). Without it every rank starts at time 0. */
static void rank_starts(struct builder *b, const struct rank_view *v)
{
	size_t nr = b->in->n, np = b->np;
	double first = 1e300;
	for (size_t r = 0; r < nr; r++)
		if (v[r].win[0][0] - b->info.offset_us[r] < first)
			first = v[r].win[0][0] - b->info.offset_us[r];
	unsigned char *led = xcalloc(np + 1, 1);
	for (size_t i = 0; i < b->ne; i++)
		led[b->e[i].to] = 1;
	for (size_t r = 0; b->info.aligned && r < nr; r++) {
		double skew = v[r].win[0][0] - b->info.offset_us[r] - first;
		if (skew <= 0 || b->main_lane[r] < 0)
			continue;
		struct proto o = { .s = v[r].win[0][0], .e = v[r].win[0][0], .rank_i = (int)r,
				   .lane = b->main_lane[r], .kind = RNODE_WAIT, .step = -1,
				   .name = -1, .op = -1, .coll = -1, .step_arg = -1 };
		int origin = replay_proto_add(b, &o);
		b->origin[r] = origin, b->origin_us[r] = skew;
		for (size_t i = 0; i < np; i++)
			if (!led[i] && b->p[i].rank_i == (int)r &&
			    b->g->lanes[b->p[i].lane].kind == RLANE_THREAD)
				replay_proto_edge(b, origin, (int)i, skew);
	}
	free(led);
}

static void view_free(struct rank_view *v)
{
	free(v->top);
	free(v->top_lane);
	free(v->win);
	free(v->edge);
	free(v->by_end);
	for (int s = 0; s < 2; s++)
		free(v->last_join[s]), free(v->other_join[s]);
	free(v->msg_bytes);
	replay_gpu_free(v->gpu);
}

static int build_ranks(struct builder *b)
{
	const struct replay_build_in *in = b->in;
	for (int h = 0; h < in->nhosts; h++)
		if (rgraph_add_host(b->g, in->host_cores[h]) < 0)
			return -1;
	struct rank_view *v = xcalloc(in->n + 1, sizeof *v);
	size_t *first = xcalloc(in->n + 1, sizeof *first);
	int rc = 0;
	for (size_t i = 0; i < in->n && rc >= 0; i++) {
		v[i].r = &in->ranks[i];
		v[i].ri = (int)i;
		rc = rgraph_set_rank_host(b->g, v[i].r->rank, v[i].r->host);
		if (rc >= 0 && step_windows(&v[i]) < 0)
			rc = err_set(
				ERR_USAGE,
				PROSE_REPLAY_NO_STEP_RANGE,
				v[i].r->rank);
		if (rc >= 0) {
			top_level(b, &v[i]);
			message_bytes(&v[i]);
			v[i].gpu = replay_gpu_new(v[i].r->t);
			first[i] = operations(b, &v[i]);
		}
	}
	for (size_t i = 0; i < in->n && rc >= 0; i++)
		rank_edges(b, &v[i], first[i]);
	for (size_t i = 0; i < in->n && rc >= 0; i++)
		b->info.kernels += replay_gpu_nodes(b, v[i].gpu, (int)i,
						    (const double (*)[2])v[i].win, v[i].nwin);
	if (rc >= 0) {
		match_colls(b);
		rank_starts(b, v);
		rc = make_nodes(b);
	}
	for (size_t i = 0; i < in->n; i++)
		view_free(&v[i]);
	free(v);
	free(first);
	return rc;
}

int replay_build(const struct replay_build_in *in, struct rgraph **out,
		 struct replay_build_info *info)
{
	struct builder b = { .in = in, .g = rgraph_new() };
	b.info.offset_us = xcalloc(in->n + 1, sizeof *b.info.offset_us);
	b.main_lane = xcalloc(in->n + 1, sizeof *b.main_lane);
	b.origin = xcalloc(in->n + 1, sizeof *b.origin);
	b.origin_us = xcalloc(in->n + 1, sizeof *b.origin_us);
	b.gname = xcalloc(in->n + 1, sizeof *b.gname);
	for (size_t i = 0; i < in->n; i++)
		b.main_lane[i] = b.origin[i] = -1;
	int rc = build_ranks(&b);
	for (size_t i = 0; i < in->n; i++)
		free(b.gname[i]);
	free(b.gname);
	free(b.p);
	free(b.e);
	free(b.main_lane);
	free(b.origin);
	free(b.origin_us);
	if (rc < 0) {
		rgraph_free(b.g);
		replay_build_info_free(&b.info);
		*out = NULL;
		return rc;
	}
	*out = b.g;
	if (info)
		*info = b.info;
	else
		replay_build_info_free(&b.info);
	return 0;
}

void replay_build_info_free(struct replay_build_info *info)
{
	free(info->offset_us);
	info->offset_us = NULL;
}

/* The host's load as a step function: at xs[k] the rate every interval running then
 * progresses at, min(1, cores / n), and w[k] the work one of them did from xs[0] to xs[k]. */
struct replay_load {
	double *xs, *rate, *w;
	size_t n;
};

static int by_time(const void *x, const void *y)
{
	const double *a = x, *c = y;
	if (a[0] != c[0])
		return a[0] < c[0] ? -1 : 1;
	return a[1] < c[1] ? -1 : a[1] > c[1]; /* ends (-1) before starts at one time */
}

struct replay_load *replay_load_new(const double *starts, const double *ends, size_t n,
				    int cores)
{
	struct replay_load *l = xcalloc(1, sizeof *l);
	double (*ev)[2] = xcalloc(2 * n + 1, sizeof *ev);
	for (size_t i = 0; i < n; i++) {
		ev[2 * i][0] = starts[i], ev[2 * i][1] = 1;
		ev[2 * i + 1][0] = ends[i], ev[2 * i + 1][1] = -1;
	}
	sort_runs(ev, 2 * n, sizeof *ev, by_time);
	l->xs = xcalloc(2 * n + 1, sizeof *l->xs);
	l->rate = xcalloc(2 * n + 1, sizeof *l->rate);
	l->w = xcalloc(2 * n + 1, sizeof *l->w);
	long running = 0;
	for (size_t i = 0; i < 2 * n; i++) {
		running += (long)ev[i][1];
		if (l->n && l->xs[l->n - 1] == ev[i][0]) {
			l->n--; /* the last event at this time sets the rate */
		} else if (l->n) {
			size_t k = l->n - 1;
			l->w[l->n] = l->w[k] + l->rate[k] * (ev[i][0] - l->xs[k]);
		}
		l->xs[l->n] = ev[i][0];
		l->rate[l->n] = running > cores ? (double)cores / (double)running : 1;
		l->n++;
	}
	free(ev);
	return l;
}

/* The work one interval running throughout did from xs[0] to x. */
static double work_at(const struct replay_load *l, double x)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (l->xs[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	return l->w[lo - 1] + l->rate[lo - 1] * (x - l->xs[lo - 1]);
}

double replay_load_demand_ms(const struct replay_load *l, double s, double e)
{
	return e > s ? (work_at(l, e) - work_at(l, s)) / 1000 : 0;
}

void replay_load_free(struct replay_load *l)
{
	if (!l)
		return;
	free(l->xs);
	free(l->rate);
	free(l->w);
	free(l);
}
