/* Unit tests of the NCCL Inspector reader and model on tests/fixtures/nccl_inspector/, four
 * dumps written from the plugin's documented format (its README and inspector.cc):
 *
 *   process     node  pid  rank  comm A rank  comm B rank  dump
 *   n1-pid101   n1    101  0     0            3            compact
 *   n1-pid102   n1    102  1     1            2            pretty-printed (README), verbose
 *   n2-pid201   n2    201  2     2            1            compact, verbose, clock +7300 us
 *   n2-pid202   n2    202  3     3            0            compact, last object cut short
 *
 * comm A (0x7f8c496ae9f661): AllReduce, 4 MiB (4194304 B), coll_sn 1..8, ending every
 * 20 ms; rank 1 has no sn 4 (sampled out: it dumped 3, then 5); rank 3's sn 8 is the object
 * cut short. Execution times (us): rank 0 5000, rank 1 5100, rank 2 4900, rank 3 2000: rank 3
 * arrives last at each (its time is the transfer alone), the others wait 3.0, 3.1, 2.9 ms.
 * comm B (0xe62dedaa97644a): AllGather, 1 MiB per rank, coll_sn 10..13; times 2600, 2800,
 * 2400, 1600 (waits 1.0, 1.2, 0.8 ms). Rank 2's record of B sn 12 gives a busbw of algbw x
 * 7/8 (as for 8 ranks): the one bandwidth mismatch.
 *
 * By hand:
 *   objects read: 8 + 4 (rank 0) + 7 + 4 (rank 1) + 8 + 4 (rank 2) + 7 + 4 (rank 3) = 46;
 *   malformed: 1 (the cut object); partial: A sn 4 and sn 8 = 2; instances: A 1,2,3,5,6,7
 *   and B 10..13 = 10; verbose records: 11 (rank 1) + 12 (rank 2) = 23.
 *   all_reduce row: bytes 4194304 (size class "4 MiB - 16 MiB"), 6 instances, latency
 *   2.0 ms (median and p95); waits 0 x6, 2.9 x6, 3.0 x6, 3.1 x6: median (pos 11.5 of 24)
 *   (2.9 + 3.0) / 2 = 2.95, p95 (pos 21.85) 3.1; algbw 4194304 / 2 ms = 2.097152 GB/s,
 *   busbw x 2(4-1)/4 = 3.145728; per step over 10 steps: 0.6 instances, (5.0 + 5.1 + 4.9 +
 *   2.0) / 4 = 4.25 ms each, 25.5 ms in all: 2.55 ms per step.
 *   all_gather row: bytes 1048576 x 4 = 4194304, 4 instances, latency 1.6 ms; waits 0 x4,
 *   0.8 x4, 1.0 x4, 1.2 x4: median (pos 7.5) 0.9, p95 (pos 14.25) 1.2; algbw 4194304 /
 *   1.6 ms = 2.62144, busbw x 3/4 = 1.96608; per step 0.4, 9.4 ms / 10 = 0.94 ms.
 *   all_reduce costs more per step: it comes first.
 *   bandwidths checked: 10 instances x 4 ranks = 40; 1 mismatch: all_gather sn 12, rank 2,
 *   file algbw 1.747627 (4194304 / 2.4 ms), file busbw 1.529173, recomputed 1.310720.
 *   stragglers over the 10 instances of the two communicators that span the 4 processes:
 *   rank 3 last at each (100 %); by chance a rank is last with share max(10 / (10 x 4),
 *   1/4) = 1/4: p = 0.25^10 x 4 = 3.8e-06; its node n2's other rank is never last, so no
 *   node test; waiting it imposed per rank that waited (the 3 others): 6 x (3.0 + 3.1 +
 *   2.9) / 3 + 4 x (1.0 + 1.2 + 0.8) / 3 = 18 + 4 = 22 ms over 10 steps = 2.2 ms a step,
 *   11 % of a 20 ms median
 *   step; cause unknown (the Inspector knows no phases).
 *   stop times: 10 instances x 2 verbose ranks = 20 ends; each instance's rank 2 (n2) ends
 *   7300 us after rank 1 (n1): the shifted clock, a 7.3 ms offset.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "analyzers/inspector.h"
#include "analyzers/read/nccl_inspector.h"
#include "util/words.h"

#include <math.h>

#define DIR "tests/fixtures/nccl_inspector"

static void load(struct insp_data *d)
{
	struct argv files;
	CHECK(insp_list_dir(DIR, &files) == 0 && files.n == 4);
	CHECK(inspector_load(files.v, files.n, NULL, d) == 0);
	argv_free(&files);
}

static void test_counts(void)
{
	struct insp_data d;
	struct insp_summary s;
	load(&d);
	inspector_done(&d, &s);
	CHECK(s.found && s.st.files == 4 && s.st.unreadable == 0);
	CHECK(s.st.objects == 46);
	CHECK(s.st.malformed == 1);
	CHECK(s.st.partial == 2);
	CHECK(s.st.instances == 10);
	CHECK(s.st.duplicates == 0);
	CHECK(s.st.verbose == 23);
	CHECK(s.st.timing[INSP_KERNEL_GPU] == 46);
	CHECK(s.procs == 4 && s.comms == 2);
	for (size_t p = 0; p < s.procs; p++) /* ranks from comm A (the larger by instances) */
		CHECK(s.proc_rank[p] == (int)p);
	CHECK_STR(s.proc_node[0], "n1");
	CHECK_STR(s.proc_node[3], "n2");
	inspector_summary_free(&s);
}

