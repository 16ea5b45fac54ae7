/* replay: the simulator of an execution graph (analyzers/replay/) on hand-made graphs with
 * answers computed by hand (to the microsecond), its errors, and random graphs checked
 * against the model's invariants and against a naive reference simulator written here.
 * SPDX-License-Identifier: MIT */
#include "analyzers/replay/graph.h"
#include "analyzers/replay/heap.h"
#include "analyzers/replay/sim.h"
#include "harness.h"
#include "replay_gen.h"
#include "util/err.h"

#include <math.h>
#include <time.h>

#define US 1e-3 /* ms: answers hold to the microsecond */

/* A graph of `hosts` hosts of `cores` cores, rank r on host r % hosts. */
static struct rgraph *graph_of(int hosts, int cores, int ranks)
{
	struct rgraph *g = rgraph_new();
	for (int h = 0; h < hosts; h++)
		CHECK(rgraph_add_host(g, cores) == h);
	for (int r = 0; r < ranks; r++)
		CHECK(rgraph_set_rank_host(g, r, r % hosts) == 0);
	return g;
}

static int thread_of(struct rgraph *g, int rank, int64_t tid)
{
	return rgraph_add_lane(g, RLANE_THREAD, rank, tid);
}

static int node(struct rgraph *g, enum rnode_kind kind, int lane, const char *name, double ms)
{
	struct rnode_spec sp = { kind, lane, 0, name, ms, -1, 0 };
	int v = rgraph_add_node(g, &sp);
	CHECK(v >= 0);
	return v;
}

static int coll(struct rgraph *g, int lane, int64_t instance, double transfer_ms)
{
	struct rnode_spec sp = { RNODE_COLL, lane, 0, "allreduce", transfer_ms, instance, 0 };
	return rgraph_add_node(g, &sp);
}

static void edge(struct rgraph *g, int from, int to)
{
	CHECK(rgraph_add_edge(g, from, to, 0) == 0);
}

static struct replay_sim *run(const struct rgraph *g)
{
	struct replay_sim *s = NULL;
	int rc = replay_sim_run(&s, g);
	if (rc < 0)
		printf("    replay: %s\n", err_last());
	CHECK(rc == 0 && s);
	return s;
}

/* n CPU operations of ms[i] each, every one on a thread of its own, no edges, on one host of
 * `cores` cores: their ends. */
static void ops_on_one_host(int cores, const double *ms, int n, double *ends, double *sat)
{
	struct rgraph *g = graph_of(1, cores, 1);
	for (int i = 0; i < n; i++)
		node(g, RNODE_CPU, thread_of(g, 0, i), "op", ms[i]);
	struct replay_sim *s = run(g);
	for (int i = 0; s && i < n; i++) {
		CHECK_NEAR(replay_sim_start(s, i), 0, US);
		ends[i] = replay_sim_end(s, i);
	}
	*sat = s ? replay_sim_host_saturated_ms(s, 0) : -1;
	double demand = 0;
	for (int i = 0; i < n; i++)
		demand += ms[i];
	CHECK(s && replay_sim_host_core_ms(s, 0) - demand < US &&
	      demand - replay_sim_host_core_ms(s, 0) < US);
	replay_sim_free(s);
	rgraph_free(g);
}

static void two_threads_one_core(void)
{
	double e[3], sat, ten[] = { 10, 10 }, mixed[] = { 10, 10, 20 };
	/* 1 core, 2 runnable: each at rate 1/2, so 10 ms of demand take 20 ms */
	ops_on_one_host(1, ten, 2, e, &sat);
	CHECK_NEAR(e[0], 20, US);
	CHECK_NEAR(e[1], 20, US);
	CHECK_NEAR(sat, 20, US);
	/* 2 cores, 2 runnable: each at full speed */
	ops_on_one_host(2, ten, 2, e, &sat);
	CHECK_NEAR(e[0], 10, US);
	CHECK_NEAR(e[1], 10, US);
	CHECK_NEAR(sat, 10, US);
	/* 2 cores, 3 runnable: each at rate 2/3. The 10 ms ones end when 10 ms of work is done:
	 * 10 / (2/3) = 15 ms. The 20 ms one has done 15 * 2/3 = 10 ms by then and runs alone at
	 * rate 1 for its other 10 ms: 15 + 10 = 25 ms. The cores are all busy from 0 to 15. */
	ops_on_one_host(2, mixed, 3, e, &sat);
	CHECK_NEAR(e[0], 15, US);
	CHECK_NEAR(e[1], 15, US);
	CHECK_NEAR(e[2], 25, US);
	CHECK_NEAR(sat, 15, US);
}

