/* SPDX-License-Identifier: MIT */
#include "analyzers/replay_gpu.h"
#include "analyzers/collective.h"

#include "util/sort.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* A kernel that starts more than this (µs) after both its launch and its stream's previous
 * kernel ended waited for something else: an event recorded on another stream
 * (cudaStreamWaitEvent), looked for among the rank's other streams. */
#define GPU_WAITED_US 10.0
/* A kernel launched on an idle stream starts this long after its launch call ends, at most
 * (µs): the measured latency, up to this; a longer one is a wait (above). */
#define GPU_LATENCY_MAX_US 20.0

struct gpu_side {
	const struct gpu_trace *t;
	struct coll_namer *namer; /* what its NCCL kernels did, by their launch's nccl:<op> range */
	/* per name of the trace: what its calls are (NAME_*), and for a kernel its collective's
	 * operation by its name (-1: none); a trace's many ranges share few names */
	unsigned char *name_call;
	int *name_op;
	struct gpu_cut *cut; /* by thread, then time */
	size_t ncut;
	size_t *launch; /* the launch cuts, by their call's start */
	size_t nlaunch;
};

/* 1 for a call that blocks the host until GPU work ends (CUDA's, or HIP's on ROCm). */
static int is_sync(const char *name)
{
	static const char *const calls[] = { "cudaDeviceSynchronize", "cudaStreamSynchronize",
					     "cudaEventSynchronize",  "cudaMemcpy",
					     "hipDeviceSynchronize",  "hipStreamSynchronize",
					     "hipEventSynchronize",   "hipMemcpy",
					     "hipMemcpyWithStream" };
	return kineto_is_call(name, calls, sizeof calls / sizeof *calls);
}

/* 1 for a call that queues GPU work: kineto_is_launch's, the driver's and CUDA graphs' (all of
 * a graph's kernels carry its launch's correlation id), or HIP's on ROCm. */
static int is_launch(const char *name)
{
	static const char *const calls[] = {
		"cudaLaunchKernelExC",      "cudaLaunchCooperativeKernel",
		"cuLaunchKernel",           "cuLaunchKernelEx",
		"cudaGraphLaunch",          "cudaMemcpy2DAsync",
		"cudaMemcpyPeerAsync",      "hipLaunchKernel",
		"hipExtModuleLaunchKernel", "hipModuleLaunchKernel",
		"hipMemcpyAsync",           "hipMemsetAsync",
	};
	return kineto_is_launch(name) || kineto_is_call(name, calls, sizeof calls / sizeof *calls);
}

static int by_tid_at(const void *x, const void *y)
{
	const struct gpu_cut *a = x, *c = y;
	if (a->tid != c->tid)
		return a->tid < c->tid ? -1 : 1;
	if (a->at != c->at)
		return a->at < c->at ? -1 : 1;
	return a->kind < c->kind ? -1 : a->kind > c->kind;
}

static void add_cut(struct gpu_side *g, size_t *cap, double at, double call, int tid, int kind)
{
	XGROW(g->cut, g->ncut, *cap, 64);
	g->cut[g->ncut++] = (struct gpu_cut){ at, call, tid, kind, -1 };
}

/* Launch cuts (indexes into the cuts, ctx) by their call's start, then index. */
static int by_call_start(const void *x, const void *y, void *ctx)
{
	const struct gpu_cut *cut = ctx;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	if (cut[i].call_start != cut[j].call_start)
		return cut[i].call_start < cut[j].call_start ? -1 : 1;
	return i < j ? -1 : i > j;
}

enum { NAME_OTHER, NAME_LAUNCH, NAME_SYNC };

/* Each name's NAME_* and operation, found once per name. */
static void names_classed(struct gpu_side *g)
{
	const struct gpu_trace *t = g->t;
	g->name_call = xcalloc(t->nnames + 1, 1);
	g->name_op = xcalloc(t->nnames + 1, sizeof *g->name_op);
	for (size_t i = 0; i < t->nnames; i++) {
		const char *nm = t->names[i];
		g->name_call[i] = is_launch(nm) ? NAME_LAUNCH
			: is_sync(nm)           ? NAME_SYNC
						: NAME_OTHER;
		g->name_op[i] = !strncmp(nm, "nccl", 4) ? coll_op_of(nm) : -1;
	}
}