static void test_table(void)
{
	struct insp_data d;
	struct insp_summary s;
	struct collective *c;
	size_t n;
	load(&d);
	inspector_rows(&d, 10, &c, &n);
	inspector_done(&d, &s);
	CHECK(n == 2);
	CHECK(c[0].op == COLL_ALL_REDUCE && c[1].op == COLL_ALL_GATHER);
	CHECK(c[0].size_class == 7 && c[1].size_class == 7);
	CHECK_NEAR(c[0].bytes, 4194304, 0);
	CHECK(c[0].instances == 6 && c[1].instances == 4);
	CHECK_NEAR(c[0].latency_med, 2.0, 1e-9);
	CHECK_NEAR(c[0].latency_p95, 2.0, 1e-9);
	CHECK_NEAR(c[0].wait_med, 2.95, 1e-9);
	CHECK_NEAR(c[0].wait_p95, 3.1, 1e-9);
	CHECK_NEAR(c[0].algbw_gbps, 2.097152, 1e-9);
	CHECK_NEAR(c[0].busbw_gbps, 3.145728, 1e-9);
	CHECK_NEAR(c[0].count_per_step, 0.6, 1e-12);
	CHECK_NEAR(c[0].ms_per_step, 2.55, 1e-9);
	CHECK_NEAR(c[1].bytes, 4194304, 0);
	CHECK_NEAR(c[1].latency_med, 1.6, 1e-9);
	CHECK_NEAR(c[1].wait_med, 0.9, 1e-9);
	CHECK_NEAR(c[1].wait_p95, 1.2, 1e-9);
	CHECK_NEAR(c[1].algbw_gbps, 2.62144, 1e-9);
	CHECK_NEAR(c[1].busbw_gbps, 1.96608, 1e-9);
	CHECK_NEAR(c[1].count_per_step, 0.4, 1e-12);
	CHECK_NEAR(c[1].ms_per_step, 0.94, 1e-9);
	/* the dumps' instances have no step: no per-step values; their waits and busbw kept */
	CHECK(c[0].nkept[COLL_KEPT_STEP_MS] == 0 && c[0].nkept[COLL_KEPT_BUSBW] == 6 &&
	      c[0].nkept[COLL_KEPT_WAIT_MS] > 0);
	CHECK(s.checked == 40 && s.mismatches == 1);
	CHECK(s.shown[0].op == COLL_ALL_GATHER && s.shown[0].sn == 12 && s.shown[0].rank == 2);
	CHECK_NEAR(s.shown[0].file_algbw, 1.747627, 1e-9);
	CHECK_NEAR(s.shown[0].file_busbw, 1.529173, 1e-9);
	CHECK_NEAR(s.shown[0].busbw, 1.31072, 1e-6);
	collectives_free(c, n);
	inspector_summary_free(&s);
}