/* Two hosts of 2 cores, 10 ms: host 0 runs two 10 ms ops (its cores busy throughout), host
 * 1 one 5 ms op: the busiest host is 100 % busy (the mean of both, 75 %, would hide it). */
static void busiest_host(void)
{
	struct rgraph *g = graph_of(2, 2, 2);
	node(g, RNODE_CPU, thread_of(g, 0, 1), "a", 10);
	node(g, RNODE_CPU, thread_of(g, 0, 2), "b", 10);
	node(g, RNODE_CPU, thread_of(g, 1, 1), "c", 5);
	struct replay_sim *s = run(g);
	CHECK_NEAR(replay_sim_makespan(s), 10, US);
	CHECK_NEAR(replay_sim_busiest_pct(s, g), 100, 1e-9);
	CHECK_NEAR(replay_sim_host_core_ms(s, 1), 5, US);
	replay_sim_free(s);
	rgraph_free(g);
}

/* op 5 ms -> wait (on another thread's 12 ms op) -> op 3 ms, on 2 cores: the first two ops
 * run side by side at full speed, the wait starts at 5 when the thread reaches it, ends at 12,
 * and the last op runs 12 to 15. */
static void chain_across_wait(void)
{
	struct rgraph *g = graph_of(1, 2, 1);
	int a = thread_of(g, 0, 1), b = thread_of(g, 0, 2);
	int op1 = node(g, RNODE_CPU, a, "op1", 5), w = node(g, RNODE_WAIT, a, "wait", 0);
	int op2 = node(g, RNODE_CPU, a, "op2", 3), other = node(g, RNODE_CPU, b, "other", 12);
	edge(g, op1, w);
	edge(g, other, w);
	edge(g, w, op2);
	struct replay_sim *s = run(g);
	CHECK_NEAR(replay_sim_end(s, op1), 5, US);
	CHECK_NEAR(replay_sim_start(s, w), 5, US);
	CHECK_NEAR(replay_sim_end(s, w), 12, US);
	CHECK_NEAR(replay_sim_start(s, op2), 12, US);
	CHECK_NEAR(replay_sim_end(s, op2), 15, US);
	CHECK_NEAR(replay_sim_end(s, other), 12, US);
	CHECK_NEAR(replay_sim_makespan(s), 15, US);
	replay_sim_free(s);
	rgraph_free(g);
}

/* A wait that comes first on its thread (a step that starts by waiting for its batch) is
 * reached at 0: it spans 0 to the other thread's 12 ms op, and the step with it. */
static void wait_first_on_thread(void)
{
	struct rgraph *g = graph_of(1, 2, 1);
	int a = thread_of(g, 0, 1), b = thread_of(g, 0, 2);
	struct rnode_spec ws = { RNODE_WAIT, a, 0, "wait", 0, -1, 0 },
			  os = { RNODE_CPU, a, 0, "op", 3, -1, 0 };
	int w = rgraph_add_node(g, &ws), op = rgraph_add_node(g, &os);
	int other = node(g, RNODE_CPU, b, "other", 12);
	edge(g, other, w);
	edge(g, w, op);
	struct replay_sim *s = run(g);
	CHECK_NEAR(replay_sim_start(s, w), 0, US);
	CHECK_NEAR(replay_sim_end(s, w), 12, US);
	CHECK_NEAR(replay_sim_step_start(s, 0, 0), 0, US);
	CHECK_NEAR(replay_sim_step_end(s, 0, 0), 15, US);
	replay_sim_free(s);
	rgraph_free(g);
}

/* Rank 0 computes 10 ms, rank 1 30 ms (on hosts of their own), then an all-reduce with a
 * transfer of 4 ms: the instance starts at rank 1's arrival, 30, and completes for both at
 * 34. Rank 0 is in it from 10 to 34: 24 ms, of which 20 waiting for rank 1. */
