/* collective: names of collectives, the readers' collective args, and
 * instances matched across ranks with latency, wait and bandwidth.
 * SPDX-License-Identifier: MIT */
#include "analyzers/collective.h"
#include "analyzers/fabric_curve.h"
#include "analyzers/steptime.h"
#include "analyzers/read/kineto.h"
#include "analyzers/straggler.h"
#include "analyzers/write/evidence.h"
#include "harness.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void names_of_collectives(void)
{
	CHECK(coll_op_of("allreduce") == COLL_ALL_REDUCE);
	CHECK(coll_op_of("_allgather_base") == COLL_ALL_GATHER);
	CHECK(coll_op_of("all_gather_into_tensor") == COLL_ALL_GATHER);
	CHECK(coll_op_of("reduce_scatter_tensor") == COLL_REDUCE_SCATTER);
	CHECK(coll_op_of("_reduce_scatter_base") == COLL_REDUCE_SCATTER);
	CHECK(coll_op_of("all_to_all") == COLL_ALL_TO_ALL);
	CHECK(coll_op_of("alltoall_base") == COLL_ALL_TO_ALL);
	CHECK(coll_op_of("gloo:all_reduce") == COLL_ALL_REDUCE);
	CHECK(coll_op_of("nccl:broadcast") == COLL_BROADCAST);
	CHECK(coll_op_of("reduce") == COLL_REDUCE);
	CHECK(coll_op_of(
		      "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)") ==
	      COLL_ALL_REDUCE);
	CHECK(coll_op_of("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)") ==
	      COLL_ALL_GATHER);
	CHECK(coll_op_of("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)") ==
	      COLL_SEND_RECV);
	CHECK(coll_op_of("wait") == -1);
	CHECK(coll_op_of("coalesced") == -1);
	CHECK(coll_op_of("aten::mm") == -1);
	CHECK(coll_op_of("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)") == -1);
	CHECK_NEAR(coll_busbw_factor(COLL_ALL_REDUCE, 4), 1.5, 1e-12);
	CHECK_NEAR(coll_busbw_factor(COLL_ALL_GATHER, 4), 0.75, 1e-12);
	CHECK_NEAR(coll_busbw_factor(COLL_REDUCE_SCATTER, 8), 0.875, 1e-12);
	CHECK_NEAR(coll_busbw_factor(COLL_BROADCAST, 8), 1, 1e-12);
	char b[48];
	CHECK_STR(coll_size_label(-1, b, sizeof b), "unknown");
	CHECK_STR(coll_size_label(0, b, sizeof b), "< 1 KiB");
	CHECK_STR(coll_size_label(5, b, sizeof b), "256 KiB - 1 MiB");
	CHECK_STR(coll_size_label(7, b, sizeof b), "4 MiB - 16 MiB");
	CHECK(kineto_dtype_size("BFloat16") == 2 && kineto_dtype_size("Float") == 4 &&
	      kineto_dtype_size("Long") == 8);
	CHECK(kineto_dtype_size("Float8_e4m3fn") == 1 && kineto_dtype_size("Quantum") == 0);
}

static const char trace[] =
	"{\"traceEvents\": [\n"
	"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 20, \"args\": {\"Collective name\": \"_allgather_base\", \"In msg nelems\": 256, \"Out msg nelems\": 1024, \"dtype\": \"BFloat16\", \"Group size\": 4, \"Process Group Name\": \"7\"}},\n"
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclKernel_AllGather\", \"pid\": 0, \"tid\": 7, \"ts\": 130.4, \"dur\": 50, \"args\": {\"stream\": 7, \"correlation\": 9, \"Collective name\": \"allreduce\", \"In msg nelems\": 10, \"Out msg nelems\": 10, \"dtype\": \"Double\", \"Group size\": 2, \"Process Group Name\": 3}},\n"
	"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, \"tid\": 1, \"ts\": 300, \"dur\": 2, \"args\": {\"Collective name\": \"barrier\", \"dtype\": \"Quantum\"}}\n"
	"]}\n";

/* Both readers keep a collective's args alike: bytes from the larger count
 * and the dtype, the process group as text (a number's text too). */
static void readers_keep_collective_args(void)
{
	char path[] = "/tmp/test_coll.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, trace, sizeof trace - 1) == (ssize_t)(sizeof trace - 1));
	close(fd);
	for (int yajl = 0; yajl < 2; yajl++) {
		struct gpu_trace t;
		setenv("CAMPAIGN_SIMDJSON_MAX_MB", yajl ? "0" : "512", 1);
		CHECK(kineto_load(path, 1, &t) == 0);
		CHECK(t.ncomm == 3);
		if (t.ncomm == 3) {
			CHECK(!t.comm[0].gpu && t.comm[0].bytes == 2048 &&
			      t.comm[0].group_size == 4);
			CHECK_STR(t.names[t.comm[0].coll], "_allgather_base");
			CHECK_STR(t.names[t.comm[0].pg], "7");
			CHECK(t.comm[1].gpu && t.comm[1].bytes == 80 && t.comm[1].group_size == 2);
			/* HTA's rounding of GPU times */
			CHECK(t.comm[1].start == 131 && t.comm[1].end == 180);
			CHECK_STR(t.names[t.comm[1].pg], "3");
			CHECK(t.comm[2].bytes == -1 && t.comm[2].group_size == -1);
			CHECK_STR(t.names[t.comm[2].pg], "");
		}
		gpu_trace_free(&t);
	}
	unsetenv("CAMPAIGN_SIMDJSON_MAX_MB");
	unlink(path);
}