struct gpu_side *replay_gpu_new(const struct gpu_trace *t)
{
	if (!t->n)
		return NULL;
	struct gpu_side *g = xcalloc(1, sizeof *g);
	size_t cap = 0;
	g->t = t;
	g->namer = coll_namer_new(t);
	names_classed(g);
	for (size_t i = 0; i < t->ncpu; i++) {
		const struct cpu_range *c = &t->cpu[i];
		if (g->name_call[c->name] == NAME_LAUNCH) {
			add_cut(g, &cap, c->end, c->start, c->tid, GPU_CUT_LAUNCH);
		} else if (g->name_call[c->name] == NAME_SYNC && c->end > c->start) {
			add_cut(g, &cap, c->start, c->start, c->tid, GPU_CUT_SYNC_START);
			add_cut(g, &cap, c->end, c->start, c->tid, GPU_CUT_SYNC_END);
		}
	}
	sort_runs(g->cut, g->ncut, sizeof *g->cut, by_tid_at);
	g->launch = xcalloc(g->ncut + 1, sizeof *g->launch);
	for (size_t i = 0; i < g->ncut; i++)
		if (g->cut[i].kind == GPU_CUT_LAUNCH)
			g->launch[g->nlaunch++] = i;
	qsort_r(g->launch, g->nlaunch, sizeof *g->launch, by_call_start, g->cut);
	return g;
}

void replay_gpu_free(struct gpu_side *g)
{
	if (!g)
		return;
	free(g->cut);
	free(g->launch);
	coll_namer_free(g->namer);
	free(g->name_call);
	free(g->name_op);
	free(g);
}