static void collective_last_rank_late(void)
{
	struct rgraph *g = graph_of(2, 1, 2);
	int t0 = thread_of(g, 0, 7), t1 = thread_of(g, 1, 7);
	int c0 = node(g, RNODE_CPU, t0, "forward", 10), c1 = node(g, RNODE_CPU, t1, "forward", 30);
	int a0 = coll(g, t0, 42, 4), a1 = coll(g, t1, 42, 4.5); /* the least transfer counts */
	edge(g, c0, a0);
	edge(g, c1, a1);
	struct replay_sim *s = run(g);
	CHECK_NEAR(replay_sim_start(s, a0), 10, US);
	CHECK_NEAR(replay_sim_start(s, a1), 30, US);
	CHECK_NEAR(replay_sim_end(s, a0), 34, US);
	CHECK_NEAR(replay_sim_end(s, a1), 34, US);
	CHECK_NEAR(replay_sim_end(s, a0) - replay_sim_start(s, a0), 24, US);
	CHECK_NEAR(replay_sim_makespan(s), 34, US);
	replay_sim_free(s);
	rgraph_free(g);
}

/* Three launches of 1 ms each put a 10 ms kernel each on one stream, then a 2 ms host op,
 * then a sync on the last kernel. Launches end at 1, 2, 3; the host op at 5; the kernels run
 * back to back from the first launch's end: 1-11, 11-21, 21-31; the sync waits 5 to 31. */
static void kernel_queue_runs_ahead(void)
{
	struct rgraph *g = graph_of(1, 1, 1);
	int t = thread_of(g, 0, 1), st = rgraph_add_lane(g, RLANE_STREAM, 0, 7);
	int prev = -1, kprev = -1, k[3];
	for (int i = 0; i < 3; i++) {
		int l = node(g, RNODE_CPU, t, "cudaLaunchKernel", 1);
		k[i] = node(g, RNODE_GPU, st, "gemm", 10);
		if (prev >= 0)
			edge(g, prev, l);
		edge(g, l, k[i]);
		if (kprev >= 0)
			edge(g, kprev, k[i]);
		prev = l;
		kprev = k[i];
	}
	int op = node(g, RNODE_CPU, t, "optimizer", 2), sync = node(g, RNODE_WAIT, t, "sync", 0);
	edge(g, prev, op);
	edge(g, op, sync);
	edge(g, k[2], sync);
	struct replay_sim *s = run(g);
	CHECK_NEAR(replay_sim_end(s, op), 5, US);
	CHECK_NEAR(replay_sim_start(s, k[0]), 1, US);
	CHECK_NEAR(replay_sim_end(s, k[0]), 11, US);
	CHECK_NEAR(replay_sim_end(s, k[1]), 21, US);
	CHECK_NEAR(replay_sim_end(s, k[2]), 31, US);
	CHECK_NEAR(replay_sim_start(s, sync), 5, US);
	CHECK_NEAR(replay_sim_end(s, sync), 31, US);
	replay_sim_free(s);
	rgraph_free(g);
}

/* Two ranks on one 2-core host, each a 20 ms backward and a 10 ms reduction on a second
 * thread, with the reduction after backward (sequential) or beside it (overlapped). */
static double two_ranks_backward(int overlapped)
{
	struct rgraph *g = graph_of(1, 2, 2);
	for (int r = 0; r < 2; r++) {
		int main_t = thread_of(g, r, 1), gloo = thread_of(g, r, 2);
		int bw = node(g, RNODE_CPU, main_t, "backward", 20);
		int red = node(g, RNODE_CPU, gloo, "reduce", 10);
		if (!overlapped)
			edge(g, bw, red);
	}
	struct replay_sim *s = run(g);
	double t = s ? replay_sim_makespan(s) : -1;
	replay_sim_free(s);
	rgraph_free(g);
	return t;
}

/* Sequential: both backwards at full speed 0-20, both reductions 20-30. Overlapped: 4
 * runnable on 2 cores at rate 1/2: the reductions end at 20 (10 / (1/2)), the backwards have
 * done 10 ms by then and end at 30. 60 ms of CPU on 2 cores is 30 ms either way: no gain. */
