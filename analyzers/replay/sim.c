/* SPDX-License-Identifier: MIT */
#include "analyzers/replay/sim.h"

#include "analyzers/replay/cycle.h"
#include "analyzers/replay/heap.h"
#include "analyzers/replay/span.h"
#include "util/err.h"
#include "util/strbuf.h"

#include <stdlib.h>

struct replay_sim {
	const struct rgraph *g;
	double *start, *end;
	int nnodes;
	double makespan;
	double *core_ms, *saturated_ms; /* per host */
	int nhosts;
	struct rspans spans;
};

/* The events, by time; at one time by kind, then id (a replay is the same every run). */
enum ev_kind {
	EV_RELEASE, /* a delayed edge's wait is over: id is the edge (its place in succ) */
	EV_STREAM,  /* a stream's kernel ends: id is the node */
	EV_COLL,    /* a collective instance completes: id is the group */
	EV_HOST,    /* a host's next operation ends, if ver is still the host's: id is the host */
};
#define VER_MASK 0x7fffffffu
#define EV_VAL(kind, ver, id) \
	((uint64_t) (kind) << 62 | (uint64_t) ((ver) & VER_MASK) << 31 | (uint64_t) (id))

/* Processor sharing: each of the n running operations progresses at rate min(1, cores / n),
 * the same for all, so one clock of work done per host orders their ends: an operation that
 * joins with demand D when the clock reads W ends when it reads W + D. */
struct host_run {
	struct rheap run; /* running operations by the work clock's reading at their end */
	double work;      /* the work clock, at time `at` */
	double at, rate;
	double core_ms, saturated_ms;
	int cores;
	uint32_t ver; /* bumped at every change: an EV_HOST of an older one is stale */
};

struct stream_run {
	int head, tail; /* the nodes waiting for the stream, linked through next[] */
	int busy;
};

struct coll_group {
	double transfer; /* the least of its nodes' costs */
	int first, n;    /* its nodes: members[first, first + n) */
	int arrived;
};

struct engine {
	const struct rgraph *g;
	struct replay_sim *s;
	size_t *succ_off;  /* node v's successors: succ[succ_off[v], succ_off[v + 1]) */
	int32_t *succ;
	double *succ_delay; /* NULL when no edge has a delay */
	int *pending;       /* dependencies not yet done */
	int *ready;         /* nodes whose dependencies are done, each once: [qhead, qtail) */
	size_t qhead, qtail;
	int *next;          /* a stream's queue */
	int *group_of;      /* a COLL node's group */
	struct coll_group *groups;
	int *members;
	int ngroups;
	struct host_run *hosts;
	struct stream_run *streams; /* per lane */
	struct rheap events;
	double now;
	size_t done;
};

static int lane_on_stream(const struct engine *e, int v)
{
	return e->g->lanes[e->g->nodes[v].lane].kind == RLANE_STREAM;
}

static void dep_done(struct engine *e, int w)
{
	if (--e->pending[w] == 0)
		e->ready[e->qtail++] = w;
}

/* v ends now: its successors lose a dependency (after the edge's delay), and a wait on v's own
 * thread starts no earlier than then: that is when the thread reaches it. */
static void node_finish(struct engine *e, int v)
{
	const struct rnode *nv = &e->g->nodes[v];
	e->s->end[v] = e->now;
	e->done++;
	for (size_t k = e->succ_off[v]; k < e->succ_off[v + 1]; k++) {
		int w = e->succ[k];
		const struct rnode *nw = &e->g->nodes[w];
		double d = e->succ_delay ? e->succ_delay[k] : 0;
		if (nw->kind == RNODE_WAIT && nw->lane == nv->lane && e->s->start[w] < e->now + d)
			e->s->start[w] = e->now + d;
		if (d > 0)
			rheap_push(&e->events, e->now + d, EV_VAL(EV_RELEASE, 0, k));
		else
			dep_done(e, w);
	}
}

static void host_advance(struct host_run *h, double now)
{
	size_t n = h->run.n;
	double dt = now - h->at;
	if (n) {
		h->work += h->rate * dt;
		h->core_ms += h->rate * (double) n * dt;
		if (n >= (size_t) h->cores)
			h->saturated_ms += dt;
	} else {
		h->work = 0; /* the clock's readings are relative: restart it while idle */
	}
	h->at = now;
}