static void add_rec(struct rank_metrics *r, int step, int op, double bytes, double ms)
{
	XGROW(r->coll, r->ncoll, r->collcap, 8);
	r->coll[r->ncoll++] = (struct coll_rec){ step, 0, 0, op, 3, bytes, ms, 0 };
}

/* Three ranks, two steps: an all-reduce of 3 MB per step, rank 2 arriving
 * last (shortest); a broadcast rank 1 lacks in step 1 is no instance. */
static void instances_across_ranks(void)
{
	struct rank_metrics rk[3] = { 0 };
	struct scenario_metrics m = { rk, 3 };
	const double ms[3][2] = { { 3, 5 }, { 4, 5 }, { 2, 1 } };
	for (int r = 0; r < 3; r++) {
		rk[r].format = METRICS_TORCH_TRACE;
		for (int s = 0; s < 2; s++) {
			struct step_rec st = { .step = s, .active = 1, .step_ms = 10 };
			metrics_add_step(&rk[r], &st);
			add_rec(&rk[r], s, COLL_ALL_REDUCE, 3e6, ms[r][s]);
			if (r != 1 || s != 1)
				add_rec(&rk[r], s, COLL_BROADCAST, 100, 0.5);
		}
	}
	struct collective *c;
	size_t n;
	collectives_of(&m, &c, &n);
	CHECK(n == 2);
	if (n == 2) {
		CHECK(c[0].op == COLL_ALL_REDUCE && c[0].instances == 2 && c[0].steps == 2 &&
		      c[0].count_per_step == 1);
		CHECK_NEAR(c[0].latency_med, 1.5, 1e-12);  /* 2 and 1 */
		CHECK_NEAR(c[0].wait_med, 1.5, 1e-12);     /* 1 2 0 | 4 4 0 */
		CHECK_NEAR(c[0].algbw_gbps, 2.25, 1e-12);  /* median of 1.5 and 3 GB/s */
		CHECK_NEAR(c[0].busbw_gbps, 3.0, 1e-12);   /* x 2(3-1)/3 */
		CHECK_NEAR(c[0].ms_per_step, (3 + 5 + 4 + 5 + 2 + 1) / 3.0 / 2, 1e-12);
		CHECK(c[1].op == COLL_BROADCAST && c[1].instances == 1 && c[1].size_class == 0);
		CHECK_NEAR(c[1].count_per_step, 0.5, 1e-12);
		/* what compare's intervals draw on: per step the ranks' mean time (3, 11/3:
		 * their mean is ms_per_step), each rank's wait per instance, each busbw */
		CHECK(c[0].nkept[COLL_KEPT_STEP_MS] == 2 && c[0].nkept[COLL_KEPT_WAIT_MS] == 6 &&
		      c[0].nkept[COLL_KEPT_BUSBW] == 2);
		if (c[0].nkept[COLL_KEPT_STEP_MS] == 2) {
			CHECK_NEAR(c[0].kept[COLL_KEPT_STEP_MS][0], 3, 1e-12);
			CHECK_NEAR(c[0].kept[COLL_KEPT_STEP_MS][1], 11 / 3.0, 1e-12);
		}
		if (c[0].nkept[COLL_KEPT_BUSBW] == 2)
			CHECK_NEAR(c[0].kept[COLL_KEPT_BUSBW][0] + c[0].kept[COLL_KEPT_BUSBW][1], 6,
				   1e-12);
		/* the broadcast ran in one of the two steps with collectives: 0.5, then 0 */
		CHECK(c[1].nkept[COLL_KEPT_STEP_MS] == 2 && c[1].nkept[COLL_KEPT_BUSBW] == 1);
		if (c[1].nkept[COLL_KEPT_STEP_MS] == 2)
			CHECK(c[1].kept[COLL_KEPT_STEP_MS][0] == 0.5 &&
			      c[1].kept[COLL_KEPT_STEP_MS][1] == 0);
	}
	collectives_free(c, n);
	for (int r = 0; r < 3; r++)
		rank_metrics_free(&rk[r]);
}

/* DDP's gradient buckets all-reduce at once: two ranks, two steps, three all-reduces of
 * one size class a step. Rank 0: [0, 3), [1, 4), [5, 6) ms into the step (union 5, summed
 * 7); rank 1: [0, 2), [2, 4) (they touch: no overlap), [3.5, 6) (union 6, summed 6.5). Time
 * per step is the ranks' mean union, 5.5 ms; summed 6.75; all three overlap another on
 * some rank, in both steps: 6 concurrent instances. */