static void overlap_on_saturated_cores(void)
{
	CHECK_NEAR(two_ranks_backward(0), 30, US);
	CHECK_NEAR(two_ranks_backward(1), 30, US);
}

static int fails_with(const struct rgraph *g, const char *needle)
{
	struct replay_sim *s = NULL;
	int rc = replay_sim_run(&s, g);
	if (rc >= 0 || s || !strstr(err_last(), needle)) {
		printf("    rc %d, error: %s\n", rc, err_last());
		replay_sim_free(s);
		return 0;
	}
	return 1;
}

/* a -> b -> c -> b: b and c never become ready; the error names the cycle's first node, b,
 * not a hang. Two ranks calling two collectives in opposite orders wait on each other too. */
static void cycle_is_an_error(void)
{
	struct rgraph *g = graph_of(1, 1, 2);
	int t = thread_of(g, 0, 1);
	int a = node(g, RNODE_CPU, t, "a", 1), b = node(g, RNODE_CPU, t, "b", 1);
	int c = node(g, RNODE_CPU, t, "c", 1);
	edge(g, a, b);
	edge(g, b, c);
	edge(g, c, b);
	CHECK(fails_with(g, "node 1 (\"b\", rank 0, step 0, thread 1) never becomes ready"));
	CHECK(fails_with(g, "cycle of 2 nodes"));
	rgraph_free(g);

	g = graph_of(2, 1, 2);
	int t0 = thread_of(g, 0, 1), t1 = thread_of(g, 1, 1);
	int x0 = coll(g, t0, 1, 1), y0 = coll(g, t0, 2, 1);
	int y1 = coll(g, t1, 2, 1), x1 = coll(g, t1, 1, 1);
	edge(g, x0, y0);
	edge(g, y1, x1);
	CHECK(fails_with(g,
			 "node 0 (\"allreduce\", rank 0, step 0, thread 1) never becomes ready"));
	CHECK(fails_with(g, "cycle of 4 nodes"));
	rgraph_free(g);
}

/* An NCCL collective on a stream holds it until its instance completes: the kernel queued
 * behind rank 0's all-reduce (arrived at 0, rank 1 arrives at 6) starts at 6 + 2 = 8. An
 * edge's delay: the op after it starts 1.5 ms after its dependency ends. */
static void stream_held_and_edge_delay(void)
{
	struct rgraph *g = graph_of(2, 1, 2);
	int s0 = rgraph_add_lane(g, RLANE_STREAM, 0, 7),
	    s1 = rgraph_add_lane(g, RLANE_STREAM, 1, 7);
	int t1 = thread_of(g, 1, 1);
	int a0 = coll(g, s0, 9, 2), k = node(g, RNODE_GPU, s0, "gemm", 3);
	int pre = node(g, RNODE_CPU, t1, "pre", 6), a1 = coll(g, s1, 9, 2);
	int post = node(g, RNODE_CPU, t1, "post", 1);
	edge(g, pre, a1);
	CHECK(rgraph_add_edge(g, a1, post, 1.5) == 0);
	struct replay_sim *s = run(g);
	CHECK_NEAR(replay_sim_start(s, a0), 0, US);
	CHECK_NEAR(replay_sim_end(s, a0), 8, US);
	CHECK_NEAR(replay_sim_start(s, k), 8, US);
	CHECK_NEAR(replay_sim_end(s, k), 11, US);
	CHECK_NEAR(replay_sim_start(s, post), 9.5, US);
	CHECK_NEAR(replay_sim_end(s, post), 10.5, US);
	replay_sim_free(s);
	rgraph_free(g);
}