static void host_schedule(struct engine *e, int hi)
{
	struct host_run *h = &e->hosts[hi];
	size_t n = h->run.n;
	h->rate = n <= (size_t) h->cores ? 1 : (double) h->cores / (double) n;
	h->ver++;
	if (n) {
		double left = rheap_top(&h->run).key - h->work;
		rheap_push(&e->events, e->now + left / h->rate, EV_VAL(EV_HOST, h->ver, hi));
	}
}

/* The first running operation has (to rounding) no work left. */
static int host_due(const struct host_run *h, double now)
{
	double left = rheap_top(&h->run).key - h->work;
	return left <= 1e-9 || now + left / h->rate <= now;
}

static void host_complete(struct engine *e, int hi, uint32_t ver)
{
	struct host_run *h = &e->hosts[hi];
	if (ver != (h->ver & VER_MASK))
		return;
	host_advance(h, e->now);
	while (h->run.n && host_due(h, e->now))
		node_finish(e, (int) rheap_pop(&h->run).val);
	host_schedule(e, hi);
}

static void host_join(struct engine *e, int v)
{
	const struct rnode *n = &e->g->nodes[v];
	e->s->start[v] = e->now;
	if (n->cost_ms <= 0) {
		node_finish(e, v);
		return;
	}
	int hi = rgraph_node_host(e->g, v);
	struct host_run *h = &e->hosts[hi];
	host_advance(h, e->now);
	rheap_push(&h->run, h->work + n->cost_ms, (uint64_t) v);
	host_schedule(e, hi);
}

static void coll_arrive(struct engine *e, int v)
{
	struct coll_group *c = &e->groups[e->group_of[v]];
	e->s->start[v] = e->now;
	if (++c->arrived == c->n)
		rheap_push(&e->events, e->now + c->transfer, EV_VAL(EV_COLL, 0, e->group_of[v]));
}

static void stream_next(struct engine *e, int lane)
{
	struct stream_run *st = &e->streams[lane];
	st->busy = st->head >= 0;
	if (!st->busy)
		return;
	int v = st->head;
	st->head = e->next[v];
	if (st->head < 0)
		st->tail = -1;
	e->s->start[v] = e->now;
	if (e->g->nodes[v].kind == RNODE_GPU)
		rheap_push(&e->events, e->now + e->g->nodes[v].cost_ms, EV_VAL(EV_STREAM, 0, v));
	else
		coll_arrive(e, v);
}

static void stream_enqueue(struct engine *e, int v)
{
	int lane = e->g->nodes[v].lane;
	struct stream_run *st = &e->streams[lane];
	e->next[v] = -1;
	if (st->tail >= 0)
		e->next[st->tail] = v;
	else
		st->head = v;
	st->tail = v;
	if (!st->busy)
		stream_next(e, lane);
}

static void node_start(struct engine *e, int v)
{
	switch ((enum rnode_kind) e->g->nodes[v].kind) {
	case RNODE_CPU:
		host_join(e, v);
		break;
	case RNODE_WAIT: /* its start is when its thread reached it (sim_new, node_finish) */
		node_finish(e, v);
		break;
	case RNODE_GPU:
	case RNODE_COLL:
		if (lane_on_stream(e, v))
			stream_enqueue(e, v);
		else
			coll_arrive(e, v);
		break;
	}
}

static void coll_complete(struct engine *e, int gi)
{
	const struct coll_group *c = &e->groups[gi];
	for (int i = c->first; i < c->first + c->n; i++) {
		int v = e->members[i];
		node_finish(e, v);
		if (lane_on_stream(e, v))
			stream_next(e, e->g->nodes[v].lane);
	}
}

static void event_run(struct engine *e, struct rheap_item ev)
{
	uint32_t id = (uint32_t) (ev.val & VER_MASK);
	uint32_t ver = (uint32_t) (ev.val >> 31) & VER_MASK;
	e->now = ev.key;
	switch ((enum ev_kind) (ev.val >> 62)) {
	case EV_RELEASE:
		dep_done(e, e->succ[id]);
		break;
	case EV_STREAM:
		node_finish(e, (int) id);
		stream_next(e, e->g->nodes[id].lane);
		break;
	case EV_COLL:
		coll_complete(e, (int) id);
		break;
	case EV_HOST:
		host_complete(e, (int) id, ver);
		break;
	}
}