static void concurrent_instances_count_once(void)
{
	struct rank_metrics rk[2] = { 0 };
	struct scenario_metrics m = { rk, 2 };
	const double at[2][3][2] = { { { 0, 3 }, { 1, 4 }, { 5, 6 } },
				     { { 0, 2 }, { 2, 4 }, { 3.5, 6 } } };
	for (int r = 0; r < 2; r++) {
		rk[r].format = METRICS_TORCH_TRACE;
		for (int s = 0; s < 2; s++) {
			struct step_rec st = { .step = s, .active = 1, .step_ms = 10 };
			metrics_add_step(&rk[r], &st);
			for (int k = 0; k < 3; k++) {
				const double *a = at[r][k];
				double end_us = 1e6 + s * 1e4 + a[1] * 1000;
				XGROW(rk[r].coll, rk[r].ncoll, rk[r].collcap, 8);
				rk[r].coll[rk[r].ncoll++] = (struct coll_rec){
					s, k, 0, COLL_ALL_REDUCE, 2, 6 << 20, a[1] - a[0], end_us
				};
			}
		}
	}
	struct collective *c;
	size_t n;
	collectives_of(&m, &c, &n);
	CHECK(n == 1);
	if (n == 1) {
		CHECK(c[0].instances == 6 && c[0].steps == 2 && c[0].concurrent == 6);
		CHECK_NEAR(c[0].ms_per_step, 5.5, 1e-9);
		CHECK_NEAR(c[0].ms_per_step_summed, 6.75, 1e-9);
		/* each step's time is the ranks' mean union too */
		CHECK(c[0].nkept[COLL_KEPT_STEP_MS] == 2);
		for (size_t i = 0; i < c[0].nkept[COLL_KEPT_STEP_MS]; i++)
			CHECK_NEAR(c[0].kept[COLL_KEPT_STEP_MS][i], 5.5, 1e-9);
	}
	collectives_free(c, n);
	/* apart, one after another: nothing concurrent, the union is the sum */
	for (int r = 0; r < 2; r++)
		for (size_t i = 0; i < rk[r].ncoll; i++)
			rk[r].coll[i].end_us += (double)rk[r].coll[i].seq * 1e3 * 10;
	collectives_of(&m, &c, &n);
	CHECK(n == 1 && c[0].concurrent == 0 && c[0].ms_per_step == c[0].ms_per_step_summed);
	CHECK_NEAR(c[0].ms_per_step, 6.75, 1e-9);
	collectives_free(c, n);
	for (int r = 0; r < 2; r++)
		rank_metrics_free(&rk[r]);
}

/* Telemetry without collective records: the trainer's all-reduce of each
 * active step (bytes known); warm-up steps are not counted. */
static void trainer_stand_in(void)
{
	struct rank_metrics rk[2] = { 0 };
	struct scenario_metrics m = { rk, 2 };
	for (int r = 0; r < 2; r++) {
		rk[r].format = METRICS_TRAINER;
		for (int s = 0; s < 3; s++) {
			struct step_rec st = { .step = s,
					       .active = s > 0,
					       .step_ms = 10,
					       .comm_ms = 2 + r,
					       .bytes = 4e6 };
			metrics_add_step(&rk[r], &st);
		}
	}
	struct collective *c;
	size_t n;
	collectives_of(&m, &c, &n);
	CHECK(n == 1 && c[0].op == COLL_ALL_REDUCE && c[0].steps == 2 && c[0].bytes == 4e6);
	CHECK(n == 1 && c[0].latency_med == 2 && c[0].wait_med == 0.5 && c[0].busbw_gbps == 2);
	collectives_free(c, n);
	rk[1].n = 0; /* one rank: no collectives to match */
	m.n = 1;
	collectives_of(&m, &c, &n);
	CHECK(n == 0 && !c);
	for (int r = 0; r < 2; r++)
		rank_metrics_free(&rk[r]);
}

/* A probe's result read back; the bus bandwidth between its sizes is
 * log-linear, its ends' beyond them. */
static void fabric_probe_points(void)
{
	char dir[] = "/tmp/test_fabric.XXXXXX", path[128];
	CHECK(mkdtemp(dir) != NULL);
	struct ana_probe p = { .job_dir = dir };
	CHECK(fabric_load(&p) == -1 && strstr(p.problem, "metrics/fabric.json"));
	snprintf(path, sizeof path, "%s/metrics", dir);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof path, "%s/metrics/fabric.json", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fputs("{\"sizes\": [{\"bytes\": 4096, \"busbw_gbps\": 1, \"latency_ms\": {\"median\": 0.5}},\n"
	      " {\"bytes\": 16384, \"busbw_gbps\": 3}, {\"bytes\": 16384, \"busbw_gbps\": 9}, {\"bytes\": 0}]}\n",
	      f);
	fclose(f);
	CHECK(fabric_load(&p) == 0 && p.n == 2 && p.pts[0].latency_ms == 0.5);
	CHECK_NEAR(fabric_busbw_at(&p, 8192), 2.0, 1e-12);
	CHECK_NEAR(fabric_busbw_at(&p, 100), 1.0, 1e-12);
	CHECK_NEAR(fabric_busbw_at(&p, 1e9), 3.0, 1e-12);
	p.backend = (char *)"gloo";
	p.nodes = 2;
	CHECK(fabric_for(&p, 1, "gloo", 2) == &p && !fabric_for(&p, 1, "nccl", 2) &&
	      !fabric_for(&p, 1, "gloo", 1));
	free(p.pts);
	unlink(path);
	snprintf(path, sizeof path, "%s/metrics", dir);
	rmdir(path);
	rmdir(dir);
}