/* The step helpers: the first start and last end of (rank, step), -1 for any rank. */
static void step_spans(void)
{
	struct rgraph *g = graph_of(1, 4, 2);
	int t0 = thread_of(g, 0, 1), t1 = thread_of(g, 1, 1);
	int prev0 = -1, prev1 = -1;
	for (int step = 3; step < 5; step++) {
		struct rnode_spec a = { RNODE_CPU, t0, step, "op", 2, -1, 0 },
				  b = { RNODE_CPU, t1, step, "op", 3, -1, 0 };
		int v0 = rgraph_add_node(g, &a), v1 = rgraph_add_node(g, &b);
		if (prev0 >= 0) {
			edge(g, prev0, v0);
			edge(g, prev1, v1);
		}
		prev0 = v0;
		prev1 = v1;
	}
	struct rnode_spec untagged = { RNODE_CPU, t0, -1, "idle", 50, -1, 0 };
	rgraph_add_node(g, &untagged);
	struct replay_sim *s = run(g);
	CHECK_NEAR(replay_sim_step_end(s, 0, 3), 2, US);
	CHECK_NEAR(replay_sim_step_start(s, 0, 4), 2, US);
	CHECK_NEAR(replay_sim_step_end(s, 0, 4), 4, US);
	CHECK_NEAR(replay_sim_step_end(s, 1, 4), 6, US);
	CHECK_NEAR(replay_sim_step_end(s, -1, 4), 6, US);
	CHECK_NEAR(replay_sim_step_start(s, -1, 4), 2, US);
	CHECK(replay_sim_step_end(s, 0, 5) == -1 && replay_sim_step_end(s, 2, 3) == -1);
	CHECK(replay_sim_step_end(s, -1, 2) == -1);
	CHECK_NEAR(replay_sim_makespan(s), 50, US);
	replay_sim_free(s);
	rgraph_free(g);
}

static void graph_refuses_bad_input(void)
{
	struct rgraph *g = rgraph_new();
	CHECK(rgraph_add_host(g, 0) == ERR_USAGE);
	CHECK(rgraph_set_rank_host(g, 0, 0) == ERR_USAGE);
	int t = rgraph_add_lane(g, RLANE_THREAD, 0, 1), st = rgraph_add_lane(g, RLANE_STREAM, 0, 2);
	struct rnode_spec k = { RNODE_GPU, t, 0, "gemm", 1, -1, 0 };
	CHECK(rgraph_add_node(g, &k) == ERR_USAGE &&
	      strstr(err_last(), "a kernel goes on a stream"));
	struct rnode_spec op = { RNODE_CPU, st, 0, "mm", 1, -1, 0 };
	CHECK(rgraph_add_node(g, &op) == ERR_USAGE);
	op.lane = t;
	op.cost_ms = -1;
	CHECK(rgraph_add_node(g, &op) == ERR_USAGE && strstr(err_last(), "costs -1 ms"));
	op.cost_ms = 1;
	CHECK(rgraph_add_node(g, &op) == 0);
	CHECK(rgraph_add_edge(g, 0, 1, 0) == ERR_USAGE);
	CHECK(rgraph_add_edge(g, 0, 0, -2) == ERR_USAGE);
	/* a name looked up once serves many nodes; the spec's name is then not read */
	uint32_t id = rgraph_name(g, "aten::mm");
	CHECK(id > 0 && rgraph_name(g, "aten::mm") == id && rgraph_name(g, "mm") != id);
	struct rnode_spec named = { RNODE_CPU, t, 0, "ignored", 1, -1, id };
	CHECK(rgraph_add_node(g, &named) == 1 && !strcmp(rgraph_node_name(g, 1), "aten::mm") &&
	      !strcmp(rgraph_node_name(g, 0), "mm"));
	CHECK(fails_with(g, "rank 0, which is on no host"));
	rgraph_free(g);
}

static void heap_orders(void)
{
	struct rheap h = RHEAP_INIT;
	uint64_t s = 7;
	for (int i = 0; i < 1000; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		rheap_push(&h, (double) (s >> 54), (uint64_t) i);
	}
	struct rheap_item prev = rheap_pop(&h);
	int ordered = 1, n = 1;
	while (h.n) {
		struct rheap_item it = rheap_pop(&h);
		ordered &= prev.key < it.key || (prev.key == it.key && prev.val < it.val);
		prev = it;
		n++;
	}
	CHECK(ordered && n == 1000);
	rheap_free(&h);
}

/* The naive reference: time steps from event to event, each operation with its own remaining
 * work, every rule re-checked on every node at every step (O(n^2)). It assumes each lane is
 * in program order (replay_gen.h's graphs are), so a stream never has two nodes waiting. */