static void test_straggler(void)
{
	struct insp_data d;
	struct insp_summary s;
	struct straggler g[STRAGGLER_MAX];
	size_t n;
	char node[128];
	load(&d);
	inspector_stragglers(&d, 10, 20.0, g, &n, node, sizeof node, NULL);
	inspector_done(&d, &s);
	CHECK(s.judged == 10);
	CHECK(n == 1);
	CHECK(g[0].rank == 3);
	CHECK_STR(g[0].node, "n2");
	CHECK_NEAR(g[0].arrived_last_pct, 100, 1e-9);
	CHECK_NEAR(g[0].impact_pct, 11.0, 1e-9);
	CHECK_NEAR(g[0].chance_p, pow(0.25, 10) * 4, 1e-15);
	CHECK(g[0].cause_kind == STRAGGLER_UNKNOWN);
	CHECK_STR(node, "");
	inspector_summary_free(&s);
}

static void test_stop_times(void)
{
	struct insp_data d;
	struct insp_summary s;
	load(&d);
	inspector_done(&d, &s);
	CHECK(s.n_ends == 20);
	for (size_t i = 0; i + 1 < s.n_ends; i += 2) {
		const struct insp_end *a = &s.ends[i], *b = &s.ends[i + 1];
		CHECK(a->instance == b->instance && a->sn == b->sn);
		int n1 = !strcmp(s.proc_node[a->proc], "n1") ? 0 : 1;
		const struct insp_end *e1 = n1 == 0 ? a : b, *e2 = n1 == 0 ? b : a;
		CHECK(s.proc_rank[e1->proc] == 1 && s.proc_rank[e2->proc] == 2);
		CHECK_NEAR(e2->stop_us - e1->stop_us, 7300, 0);
	}
	inspector_summary_free(&s);
}

/* Objects cut short, junk between them, a list around them, fields missing. */
static void test_malformed(void)
{
	static const char *const text =
		"[{\"header\":{\"id\":\"0x1\",\"rank\":0,\"n_ranks\":2},\"metadata\":{},\"coll_perf\":{\"coll\":\"AllReduce\",\"coll_sn\":1,\"coll_msg_size_bytes\":8,\"coll_exec_time_us\":3}},\n"
		"{\"header\":{\"id\":\"0x1\",\"rank\":1,\"n_ranks\":2},\"metadata\":{},\"coll_p\n"
		"{\"header\":{\"id\":\"0x1\",\"rank\":1,\"n_ranks\":2},\"metadata\":{},\"coll_perf\":{\"coll\":\"AllReduce\",\"coll_sn\":1,\"coll_msg_size_bytes\":8,\"coll_exec_time_us\":2,\"coll_algobw_gbs\":\"nan\"}}]\n"
		"not json at all\n"
		"{\"header\":{\"id\":\"0x1\",\"rank\":5,\"n_ranks\":2}}\n"
		"{\"header\":{\"id\":\"0x1\",\"rank\":0,\"n_ranks\":2},\"metadata\":{},\"coll_perf\":{\"coll\":\"AllReduce\",\"coll_sn\":2,\"coll_msg_size_bytes\":8}}\n";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct insp_rec r, last = { 0 };
	size_t bad = 0;
	int line_start = 1, got = 0;
	while (insp_next_record(f, &line_start, &r, &bad))
		got++, last = r;
	fclose(f);
	/* two records; bad: the object a new one cut short, the junk line, a rank beyond
	 * n_ranks, one without coll_exec_time_us */
	CHECK(got == 2);
	CHECK(bad == 4);
	CHECK(last.rank == 1 && last.exec_us == 2 && last.algbw == -1);
}

int main(void)
{
	RUN(test_counts);
	RUN(test_table);
	RUN(test_straggler);
	RUN(test_stop_times);
	RUN(test_malformed);
	HARNESS_END();
}