/* 4 ranks, 8 steps of 100 ms; rank 0 arrives last (its all-reduce 1 ms, the
 * others' 30 ms) in `lasts` of them, rank 1 in the rest. */
static size_t stragglers_when_last(int lasts, struct straggler *g)
{
	struct rank_metrics rk[4] = { 0 };
	struct scenario_metrics m = { rk, 4 };
	for (int r = 0; r < 4; r++) {
		rk[r].rank = r;
		for (int s = 0; s < 8; s++) {
			int last = s < lasts ? 0 : 1;
			struct step_rec st = { .step = s,
					       .active = 1,
					       .step_ms = 100,
					       .forward_ms = r == last ? 60 : 31,
					       .comm_ms = r == last ? 1 : 30 };
			metrics_add_step(&rk[r], &st);
		}
	}
	size_t n;
	char node[8];
	straggler_find(&m, 100, g, &n, node, sizeof node, NULL);
	for (int r = 0; r < 4; r++)
		rank_metrics_free(&rk[r]);
	return n;
}

/* Rank 1 of two slow in every one of `steps` steps: what the test could tell (test) and how
 * many it names. */
static size_t two_ranks_one_slow(int steps, struct straggler_test *test)
{
	struct rank_metrics rk[2] = { 0 };
	struct scenario_metrics m = { rk, 2 };
	for (int r = 0; r < 2; r++) {
		rk[r].rank = r;
		for (int s = 0; s < steps; s++) {
			struct step_rec st = { .step = s,
					       .active = 1,
					       .step_ms = 100,
					       .forward_ms = r == 1 ? 60 : 31,
					       .comm_ms = r == 1 ? 1 : 30 };
			metrics_add_step(&rk[r], &st);
		}
	}
	struct straggler g[STRAGGLER_MAX];
	size_t n;
	char node[8];
	straggler_find(&m, 100, g, &n, node, sizeof node, test);
	for (int r = 0; r < 2; r++)
		rank_metrics_free(&rk[r]);
	return n;
}

/* Two ranks and 6 steps: even a rank last in all of them is within chance (p = 2 / 2^6 =
 * 0.031 over the two ranks tested), so the test cannot name one and says so; with 7 it still
 * cannot (2 / 2^7 = 0.016), with 8 (0.0078) it names rank 1. */
static void straggler_test_says_what_it_can_tell(void)
{
	struct straggler_test t;
	CHECK(two_ranks_one_slow(6, &t) == 0 && t.trials == 6 && fabs(t.least_p - 0.03125) < 1e-12);
	CHECK(two_ranks_one_slow(7, &t) == 0 && t.trials == 7 && t.least_p > STRAGGLER_CHANCE);
	CHECK(two_ranks_one_slow(8, &t) == 1 && t.trials == 8 &&
	      fabs(t.least_p - 0.0078125) < 1e-12);
}

/* Arriving last in most steps is not enough when chance could do it: 5 of
 * 8 (p = 0.027 for one rank in four) names no one, 8 of 8 names rank 0. */
static void straggler_beyond_chance(void)
{
	struct straggler g[STRAGGLER_MAX];
	CHECK(stragglers_when_last(5, g) == 0);
	CHECK(stragglers_when_last(8, g) == 1 && g[0].rank == 0 && g[0].arrived_last_pct == 100);
	CHECK(!g[0].together && straggler_group_len(g, 1, 0) == 1);
	/* 3 x 29 ms waited, per rank that waited (the 3 others), of a 100 ms step */
	CHECK_NEAR(g[0].impact_pct, 29.0, 1e-9);
	CHECK(g[0].cause_kind == STRAGGLER_COMPUTE);
	CHECK_STR(evidence_cause_words(g[0].cause_kind), "compute");
	/* one of four last per step: 0.25^8, times the 4 ranks tested */
	CHECK_NEAR(g[0].chance_p, 4 * pow(0.25, 8), 1e-15);
	CHECK(!g[0].by_node && g[0].rank_p == g[0].chance_p);
}

/* The stragglers of n ranks (at most 8) over `steps` steps of 100 ms, each rank's all-reduce
 * comm(r, s) ms and its forward 90 ms less that, on the hosts one letter a rank names ("":
 * none): how many into g, the slow node into node. */
static size_t stragglers_by(int n, int steps, double (*comm)(int r, int s), const char *hosts,
			    struct straggler *g, char *node, size_t len)
{
	struct rank_metrics rk[8] = { 0 };
	struct scenario_metrics m = { rk, (size_t)n };
	for (int r = 0; r < n; r++) {
		rk[r].rank = r;
		if (hosts[0])
			snprintf(rk[r].host, sizeof rk[r].host, "%c", hosts[r]);
		for (int s = 0; s < steps; s++) {
			double c = comm(r, s);
			struct step_rec st = { .step = s, .active = 1, .step_ms = 100,
					       .forward_ms = 90 - c, .comm_ms = c };
			metrics_add_step(&rk[r], &st);
		}
	}
	size_t k;
	straggler_find(&m, 100, g, &k, node, len, NULL);
	for (int r = 0; r < n; r++)
		rank_metrics_free(&rk[r]);
	return k;
}