struct ref {
	const struct rgraph *g;
	double *start, *end, *left, *coll_end;
	int *state; /* 0 waiting, 1 running or arrived, 2 done */
	double now;
};

/* When v's dependencies let it start; -1 while one is not done, and the latest end (plus
 * delay) of those on its own lane in *own (-1: none). */
static double ref_ready_at(const struct ref *r, int v, double *own)
{
	double t = 0;
	*own = 0; /* a wait with nothing before it on its thread is reached at 0 */
	for (size_t i = 0; i < r->g->nedges; i++) {
		const struct redge *e = &r->g->edges[i];
		if (e->to != v)
			continue;
		if (r->state[e->from] != 2)
			return -1;
		double at = r->end[e->from] + e->delay_ms;
		t = at > t ? at : t;
		if (r->g->nodes[e->from].lane == r->g->nodes[v].lane && at > *own)
			*own = at;
	}
	return t;
}

static int ref_host_running(const struct ref *r, int host)
{
	int n = 0;
	for (int v = 0; v < r->g->nnodes; v++)
		n += r->state[v] == 1 && r->g->nodes[v].kind == RNODE_CPU &&
		     rgraph_node_host(r->g, v) == host;
	return n;
}

static double ref_rate(const struct ref *r, int v)
{
	int host = rgraph_node_host(r->g, v), n = ref_host_running(r, host);
	int c = r->g->host_cores[host];
	return n <= c ? 1 : (double) c / n;
}

static void ref_arrive(struct ref *r, int v)
{
	const struct rnode *nv = &r->g->nodes[v];
	double transfer = nv->cost_ms, last = r->now;
	for (int u = 0; u < r->g->nnodes; u++) {
		const struct rnode *nu = &r->g->nodes[u];
		if (nu->kind != RNODE_COLL || nu->coll != nv->coll)
			continue;
		if (r->state[u] == 0)
			return;
		transfer = nu->cost_ms < transfer ? nu->cost_ms : transfer;
	}
	for (int u = 0; u < r->g->nnodes; u++)
		if (r->g->nodes[u].kind == RNODE_COLL && r->g->nodes[u].coll == nv->coll)
			r->coll_end[u] = last + transfer;
}

/* Starts what can start now; 1 when something did. */
static int ref_start(struct ref *r)
{
	int any = 0;
	for (int v = 0; v < r->g->nnodes; v++) {
		double own, t = r->state[v] ? -1 : ref_ready_at(r, v, &own);
		if (t < 0 || t > r->now + 1e-12)
			continue;
		const struct rnode *nv = &r->g->nodes[v];
		r->start[v] = nv->kind == RNODE_WAIT && own >= 0 ? own : r->now;
		r->state[v] = 1;
		r->left[v] = nv->cost_ms;
		if (nv->kind == RNODE_WAIT || (nv->kind == RNODE_CPU && nv->cost_ms <= 0)) {
			r->state[v] = 2;
			r->end[v] = r->now;
		} else if (nv->kind == RNODE_COLL) {
			ref_arrive(r, v);
		}
		any = 1;
	}
	return any;
}

/* The time of the next change after now. */
static double ref_next(const struct ref *r)
{
	double next = 1e300, own;
	for (int v = 0; v < r->g->nnodes; v++) {
		const struct rnode *nv = &r->g->nodes[v];
		double t = -1;
		if (r->state[v] == 0)
			t = ref_ready_at(r, v, &own);
		else if (r->state[v] == 1 && nv->kind == RNODE_CPU)
			t = r->now + r->left[v] / ref_rate(r, v);
		else if (r->state[v] == 1 && nv->kind == RNODE_GPU)
			t = r->start[v] + nv->cost_ms;
		else if (r->state[v] == 1 && nv->kind == RNODE_COLL && r->coll_end[v] >= 0)
			t = r->coll_end[v];
		if (t > r->now && t < next)
			next = t;
	}
	return next;
}

