/* replay_build: the execution graph of hand-made host traces (two ranks, a step thread and
 * a gloo thread each, an all-reduce matched across them) replayed unchanged, with answers
 * computed by hand; the CPU demand estimate; and the committed DDP fixtures' replay.
 * SPDX-License-Identifier: MIT */
#include "analyzers/read/kineto.h"
#include "analyzers/phases.h"
#include "analyzers/read/rules.h"
#include "analyzers/replay/sim.h"
#include "analyzers/replay_build.h"
#include "analyzers/replay_scenario.h"
#include "analyzers/stats.h"
#include "analyzers/steptime.h"
#include "analyzers/torchtrace.h"
#include "harness.h"
#include "util/err.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define US 1e-6 /* ms */

/* Every rank on one host of two cores (or of none), with no loader change asked. */
static const struct replay_where two_cores = { .cores = 2, .one_host = 1 },
				  no_cores = { .cores = 0, .one_host = 1 };

/* Rank 0 and 1 of a step of 100 µs: forward, backward (rank 0 with 5 µs of untraced work
 * between them), the bucket's all-reduce on the gloo thread, the step thread's wait for it,
 * the optimizer. */
static const char *const rank_json[2] = {
	"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#0\",\"tid\":1,\"ts\":0,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":0,\"dur\":35},{\"ph\":\"X\",\"name\":\"aten::mm\",\"tid\":1,\"ts\":2,\"dur\":30},{\"ph\":\"X\",\"name\":\"bwd\",\"tid\":1,\"ts\":40,\"dur\":20},{\"ph\":\"X\",\"name\":\"gloo:all_reduce\",\"tid\":2,\"ts\":62,\"dur\":23},{\"ph\":\"X\",\"name\":\"opt\",\"tid\":1,\"ts\":90,\"dur\":10}]}",
	"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#0\",\"tid\":1,\"ts\":0,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":0,\"dur\":50},{\"ph\":\"X\",\"name\":\"bwd\",\"tid\":1,\"ts\":50,\"dur\":20},{\"ph\":\"X\",\"name\":\"gloo:all_reduce\",\"tid\":2,\"ts\":70,\"dur\":15},{\"ph\":\"X\",\"name\":\"opt\",\"tid\":1,\"ts\":90,\"dur\":10}]}",
};

struct two {
	struct gpu_trace t[2];
	unsigned char *is_step[2];
	struct replay_rank_in in[2];
};

/* Trace json read with its host ranges into *t, and its step names (ProfilerStep#<n>) into
 * *is_step (free). */
static void load_rank(const char *json, struct gpu_trace *t, unsigned char **is_step)
{
	FILE *f = fmemopen((void *)json, strlen(json), "r");
	CHECK(f && kineto_load_stream(f, "hand", 1, t) == 0);
	fclose(f);
	*is_step = calloc(t->nnames + 1, 1);
	for (size_t i = 0; i < t->nnames; i++)
		(*is_step)[i] = !strncmp(t->names[i], "ProfilerStep#", 13);
}

/* Two ranks of one host, rank r's trace json[r], one step each. */
static void load_pair(struct two *w, const char *const json[2])
{
	for (int r = 0; r < 2; r++) {
		load_rank(json[r], &w->t[r], &w->is_step[r]);
		w->in[r] = (struct replay_rank_in){ &w->t[r], r, 0, w->is_step[r], 1, NULL };
	}
}

static void load_two(struct two *w)
{
	load_pair(w, rank_json);
}

static void free_two(struct two *w)
{
	for (int r = 0; r < 2; r++) {
		gpu_trace_free(&w->t[r]);
		free(w->is_step[r]);
	}
}

/* Two identical ranks, each trace json's, with nsteps steps (ProfilerStep#<n> ranges). */
static void load_same(struct two *w, const char *json, int nsteps)
{
	for (int r = 0; r < 2; r++) {
		load_rank(json, &w->t[r], &w->is_step[r]);
		w->in[r] = (struct replay_rank_in){ &w->t[r], r, 0, w->is_step[r], nsteps, NULL };
	}
}

static int node_named(const struct rgraph *g, int rank, const char *name)
{
	for (int v = 0; v < g->nnodes; v++)
		if (rgraph_node_rank(g, v) == rank && !strcmp(rgraph_node_name(g, v), name))
			return v;
	return -1;
}

/* On one core every operation ran at half speed beside another but rank 1's backward
 * from 60 to 70 (alone) : demands 17.5 2.5 10 5 | 25 15 5 = 80 core-µs. The ranks share the
 * host, so the all-reduce's transfer (the least of 23 and 15 µs, after rank 1's arrival at
 * 70) is CPU work of both, side by side on the one core: 7.5 core-µs each, 95 in all. Each
 * rank's part is three nodes: its arrival (62 to 70 for rank 0), the transfer, the
 * completion. Replayed, every operation ends where it did; both ranks wait for the
 * all-reduce (85) and the optimizer runs 90 to 100. */
static void hand_made_one_core(void)
{
	struct two w;
	load_two(&w);
	int cores = 1;
	struct replay_build_in in = { w.in, 2, &cores, 1, NULL };
	struct rgraph *g = NULL;
	struct replay_build_info info;
	CHECK(replay_build(&in, &g, &info) == 0 && g);
	CHECK(info.ops == 8 && info.gaps == 1 && info.colls == 1 && !info.unmatched_colls);
	CHECK(info.joins == 4); /* two hand-offs to gloo, two waits for it */
	CHECK(g->nnodes == 13 && info.host_colls == 1);
	struct replay_sim *s = NULL;
	CHECK(replay_sim_run(&s, g) == 0);
	CHECK_NEAR(g->nodes[node_named(g, 0, "fwd")].cost_ms, 17.5e-3, US);
	CHECK_NEAR(g->nodes[node_named(g, 0, "untraced")].cost_ms, 2.5e-3, US);
	CHECK_NEAR(g->nodes[node_named(g, 1, "bwd")].cost_ms, 15e-3, US);
	CHECK_NEAR(replay_sim_host_core_ms(s, 0), 95e-3, US);
	CHECK_NEAR(replay_sim_end(s, node_named(g, 0, "fwd")), 35e-3, US);
	CHECK_NEAR(replay_sim_end(s, node_named(g, 0, "bwd")), 60e-3, US);
	CHECK_NEAR(replay_sim_end(s, node_named(g, 1, "bwd")), 70e-3, US);
	int c0 = node_named(g, 0, "gloo:all_reduce"), x0 = c0 + 1, d0 = c0 + 2;
	CHECK(g->nodes[c0].kind == RNODE_COLL && g->nodes[x0].kind == RNODE_CPU &&
	      g->nodes[d0].kind == RNODE_COLL &&
	      !strcmp(rgraph_node_name(g, d0), "gloo:all_reduce"));
	CHECK_NEAR(g->nodes[x0].cost_ms, 7.5e-3, US);
	CHECK_NEAR(replay_sim_start(s, c0), 62e-3, US);
	CHECK_NEAR(replay_sim_end(s, c0), 70e-3, US);
	CHECK_NEAR(replay_sim_end(s, x0), 85e-3, US);
	CHECK_NEAR(replay_sim_end(s, d0), 85e-3, US);
	CHECK_NEAR(replay_sim_start(s, node_named(g, 0, "opt")), 90e-3, US);
	for (int r = 0; r < 2; r++) {
		CHECK_NEAR(replay_sim_step_start(s, r, 0), 0, US);
		CHECK_NEAR(replay_sim_step_end(s, r, 0), 100e-3, US);
	}
	replay_sim_free(s);
	rgraph_free(g);
	replay_build_info_free(&info);
	free_two(&w);
}

/* On two cores nothing ran beside more than one other: demand = wall time. */
static void hand_made_two_cores(void)
{
	struct two w;
	load_two(&w);
	int cores = 2;
	struct replay_build_in in = { w.in, 2, &cores, 1, NULL };
	struct rgraph *g = NULL;
	CHECK(replay_build(&in, &g, NULL) == 0);
	CHECK_NEAR(g->nodes[node_named(g, 1, "fwd")].cost_ms, 50e-3, US);
	struct replay_sim *s = NULL;
	CHECK(replay_sim_run(&s, g) == 0);
	CHECK_NEAR(replay_sim_step_end(s, -1, 0), 100e-3, US);
	replay_sim_free(s);
	rgraph_free(g);
	free_two(&w);
}

/* One rank alone: its all-reduce is whole, its own 23 µs. Rank 1's a broadcast instead:
 * neither is matched, each an instance of its own, of its own measured time. */
static void unmatched_collective(void)
{
	struct two w;
	load_two(&w);
	int cores = 2;
	struct replay_build_in in = { w.in, 1, &cores, 1, NULL };
	struct rgraph *g = NULL;
	struct replay_build_info info;
	struct replay_sim *s = NULL;
	CHECK(replay_build(&in, &g, &info) == 0);
	CHECK(info.colls == 1 && info.unmatched_colls == 0);
	CHECK(replay_sim_run(&s, g) == 0);
	CHECK_NEAR(replay_sim_end(s, node_named(g, 0, "gloo:all_reduce")), 85e-3, US);
	replay_sim_free(s);
	rgraph_free(g);
	replay_build_info_free(&info);
	for (size_t i = 0; i < w.t[1].nnames; i++)
		if (!strcmp(w.t[1].names[i], "gloo:all_reduce"))
			strcpy(w.t[1].names[i], "gloo:broadcast");
	in.n = 2;
	CHECK(replay_build(&in, &g, &info) == 0);
	CHECK(info.colls == 0 && info.unmatched_colls == 2);
	CHECK(replay_sim_run(&s, g) == 0);
	CHECK_NEAR(replay_sim_end(s, node_named(g, 0, "gloo:all_reduce")), 85e-3, US);
	CHECK_NEAR(replay_sim_end(s, node_named(g, 1, "gloo:broadcast")), 85e-3, US);
	replay_sim_free(s);
	rgraph_free(g);
	replay_build_info_free(&info);
	free_two(&w);
}

/* Two intervals on one core beside a third on [5, 15): hand-integrated. */
static void demand_estimate(void)
{
	double s[] = { 0, 0, 5 }, e[] = { 10, 20, 15 };
	struct replay_load *l = replay_load_new(s, e, 3, 1);
	/* [0,5) 1/2, [5,10) 1/3, [10,15) 1/2, [15,20) 1 */
	CHECK_NEAR(replay_load_demand_ms(l, 0, 10), (2.5 + 5.0 / 3) / 1000, 1e-9);
	CHECK_NEAR(replay_load_demand_ms(l, 0, 20), (2.5 + 5.0 / 3 + 2.5 + 5) / 1000, 1e-9);
	CHECK_NEAR(replay_load_demand_ms(l, 5, 15), (5.0 / 3 + 2.5) / 1000, 1e-9);
	replay_load_free(l);
}

/* The host change on traces without GPU work: refused, saying why. */
static void host_change_refused(void)
{
	struct two w;
	load_two(&w);
	int cores = 2;
	struct replay_change host = { .kind = REPLAY_CHANGE_HOST };
	struct replay_build_in in = { w.in, 2, &cores, 1, &host };
	struct rgraph *g = NULL;
	CHECK(replay_build(&in, &g, NULL) < 0 && !g);
	CHECK(strstr(err_last(), "launch no GPU work"));
	free_two(&w);
}