static double rank7_then_4(int r, int s)
{
	return r == 7 ? 1 : r == 4 && s < 12 ? 2 : 30;
}

/* 8 ranks, 16 steps of 100 ms: rank 7's all-reduce 1 ms in every step, rank 4's 2 ms in the
 * first 12 (within a quarter of the spread of the shortest: last with rank 7), 30 ms as the
 * others' in the rest. Two stragglers, not together (their steps differ): rank 7 first (the
 * larger impact), then rank 4, whose 12 last arrivals were all rank 7's too. */
static void straggler_shares_lasts(void)
{
	struct straggler g[STRAGGLER_MAX];
	char node[8];
	size_t n = stragglers_by(8, 16, rank7_then_4, "", g, node, sizeof node);
	CHECK(n == 2 && g[0].rank == 7 && g[1].rank == 4 && !g[1].together);
	CHECK(node[0] == '\0'); /* (no hosts named) */
	CHECK(g[0].shared_last == 0 && g[0].last_n == 16);
	CHECK(g[1].shares_with == 7 && g[1].shared_last == 12 && g[1].last_n == 12);
}

static double ranks67_and_3(int r, int s)
{
	return r >= 6 ? 1 : r == 3 && s < 10 ? 2 : 30;
}

/* 8 ranks, 16 steps: ranks 6 and 7 last in every one (their all-reduce 1 ms), rank 3 with
 * them in the first 10 (2 ms; 30 ms as the others' after): named together, 6 and 7; rank 3
 * not (10 of 16 where a third of the ranks are last per step: p = 0.17 over 8 ranks), but
 * said to have arrived last with them in 10 of their 16. */
static void straggler_unnamed_companion(void)
{
	struct straggler g[STRAGGLER_MAX];
	char node[8];
	size_t n = stragglers_by(8, 16, ranks67_and_3, "", g, node, sizeof node);
	CHECK(n == 2 && straggler_group_len(g, n, 0) == 2);
	CHECK(g[0].also_rank == 3 && g[0].also_last == 10 && g[0].last_n == 16);
}

static double rank0_early(int r, int s)
{
	(void)s;
	return r == 0 ? 15 : 1;
}

/* 4 ranks on nodes a (0, 1) and b (2, 3), 12 steps: rank 0 arrives early (its all-reduce
 * 15 ms, the others' 1 ms), so ranks 1, 2 and 3 arrive last together in every step. Node b's
 * ranks are all among the last, but beside rank 1 of node a: rank 0 is early, no node is
 * slow, and no rank alone is last beyond chance (3 of 4 last per step): none is named. */
static void straggler_early_rank_no_node(void)
{
	struct straggler g[STRAGGLER_MAX];
	char node[8];
	CHECK(stragglers_by(4, 12, rank0_early, "aabb", g, node, sizeof node) == 0);
	CHECK(node[0] == '\0');
}

static double ranks234_late(int r, int s)
{
	(void)s;
	return r >= 2 && r <= 4 ? 1 : 30;
}

/* 6 ranks on nodes a (0, 1), b (2, 3) and c (4, 5), 12 steps: ranks 2, 3 and 4 arrive last
 * together in every step (their all-reduce 1 ms, the others' 30). Three stragglers, one
 * group; every rank of node b is one, but so is rank 4 of node c: no node is the slow one. */
static void straggler_no_slow_node_beside_another(void)
{
	struct straggler g[STRAGGLER_MAX];
	char node[8] = "x";
	size_t n = stragglers_by(6, 12, ranks234_late, "aabbcc", g, node, sizeof node);
	CHECK(n == 3 && straggler_group_len(g, n, 0) == 3 && node[0] == '\0');
}

/* Both ranks of node b compute 40 ms more in the first `slow` of 8 steps,
 * and their transfers differ (rank 3's all-reduce 25 ms, rank 2's 5 ms, the
 * others' 60-62 ms; in the other steps ranks 0 and 1 arrive last): more than
 * a quarter of the spread apart, but on the same side of the widest gap, so
 * both arrived last. */
static size_t slow_node_in(int slow, struct straggler *g, char *node, size_t len)
{
	struct rank_metrics rk[4] = { 0 };
	struct scenario_metrics m = { rk, 4 };
	const double comm[4] = { 60, 62, 5, 25 };
	for (int r = 0; r < 4; r++) {
		rk[r].rank = r;
		snprintf(rk[r].host, sizeof rk[r].host, "%s", r < 2 ? "a" : "b");
		for (int s = 0; s < 8; s++) {
			int b_slow = s < slow, mine_slow = (r >= 2) == b_slow;
			struct step_rec st = { .step = s,
					       .active = 1,
					       .step_ms = 100,
					       .forward_ms = mine_slow ? 70 : 30,
					       .comm_ms = comm[b_slow ? r : 3 - r] };
			metrics_add_step(&rk[r], &st);
		}
	}
	size_t n;
	straggler_find(&m, 100, g, &n, node, len, NULL);
	for (int r = 0; r < 4; r++)
		rank_metrics_free(&rk[r]);
	return n;
}