/* Advances to `to` (>= now); returns how many ended. */
static int ref_advance(struct ref *r, double to)
{
	int ended = 0;
	double dt = to - r->now;
	for (int v = 0; v < r->g->nnodes; v++)
		if (r->state[v] == 1 && r->g->nodes[v].kind == RNODE_CPU)
			/* rates of before the step: none ends inside */
			r->left[v] -= ref_rate(r, v) * dt;
	r->now = to;
	for (int v = 0; v < r->g->nnodes; v++) {
		const struct rnode *nv = &r->g->nodes[v];
		int ends = r->state[v] == 1 &&
			((nv->kind == RNODE_CPU && r->left[v] <= 1e-9) ||
			 (nv->kind == RNODE_GPU && r->start[v] + nv->cost_ms <= to + 1e-12) ||
			 (nv->kind == RNODE_COLL && r->coll_end[v] >= 0 &&
			  r->coll_end[v] <= to + 1e-12));
		if (ends) {
			r->state[v] = 2;
			r->end[v] = to;
			ended++;
		}
	}
	return ended;
}

static int ref_run(struct ref *r)
{
	int n = r->g->nnodes, done = 0, rounds = 0;
	r->start = calloc((size_t) n, sizeof(double));
	r->end = calloc((size_t) n, sizeof(double));
	r->left = calloc((size_t) n, sizeof(double));
	r->coll_end = malloc((size_t) n * sizeof(double));
	r->state = calloc((size_t) n, sizeof(int));
	for (int v = 0; v < n; v++)
		r->coll_end[v] = -1;
	while (done < n && rounds++ < 100 * n) {
		while (ref_start(r) + ref_advance(r, r->now)) /* what takes no time ends now */
			;
		done = 0;
		for (int v = 0; v < n; v++)
			done += r->state[v] == 2;
		if (done < n)
			ref_advance(r, ref_next(r));
	}
	return done == n;
}

static void ref_free(struct ref *r)
{
	free(r->start);
	free(r->end);
	free(r->left);
	free(r->coll_end);
	free(r->state);
}

/* Small random graphs: every node's start and end as the naive reference has them. */
static void random_graphs_match_reference(void)
{
	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct rgraph *g = gen_graph(seed, 300, 1 + (int) seed % 3, 2, 4);
		struct ref r = { .g = g };
		CHECK(ref_run(&r));
		struct replay_sim *s = run(g);
		int same = 1;
		for (int v = 0; s && v < g->nnodes; v++) {
			int ok = fabs(replay_sim_start(s, v) - r.start[v]) < US &&
				 fabs(replay_sim_end(s, v) - r.end[v]) < US;
			if (!ok && same)
				printf("    seed %llu node %d (kind %d): sim %.6f-%.6f, reference %.6f-%.6f\n",
				       (unsigned long long) seed, v, g->nodes[v].kind,
				       replay_sim_start(s, v), replay_sim_end(s, v), r.start[v],
				       r.end[v]);
			same &= ok;
		}
		CHECK(same);
		replay_sim_free(s);
		ref_free(&r);
		rgraph_free(g);
	}
}

struct mark {
	double t;
	int d;
};

static int mark_cmp(const void *a, const void *b)
{
	const struct mark *x = a, *y = b;
	return (x->t > y->t) - (x->t < y->t);
}

/* Processor sharing does all the CPU work and no more: on each host, the integral over time
 * of min(running operations, cores) equals the operations' total demand. */
static int work_conserved(const struct rgraph *g, const struct replay_sim *s, int host)
{
	struct mark *m = malloc(2 * (size_t) g->nnodes * sizeof *m);
	size_t n = 0;
	double demand = 0, done = 0;
	for (int v = 0; v < g->nnodes; v++)
		if (g->nodes[v].kind == RNODE_CPU && g->nodes[v].cost_ms > 0 &&
		    rgraph_node_host(g, v) == host) {
			demand += g->nodes[v].cost_ms;
			m[n++] = (struct mark) { replay_sim_start(s, v), 1 };
			m[n++] = (struct mark) { replay_sim_end(s, v), -1 };
		}
	qsort(m, n, sizeof *m, mark_cmp);
	int k = 0, c = g->host_cores[host];
	for (size_t i = 0; i < n; i++) {
		if (i)
			done += (k < c ? k : c) * (m[i].t - m[i - 1].t);
		k += m[i].d;
	}
	free(m);
	double core_ms = replay_sim_host_core_ms(s, host);
	return fabs(done - demand) <= 1e-6 * demand + US &&
		fabs(core_ms - demand) <= 1e-6 * demand + US;
}