/* One rank with GPU work, a step of 100 µs on thread 1: fwd (0-40) launches kernel A (its
 * call 2-4; A runs 5-35 on stream 7) and kernel B (6-8; B 35-45 after A on the stream), and
 * queues a copy C on stream 9 (10-12) that waits for B (an event: C runs 46-50); sync (40-60)
 * blocks in cudaStreamSynchronize from 41 until C ends at 50; opt runs 60-100. Built: fwd in
 * three pieces cut at each launch's end and one after, sync in three around the wait, the
 * three GPU nodes; replayed, each ends where it did: A after its launch and 1 µs latency, B
 * after A, C after B (the wait inferred from the times: it began 34 µs after its launch on an
 * idle stream, 1 µs after B ended), the host's wait at C's end. */
static const char *const gpu_json =
	"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#0\",\"tid\":1,\"ts\":0,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":0,\"dur\":40},{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,\"ts\":2,\"dur\":2,\"args\":{\"correlation\":1}},{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,\"ts\":6,\"dur\":2,\"args\":{\"correlation\":2}},{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"tid\":1,\"ts\":10,\"dur\":2,\"args\":{\"correlation\":3}},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"A\",\"pid\":0,\"tid\":7,\"ts\":5,\"dur\":30,\"args\":{\"stream\":7,\"correlation\":1}},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"B\",\"pid\":0,\"tid\":7,\"ts\":35,\"dur\":10,\"args\":{\"stream\":7,\"correlation\":2}},{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"C\",\"pid\":0,\"tid\":9,\"ts\":46,\"dur\":4,\"args\":{\"stream\":9,\"correlation\":3}},{\"ph\":\"X\",\"name\":\"sync\",\"tid\":1,\"ts\":40,\"dur\":20},{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamSynchronize\",\"tid\":1,\"ts\":41,\"dur\":9,\"args\":{\"correlation\":4}},{\"ph\":\"X\",\"name\":\"opt\",\"tid\":1,\"ts\":60,\"dur\":40}]}";

/* The same step with the synchronisation a top-level range of its own (torch.cuda.synchronize()
 * under the step: 41-50, then untraced work to 60) and a memset M under 1 µs whose times,
 * rounded as HTA does, end before they start (13.2 + 0.5: [14, 13]): the wait is still a
 * wait released by C, M a kernel of no length; the replay as measured, and with A 30 µs
 * longer the wait, and the step, 30 µs later. */
static const char *const gpu_top_sync_json =
	"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#0\",\"tid\":1,\"ts\":0,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":0,\"dur\":40},{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,\"ts\":2,\"dur\":2,\"args\":{\"correlation\":1}},{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,\"ts\":6,\"dur\":2,\"args\":{\"correlation\":2}},{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"tid\":1,\"ts\":10,\"dur\":2,\"args\":{\"correlation\":3}},{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemsetAsync\",\"tid\":1,\"ts\":12,\"dur\":0.5,\"args\":{\"correlation\":5}},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"A\",\"pid\":0,\"tid\":7,\"ts\":5,\"dur\":30,\"args\":{\"stream\":7,\"correlation\":1}},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"B\",\"pid\":0,\"tid\":7,\"ts\":35,\"dur\":10,\"args\":{\"stream\":7,\"correlation\":2}},{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"C\",\"pid\":0,\"tid\":9,\"ts\":46,\"dur\":4,\"args\":{\"stream\":9,\"correlation\":3}},{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"M\",\"pid\":0,\"tid\":11,\"ts\":13.2,\"dur\":0.5,\"args\":{\"stream\":11,\"correlation\":5}},{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamSynchronize\",\"tid\":1,\"ts\":41,\"dur\":9,\"args\":{\"correlation\":4}},{\"ph\":\"X\",\"name\":\"opt\",\"tid\":1,\"ts\":60,\"dur\":40}]}";

/* The node of rank 0 named name, its n-th (from 0) by index. */
static int nth_named(const struct rgraph *g, const char *name, int n)
{
	for (int v = 0; v < g->nnodes; v++)
		if (!strcmp(rgraph_node_name(g, v), name) && n-- == 0)
			return v;
	return -1;
}

static void gpu_kernels_and_sync(void)
{
	struct gpu_trace t;
	unsigned char *is_step;
	load_rank(gpu_json, &t, &is_step);
	struct replay_rank_in r = { &t, 0, 0, is_step, 1, NULL };
	int cores = 2;
	struct replay_build_in in = { &r, 1, &cores, 1, NULL };
	struct rgraph *g = NULL;
	struct replay_build_info info;
	CHECK(replay_build(&in, &g, &info) == 0 && g);
	CHECK(info.kernels == 3 && info.ops == 3 && info.waits == 1);
	int a = nth_named(g, "A", 0), b = nth_named(g, "B", 0), c = nth_named(g, "C", 0);
	int wait = nth_named(g, "sync", 1);
	CHECK(a >= 0 && b >= 0 && c >= 0 && g->nodes[c].kind == RNODE_GPU);
	CHECK(wait >= 0 && g->nodes[wait].kind == RNODE_WAIT && nth_named(g, "fwd", 3) >= 0);
	struct replay_sim *s = NULL;
	CHECK(replay_sim_run(&s, g) == 0);
	CHECK_NEAR(replay_sim_start(s, a), 5e-3, US);
	CHECK_NEAR(replay_sim_end(s, a), 35e-3, US);
	CHECK_NEAR(replay_sim_end(s, b), 45e-3, US);
	CHECK_NEAR(replay_sim_start(s, c), 46e-3, US);
	CHECK_NEAR(replay_sim_end(s, wait), 50e-3, US);
	CHECK_NEAR(replay_sim_step_end(s, 0, 0), 100e-3, US);
	replay_sim_free(s);
	rgraph_free(g);
	/* the launch overhead halved: fwd's three pieces up to each launch (4, 4, 4 µs) take 2
	 * each; A starts at 3 (2 and its 1 µs latency), ends at 33; fwd's rest (28) ends at 34;
	 * B runs 33-43, C (after B, +1) 44-48; sync's 1 µs to 35, its wait to 48, its rest (10)
	 * to 58; opt (40) to 98 */
	struct replay_change host = { .kind = REPLAY_CHANGE_HOST };
	in.change = &host;
	struct replay_build_info hi;
	CHECK(replay_build(&in, &g, &hi) == 0 && replay_sim_run(&s, g) == 0 && hi.trimmed == 3);
	CHECK_NEAR(replay_sim_start(s, nth_named(g, "A", 0)), 3e-3, US);
	CHECK_NEAR(replay_sim_end(s, nth_named(g, "sync", 1)), 48e-3, US);
	CHECK_NEAR(replay_sim_step_end(s, 0, 0), 98e-3, US);
	replay_sim_free(s);
	rgraph_free(g);
	replay_build_info_free(&hi);
	in.change = NULL;
	/* kernel A twice as long: B, C and the wait 30 µs later, and the step with them */
	t.ev[0].end += 30;
	CHECK(replay_build(&in, &g, NULL) == 0 && replay_sim_run(&s, g) == 0);
	CHECK_NEAR(replay_sim_end(s, nth_named(g, "sync", 1)), 80e-3, US);
	CHECK_NEAR(replay_sim_step_end(s, 0, 0), 130e-3, US);
	replay_sim_free(s);
	rgraph_free(g);
	replay_build_info_free(&info);
	gpu_trace_free(&t);
	free(is_step);
}

static void gpu_top_level_sync(void)
{
	struct gpu_trace t;
	unsigned char *is_step;
	load_rank(gpu_top_sync_json, &t, &is_step);
	struct replay_rank_in r = { &t, 0, 0, is_step, 1, NULL };
	int cores = 2;
	struct replay_build_in in = { &r, 1, &cores, 1, NULL };
	struct rgraph *g = NULL;
	struct replay_build_info info;
	struct replay_sim *s = NULL;
	CHECK(replay_build(&in, &g, &info) == 0 && g && info.kernels == 4 && info.waits == 1);
	int wait = nth_named(g, "cudaStreamSynchronize", 0), m = nth_named(g, "M", 0);
	CHECK(wait >= 0 && g->nodes[wait].kind == RNODE_WAIT && m >= 0 && g->nodes[m].cost_ms == 0);
	CHECK(replay_sim_run(&s, g) == 0);
	CHECK_NEAR(replay_sim_end(s, wait), 50e-3, US);
	CHECK_NEAR(replay_sim_step_end(s, 0, 0), 100e-3, US);
	replay_sim_free(s);
	rgraph_free(g);
	t.ev[0].end += 30;
	CHECK(replay_build(&in, &g, NULL) == 0 && replay_sim_run(&s, g) == 0);
	CHECK_NEAR(replay_sim_end(s, nth_named(g, "cudaStreamSynchronize", 0)), 80e-3, US);
	CHECK_NEAR(replay_sim_step_end(s, 0, 0), 130e-3, US);
	replay_sim_free(s);
	rgraph_free(g);
	replay_build_info_free(&info);
	gpu_trace_free(&t);
	free(is_step);
}

/* A GPU rank's step from t0 to 100 µs: forward to fwd_end launching an NCCL all-reduce (its
 * launch call the last 2 µs) that runs on stream 20 from k0 for kdur µs, a
 * cudaStreamSynchronize from fwd_end to 70, the optimizer 70-100; on a clock `clock` µs
 * ahead. With group (a process group's name), the kernel carries the collective's args with
 * a group of 2. */
static void nccl_json(char *buf, size_t n, int clock, const int *shape, const char *group)
{
	int t0 = shape[0] + clock, fwd_end = shape[1] + clock, k0 = shape[2] + clock;
	int kdur = shape[3], end = 100 + clock, opt = 70 + clock;
	char args[160] = "";
	if (group)
		snprintf(
			args, sizeof args,
			",\"Collective name\":\"allreduce\",\"Process Group Name\":\"%s\",\"Group size\":2",
			group);
	snprintf(
		buf, n,
		"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#0\",\"tid\":1,\"ts\":%d,\"dur\":%d},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":%d,\"dur\":%d},{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,\"ts\":%d,\"dur\":2,\"args\":{\"correlation\":1}},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)\",\"pid\":0,\"tid\":20,\"ts\":%d,\"dur\":%d,\"args\":{\"stream\":20,\"correlation\":1%s}},{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamSynchronize\",\"tid\":1,\"ts\":%d,\"dur\":%d,\"args\":{\"correlation\":2}},{\"ph\":\"X\",\"name\":\"opt\",\"tid\":1,\"ts\":%d,\"dur\":30}]}",
		t0, end - t0, t0, fwd_end - t0, fwd_end - 2, k0, kdur, args, fwd_end, opt - fwd_end,
		opt);
}

/* Rank r's step span (ms), the ranks (w->in, n of them) on one host of 2 cores replayed with
 * ch (NULL: as measured); -1 when the build or the replay fails. */
static double rank_step(const struct replay_rank_in *ranks, size_t n, int r,
			const struct replay_change *ch, struct replay_build_info *info)
{
	int cores = 2;
	struct replay_build_in in = { ranks, n, &cores, 1, ch };
	struct rgraph *g = NULL;
	struct replay_sim *s = NULL;
	double span = -1;
	if (replay_build(&in, &g, info) == 0 && replay_sim_run(&s, g) == 0)
		span = replay_sim_step_end(s, r, 0) - replay_sim_step_start(s, r, 0);
	replay_sim_free(s);
	rgraph_free(g);
	return span;
}