/* In all 8 steps: each of the two is last as often as chance could make it
 * (two of four ranks last per step: 0.5^8 = 0.004, over 0.01 / 4), but the
 * two together are not (1/6 per step: 6e-7): node b is slow. In 4 of 8, no. */
static void straggler_slow_node_beyond_chance(void)
{
	struct straggler g[STRAGGLER_MAX];
	char node[8];
	CHECK(slow_node_in(8, g, node, sizeof node) == 2);
	CHECK(g[0].arrived_last_pct == 100 && g[1].arrived_last_pct == 100);
	CHECK((g[0].rank == 2 && g[1].rank == 3) || (g[0].rank == 3 && g[1].rank == 2));
	CHECK_STR(node, "b");
	/* rank 0 waited 55 ms, rank 1 57 ms: 112 / 2 per rank that waited (ranks 2 and 3 arrived
	 * last together: what a rank that waited saves, not spread over all three others) */
	CHECK_NEAR(g[0].impact_pct, 112.0 / 2, 1e-9);
	CHECK(g[0].cause_kind == STRAGGLER_COMPUTE);
	/* the node's: one of two nodes by chance, 0.5^8, times the 2 nodes (the
	 * ranks' own: 0.5^8 times 4) */
	CHECK_NEAR(g[0].chance_p, 2 * pow(0.5, 8), 1e-15);
	CHECK_NEAR(g[1].chance_p, 2 * pow(0.5, 8), 1e-15);
	CHECK(g[0].by_node && g[1].by_node);
	CHECK_NEAR(g[0].rank_p, 4 * pow(0.5, 8), 1e-15);
	/* last in the very same steps: one group, one waiting (said once, not added) */
	CHECK(!g[0].together && g[1].together && g[0].impact_pct == g[1].impact_pct);
	CHECK(straggler_group_len(g, 2, 0) == 2 && straggler_group_len(g, 2, 1) == 1);
	struct strbuf sb = STRBUF_INIT;
	evidence_straggler_names(&sb, g, 2);
	CHECK_STR(sb.buf, "ranks 2 and 3 on b");
	strbuf_free(&sb);
	CHECK(slow_node_in(4, g, node, sizeof node) == 0 && !node[0]);
}

/* A trace that lost one rank's collective of a step (PyTorch's profiler
 * stopped before its gloo worker ended the range): rank 1 then seems to have
 * arrived last without waiting in step 19. That step is not judged: rank 3,
 * last in all 20, is judged on the 19 steps every rank has on record (chance
 * 0.25^19 times 4; counting step 19 would give 21 last arrivals in 20 steps). */
static void straggler_step_off_record(void)
{
	struct rank_metrics rk[4] = { 0 };
	struct scenario_metrics m = { rk, 4 };
	for (int r = 0; r < 4; r++) {
		rk[r].rank = r;
		rk[r].coll = xcalloc(20, sizeof *rk[r].coll);
		for (int s = 0; s < 20; s++) {
			int lost = r == 1 && s == 19;
			struct step_rec st = { .step = s,
					       .active = 1,
					       .step_ms = 100,
					       .forward_ms = r == 3 ? 70 : 30,
					       .comm_ms = r == 3 ? 1 : lost ? 0.5 : 40 };
			metrics_add_step(&rk[r], &st);
			if (!lost)
				rk[r].coll[rk[r].ncoll++] =
					(struct coll_rec){ s, 0,   0,         COLL_ALL_REDUCE,
							   4, 1e6, st.comm_ms, 0 };
		}
	}
	struct straggler g[STRAGGLER_MAX];
	size_t n;
	char node[8];
	straggler_find(&m, 100, g, &n, node, sizeof node, NULL);
	CHECK(n == 1 && g[0].rank == 3 && g[0].arrived_last_pct == 100);
	CHECK_NEAR(g[0].chance_p, 4 * pow(0.25, 19), 1e-18);
	for (int r = 0; r < 4; r++)
		rank_metrics_free(&rk[r]);
}

/* Runs of 2 nodes x 2 ranks, 20 steps, all-reduces of 30-50 ms (uniform,
 * a fixed generator); node 1's ranks arrive `late_ms` later in every step.
 * How many of `runs` name someone, and how many name node 1 slow. */
static int sim_named(int runs, double late_ms, int *slow)
{
	struct straggler g[STRAGGLER_MAX];
	unsigned long long x = 88172645463325252ULL;
	int named = 0;
	*slow = 0;
	for (int t = 0; t < runs; t++) {
		struct rank_metrics rk[4] = { 0 };
		struct scenario_metrics m = { rk, 4 };
		for (int r = 0; r < 4; r++) {
			rk[r].rank = r;
			snprintf(rk[r].host, sizeof rk[r].host, "n%d", r / 2);
			for (int s = 0; s < 20; s++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				double u = (double)(x >> 11) / 9007199254740992.0;
				struct step_rec st = { .step = s,
						       .active = 1,
						       .step_ms = 100,
						       .forward_ms = 30,
						       .comm_ms = 30 + 20 * u -
							       (r / 2 ? late_ms : 0) };
				metrics_add_step(&rk[r], &st);
			}
		}
		size_t n;
		char node[8];
		straggler_find(&m, 100, g, &n, node, sizeof node, NULL);
		named += n > 0;
		*slow += !strcmp(node, "n1");
		for (int r = 0; r < 4; r++)
			rank_metrics_free(&rk[r]);
	}
	return named;
}