/* Each edge's dependency ended (plus delay) before its node started (a wait: ended); an
 * operation takes at least its demand, a kernel exactly its duration; a collective ends for
 * every rank at its last arrival plus the least transfer; the makespan is the last end. */
static int edges_and_costs_hold(const struct rgraph *g, const struct replay_sim *s)
{
	int ok = 1;
	double last = 0;
	for (size_t i = 0; i < g->nedges; i++) {
		const struct redge *e = &g->edges[i];
		double at = replay_sim_end(s, e->from) + e->delay_ms - 1e-9;
		ok &= replay_sim_end(s, e->to) >= at;
		ok &= g->nodes[e->to].kind == RNODE_WAIT || replay_sim_start(s, e->to) >= at;
	}
	for (int v = 0; v < g->nnodes; v++) {
		double len = replay_sim_end(s, v) - replay_sim_start(s, v);
		ok &= replay_sim_start(s, v) >= 0 && len >= -1e-9;
		ok &= g->nodes[v].kind != RNODE_CPU || len >= g->nodes[v].cost_ms - 1e-6;
		ok &= g->nodes[v].kind != RNODE_GPU || fabs(len - g->nodes[v].cost_ms) < 1e-6;
		last = replay_sim_end(s, v) > last ? replay_sim_end(s, v) : last;
	}
	return ok && last == replay_sim_makespan(s);
}

static int colls_hold(const struct rgraph *g, const struct replay_sim *s)
{
	int ok = 1;
	for (int v = 0; v < g->nnodes; v++) {
		if (g->nodes[v].kind != RNODE_COLL ||
		    (v && g->nodes[v - 1].coll == g->nodes[v].coll))
			/* the first node of an instance (the generator adds them together) */
			continue;
		double last = 0, transfer = 1e300;
		int u;
		for (u = v; u < g->nnodes && g->nodes[u].coll == g->nodes[v].coll; u++) {
			last = replay_sim_start(s, u) > last ? replay_sim_start(s, u) : last;
			transfer = g->nodes[u].cost_ms < transfer ? g->nodes[u].cost_ms : transfer;
		}
		for (int w = v; w < u; w++)
			ok &= fabs(replay_sim_end(s, w) - (last + transfer)) < 1e-6;
	}
	return ok;
}

/* 200k nodes on 4 hosts of 1 to 4 cores and 8 ranks: the replay ends within a second (under
 * the sanitizers) and the model's invariants hold for every node. */
static void large_random_graph_invariants(void)
{
	struct rgraph *g = gen_graph(2024, 200000, 4, 2, 50);
	clock_t t0 = clock();
	struct replay_sim *s = run(g);
	double secs = (double) (clock() - t0) / CLOCKS_PER_SEC;
	printf("    %d nodes, %zu edges: replayed in %.3f s, makespan %.1f ms\n", g->nnodes,
	       g->nedges, secs, s ? replay_sim_makespan(s) : -1);
	CHECK(secs < 1);
	CHECK(s && edges_and_costs_hold(g, s));
	CHECK(s && colls_hold(g, s));
	for (int h = 0; s && h < g->nhosts; h++)
		CHECK(work_conserved(g, s, h));
	CHECK(s && replay_sim_step_end(s, -1, 49) == replay_sim_makespan(s));
	replay_sim_free(s);
	rgraph_free(g);
}

int main(void)
{
	RUN(heap_orders);
	RUN(two_threads_one_core);
	RUN(busiest_host);
	RUN(chain_across_wait);
	RUN(wait_first_on_thread);
	RUN(collective_last_rank_late);
	RUN(kernel_queue_runs_ahead);
	RUN(overlap_on_saturated_cores);
	RUN(cycle_is_an_error);
	RUN(stream_held_and_edge_delay);
	RUN(step_spans);
	RUN(graph_refuses_bad_input);
	RUN(random_graphs_match_reference);
	RUN(large_random_graph_invariants);
	HARNESS_END();
}