static void ready_drain(struct engine *e)
{
	while (e->qhead < e->qtail)
		node_start(e, e->ready[e->qhead++]);
}

static void engine_loop(struct engine *e)
{
	for (int v = 0; v < e->g->nnodes; v++)
		if (!e->pending[v])
			e->ready[e->qtail++] = v;
	ready_drain(e);
	while (e->events.n) {
		event_run(e, rheap_pop(&e->events));
		ready_drain(e);
	}
}

static void succ_build(struct engine *e)
{
	const struct rgraph *g = e->g;
	e->succ_off = xcalloc((size_t) g->nnodes + 1, sizeof *e->succ_off);
	e->succ = xmalloc((g->nedges ? g->nedges : 1) * sizeof *e->succ);
	for (size_t i = 0; i < g->nedges; i++) {
		e->succ_off[g->edges[i].from + 1]++;
		e->pending[g->edges[i].to]++;
		if (g->edges[i].delay_ms > 0 && !e->succ_delay)
			e->succ_delay = xcalloc(g->nedges, sizeof *e->succ_delay);
	}
	for (int v = 0; v < g->nnodes; v++)
		e->succ_off[v + 1] += e->succ_off[v];
	size_t *fill = xmalloc(((size_t) g->nnodes + 1) * sizeof *fill);
	for (int v = 0; v <= g->nnodes; v++)
		fill[v] = e->succ_off[v];
	for (size_t i = 0; i < g->nedges; i++) {
		size_t k = fill[g->edges[i].from]++;
		e->succ[k] = g->edges[i].to;
		if (e->succ_delay)
			e->succ_delay[k] = g->edges[i].delay_ms;
	}
	free(fill);
}

/* The collective instances: the COLL nodes grouped by instance id. */
static void groups_build(struct engine *e)
{
	const struct rgraph *g = e->g;
	size_t n;
	e->members = rgraph_coll_nodes(g, &n); /* an instance's members stand together */
	const int *keys = e->members;
	e->groups = xmalloc((n ? n : 1) * sizeof *e->groups);
	for (size_t i = 0; i < n; i++) {
		int v = keys[i];
		if (!i || g->nodes[v].coll != g->nodes[keys[i - 1]].coll)
			e->groups[e->ngroups++] =
				(struct coll_group){ g->nodes[v].cost_ms, (int) i, 0, 0 };
		struct coll_group *c = &e->groups[e->ngroups - 1];
		if (g->nodes[v].cost_ms < c->transfer)
			c->transfer = g->nodes[v].cost_ms;
		c->n++;
		e->group_of[v] = e->ngroups - 1;
	}
}

/* Every CPU operation's rank is on a host. */
static int hosts_check(const struct rgraph *g)
{
	for (int v = 0; v < g->nnodes; v++)
		if (g->nodes[v].kind == RNODE_CPU && rgraph_node_host(g, v) < 0)
			return err_set(
				ERR_USAGE,
				"replay: node %d (\"%s\") is on rank %d, which is on no host: put every rank on a host (rgraph_set_rank_host)",
				v, rgraph_node_name(g, v), rgraph_node_rank(g, v));
	return 0;
}

static void engine_init(struct engine *e, const struct rgraph *g, struct replay_sim *s)
{
	size_t n = (size_t) g->nnodes ? (size_t) g->nnodes : 1;
	*e = (struct engine) { .g = g, .s = s, .events = RHEAP_INIT };
	e->pending = xcalloc(n, sizeof *e->pending);
	e->ready = xmalloc(n * sizeof *e->ready);
	e->next = xmalloc(n * sizeof *e->next);
	e->group_of = xmalloc(n * sizeof *e->group_of);
	succ_build(e);
	groups_build(e);
	e->hosts = xcalloc((size_t) g->nhosts + 1, sizeof *e->hosts);
	for (int h = 0; h < g->nhosts; h++)
		e->hosts[h].cores = g->host_cores[h];
	e->streams = xmalloc(((size_t) g->nlanes + 1) * sizeof *e->streams);
	for (int l = 0; l < g->nlanes; l++)
		e->streams[l] = (struct stream_run) { -1, -1, 0 };
}