/* Even runs name someone in at most 1 % of runs; a node 20 ms late in every
 * step (as long as the noise) is named slow in most. */
static void straggler_chance_and_power(void)
{
	int slow;
	int named = sim_named(400, 0, &slow);
	printf("    even: %d of 400 runs name someone, %d a slow node\n", named, slow);
	CHECK(named <= 4 && slow <= 4);
	named = sim_named(400, 20, &slow);
	printf("    node 1 20 ms late: %d of 400 runs name someone, %d node 1\n", named, slow);
	CHECK(named >= 390 && slow >= 240);
}

/* A step's time (steptime.h): the period between consecutive steps' last blocking
 * collectives, each rank on its own clock (rank 1's is 1 ms ahead), the median over ranks;
 * a broadcast ends no step; the first step, and one after a gap in the step numbers (a
 * profiler that stopped between cycles), are their slowest rank's own step; one rank alone
 * has no period. */
static void step_period_across_ranks(void)
{
	struct step_rec s0[4] = { { .step = 5, .active = 1, .step_ms = 10, .start_us = 0 },
				  { .step = 6, .active = 1, .step_ms = 12, .start_us = 10000 },
				  { .step = 7, .active = 1, .step_ms = 9, .start_us = 22000 },
				  { .step = 9, .active = 1, .step_ms = 10, .start_us = 40000 } };
	struct step_rec s1[4] = { { .step = 5, .active = 1, .step_ms = 11, .start_us = 1500 },
				  { .step = 6, .active = 1, .step_ms = 10, .start_us = 12500 },
				  { .step = 7, .active = 1, .step_ms = 12, .start_us = 22500 },
				  { .step = 9, .active = 1, .step_ms = 9, .start_us = 42000 } };
	struct coll_rec c0[5] = { { .step = 0, .op = COLL_ALL_REDUCE, .ms = 1, .end_us = 8000 },
				  { .step = 1, .op = COLL_ALL_REDUCE, .ms = 1, .end_us = 19000 },
				  { .step = 1, .op = COLL_BROADCAST, .ms = 1, .end_us = 21000 },
				  { .step = 2, .op = COLL_ALL_REDUCE, .ms = 1, .end_us = 29000 },
				  { .step = 3, .op = COLL_ALL_REDUCE, .ms = 1, .end_us = 48000 } };
	struct coll_rec c1[4] = { { .step = 0, .op = COLL_ALL_REDUCE, .ms = 1, .end_us = 9000 },
				  { .step = 1, .op = COLL_ALL_REDUCE, .ms = 1, .end_us = 20200 },
				  { .step = 2, .op = COLL_ALL_REDUCE, .ms = 1, .end_us = 30000 },
				  { .step = 3, .op = COLL_ALL_REDUCE, .ms = 1, .end_us = 49000 } };
	struct rank_metrics r[2] = { { .rank = 0, .steps = s0, .n = 4, .coll = c0, .ncoll = 5 },
				     { .rank = 1, .steps = s1, .n = 4, .coll = c1, .ncoll = 4 } };
	struct scenario_metrics m = { r, 2 };
	double t[4];
	size_t n, periods;
	steptime_list(&m, t, &n, &periods);
	CHECK(n == 4 && periods == 2);
	CHECK_NEAR(t[0], 11, 1e-9);   /* no step before it: the slowest rank's */
	CHECK_NEAR(t[1], 11.1, 1e-9); /* 11.0 and 11.2: the broadcast's later end is no step's */
	CHECK_NEAR(t[2], 9.9, 1e-9);  /* 10.0 and 9.8 */
	CHECK_NEAR(t[3], 10, 1e-9);   /* steps 7 and 9 do not follow one another */
	m.n = 1;
	steptime_list(&m, t, &n, &periods);
	CHECK(n == 4 && periods == 0 && t[0] == 10 && t[1] == 12 && t[2] == 9 && t[3] == 10);
	m.n = 2;
	s0[2].active = 0;
	steptime_list(&m, t, &n, &periods);
	CHECK(n == 3 && periods == 1);
	CHECK_NEAR(t[0], 11, 1e-9);
	CHECK_NEAR(t[1], 11.1, 1e-9);
	CHECK_NEAR(t[2], 10, 1e-9);
}

/* The reference trainer's telemetry has no collectives but records when each step's last
 * all-reduce ended (coll_end_us, Unix µs): its step is then the same period. Two coupled
 * ranks whose step ranges differ (rank 1's optimizer slower in step 1, faster in step 2): the
 * slowest rank per step says 14 and 13 ms; the job advanced 11 and 10 ms a step. */