/* Two GPU ranks of nccl_json's shape[r], rank 1's clock clock1 µs ahead. */
static void load_nccl(struct two *w, const int (*shape)[4], int clock1, const char *const *group)
{
	for (int r = 0; r < 2; r++) {
		char json[2048];
		nccl_json(json, sizeof json, r ? clock1 : 0, shape[r], group ? group[r] : NULL);
		load_rank(json, &w->t[r], &w->is_step[r]);
		w->in[r] = (struct replay_rank_in){ &w->t[r], r, 0, w->is_step[r], 1, NULL };
	}
}

/* An NCCL all-reduce is one instance across the ranks: rank 0 launches it at 20 (its kernel
 * waits from 21 for rank 1's arrival at 61, and ends with it at 70: the least duration, 9 µs,
 * is the transfer). Replayed as measured: 100 µs each. Rank 1 the straggler (its forward
 * brought down to rank 0's 20 µs): both arrive at 21, end at 30, the optimizers 30-60: 60 µs,
 * where each kernel of its own measured duration would have kept rank 0 at 100. The batch
 * doubled is refused: an all-reduce's gradients do not grow, and nothing else here is per
 * sample that the replay knows. */
static void nccl_across_ranks(void)
{
	static const int shape[2][4] = { { 0, 20, 21, 49 }, { 0, 60, 61, 9 } };
	struct two w;
	load_nccl(&w, shape, 0, NULL);
	struct replay_build_info info;
	struct replay_change batch = { .kind = REPLAY_CHANGE_BATCH };
	CHECK(rank_step(w.in, 2, 0, &batch, NULL) < 0); /* an all-reduce: not per sample */
	CHECK_NEAR(rank_step(w.in, 2, 0, NULL, &info), 100e-3, US);
	CHECK(info.kernels == 2 && info.colls == 1 && info.unmatched_colls == 0 && info.aligned);
	CHECK(info.host_colls == 0); /* the transfer is the GPUs', not the host's cores */
	replay_build_info_free(&info);
	CHECK_NEAR(rank_step(w.in, 2, 1, NULL, NULL), 100e-3, US);
	int slow = 1;
	struct replay_change ch = { .kind = REPLAY_CHANGE_STRAGGLERS, .slow_ranks = &slow,
				    .nslow = 1 };
	CHECK_NEAR(rank_step(w.in, 2, 0, &ch, NULL), 60e-3, US);
	CHECK_NEAR(rank_step(w.in, 2, 1, &ch, NULL), 60e-3, US);
	/* each rank's all-reduce kernel belongs to no step (its node is the GPU's), but its
	 * instance was called in step 0 and every rank leaves it at once: it times the step */
	int cores = 2;
	struct replay_build_in in = { w.in, 2, &cores, 1, NULL };
	struct rgraph *g = NULL;
	CHECK(replay_build(&in, &g, NULL) == 0);
	int timing = 0;
	for (int v = 0; g && v < g->nnodes; v++)
		if (g->nodes[v].kind == RNODE_COLL)
			timing += g->nodes[v].step == -1 && g->nodes[v].coll_step == 0 &&
				  g->nodes[v].blocking;
	CHECK(timing == 2);
	rgraph_free(g);
	free_two(&w);
}

/* SendRecv kernels are what the nccl:<op> range around their launch says: rank 0's and rank
 * 1's inside nccl:all_to_all are one instance (rank 0 ends with rank 1 at 70 µs); inside
 * nccl:send and nccl:recv (a pipeline's stages: two ranks of many) each is a kernel of its
 * own, never matched, and rank 0's ends its own 49 µs after it starts, as measured. The batch
 * doubled: an all-to-all moves twice as much (its 9 µs transfer 18: both end at 79, the
 * optimizers 79-109); an all-reduce's gradients do not grow (nothing here is per sample the
 * replay knows: refused). */
static void nccl_send_recv(void)
{
	static const int shape[2][4] = { { 0, 20, 21, 49 }, { 0, 60, 61, 9 } };
	static const char *const ops[2][2] = { { "all_to_all", "all_to_all" }, { "send", "recv" } };
	for (int c = 0; c < 2; c++) {
		struct two w;
		for (int r = 0; r < 2; r++) {
			char json[2048], out[2400], range[160];
			nccl_json(json, sizeof json, 0, shape[r], NULL);
			snprintf(
				range, sizeof range,
				"{\"ph\":\"X\",\"name\":\"nccl:%s\",\"tid\":1,\"ts\":%d,\"dur\":3},",
				ops[c][r], shape[r][1] - 3);
			const char *at = strstr(json, "[") + 1,
				   *k = strstr(json, "ncclKernel_AllReduce_RING_LL_Sum_float");
			snprintf(out, sizeof out, "%.*s%s%.*sncclDevKernel_SendRecv%s",
				 (int)(at - json), json, range, (int)(k - at), at,
				 k + strlen("ncclKernel_AllReduce_RING_LL_Sum_float"));
			load_rank(out, &w.t[r], &w.is_step[r]);
			w.in[r] = (struct replay_rank_in){ &w.t[r], r, 0, w.is_step[r], 1, NULL };
		}
		struct replay_build_info info;
		CHECK_NEAR(rank_step(w.in, 2, 0, NULL, &info), 100e-3, US);
		CHECK(info.kernels == 2 && info.colls == (size_t) (c == 0) &&
		      info.unmatched_colls == 0);
		replay_build_info_free(&info);
		struct replay_change batch = { .kind = REPLAY_CHANGE_BATCH };
		if (c == 0) {
			CHECK_NEAR(rank_step(w.in, 2, 0, &batch, &info), 109e-3, US);
			CHECK(info.scaled == 2);
			replay_build_info_free(&info);
		}
		free_two(&w);
	}
}

/* Rank 1 starts its step 10 µs after rank 0 (on one clock): replayed from time 0 both, rank
 * 0 would wait 10 µs less for it (90 µs); each rank starts where it did after the earliest,
 * and both steps replay as measured, 100 and 90 µs. Rank 1's trace on a clock 1000 µs ahead
 * (the offset from the all-reduce's ends) replays the same. In two process groups of their
 * own ("5" and "6", each of 2 ranks) the kernels are no instance of one another: each ends
 * its own measured time after its arrival (rank 0 at 70, rank 1 at 70, no wait between them). */
static void nccl_rank_starts(void)
{
	static const int shape[2][4] = { { 0, 20, 21, 49 }, { 10, 60, 61, 9 } };
	struct two w;
	load_nccl(&w, shape, 0, NULL);
	CHECK_NEAR(rank_step(w.in, 2, 0, NULL, NULL), 100e-3, US);
	CHECK_NEAR(rank_step(w.in, 2, 1, NULL, NULL), 90e-3, US);
	free_two(&w);
	load_nccl(&w, shape, 1000, NULL);
	struct replay_build_info info;
	CHECK_NEAR(rank_step(w.in, 2, 1, NULL, &info), 90e-3, US);
	CHECK_NEAR(info.offset_us[1], 1000, 1e-9);
	replay_build_info_free(&info);
	CHECK_NEAR(rank_step(w.in, 2, 0, NULL, NULL), 100e-3, US);
	free_two(&w);
	static const char *const groups[2] = { "5", "6" };
	load_nccl(&w, shape, 1000, groups);
	CHECK_NEAR(rank_step(w.in, 2, 0, NULL, &info), 100e-3, US);
	CHECK(info.colls == 0 && info.unmatched_colls == 2 && !info.aligned);
	replay_build_info_free(&info);
	free_two(&w);
}

/* The reference trainer's shape (trainer/trace.c), one rank on one core: the step thread
 * waits for its batch (wait_for_batch) and runs forward; a loader thread decodes samples
 * between reads that sleep (loader:read). Its first decode ended before the first step (left
 * out), its second runs across the first step's start (cut there). */
static const char *const trainer_json =
	"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#0\",\"tid\":1,\"ts\":100,\"dur\":100},{\"ph\":\"X\",\"name\":\"ProfilerStep#1\",\"tid\":1,\"ts\":200,\"dur\":100},{\"ph\":\"X\",\"name\":\"wait_for_batch\",\"tid\":1,\"ts\":100,\"dur\":60},{\"ph\":\"X\",\"name\":\"forward\",\"tid\":1,\"ts\":160,\"dur\":40},{\"ph\":\"X\",\"name\":\"wait_for_batch\",\"tid\":1,\"ts\":200,\"dur\":45},{\"ph\":\"X\",\"name\":\"forward\",\"tid\":1,\"ts\":245,\"dur\":55},{\"ph\":\"X\",\"name\":\"loader:decode\",\"tid\":3,\"ts\":0,\"dur\":50},{\"ph\":\"X\",\"name\":\"loader:decode\",\"tid\":3,\"ts\":90,\"dur\":20},{\"ph\":\"X\",\"name\":\"loader:read\",\"tid\":3,\"ts\":110,\"dur\":40},{\"ph\":\"X\",\"name\":\"loader:decode\",\"tid\":3,\"ts\":150,\"dur\":10},{\"ph\":\"X\",\"name\":\"loader:read\",\"tid\":3,\"ts\":160,\"dur\":40},{\"ph\":\"X\",\"name\":\"loader:decode\",\"tid\":3,\"ts\":200,\"dur\":40}]}";

/* Hand-computed: the waits and sleeps hold no core, so on one core every CPU operation ran
 * alone and needs its wall time (forward 40 µs beside a read). Replayed from the first
 * step's start (0): the cut decode 0-10, the read 10 (a delay of 40 to the next decode),
 * decode 50-60 releases the wait at 60, forward 60-100; the read after it delays the decode
 * to 100-140, the second wait ends 5 µs later as measured (145), forward 145-200. Each step
 * spans 100 µs, as measured; the loader's work belongs to no step. */
static void trainer_waits_and_sleeps(void)
{
	struct gpu_trace t;
	FILE *f = fmemopen((void *)trainer_json, strlen(trainer_json), "r");
	CHECK(f && kineto_load_stream(f, "trainer", 1, &t) == 0);
	fclose(f);
	unsigned char *is_step = calloc(t.nnames + 1, 1);
	for (size_t i = 0; i < t.nnames; i++)
		is_step[i] = !strncmp(t.names[i], "ProfilerStep#", 13);
	struct replay_rank_in r = { &t, 0, 0, is_step, 2, NULL };
	int cores = 1;
	struct replay_build_in in = { &r, 1, &cores, 1, NULL };
	struct rgraph *g = NULL;
	struct replay_build_info info;
	struct replay_sim *s = NULL;
	CHECK(replay_build(&in, &g, &info) == 0 && g);
	CHECK(info.ops == 9 && info.waits == 4 && info.gaps == 0 && info.joins == 2);
	CHECK(g->nnodes == 9);
	CHECK(replay_sim_run(&s, g) == 0);
	double cost = 0, step_of_loader = 0;
	for (int v = 0; v < g->nnodes; v++) {
		cost += g->nodes[v].cost_ms;
		if (!strncmp(rgraph_node_name(g, v), "loader:", 7))
			step_of_loader += g->nodes[v].step != -1;
		if (g->nodes[v].kind == RNODE_WAIT)
			CHECK(g->nodes[v].cost_ms == 0);
	}
	CHECK_NEAR(cost, (10 + 10 + 40 + 40 + 55) * 1e-3, US);
	CHECK(step_of_loader == 0);
	CHECK_NEAR(replay_sim_host_core_ms(s, 0), 155e-3, US);
	CHECK_NEAR(replay_sim_end(s, node_named(g, 0, "wait_for_batch")), 60e-3, US);
	CHECK_NEAR(replay_sim_end(s, node_named(g, 0, "forward")), 100e-3, US);
	CHECK_NEAR(replay_sim_step_start(s, 0, 0), 0, US);
	CHECK_NEAR(replay_sim_step_end(s, 0, 0), 100e-3, US);
	CHECK_NEAR(replay_sim_step_start(s, 0, 1), 100e-3, US);
	CHECK_NEAR(replay_sim_step_end(s, 0, 1), 200e-3, US);
	replay_sim_free(s);
	rgraph_free(g);
	replay_build_info_free(&info);
	gpu_trace_free(&t);
	free(is_step);
}