struct gpu_cut *replay_gpu_cuts(struct gpu_side *g, int tid, double s, double e, size_t *n)
{
	size_t lo = 0, hi = g ? g->ncut : 0;
	*n = 0;
	while (lo < hi) { /* the first cut of tid after s */
		size_t mid = (lo + hi) / 2;
		const struct gpu_cut *c = &g->cut[mid];
		if (c->tid < tid || (c->tid == tid && c->at <= s))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (g && lo + *n < g->ncut && g->cut[lo + *n].tid == tid && g->cut[lo + *n].at <= e)
		(*n)++;
	return *n ? &g->cut[lo] : NULL;
}

/* The launch cut whose call started at `start` (µs, within 1 µs: the reader rounds a
 * runtime call's times as HTA does, a host range's not), NULL when none. */
static const struct gpu_cut *launch_at(const struct gpu_side *g, double start)
{
	size_t lo = 0, hi = g->nlaunch;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (g->cut[g->launch[mid]].call_start < start - 1)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct gpu_cut *best = NULL;
	for (; lo < g->nlaunch && g->cut[g->launch[lo]].call_start <= start + 1; lo++) {
		const struct gpu_cut *c = &g->cut[g->launch[lo]];
		double d = c->call_start - start, bd = best ? best->call_start - start : 2;
		if (!best || (d < 0 ? -d : d) < (bd < 0 ? -bd : bd))
			best = c;
	}
	return best;
}

/* A GPU node to be, before its proto is added. */
struct kernel {
	double s, e;    /* µs */
	double launch;  /* its launch call's end, µs */
	int piece;      /* the proto of the host piece that launched it */
	int stream;
	int name;
	int proto;
	int op; /* an NCCL collective's (coll_op_of), -1: none */
	uint32_t group; /* its process group (a hash of the name), 0: the default or unknown */
	int group_size; /* 0: unknown */
};

/* The GPU events carrying a collective's args (PyTorch 2 writes them on NCCL kernels), by
 * start. */
struct comm_args {
	const struct comm_event **v;
	size_t n;
};

static int by_comm_start(const void *x, const void *y)
{
	const struct comm_event *a = *(const struct comm_event *const *)x,
				*c = *(const struct comm_event *const *)y;
	return a->start < c->start ? -1 : a->start > c->start;
}

static void comm_args_init(struct comm_args *a, const struct gpu_trace *t)
{
	a->v = xcalloc(t->ncomm + 1, sizeof *a->v);
	a->n = 0;
	for (size_t i = 0; i < t->ncomm; i++)
		if (t->comm[i].gpu)
			a->v[a->n++] = &t->comm[i];
	sort_runs(a->v, a->n, sizeof *a->v, by_comm_start);
}

/* The collective's args on kernel ev (PyTorch 2 writes them), NULL: none. */
static const struct comm_event *args_of(const struct comm_args *a, const struct gpu_event *ev)
{
	size_t lo = 0, hi = a->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (a->v[mid]->start < ev->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < a->n && a->v[lo]->start == ev->start ? a->v[lo] : NULL;
}

/* Kernel k's collective: its operation from its name (NCCL's kernels: ncclKernel_AllReduce_...,
 * ncclDevKernel_SendRecv ...) and, from the args on it where the trace has them, its process
 * group and size. SendRecv kernels are what the collective's args, else the nccl:<op> range
 * around the launch (namer), say they did: an all-to-all's are an instance across ranks, a
 * send's or a receive's (pipeline stages: two ranks of many) a kernel of its own. */
static void kernel_coll(struct kernel *k, const struct gpu_side *g, const struct gpu_event *ev,
			const struct comm_args *a)
{
	const struct gpu_trace *t = g->t;
	const struct comm_event *c = NULL;
	k->op = g->name_op[ev->name];
	k->group = 0, k->group_size = 0;
	if (k->op >= 0)
		c = args_of(a, ev);
	if (k->op == COLL_SEND_RECV) {
		k->op = c ? coll_op_of(t->names[c->coll])
			  : coll_namer_op(g->namer, ev->corr, k->op);
		k->op = k->op == COLL_SEND_RECV ? -1 : k->op;
	}
	if (k->op < 0 || !c)
		return;
	const char *pg = c->pg >= 0 ? t->names[c->pg] : "";
	if (*pg && strcmp(pg, "0")) { /* a group of its own; 0 stands for the default's */
		k->group = (uint32_t)str_hash(pg);
		k->group += !k->group;
	}
	k->group_size = c->group_size > 0 ? c->group_size : 0;
}

static int by_stream_start(const void *x, const void *y)
{
	const struct kernel *a = x, *c = y;
	if (a->stream != c->stream)
		return a->stream < c->stream ? -1 : 1;
	return a->s < c->s ? -1 : a->s > c->s;
}

/* The rank's kernels whose launch was replayed, by stream then start. */
static struct kernel *kernels(const struct gpu_side *g, size_t *n)
{
	const struct gpu_trace *t = g->t;
	double u = t->unit_per_us > 0 ? t->unit_per_us : 1;
	struct kernel *k = xcalloc(t->n + 1, sizeof *k);
	struct comm_args args;
	comm_args_init(&args, t);
	*n = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct gpu_event *ev = &t->ev[i];
		const struct rt_event *rt = ev->corr >= 0 ? gpu_trace_rt(t, ev->corr) : NULL;
		const struct gpu_cut *c = rt ? launch_at(g, rt->start / u) : NULL;
		if (!c || c->proto < 0)
			continue;
		/* (times rounded as HTA does: a kernel under 1 µs may end before it starts) */
		double s = ev->start / u, e = ev->end / u > s ? ev->end / u : s;
		k[*n] = (struct kernel){ s, e, c->at, c->proto, ev->stream,
					 ev->name, -1, -1, 0, 0 };
		kernel_coll(&k[(*n)++], g, ev, &args);
	}
	free(args.v);
	sort_runs(k, *n, sizeof *k, by_stream_start);
	return k;
}

/* Kernels (indexes, ctx the kernels) by end, then index. */
static int by_kernel_end(const void *x, const void *y, void *ctx)
{
	const struct kernel *k = ctx;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	if (k[i].e != k[j].e)
		return k[i].e < k[j].e ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* How many of the kernels (by_end: their indexes by end) ended at or before x. */
static size_t ended_by(const struct kernel *k, const size_t *by_end, size_t n, double x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (k[by_end[mid]].e <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The kernel on another stream than k[i]'s, started before it, that ended last in
 * (after, k[i].s]; -1: none. by_end: the kernels' indexes by end. */
static int waited_for(const struct kernel *k, const size_t *by_end, size_t n, size_t i,
		      double after)
{
	for (size_t lo = ended_by(k, by_end, n, k[i].s); lo > 0 && k[by_end[lo - 1]].e > after;
	     lo--) {
		const struct kernel *j = &k[by_end[lo - 1]];
		if (j->stream != k[i].stream && j->s < k[i].s) /* (never both ways: no cycle) */
			return (int)by_end[lo - 1];
	}
	return -1;
}

/* The protos of the kernels, on a lane per stream of rank index ri: an NCCL collective's a
 * part of an instance across ranks, matched in its launch's step window (win, nwin; by
 * replay_build.c), of its measured duration (the least over the ranks is the instance's
 * transfer). */
static void kernel_protos(struct builder *b, struct kernel *k, size_t n, int ri,
			  const double (*win)[2], int nwin)
{
	int lane = -1;
	for (size_t i = 0; i < n; i++) {
		if (!i || k[i].stream != k[i - 1].stream)
			lane = rgraph_add_lane(b->g, RLANE_STREAM, b->in->ranks[ri].rank,
					       k[i].stream);
		int cstep = replay_window_at(win, nwin, k[i].launch);
		struct proto p = { .s = k[i].s, .e = k[i].e, .rank_i = ri, .lane = lane,
				   .kind = k[i].op >= 0 ? RNODE_COLL : RNODE_GPU, .step = -1,
				   .name = k[i].name, .op = k[i].op, .coll = -1, .fixed = 1,
				   .cost_ms = (k[i].e - k[i].s) / 1000, .step_arg = -1,
				   .cstep = cstep, .group = k[i].group,
				   .group_size = k[i].group_size, .from = k[i].piece };
		k[i].proto = replay_proto_add(b, &p);
	}
}

/* Each kernel's edges in: from its launch (with the measured latency when its stream was
 * idle), from the kernel before it on its stream (a stream runs its work in the order it was
 * queued: one held back by a wait holds back those queued after it), and from what it waited
 * for on another stream. */
static void kernel_edges(struct builder *b, const struct kernel *k, size_t n, size_t *by_end)
{
	for (size_t i = 0; i < n; i++) {
		int same = i && k[i - 1].stream == k[i].stream;
		double prev = same ? k[i - 1].e : -1e300;
		if (same)
			replay_proto_edge(b, k[i - 1].proto, k[i].proto, 0);
		double ready = prev > k[i].launch ? prev : k[i].launch;
		double lat = prev <= k[i].launch ? k[i].s - k[i].launch : 0;
		replay_proto_edge(b, k[i].piece, k[i].proto,
				  lat < GPU_LATENCY_MAX_US ? lat : GPU_LATENCY_MAX_US);
		int j = k[i].s - ready > GPU_WAITED_US ? waited_for(k, by_end, n, i, ready) : -1;
		if (j >= 0)
			replay_proto_edge(b, k[j].proto, k[i].proto, k[i].s - k[j].e);
	}
}

/* Each synchronisation's edge in: from the kernel queued before the call that ended last
 * before it returned (the one it waited for), when that one ended after the call began. */
static void sync_edges(struct builder *b, const struct gpu_side *g, const struct kernel *k,
		       size_t n, const size_t *by_end)
{
	for (size_t c = 0; c < g->ncut; c++) {
		const struct gpu_cut *x = &g->cut[c];
		if (x->kind != GPU_CUT_SYNC_END || x->proto < 0)
			continue;
		for (size_t lo = ended_by(k, by_end, n, x->at + 1);
		     lo > 0 && k[by_end[lo - 1]].e > x->call_start; lo--) {
			const struct kernel *j = &k[by_end[lo - 1]];
			if (j->launch <= x->call_start) { /* queued before the call */
				replay_proto_edge(b, j->proto, x->proto, 0);
				break;
			}
		}
	}
}

size_t replay_gpu_nodes(struct builder *b, struct gpu_side *g, int ri, const double (*win)[2],
			int nwin)
{
	if (!g)
		return 0;
	size_t n;
	struct kernel *k = kernels(g, &n);
	kernel_protos(b, k, n, ri, win, nwin);
	size_t *by_end = xcalloc(n + 1, sizeof *by_end);
	for (size_t i = 0; i < n; i++)
		by_end[i] = i;
	qsort_r(by_end, n, sizeof *by_end, by_kernel_end, k);
	kernel_edges(b, k, n, by_end);
	sync_edges(b, g, k, n, by_end);
	free(by_end);
	free(k);
	return n;
}