static void step_period_from_telemetry(void)
{
	struct step_rec s0[3] = {
		{ .step = 3, .active = 1, .step_ms = 10, .coll_end_us = 1e6 },
		{ .step = 4, .active = 1, .step_ms = 11, .coll_end_us = 1.011e6 },
		{ .step = 5, .active = 1, .step_ms = 10, .coll_end_us = 1.021e6 }
	};
	struct step_rec s1[3] = {
		{ .step = 3, .active = 1, .step_ms = 10, .coll_end_us = 1e6 },
		{ .step = 4, .active = 1, .step_ms = 14, .coll_end_us = 1.011e6 },
		{ .step = 5, .active = 1, .step_ms = 13, .coll_end_us = 1.021e6 }
	};
	struct rank_metrics r[2] = { { .rank = 0, .steps = s0, .n = 3 },
				     { .rank = 1, .steps = s1, .n = 3 } };
	struct scenario_metrics m = { r, 2 };
	double t[3];
	size_t n, periods;
	steptime_list(&m, t, &n, &periods);
	CHECK(n == 3 && periods == 2);
	CHECK_NEAR(t[0], 10, 1e-9); /* no step before it: the slowest rank's */
	CHECK_NEAR(t[1], 11, 1e-9);
	CHECK_NEAR(t[2], 10, 1e-9);
	s1[1].coll_end_us = s0[1].coll_end_us = 0; /* unknown: that step and the next are own */
	steptime_list(&m, t, &n, &periods);
	CHECK(n == 3 && periods == 0 && t[1] == 14 && t[2] == 13);
}

/* A telemetry line's coll_end_us counts only inside its step (1 ms either side); and a rank
 * that lost a line (malformed, skipped) is matched to the others by step number, not by
 * position. */
static void step_period_by_step_number(void)
{
	struct rank_metrics r[2] = { { .rank = 0 }, { .rank = 1 } };
	static const char *const lines[2][3] = {
		{ "{\"type\": \"step\", \"step\": 3, \"phase\": \"active\", \"step_ms\": 10, \"start_us\": 990000, \"coll_end_us\": 1000000}",
		  "{\"type\": \"step\", \"step\": 4, \"phase\": \"active\", \"step_ms\": 11, \"start_us\": 1000000, \"coll_end_us\": 1011000}",
		  "{\"type\": \"step\", \"step\": 5, \"phase\": \"active\", \"step_ms\": 10, \"start_us\": 1011000, \"coll_end_us\": 1021000}" },
		{ "{\"type\": \"step\", \"step\": 3, \"phase\": \"active\", \"step_ms\": 10, \"start_us\": 990000, \"coll_end_us\": 1}",
		  "{\"type\": \"step\", \"step\": 4, \"phase\": \"active\", \"step_ms\": 14, \"start_us\": 1000000, \"coll_end_us\": 1011000}",
		  "{\"type\": \"step\", \"step\": 5, \"phase\": \"active\", \"step_ms\": 13, \"start_us\": 1011000, \"coll_end_us\": 1020000}" }
	};
	for (int k = 0; k < 2; k++)
		for (int j = 0; j < 3; j++)
			metrics_parse_line(&r[k], lines[k][j], strlen(lines[k][j]));
	CHECK(r[1].n == 3 && r[1].steps[0].coll_end_us == 0); /* 1 µs: not inside step 3 */
	CHECK(r[0].steps[0].coll_end_us == 1e6);
	struct scenario_metrics m = { r, 2 };
	double t[3];
	size_t n, periods;
	steptime_list(&m, t, &n, &periods);
	CHECK(n == 3 && periods == 2);
	CHECK_NEAR(t[1], 11, 1e-9); /* rank 0's 11 alone: rank 1's step 3 has no end */
	CHECK_NEAR(t[2], 9.5, 1e-9); /* 10 and 9 */
	/* rank 1 without step 4 (its line lost): step 5 is not matched to rank 1's third line */
	r[1].steps[1] = r[1].steps[2];
	r[1].n = 2;
	steptime_list(&m, t, &n, &periods);
	CHECK(n == 3 && periods == 2);
	CHECK_NEAR(t[1], 11, 1e-9);
	CHECK_NEAR(t[2], 10, 1e-9); /* rank 0's alone: rank 1 has no step 4 before its 5 */
	free(r[0].steps);
	free(r[1].steps);
}

int main(void)
{
	RUN(names_of_collectives);
	RUN(readers_keep_collective_args);
	RUN(instances_across_ranks);
	RUN(concurrent_instances_count_once);
	RUN(trainer_stand_in);
	RUN(step_period_across_ranks);
	RUN(step_period_from_telemetry);
	RUN(step_period_by_step_number);
	RUN(fabric_probe_points);
	RUN(straggler_beyond_chance);
	RUN(straggler_test_says_what_it_can_tell);
	RUN(straggler_shares_lasts);
	RUN(straggler_early_rank_no_node);
	RUN(straggler_unnamed_companion);
	RUN(straggler_no_slow_node_beside_another);
	RUN(straggler_slow_node_beyond_chance);
	RUN(straggler_chance_and_power);
	RUN(straggler_step_off_record);
	HARNESS_END();
}