/* Rank r's trainer trace: steps of ends[k] µs at 1000 k, each a 300 µs forward and then an
 * all-reduce to its end. */
static void write_trainer_trace(const char *dir, int r, const double *ends)
{
	char path[256];
	snprintf(path, sizeof path, "%s/rank_%d.trace.json", dir, r);
	FILE *f = fopen(path, "w");
	fprintf(f, "{\"distributedInfo\": {\"rank\": %d}, \"traceEvents\": [", r);
	for (int k = 0; k < 3; k++)
		fprintf(f,
			"%s{\"ph\":\"X\",\"name\":\"ProfilerStep#%d\",\"tid\":1,\"ts\":%d,\"dur\":%g},{\"ph\":\"X\",\"name\":\"forward\",\"tid\":1,\"ts\":%d,\"dur\":300},{\"ph\":\"X\",\"name\":\"gloo:all_reduce\",\"tid\":1,\"ts\":%d,\"dur\":%g}",
			k ? "," : "", k, 1000 * k, ends[k], 1000 * k, 1000 * k + 300,
			ends[k] - 300);
	fprintf(f, "]}\n");
	fclose(f);
}

/* A trainer's scenario (replay_scenario_trainer): two ranks' traces in a metrics folder and
 * their telemetry's steps (0 warm-up, 1 and 2 active, of times the traces do not have). The
 * measured steps are the traces' own, the slowest rank's: 850 and 700 µs, median 775. Replayed
 * by hand on 2 cores (demand = wall time; rank 1's clock 50 µs ahead by the all-reduces'
 * ends; the ranks share the host, so each one's transfer is its own CPU work from the last
 * arrival to its measured end; the gaps between steps are untraced work of no step): step 1
 * arrives at 1300 (rank 0), both transfers end at 1800, rank 1 having started the step at
 * 950, rank 0 at 1000: 850 and 800; step 2 arrives at 2300, rank 0's transfer ends 400 later
 * (2700; rank 1's at 2550 on rank 0's clock), rank 1 from 1950, rank 0 from 2000: 750 and
 * 700; median 800 (+3.23 %); rank 0's median 750, rank 1's 800. Without rank 1's trace: no
 * replay, telemetry says why. */
static void trainer_scenario(void)
{
	char dir[] = "/tmp/replay_trainer.XXXXXX", path[256];
	CHECK(mkdtemp(dir) != NULL);
	const double ends[2][3] = { { 900, 800, 700 }, { 950, 850, 600 } };
	struct step_rec steps[2][3];
	struct rank_metrics ranks[2] = { { .rank = 0 }, { .rank = 1 } };
	for (int r = 0; r < 2; r++) {
		write_trainer_trace(dir, r, ends[r]);
		for (int k = 0; k < 3; k++) {
			struct step_rec st = { .step = k, .active = k > 0, .step_ms = 99 };
			steps[r][k] = st;
		}
		ranks[r].steps = steps[r];
		ranks[r].n = 3;
	}
	struct scenario_metrics m = { ranks, 2 };
	struct rules phases;
	CHECK(rules_load("analyzers/phase_rules.txt", &phases) == 0);
	struct replay_result r;
	CHECK(replay_scenario_trainer(dir, &phases, &m, &two_cores, &r) == 0);
	CHECK(r.built && r.why_kind == REPLAY_MADE && r.steps == 2 && r.nranks == 2);
	CHECK_NEAR(r.measured_ms, 0.775, 1e-9);
	CHECK_NEAR(r.step_ms, 0.8, 1e-9);
	CHECK_NEAR(r.error_pct, 100 * (0.8 - 0.775) / 0.775, 1e-6);
	CHECK_NEAR(r.ranks[0].measured_ms, 0.75, 1e-9);
	CHECK_NEAR(r.ranks[0].step_ms, 0.75, 1e-9);
	CHECK_NEAR(r.ranks[1].measured_ms, 0.725, 1e-9);
	CHECK_NEAR(r.ranks[1].step_ms, 0.8, 1e-9);
	replay_result_free(&r);
	CHECK(replay_scenario_trainer(dir, &phases, &m, &no_cores, &r) == 0);
	CHECK(!r.built && r.why_kind == REPLAY_NO_CORES);
	replay_result_free(&r);
	snprintf(path, sizeof path, "%s/rank_1.trace.json", dir);
	unlink(path);
	CHECK(replay_scenario_trainer(dir, &phases, &m, &two_cores, &r) == 0);
	CHECK(!r.built && r.why_kind == REPLAY_TELEMETRY);
	replay_result_free(&r);
	snprintf(path, sizeof path, "%s/rank_0.trace.json", dir);
	unlink(path);
	CHECK(rmdir(dir) == 0);
	rules_free(&phases);
}

/* Two identical ranks of one step of 100 µs on one host: forward 0-20, backward's layers
 * (layer1 20-40 making 3000 bytes of gradients, layer0 40-50 1000), one all-reduce of them on
 * the step thread 50-90 (on the host: CPU work of both), the optimizer 90-100. */
static const char *const step_thread_json =
	"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#0\",\"tid\":1,\"ts\":0,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":0,\"dur\":20},{\"ph\":\"X\",\"name\":\"backward:layer1\",\"tid\":1,\"ts\":20,\"dur\":20,\"args\":{\"grad_bytes\":3000}},{\"ph\":\"X\",\"name\":\"backward:layer0\",\"tid\":1,\"ts\":40,\"dur\":10,\"args\":{\"grad_bytes\":1000}},{\"ph\":\"X\",\"name\":\"gloo:all_reduce\",\"tid\":1,\"ts\":50,\"dur\":40,\"args\":{\"Collective name\":\"allreduce\",\"In msg nelems\":1000,\"Out msg nelems\":1000,\"dtype\":\"Float\",\"Group size\":2}},{\"ph\":\"X\",\"name\":\"opt\",\"tid\":1,\"ts\":90,\"dur\":10}]}";

/* Step k's span (the slowest rank's), the two ranks on a host of `cores` replayed with ch
 * (NULL: as measured); -1 when the build or the replay fails. */
static double step_of(struct two *w, int cores, const struct replay_change *ch, int k,
		      struct replay_build_info *info)
{
	struct replay_build_in in = { w->in, 2, &cores, 1, ch };
	struct rgraph *g = NULL;
	struct replay_sim *s = NULL;
	double span = -1;
	if (replay_build(&in, &g, info) == 0 && replay_sim_run(&s, g) == 0)
		span = replay_sim_step_end(s, -1, k) - replay_sim_step_start(s, -1, k);
	replay_sim_free(s);
	rgraph_free(g);
	return span;
}

static double bucketed_step(struct two *w, int cores, const struct replay_change *ch,
			    struct replay_build_info *info)
{
	return step_of(w, cores, ch, 0, info);
}

/* Buckets of at least 2000 bytes: layer1's gradient (3000 of the 4000 bytes) is a bucket of
 * its own, all-reduced from 40 beside layer0; layer0's 1000 the second.
 * Transfers in proportion: 30 and 10 core-µs per rank. On 2 cores the two ranks' layer0 and
 * first buckets share them (half speed): layer0 ends at 60, the first buckets at 80, the
 * second at 90, the optimizer 90-100: no gain. On 4 cores all run at full speed: layer0
 * ends at 50, the buckets at 70 and 80, the optimizer 80-90: 10 % off. */
static void bucket_change(void)
{
	struct two w;
	load_same(&w, step_thread_json, 1);
	struct replay_change ch = { .kind = REPLAY_CHANGE_BUCKETS, .bucket_bytes = 2000 };
	struct replay_build_info info;
	CHECK_NEAR(bucketed_step(&w, 2, NULL, &info), 100e-3, US);
	replay_build_info_free(&info);
	CHECK_NEAR(bucketed_step(&w, 2, &ch, &info), 100e-3, US);
	CHECK(info.moved_colls == 2 && info.buckets == 4);
	replay_build_info_free(&info);
	CHECK_NEAR(bucketed_step(&w, 4, &ch, &info), 90e-3, US);
	replay_build_info_free(&info);
	/* as if all of the transfer were per call: each bucket costs the one all-reduce's 40 µs;
	 * on 4 cores the first 40-80, the second 80-120, the optimizer 120-130 */
	ch.all_per_call = 1;
	CHECK_NEAR(bucketed_step(&w, 4, &ch, &info), 130e-3, US);
	CHECK(info.fit_colls == 0 && info.buckets == 4);
	replay_build_info_free(&info);
	ch.all_per_call = 0;
	/* one bucket of everything: after layer0 (50), 40 µs: no earlier than measured */
	ch.bucket_bytes = 1e9;
	CHECK_NEAR(bucketed_step(&w, 4, &ch, &info), 100e-3, US);
	CHECK(info.buckets == 2);
	replay_build_info_free(&info);
	free_two(&w);
}

/* Per name of t: PH_FORWARD for `forward_name`, -1 for the rest (what the phase rules would
 * say of a trace's forward range). */
static int *phases_of(const struct gpu_trace *t, const char *forward_name)
{
	int *ph = malloc((t->nnames + 1) * sizeof *ph);
	for (size_t i = 0; i < t->nnames; i++)
		ph[i] = !strcmp(t->names[i], forward_name) ? PH_FORWARD : -1;
	return ph;
}

/* The batch doubled, by hand. Two ranks of step_thread_json on 2 cores (every operation at
 * full speed): fwd 20 µs (forward, once the phases say so), backward 30, the all-reduce 40
 * (per step, not per sample), the optimizer 10. Per-sample work twice as long: 50 -> 100 µs,
 * the step 150 µs; without the phases (fwd unknown) only the layers: 130 µs. With half of it
 * GEMMs that take no longer: 75 µs, the step 125. On a GPU rank
 * (gpu_json) forward's host pieces are dispatch: the kernels and the copy it launched take
 * twice as long: A 5-65, B 65-85, C 86-94, the synchronisation waits until 94, its 10 µs of
 * host work to 104, the optimizer to 144. */