static void engine_free(struct engine *e)
{
	for (int h = 0; h < e->g->nhosts; h++)
		rheap_free(&e->hosts[h].run);
	free(e->hosts);
	free(e->streams);
	rheap_free(&e->events);
	free(e->succ_off);
	free(e->succ);
	free(e->succ_delay);
	free(e->pending);
	free(e->ready);
	free(e->next);
	free(e->group_of);
	free(e->groups);
	free(e->members);
}

static struct replay_sim *sim_new(const struct rgraph *g)
{
	struct replay_sim *s = xcalloc(1, sizeof *s);
	size_t n = (size_t) g->nnodes ? (size_t) g->nnodes : 1;
	s->nnodes = g->nnodes;
	s->start = xmalloc(n * sizeof *s->start);
	s->end = xmalloc(n * sizeof *s->end);
	/* a wait starts when its thread reaches it: at 0 when nothing is before it on its lane,
	 * else as the lane's last node before it ends (node_finish) */
	for (int v = 0; v < g->nnodes; v++)
		s->start[v] = g->nodes[v].kind == RNODE_WAIT ? 0 : -1, s->end[v] = -1;
	s->nhosts = g->nhosts;
	s->core_ms = xcalloc((size_t) g->nhosts + 1, sizeof *s->core_ms);
	s->saturated_ms = xcalloc((size_t) g->nhosts + 1, sizeof *s->saturated_ms);
	return s;
}

static void sim_finish(struct replay_sim *s, const struct engine *e)
{
	for (int v = 0; v < s->nnodes; v++)
		if (s->end[v] > s->makespan)
			s->makespan = s->end[v];
	for (int h = 0; h < s->nhosts; h++) {
		s->core_ms[h] = e->hosts[h].core_ms;
		s->saturated_ms[h] = e->hosts[h].saturated_ms;
	}
	rspans_build(&s->spans, e->g, s->start, s->end);
	s->g = e->g;
}

int replay_sim_run(struct replay_sim **out, const struct rgraph *g)
{
	*out = NULL;
	int rc = hosts_check(g);
	if (rc < 0)
		return rc;
	struct replay_sim *s = sim_new(g);
	struct engine e;
	engine_init(&e, g, s);
	engine_loop(&e);
	if (e.done < (size_t) g->nnodes)
		rc = replay_cycle_error(g, s->start, s->end);
	else
		sim_finish(s, &e);
	engine_free(&e);
	if (rc < 0)
		replay_sim_free(s);
	else
		*out = s;
	return rc;
}

void replay_sim_free(struct replay_sim *s)
{
	if (!s)
		return;
	free(s->start);
	free(s->end);
	free(s->core_ms);
	free(s->saturated_ms);
	rspans_free(&s->spans);
	free(s);
}

double replay_sim_start(const struct replay_sim *s, int node)
{
	return s->start[node];
}

double replay_sim_end(const struct replay_sim *s, int node)
{
	return s->end[node];
}

double replay_sim_makespan(const struct replay_sim *s)
{
	return s->makespan;
}

double replay_sim_step_start(const struct replay_sim *s, int rank, int step)
{
	return rspans_start(&s->spans, rank, step);
}

const struct rgraph *replay_sim_graph(const struct replay_sim *s)
{
	return s->g;
}

double replay_sim_step_end(const struct replay_sim *s, int rank, int step)
{
	return rspans_end(&s->spans, rank, step);
}

double replay_sim_host_core_ms(const struct replay_sim *s, int host)
{
	return s->core_ms[host];
}

double replay_sim_host_saturated_ms(const struct replay_sim *s, int host)
{
	return s->saturated_ms[host];
}

double replay_sim_busiest_pct(const struct replay_sim *s, const struct rgraph *g)
{
	double most = 0, len = replay_sim_makespan(s);
	for (int h = 0; h < g->nhosts; h++) {
		double have = g->host_cores[h] * len,
		       pct = have > 0 ? 100 * s->core_ms[h] / have : 0;
		most = pct > most ? pct : most;
	}
	return most;
}