static void batch_change(void)
{
	struct two w;
	load_same(&w, step_thread_json, 1);
	struct replay_change ch = { .kind = REPLAY_CHANGE_BATCH };
	struct replay_build_info info;
	CHECK_NEAR(step_of(&w, 2, &ch, 0, &info), 130e-3, US);
	CHECK(info.scaled == 4);
	replay_build_info_free(&info);
	int *ph[2] = { phases_of(&w.t[0], "fwd"), phases_of(&w.t[1], "fwd") };
	w.in[0].phase = ph[0], w.in[1].phase = ph[1];
	CHECK_NEAR(step_of(&w, 2, NULL, 0, NULL), 100e-3, US);
	/* the graph as measured: both ranks' forward side by side, on 2 cores at full speed, on
	 * 1 core each at half (half of its time waiting for the core) */
	CHECK(step_of(&w, 2, NULL, 0, &info) > 0 && info.compute_wall_ms > 0);
	CHECK_NEAR(info.compute_demand_ms, info.compute_wall_ms, 1e-9);
	replay_build_info_free(&info);
	CHECK(step_of(&w, 1, NULL, 0, &info) > 0 && info.compute_wall_ms > 0);
	CHECK_NEAR(info.compute_demand_ms / info.compute_wall_ms, 0.5, 1e-9);
	replay_build_info_free(&info);
	CHECK_NEAR(step_of(&w, 2, &ch, 0, &info), 150e-3, US);
	CHECK(info.scaled == 6);
	replay_build_info_free(&info);
	/* half of the per-sample compute GEMMs kept as long as they were: 50 -> 75 µs, 125 */
	struct replay_change gemm = { .kind = REPLAY_CHANGE_BATCH, .gemm_share = 0.5 };
	CHECK_NEAR(step_of(&w, 2, &gemm, 0, &info), 125e-3, US);
	replay_build_info_free(&info);
	free(ph[0]);
	free(ph[1]);
	free_two(&w);
	struct gpu_trace t;
	unsigned char *is_step;
	load_rank(gpu_json, &t, &is_step);
	int *gph = phases_of(&t, "fwd");
	struct replay_rank_in r = { &t, 0, 0, is_step, 1, gph };
	int cores = 2;
	struct replay_build_in in = { &r, 1, &cores, 1, &ch };
	struct rgraph *g = NULL;
	struct replay_sim *s = NULL;
	CHECK(replay_build(&in, &g, &info) == 0 && replay_sim_run(&s, g) == 0);
	CHECK(info.scaled == 3);
	CHECK_NEAR(replay_sim_end(s, nth_named(g, "C", 0)), 94e-3, US);
	CHECK_NEAR(replay_sim_step_end(s, 0, 0), 144e-3, US);
	replay_sim_free(s);
	rgraph_free(g);
	replay_build_info_free(&info);
	/* nothing per sample: refused, saying so */
	in.ranks = &(struct replay_rank_in){ &t, 0, 0, is_step, 1, NULL };
	CHECK(replay_build(&in, &g, NULL) < 0 && strstr(err_last(), "no per-sample work") != NULL);
	free(gph);
	gpu_trace_free(&t);
	free(is_step);
}

/* One all-reduce per parameter on the step thread, of two sizes: layer1's 3000 bytes 40-60,
 * layer0's 1000 bytes 60-70 (two identical ranks on 4 cores: full speed), the optimizer
 * 70-100. The fit over the 4 transfers: 5 µs a call + 0.005 µs a byte. */
static const char *const per_param_json =
	"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#0\",\"tid\":1,\"ts\":0,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":0,\"dur\":20},{\"ph\":\"X\",\"name\":\"backward:layer1\",\"tid\":1,\"ts\":20,\"dur\":10,\"args\":{\"grad_bytes\":3000}},{\"ph\":\"X\",\"name\":\"backward:layer0\",\"tid\":1,\"ts\":30,\"dur\":10,\"args\":{\"grad_bytes\":1000}},{\"ph\":\"X\",\"name\":\"gloo:all_reduce\",\"tid\":1,\"ts\":40,\"dur\":20,\"args\":{\"Collective name\":\"allreduce\",\"In msg nelems\":750,\"Out msg nelems\":750,\"dtype\":\"Float\",\"Group size\":2}},{\"ph\":\"X\",\"name\":\"gloo:all_reduce\",\"tid\":1,\"ts\":60,\"dur\":10,\"args\":{\"Collective name\":\"allreduce\",\"In msg nelems\":250,\"Out msg nelems\":250,\"dtype\":\"Float\",\"Group size\":2}},{\"ph\":\"X\",\"name\":\"opt\",\"tid\":1,\"ts\":70,\"dur\":30}]}";

/* Buckets pay the per-call cost once each: one bucket of all 4000 bytes after layer0 (40)
 * costs 30 x (5 + 20) / (10 + 20) = 25 µs (in proportion to bytes, the model left aside:
 * 30, and no gain), the optimizer 65-95: 5 % off. Buckets of 2000 bytes: layer1's at 30,
 * 30 x 20 / 30 = 20 µs beside layer0, then layer0's 50-60 (10 µs), the optimizer 60-90:
 * 10 % off. */
static void bucket_change_per_call(void)
{
	struct two w;
	load_same(&w, per_param_json, 1);
	struct replay_change ch = { .kind = REPLAY_CHANGE_BUCKETS, .bucket_bytes = 4000 };
	struct replay_build_info info;
	CHECK_NEAR(bucketed_step(&w, 4, NULL, &info), 100e-3, US);
	CHECK(info.fit_colls == 0);
	replay_build_info_free(&info);
	CHECK_NEAR(bucketed_step(&w, 4, &ch, &info), 95e-3, US);
	CHECK(info.fit_colls == 4 && info.buckets == 2);
	/* a model fitted: all_per_call changes nothing */
	replay_build_info_free(&info);
	ch.all_per_call = 1;
	CHECK_NEAR(bucketed_step(&w, 4, &ch, &info), 95e-3, US);
	ch.all_per_call = 0;
	CHECK_NEAR(info.per_call_ms, 5e-3, 1e-9);
	CHECK_NEAR(info.ms_per_mib, 0.005e-3 * 1048576, 1e-6);
	CHECK(info.fit_max_bytes == 3000 && info.bucket_max_bytes == 4000);
	replay_build_info_free(&info);
	/* the model left aside (proportional): the bucket costs the 30 µs of its bytes, 40-70,
	 * the optimizer 70-100: no gain */
	ch.proportional = 1;
	CHECK_NEAR(bucketed_step(&w, 4, &ch, &info), 100e-3, US);
	CHECK(info.fit_colls == 4);
	replay_build_info_free(&info);
	ch.proportional = 0;
	ch.bucket_bytes = 2000;
	CHECK_NEAR(bucketed_step(&w, 4, &ch, &info), 90e-3, US);
	CHECK(info.buckets == 4);
	replay_build_info_free(&info);
	free_two(&w);
}

/* Four steps of 100 µs on two identical ranks: forward 20 µs, a checkpoint 80 µs. */
static const char *const checkpoints_json =
	"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#0\",\"tid\":1,\"ts\":0,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":0,\"dur\":20},{\"ph\":\"X\",\"name\":\"checkpoint\",\"tid\":1,\"ts\":20,\"dur\":80},{\"ph\":\"X\",\"name\":\"ProfilerStep#1\",\"tid\":1,\"ts\":100,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":100,\"dur\":20},{\"ph\":\"X\",\"name\":\"checkpoint\",\"tid\":1,\"ts\":120,\"dur\":80},{\"ph\":\"X\",\"name\":\"ProfilerStep#2\",\"tid\":1,\"ts\":200,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":200,\"dur\":20},{\"ph\":\"X\",\"name\":\"checkpoint\",\"tid\":1,\"ts\":220,\"dur\":80},{\"ph\":\"X\",\"name\":\"ProfilerStep#3\",\"tid\":1,\"ts\":300,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":300,\"dur\":20},{\"ph\":\"X\",\"name\":\"checkpoint\",\"tid\":1,\"ts\":320,\"dur\":80}]}";

/* A checkpoint every 4th step: step 3's kept ((3 + 1) % 4 == 0), the others' cost nothing:
 * steps 0-2 take the forward's 20 µs, step 3 its 100. Every 2nd keeps step 1's and 3's.
 * Refused without checkpoints, and where no step loses one. */
static void checkpoint_change(void)
{
	struct two w;
	load_same(&w, checkpoints_json, 4);
	struct replay_change ch = { .kind = REPLAY_CHANGE_CHECKPOINTS, .every = 4 };
	struct replay_build_info info;
	CHECK_NEAR(step_of(&w, 2, NULL, 0, &info), 100e-3, US);
	replay_build_info_free(&info);
	CHECK_NEAR(step_of(&w, 2, &ch, 0, &info), 20e-3, US);
	CHECK(info.dropped == 6);
	replay_build_info_free(&info);
	CHECK_NEAR(step_of(&w, 2, &ch, 2, &info), 20e-3, US);
	replay_build_info_free(&info);
	CHECK_NEAR(step_of(&w, 2, &ch, 3, &info), 100e-3, US);
	replay_build_info_free(&info);
	ch.phase = 1; /* the count's other phases: (2 + 1 + 1) % 4 == 0 keeps step 2's */
	CHECK_NEAR(step_of(&w, 2, &ch, 2, &info), 100e-3, US);
	replay_build_info_free(&info);
	CHECK_NEAR(step_of(&w, 2, &ch, 3, &info), 20e-3, US);
	replay_build_info_free(&info);
	ch.phase = 0;
	ch.every = 2;
	CHECK_NEAR(step_of(&w, 2, &ch, 1, &info), 100e-3, US);
	CHECK(info.dropped == 4);
	replay_build_info_free(&info);
	ch.every = 1;
	CHECK(step_of(&w, 2, &ch, 0, NULL) < 0);
	CHECK(strstr(err_last(), "once in 1 steps or less often already") != NULL);
	free_two(&w);
	struct two v;
	load_two(&v);
	ch.every = 4;
	CHECK(step_of(&v, 2, &ch, 0, NULL) < 0);
	CHECK(strstr(err_last(), "no checkpoint range") != NULL);
	free_two(&v);
}

/* Four steps on rank r's trace: forward 20 µs, then a checkpoint of 80, 40, 80 and 40 µs. */
static void write_ckpt_trace(const char *dir, int r)
{
	char path[256];
	snprintf(path, sizeof path, "%s/rank%d.pt.trace.json", dir, r);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "{\"distributedInfo\":{\"rank\":%d,\"world_size\":2},\"traceEvents\":[", r);
	for (int k = 0, ts = 0; k < 4; k++) {
		int ck = k % 2 ? 40 : 80;
		fprintf(f,
			"%s{\"ph\":\"X\",\"name\":\"ProfilerStep#%d\",\"tid\":1,\"ts\":%d,\"dur\":%d},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":%d,\"dur\":20},{\"ph\":\"X\",\"name\":\"checkpoint\",\"tid\":1,\"ts\":%d,\"dur\":%d}",
			k ? "," : "", k, ts, 20 + ck, ts, ts + 20, ck);
		ts += 20 + ck;
	}
	fprintf(f, "]}\n");
	fclose(f);
}

/* A checkpoint every 2nd step, predicted at both phases of the count and averaged (which of
 * the run's checkpoints are kept is no property of the run): steps of 100, 60, 100 and 60 µs
 * (mean 80); phase 0 keeps steps 1 and 3 (40 µs each: a mean of 40, predicted 80 x 40 / 80),
 * phase 1 steps 0 and 2 (80 each: 60); the prediction's mean is theirs, 50 µs. */
static void checkpoint_phases(void)
{
	char dir[] = "/tmp/replay_ckpt.XXXXXX", path[256];
	CHECK(mkdtemp(dir) != NULL);
	write_ckpt_trace(dir, 0);
	write_ckpt_trace(dir, 1);
	struct rules phases;
	CHECK(rules_load("analyzers/phase_rules.txt", &phases) == 0);
	struct trace_set ts;
	CHECK(torchtrace_load_dir(dir, &phases, NULL, 1, NULL, &ts) == 0 && ts.m.n == 2);
	struct replay_where w = two_cores;
	w.ckpt_every = 2;
	struct replay_result r;
	CHECK(replay_scenario_run(dir, &phases, &ts.m, &w, &r) == 0);
	CHECK(r.built && r.io.made && r.io_every == 2 && !r.io_async);
	CHECK_NEAR(r.io.mean_ms, 0.050, 1e-6);
	/* to 0.001 ms, as summary.json keeps them (the report prints what a variant reads) */
	const struct replay_pred *io = &r.io;
	const double v[] = { io->step_ms, io->lo_ms, io->hi_ms, io->mean_ms, io->mean_lo_ms,
			     io->mean_hi_ms };
	for (size_t k = 0; k < sizeof v / sizeof *v; k++) /* the median: 0.0506.. replayed */
		CHECK(fabs(v[k] * 1000 - round(v[k] * 1000)) < 1e-6);
	replay_result_free(&r);
	trace_set_free(&ts);
	rules_free(&phases);
	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof path, "%s/rank%d.pt.trace.json", dir, k);
		unlink(path);
	}
	CHECK(rmdir(dir) == 0);
}

/* Four steps of 100 µs on two identical ranks, the reference trainer's checkpoint in parts:
 * forward 30 µs, checkpoint:snapshot 10, checkpoint:write 20, checkpoint:fsync 40 (blocked on
 * storage: a sleep). */
static const char *const ckpt_parts_json =
	"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#0\",\"tid\":1,\"ts\":0,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":0,\"dur\":30,\"args\":{\"step\":0}},{\"ph\":\"X\",\"name\":\"checkpoint:snapshot\",\"tid\":1,\"ts\":30,\"dur\":10,\"args\":{\"step\":0}},{\"ph\":\"X\",\"name\":\"checkpoint:write\",\"tid\":1,\"ts\":40,\"dur\":20,\"args\":{\"step\":0}},{\"ph\":\"X\",\"name\":\"checkpoint:fsync\",\"tid\":1,\"ts\":60,\"dur\":40,\"args\":{\"step\":0}},{\"ph\":\"X\",\"name\":\"ProfilerStep#1\",\"tid\":1,\"ts\":100,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":100,\"dur\":30,\"args\":{\"step\":1}},{\"ph\":\"X\",\"name\":\"checkpoint:snapshot\",\"tid\":1,\"ts\":130,\"dur\":10,\"args\":{\"step\":1}},{\"ph\":\"X\",\"name\":\"checkpoint:write\",\"tid\":1,\"ts\":140,\"dur\":20,\"args\":{\"step\":1}},{\"ph\":\"X\",\"name\":\"checkpoint:fsync\",\"tid\":1,\"ts\":160,\"dur\":40,\"args\":{\"step\":1}},{\"ph\":\"X\",\"name\":\"ProfilerStep#2\",\"tid\":1,\"ts\":200,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":200,\"dur\":30,\"args\":{\"step\":2}},{\"ph\":\"X\",\"name\":\"checkpoint:snapshot\",\"tid\":1,\"ts\":230,\"dur\":10,\"args\":{\"step\":2}},{\"ph\":\"X\",\"name\":\"checkpoint:write\",\"tid\":1,\"ts\":240,\"dur\":20,\"args\":{\"step\":2}},{\"ph\":\"X\",\"name\":\"checkpoint:fsync\",\"tid\":1,\"ts\":260,\"dur\":40,\"args\":{\"step\":2}},{\"ph\":\"X\",\"name\":\"ProfilerStep#3\",\"tid\":1,\"ts\":300,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":300,\"dur\":30,\"args\":{\"step\":3}},{\"ph\":\"X\",\"name\":\"checkpoint:snapshot\",\"tid\":1,\"ts\":330,\"dur\":10,\"args\":{\"step\":3}},{\"ph\":\"X\",\"name\":\"checkpoint:write\",\"tid\":1,\"ts\":340,\"dur\":20,\"args\":{\"step\":3}},{\"ph\":\"X\",\"name\":\"checkpoint:fsync\",\"tid\":1,\"ts\":360,\"dur\":40,\"args\":{\"step\":3}}]}";

/* Checkpoints written asynchronously, by hand. On 4 cores nothing shares one: step 0 is
 * forward and snapshot (0-40); the write runs 40-60 beside step 1's forward (40-70), its
 * fsync to 100, and step 1's snapshot waits for it: 100-110, a step of 70 µs (snapshot, write
 * and fsync: the writer bounds the step), and so on. On 2 cores each rank's write shares a
 * core with its forward (4 threads on 2 cores, half speed): the write ends at 80, the forward
 * at 90, the fsync at 120, the snapshot 120-130: 90 µs, less gain than the cores allow.
 * With a checkpoint every 2nd step as well, steps 0 and 2 are their forward's 30 µs; step 1
 * forward and snapshot (30-70), whose write and fsync end at 130, which step 3's snapshot
 * waits for (its forward 100-130): 130-140. Refused on one checkpoint range (an older
 * trainer's) and on checkpoints written asynchronously already. */
static void async_checkpoint_change(void)
{
	struct two w;
	load_same(&w, ckpt_parts_json, 4);
	struct replay_change ch = { .kind = REPLAY_CHANGE_CHECKPOINTS, .every = 1, .async = 1 };
	struct replay_build_info info;
	CHECK_NEAR(step_of(&w, 4, NULL, 1, NULL), 100e-3, US);
	CHECK_NEAR(step_of(&w, 4, &ch, 0, &info), 40e-3, US);
	CHECK(info.async_writes == 8 && info.dropped == 0);
	replay_build_info_free(&info);
	for (int k = 1; k < 4; k++)
		CHECK_NEAR(step_of(&w, 4, &ch, k, NULL), 70e-3, US);
	CHECK_NEAR(step_of(&w, 2, &ch, 1, NULL), 90e-3, US);
	CHECK_NEAR(step_of(&w, 2, &ch, 2, NULL), 90e-3, US);
	ch.every = 2;
	CHECK_NEAR(step_of(&w, 4, &ch, 0, &info), 30e-3, US);
	CHECK(info.async_writes == 4 && info.dropped == 4);
	replay_build_info_free(&info);
	CHECK_NEAR(step_of(&w, 4, &ch, 1, NULL), 40e-3, US);
	CHECK_NEAR(step_of(&w, 4, &ch, 2, NULL), 30e-3, US);
	CHECK_NEAR(step_of(&w, 4, &ch, 3, NULL), 40e-3, US);
	free_two(&w);
	struct two v;
	load_same(&v, checkpoints_json, 4);
	CHECK(step_of(&v, 4, &ch, 0, NULL) < 0);
	CHECK(strstr(err_last(), "are not told apart into checkpoint:snapshot") != NULL);
	free_two(&v);
}

/* A run that wrote its checkpoints asynchronously, four steps of 100 µs on two identical
 * ranks: the step thread's forward (60 µs in step 0, else 30), its wait for the write in
 * flight (30, from step 1), the snapshot 10, the optimizer 30; the writer's write 10 and fsync
 * 80 after each snapshot, the fsync ending where the next step's wait does. */
static const char *const async_run_json =
	"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#0\",\"tid\":1,\"ts\":0,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":0,\"dur\":60,\"args\":{\"step\":0}},{\"ph\":\"X\",\"name\":\"checkpoint:snapshot\",\"tid\":1,\"ts\":60,\"dur\":10,\"args\":{\"step\":0}},{\"ph\":\"X\",\"name\":\"optimizer\",\"tid\":1,\"ts\":70,\"dur\":30,\"args\":{\"step\":0}},{\"ph\":\"X\",\"name\":\"checkpoint:write\",\"tid\":2,\"ts\":70,\"dur\":10,\"args\":{\"step\":0}},{\"ph\":\"X\",\"name\":\"checkpoint:fsync\",\"tid\":2,\"ts\":80,\"dur\":80,\"args\":{\"step\":0}},{\"ph\":\"X\",\"name\":\"ProfilerStep#1\",\"tid\":1,\"ts\":100,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":100,\"dur\":30,\"args\":{\"step\":1}},{\"ph\":\"X\",\"name\":\"checkpoint:wait\",\"tid\":1,\"ts\":130,\"dur\":30,\"args\":{\"step\":-1}},{\"ph\":\"X\",\"name\":\"checkpoint:snapshot\",\"tid\":1,\"ts\":160,\"dur\":10,\"args\":{\"step\":1}},{\"ph\":\"X\",\"name\":\"optimizer\",\"tid\":1,\"ts\":170,\"dur\":30,\"args\":{\"step\":1}},{\"ph\":\"X\",\"name\":\"checkpoint:write\",\"tid\":2,\"ts\":170,\"dur\":10,\"args\":{\"step\":1}},{\"ph\":\"X\",\"name\":\"checkpoint:fsync\",\"tid\":2,\"ts\":180,\"dur\":80,\"args\":{\"step\":1}},{\"ph\":\"X\",\"name\":\"ProfilerStep#2\",\"tid\":1,\"ts\":200,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":200,\"dur\":30,\"args\":{\"step\":2}},{\"ph\":\"X\",\"name\":\"checkpoint:wait\",\"tid\":1,\"ts\":230,\"dur\":30,\"args\":{\"step\":-1}},{\"ph\":\"X\",\"name\":\"checkpoint:snapshot\",\"tid\":1,\"ts\":260,\"dur\":10,\"args\":{\"step\":2}},{\"ph\":\"X\",\"name\":\"optimizer\",\"tid\":1,\"ts\":270,\"dur\":30,\"args\":{\"step\":2}},{\"ph\":\"X\",\"name\":\"checkpoint:write\",\"tid\":2,\"ts\":270,\"dur\":10,\"args\":{\"step\":2}},{\"ph\":\"X\",\"name\":\"checkpoint:fsync\",\"tid\":2,\"ts\":280,\"dur\":80,\"args\":{\"step\":2}},{\"ph\":\"X\",\"name\":\"ProfilerStep#3\",\"tid\":1,\"ts\":300,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":300,\"dur\":30,\"args\":{\"step\":3}},{\"ph\":\"X\",\"name\":\"checkpoint:wait\",\"tid\":1,\"ts\":330,\"dur\":30,\"args\":{\"step\":-1}},{\"ph\":\"X\",\"name\":\"checkpoint:snapshot\",\"tid\":1,\"ts\":360,\"dur\":10,\"args\":{\"step\":3}},{\"ph\":\"X\",\"name\":\"optimizer\",\"tid\":1,\"ts\":370,\"dur\":30,\"args\":{\"step\":3}},{\"ph\":\"X\",\"name\":\"checkpoint:write\",\"tid\":2,\"ts\":370,\"dur\":10,\"args\":{\"step\":3}},{\"ph\":\"X\",\"name\":\"checkpoint:fsync\",\"tid\":2,\"ts\":380,\"dur\":80,\"args\":{\"step\":3}}]}";

/* The measured asynchronous run replays as it ran (100 µs a step): each wait is released by
 * the fsync before it (a sleep: its span on the edge), each write handed off by its
 * snapshot. Both changes refuse it: its checkpoints are asynchronous already. */
static void async_run_replayed(void)
{
	struct two w;
	load_same(&w, async_run_json, 4);
	for (int k = 1; k < 4; k++)
		CHECK_NEAR(step_of(&w, 4, NULL, k, NULL), 100e-3, US);
	struct replay_change ch = { .kind = REPLAY_CHANGE_CHECKPOINTS, .every = 1, .async = 1 };
	CHECK(step_of(&w, 4, &ch, 1, NULL) < 0);
	CHECK(strstr(err_last(), "rank 0 writes its checkpoints asynchronously already") != NULL);
	ch.async = 0, ch.every = 2;
	CHECK(step_of(&w, 4, &ch, 1, NULL) < 0);
	CHECK(strstr(err_last(), "asynchronously already") != NULL);
	free_two(&w);
}

/* Four steps of the reference trainer's shape on two identical ranks: the step thread waits
 * for its batch, then forward 20 µs and optimizer 10 µs; one loader thread makes batch b
 * (args.step b) from 5 + 100 b µs: a read sleeping 80 µs, a decode of 20 µs. The loader
 * bounds the step: 100 µs. */
static const char *const loader_json =
	"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#0\",\"tid\":1,\"ts\":0,\"dur\":135},{\"ph\":\"X\",\"name\":\"wait_for_batch\",\"tid\":1,\"ts\":0,\"dur\":105,\"args\":{\"step\":0}},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":105,\"dur\":20,\"args\":{\"step\":0}},{\"ph\":\"X\",\"name\":\"optimizer\",\"tid\":1,\"ts\":125,\"dur\":10,\"args\":{\"step\":0}},{\"ph\":\"X\",\"name\":\"ProfilerStep#1\",\"tid\":1,\"ts\":135,\"dur\":100},{\"ph\":\"X\",\"name\":\"wait_for_batch\",\"tid\":1,\"ts\":135,\"dur\":70,\"args\":{\"step\":1}},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":205,\"dur\":20,\"args\":{\"step\":1}},{\"ph\":\"X\",\"name\":\"optimizer\",\"tid\":1,\"ts\":225,\"dur\":10,\"args\":{\"step\":1}},{\"ph\":\"X\",\"name\":\"ProfilerStep#2\",\"tid\":1,\"ts\":235,\"dur\":100},{\"ph\":\"X\",\"name\":\"wait_for_batch\",\"tid\":1,\"ts\":235,\"dur\":70,\"args\":{\"step\":2}},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":305,\"dur\":20,\"args\":{\"step\":2}},{\"ph\":\"X\",\"name\":\"optimizer\",\"tid\":1,\"ts\":325,\"dur\":10,\"args\":{\"step\":2}},{\"ph\":\"X\",\"name\":\"ProfilerStep#3\",\"tid\":1,\"ts\":335,\"dur\":100},{\"ph\":\"X\",\"name\":\"wait_for_batch\",\"tid\":1,\"ts\":335,\"dur\":70,\"args\":{\"step\":3}},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":405,\"dur\":20,\"args\":{\"step\":3}},{\"ph\":\"X\",\"name\":\"optimizer\",\"tid\":1,\"ts\":425,\"dur\":10,\"args\":{\"step\":3}},{\"ph\":\"X\",\"name\":\"loader:read\",\"tid\":2,\"ts\":5,\"dur\":80,\"args\":{\"step\":0}},{\"ph\":\"X\",\"name\":\"loader:decode\",\"tid\":2,\"ts\":85,\"dur\":20,\"args\":{\"step\":0}},{\"ph\":\"X\",\"name\":\"loader:read\",\"tid\":2,\"ts\":105,\"dur\":80,\"args\":{\"step\":1}},{\"ph\":\"X\",\"name\":\"loader:decode\",\"tid\":2,\"ts\":185,\"dur\":20,\"args\":{\"step\":1}},{\"ph\":\"X\",\"name\":\"loader:read\",\"tid\":2,\"ts\":205,\"dur\":80,\"args\":{\"step\":2}},{\"ph\":\"X\",\"name\":\"loader:decode\",\"tid\":2,\"ts\":285,\"dur\":20,\"args\":{\"step\":2}},{\"ph\":\"X\",\"name\":\"loader:read\",\"tid\":2,\"ts\":305,\"dur\":80,\"args\":{\"step\":3}},{\"ph\":\"X\",\"name\":\"loader:decode\",\"tid\":2,\"ts\":385,\"dur\":20,\"args\":{\"step\":3}}]}";

/* The loader change, by hand: with 2 threads (depth 4) batches 0 and 1 are made over
 * [0, 100) µs, 2 and 3 over [100, 200): step 0 waits to 100 and ends at 130, step 1 finds
 * its batch (30 µs), step 2 waits from 160 to 200 (70 µs), step 3 finds its (30 µs). With
 * 4 threads and a depth of 1, batch 1 starts only once step 0 released its slot (its
 * optimizer ends at 130): step 1 waits to 230 and takes 130 µs. Refused without loader
 * ranges that name their batch. */
static void loader_change(void)
{
	struct two w;
	load_same(&w, loader_json, 4);
	struct replay_change ch = { .kind = REPLAY_CHANGE_LOADERS, .workers = 2, .depth = 4 };
	struct replay_build_info info;
	CHECK_NEAR(step_of(&w, 4, NULL, 2, NULL), 100e-3, US);
	CHECK_NEAR(step_of(&w, 4, &ch, 1, &info), 30e-3, US);
	CHECK(info.batches == 8 && info.loaders == 1);
	replay_build_info_free(&info);
	CHECK_NEAR(step_of(&w, 4, &ch, 2, NULL), 70e-3, US);
	CHECK_NEAR(step_of(&w, 4, &ch, 3, NULL), 30e-3, US);
	ch.workers = 4, ch.depth = 1;
	CHECK_NEAR(step_of(&w, 4, &ch, 1, NULL), 130e-3, US);
	free_two(&w);
	struct two v;
	load_two(&v);
	CHECK(step_of(&v, 2, &ch, 0, NULL) < 0);
	CHECK(strstr(err_last(), "no loader ranges: neither the reference trainer's") != NULL);
	free_two(&v);
}

/* DDP's all-reduce already on gloo's thread (rank_json), each started as soon as its rank's
 * backward (bwd, once the phases say so) begins, by hand on 2 cores: rank 0's at 40 (after
 * its 5 µs of untraced work), rank 1's at 50, the instance's last arrival. From 50 both
 * backwards and both 15 core-µs transfers share the 2 cores (half speed): rank 0's bwd ends
 * at 70; then three at 2/3 speed: the transfers end at 77.5, rank 1's bwd at 82.5; each
 * optimizer starts 5 µs after the all-reduce ended (as measured) and after its backward,
 * 82.5 to 92.5: 92.5 µs against 100, the most smaller buckets could gain. Without phases
 * (backward unknown) it is refused. */
static void early_allreduce(void)
{
	struct two w;
	load_two(&w);
	int *ph[2];
	for (int r = 0; r < 2; r++) {
		ph[r] = phases_of(&w.t[r], "fwd");
		for (size_t i = 0; i < w.t[r].nnames; i++)
			ph[r][i] = !strcmp(w.t[r].names[i], "bwd") ? PH_BACKWARD : ph[r][i];
		w.in[r].phase = ph[r];
	}
	struct replay_change ch = { .kind = REPLAY_CHANGE_BUCKETS, .bucket_bytes = 2000 };
	int cores = 2;
	struct replay_build_in in = { w.in, 2, &cores, 1, &ch };
	struct rgraph *g = NULL;
	struct replay_build_info info;
	struct replay_sim *s = NULL;
	CHECK(replay_build(&in, &g, &info) == 0 && replay_sim_run(&s, g) == 0);
	CHECK(info.early && info.moved_colls == 2 && info.buckets == 0);
	CHECK_NEAR(replay_sim_start(s, node_named(g, 0, "gloo:all_reduce")), 40e-3, US);
	CHECK_NEAR(replay_sim_end(s, node_named(g, 0, "bwd")), 70e-3, US);
	CHECK_NEAR(replay_sim_end(s, node_named(g, 1, "bwd")), 82.5e-3, US);
	CHECK_NEAR(replay_sim_step_end(s, -1, 0), 92.5e-3, US);
	replay_sim_free(s);
	rgraph_free(g);
	replay_build_info_free(&info);
	for (int r = 0; r < 2; r++)
		w.in[r].phase = NULL;
	CHECK(replay_build(&in, &g, NULL) < 0);
	CHECK(strstr(err_last(), "nor an all-reduce on another thread after a backward range") !=
	      NULL);
	free(ph[0]);
	free(ph[1]);
	free_two(&w);
}

/* A DataLoader loading in the training process, as PyTorch's num_workers 0 traces it: six
 * steps of 100 µs, each its iterator's `__next__` (iter names it) 60 µs, then fwd 40; twice
 * a step where twice is 1. */
static char *user_loader_json(const char *iter, int twice)
{
	struct strbuf b = STRBUF_INIT;
	strbuf_adds(&b, "{\"traceEvents\":[");
	for (int k = 0; k < 6; k++)
		strbuf_addf(
			&b,
			"%s{\"ph\":\"X\",\"name\":\"ProfilerStep#%d\",\"tid\":1,\"ts\":%d,\"dur\":100},{\"ph\":\"X\",\"name\":\"enumerate(DataLoader)#%s.__next__\",\"tid\":1,\"ts\":%d,\"dur\":%d},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":%d,\"dur\":40}",
			k ? "," : "", k, 100 * k, iter, 100 * k, twice ? 30 : 60, 100 * k + 60);
	for (int k = 0; twice && k < 6; k++)
		strbuf_addf(
			&b,
			",{\"ph\":\"X\",\"name\":\"enumerate(DataLoader)#%s.__next__\",\"tid\":1,\"ts\":%d,\"dur\":30}",
			iter, 100 * k + 30);
	strbuf_adds(&b, "]}");
	return strbuf_detach(&b);
}

/* The step with the DataLoader of user_loader_json(iter, twice) given ch, two ranks on 2
 * cores: step k's (-1: the six steps' sum, info unused), or -1 with err_last saying why. */
static double user_loader_step(const char *iter, int twice, const struct replay_change *ch,
			       int k, struct replay_build_info *info)
{
	struct two w;
	char *json = user_loader_json(iter, twice);
	load_same(&w, json, 6);
	double all = 0;
	if (k >= 0)
		all = step_of(&w, 2, ch, k, info);
	for (int j = 0; k < 0 && j < 6 && all >= 0; j++) {
		double x = step_of(&w, 2, ch, j, NULL);
		all = x < 0 ? -1 : all + x;
	}
	free_two(&w);
	free(json);
	return all;
}

/* The DataLoader given 2 workers and 2 batches in flight, by hand, two ranks on 2 cores
 * (demand = wall). Its loading all waiting: batch b made by worker b % 2 in 60 µs, after its
 * batch b - 2 and once the step thread took batch b - 2 (batches 0 and 1 from the start):
 * step 0 waits for batch 0 until 60 and ends at 100; batch 2 is made from 60 (taken at 140),
 * 3 from 100 (at 180), 4 from 140 (at 220), 5 from 180 (at 260): each later step is fwd's
 * 40 µs. All CPU work: the two ranks' 6 x 40 µs of fwd and 6 x 60 of loading keep both cores
 * busy throughout (a step thread that waits does so for a worker that runs): the six steps
 * take 1200 / 2 = 600 µs, as measured: no gain. The share from the monitors: the ranks kept
 * 1.1 cores busy over their 600 µs, 0.66 core-ms, of which fwd took 12 x 40 µs: the 12
 * loader ranges' 0.72 core-ms were 0.18 of CPU work, 25 %; with 4 ranks launched on the host
 * (2 traced) half of it is theirs, so none was; none busy, none of it. Refused: a
 * DataLoader with workers already, two batches a step, no DataLoader. */
static void user_loader_change(void)
{
	const char *one = "_SingleProcessDataLoaderIter";
	struct replay_change ch = { .kind = REPLAY_CHANGE_LOADERS, .workers = 2, .depth = 2,
				    .job_cores = -1, .cpu_share = 0 };
	struct replay_build_info info;
	CHECK_NEAR(user_loader_step(one, 0, NULL, 3, NULL), 100e-3, US);
	CHECK_NEAR(user_loader_step(one, 0, &ch, 0, &info), 100e-3, US);
	CHECK(info.user_loader && info.loaders == 0 && info.batches == 12);
	replay_build_info_free(&info);
	for (int k = 1; k < 6; k++)
		CHECK_NEAR(user_loader_step(one, 0, &ch, k, NULL), 40e-3, US);
	ch.cpu_share = 1;
	CHECK_NEAR(user_loader_step(one, 0, &ch, -1, NULL), 600e-3, US);
	ch.job_cores = 1.1;
	CHECK(user_loader_step(one, 0, &ch, 0, &info) > 0);
	CHECK_NEAR(info.loader_cpu_share, 0.25, 1e-9);
	replay_build_info_free(&info);
	ch.host_ranks = 4;
	CHECK(user_loader_step(one, 0, &ch, 0, &info) > 0);
	CHECK(info.loader_cpu_share == 0);
	replay_build_info_free(&info);
	ch.host_ranks = 0, ch.job_cores = 0; /* measured: no core busy, so none of it was */
	CHECK(user_loader_step(one, 0, &ch, 0, &info) > 0);
	CHECK(info.loader_cpu_share == 0);
	replay_build_info_free(&info);
	CHECK(user_loader_step("_MultiProcessingDataLoaderIter", 0, &ch, 0, NULL) < 0);
	CHECK(strstr(err_last(), "its DataLoader loads in worker processes already") != NULL);
	CHECK(user_loader_step(one, 1, &ch, 0, NULL) < 0);
	CHECK(strstr(err_last(), "more than one batch from its DataLoader in a step") != NULL);
	CHECK(user_loader_step("Other", 0, &ch, 0, NULL) < 0);
	CHECK(strstr(err_last(), "nor a DataLoader's loading in the training process") != NULL);
}

/* Half of the DataLoader's loading CPU work (cpu_share 0.5, not measured), one worker a rank
 * and one batch in flight, by hand, two ranks on 2 cores (each rank's worker and step thread
 * have a core, or half of one when all four run). A batch is 16 pieces of 1.875 us of CPU
 * work, each followed by 1.875 us of waiting. Batch 0 from the start, the workers alone:
 * ready at 60. Batch 1 from 60, beside fwd: in each 5.625 us (a piece at half a core, then its
 * wait) fwd gets 3.75 us of its 40: done at 120.625 (ten such, a piece, 0.625 of a wait),
 * when the worker is in its 11th wait; its last five pieces and waits alone, ready at
 * 140.625. From then on the same: step 0 120.625 us, each later one 80.625 but the last,
 * whose fwd runs alone (60: 80.625 - 60.625 + 40), the six 503.125. Its CPU work in one piece
 * at the batch's start would have taken 550 (30 us of it at half a core beside fwd: step 0
 * 130, then 90, the last 60); all of it waiting 400 (100, then 60); all of it CPU work 600
 * (140, then 100, the last 60). */
static void user_loader_pieces(void)
{
	const char *one = "_SingleProcessDataLoaderIter";
	struct replay_change ch = { .kind = REPLAY_CHANGE_LOADERS, .workers = 1, .depth = 1,
				    .job_cores = -1, .cpu_share = 0.5 };
	CHECK_NEAR(user_loader_step(one, 0, &ch, 0, NULL), 120.625e-3, US);
	CHECK_NEAR(user_loader_step(one, 0, &ch, 3, NULL), 80.625e-3, US);
	CHECK_NEAR(user_loader_step(one, 0, &ch, -1, NULL), 503.125e-3, US);
	ch.cpu_share = 0;
	CHECK_NEAR(user_loader_step(one, 0, &ch, -1, NULL), 400e-3, US);
	ch.cpu_share = 1;
	CHECK_NEAR(user_loader_step(one, 0, &ch, -1, NULL), 600e-3, US);
}

/* A step of 100 us on two ranks: forward (rank 0 20 us, rank 1 80 us), the all-reduce on
 * the step thread (rank 0 waits 60 us for rank 1, then both transfer 10 us), optimizer 10. */
static const char *const slow_json[2] = {
	"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#0\",\"tid\":1,\"ts\":0,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":0,\"dur\":20},{\"ph\":\"X\",\"name\":\"gloo:all_reduce\",\"tid\":1,\"ts\":20,\"dur\":70},{\"ph\":\"X\",\"name\":\"opt\",\"tid\":1,\"ts\":90,\"dur\":10}]}",
	"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#0\",\"tid\":1,\"ts\":0,\"dur\":100},{\"ph\":\"X\",\"name\":\"fwd\",\"tid\":1,\"ts\":0,\"dur\":80},{\"ph\":\"X\",\"name\":\"gloo:all_reduce\",\"tid\":1,\"ts\":80,\"dur\":10},{\"ph\":\"X\",\"name\":\"opt\",\"tid\":1,\"ts\":90,\"dur\":10}]}",
};

/* The straggler change, by hand: rank 1's forward comes down to rank 0's 20 us (the other
 * ranks' median), its optimizer stays (no more than theirs): both arrive at 20, transfer to
 * 30, and the step ends at 40 us. Rank 0 named slow instead changes nothing (its work is
 * under rank 1's). Refused where every rank, or none, is slow. */
static void straggler_change(void)
{
	struct two w;
	load_pair(&w, slow_json);
	int slow = 1;
	struct replay_change ch = { .kind = REPLAY_CHANGE_STRAGGLERS, .slow_ranks = &slow,
				    .nslow = 1 };
	struct replay_build_info info;
	CHECK_NEAR(step_of(&w, 2, NULL, 0, NULL), 100e-3, US);
	CHECK_NEAR(step_of(&w, 2, &ch, 0, &info), 40e-3, US);
	CHECK(info.trimmed == 1);
	replay_build_info_free(&info);
	slow = 0;
	CHECK_NEAR(step_of(&w, 2, &ch, 0, NULL), 100e-3, US);
	int both[2] = { 0, 1 };
	ch.slow_ranks = both, ch.nslow = 2;
	CHECK(step_of(&w, 2, &ch, 0, NULL) < 0);
	CHECK(strstr(err_last(), "no straggler's rank beside another rank") != NULL);
	free_two(&w);
}

/* The change does not apply where the all-reduce already runs on another thread and
 * backward is not known (early_allreduce), nor without layer ranges with gradient sizes:
 * the error says which. */
static void bucket_change_refused(void)
{
	struct two w;
	load_two(&w);
	struct replay_change ch = { .kind = REPLAY_CHANGE_BUCKETS, .bucket_bytes = 2000 };
	CHECK(bucketed_step(&w, 2, &ch, NULL) < 0);
	CHECK(strstr(err_last(), "no collective runs on its step thread, nor an all-reduce") !=
	      NULL);
	free_two(&w);
}

/* The committed DDP fixtures (2 ranks, gloo, on this machine's cores when recorded: 2)
 * replayed unchanged: their error printed, and held within the bound; the measured median
 * is the scenario's step as the analysis times it (the collective periods, steptime.h). */
static void fixture(const char *dir, double bound_pct)
{
	struct rules phases;
	CHECK(rules_load("analyzers/phase_rules.txt", &phases) == 0);
	struct trace_set ts;
	CHECK(torchtrace_load_dir(dir, &phases, NULL, 1, NULL, &ts) == 0 && ts.m.n == 2);
	struct replay_result r;
	CHECK(replay_scenario_run(dir, &phases, &ts.m, &two_cores, &r) == 0);
	printf("    %s: replayed %.3f ms, measured %.3f ms, error %+.2f %% over %zu steps%s%s\n",
	       dir, r.step_ms, r.measured_ms, r.error_pct, r.steps, r.built ? "" : "; ", r.why);
	for (size_t k = 0; k < r.nranks; k++)
		printf("      rank %d: replayed %.3f, measured %.3f, error %+.2f %%\n",
		       r.ranks[k].rank, r.ranks[k].step_ms, r.ranks[k].measured_ms,
		       r.ranks[k].error_pct);
	CHECK(r.built && r.steps == ts.m.ranks[0].n);
	double *t = calloc(ts.m.ranks[0].n + 1, sizeof *t);
	size_t n = 0, periods = 0;
	steptime_list(&ts.m, t, &n, &periods);
	CHECK(n == r.steps && periods > 0 && r.measured_ms == stats_percentile(t, n, 50));
	free(t);
	CHECK(r.error_pct <= bound_pct && r.error_pct >= -bound_pct);
	for (size_t k = 0; k < r.nranks; k++)
		CHECK(r.ranks[k].error_pct <= bound_pct && r.ranks[k].error_pct >= -bound_pct);
	replay_result_free(&r);
	trace_set_free(&ts);
	rules_free(&phases);
}

static void fixtures(void)
{
	/* measured 33.346 and 38.680 ms, the median periods between the steps' last all-reduces
	 * (tests/tools/replay_measured.py recounts them) */
	fixture("tests/fixtures/ddp_gloo", 5);
	fixture("tests/fixtures/ddp_buffers", 5);
}

int main(void)
{
	RUN(hand_made_one_core);
	RUN(hand_made_two_cores);
	RUN(unmatched_collective);
	RUN(demand_estimate);
	RUN(gpu_kernels_and_sync);
	RUN(gpu_top_level_sync);
	RUN(host_change_refused);
	RUN(nccl_across_ranks);
	RUN(nccl_rank_starts);
	RUN(nccl_send_recv);
	RUN(trainer_waits_and_sleeps);
	RUN(trainer_scenario);
	RUN(bucket_change);
	RUN(bucket_change_refused);
	RUN(bucket_change_per_call);
	RUN(checkpoint_change);
	RUN(checkpoint_phases);
	RUN(async_checkpoint_change);
	RUN(async_run_replayed);
	RUN(loader_change);
	RUN(user_loader_change);
	RUN(user_loader_pieces);
	RUN(early_allreduce);
	RUN(straggler_change);
	RUN(batch_change);
	RUN(fixtures);
	return harness_failures ? 1 : 0;
}
