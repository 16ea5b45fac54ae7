/* Unit tests of the first-cut analyzer on telemetry it is handed: exact
 * statistics, shares, verdicts with their thresholds, and scaling.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "analyzers/accounting.h"
#include "analyzers/advice.h"
#include "analyzers/analysis.h"
#include "analyzers/write/report.h"
#include "analyzers/write/report_parts.h"
#include "analyzers/write/prediction_check_text.h"
#include "analyzers/write/data_text.h"
#include "analyzers/write/evidence.h"
#include "analyzers/write/scaling_text.h"
#include "analyzers/write/share_text.h"
#include "analyzers/read/metrics.h"
#include "analyzers/stats.h"
#include "util/fsio.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

static char dir[] = "/tmp/campaign-ana-XXXXXX";

/* The words write/ gives one of the model's records (the caller frees them). */
static char *model_limit(const struct ana_model *m)
{
	struct strbuf sb = STRBUF_INIT;
	scaling_text_limit(&sb, m);
	return strbuf_detach(&sb);
}

static char *note_of(const struct ana_scenario *s)
{
	struct strbuf sb = STRBUF_INIT;
	scaling_text_note(&sb, s);
	return strbuf_detach(&sb);
}

/* Writes <dir>/<name>/metrics/rank_<r>.jsonl with steps of the given phase
 * times (ms): 2 warm-up steps of 1000 ms that must be ignored, then active. */
static void fixture(const char *name, int ranks, long gbatch, double data, double fwd, double bwd,
		    double comm, double opt, double extra)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s/metrics", dir, name);
	fsio_mkdir_p(path, 0755);
	for (int r = 0; r < ranks; r++) {
		snprintf(path, sizeof path, "%s/%s/metrics/rank_%d.jsonl", dir, name, r);
		FILE *f = fopen(path, "w");
		fprintf(f,
			"{\"type\": \"meta\", \"rank\": %d, \"world_size\": %d, \"global_batch\": %ld}\n",
			r, ranks, gbatch);
		fprintf(f, "not json at all\n");
		for (int s = 0; s < 12; s++) {
			int active = s >= 2;
			double k = 1 + 0.01 * s + 0.1 * r; /* rank r is slower */
			double step = active ? k * (data + fwd + bwd + comm + opt + extra) : 1000;
			fprintf(f,
				"{\"type\": \"step\", \"step\": %d, \"phase\": \"%s\", \"data_wait_ms\": %g, \"forward_ms\": %g, \"backward_ms\": %g, \"comm_ms\": %g, \"optimizer_ms\": %g, \"step_ms\": %g, \"samples\": 8, \"loss\": %g}\n",
				s, active ? "active" : "warmup", k * data, k * fwd, k * bwd,
				k * comm, k * opt, step, 1.0 / (s + 1));
		}
		fclose(f);
	}
}

/* The verdict's name, and its evidence (a static buffer: one at a time). */
static const char *V(const struct ana_scenario *s)
{
	return verdict_name(s->outcome.v.verdict);
}

static const char *E(const struct ana_scenario *s, const struct ana_run *run)
{
	static char buf[4096];
	struct strbuf sb = STRBUF_INIT;
	evidence_write(&sb, s, run);
	snprintf(buf, sizeof buf, "%s", sb.buf ? sb.buf : "");
	strbuf_free(&sb);
	return buf;
}

static int flagged(const struct ana_scenario *s, enum flag_kind k)
{
	for (size_t i = 0; i < s->outcome.v.nflags; i++)
		if (s->outcome.v.flags[i].kind == k)
			return 1;
	return 0;
}

static void add(struct ana_run *run, const char *name, const char *state, int nodes, int tpn)
{
	char jd[512];
	snprintf(jd, sizeof jd, "%s/%s", dir, name);
	ana_run_add(run, name, state, state[0] == 'C' ? "" : "exit status 137", "gloo", jd,
		    state[0] == 'C' ? 0 : 137, nodes, tpn);
}

/* A run of the test's directory; io_threshold is analysis.thresholds.io (0: none). */
static struct ana_run new_run(double io_threshold)
{
	return (struct ana_run){ .campaign = strdup("t"),
				 .run_id = strdup("r"),
				 .run_dir = strdup(dir),
				 .th = { 20, 30, 70, 90, io_threshold } };
}

/* What new_run allocated. */
static void run_names_free(struct ana_run *run)
{
	free(run->campaign);
	free(run->run_id);
	free(run->run_dir);
}

/* A bootstrap of means resamples periodic steps in whole periods: a slow step every 4th,
 * the same in both samples, gives 1 to 1 (each block of 4 holds one slow step; drawn one by
 * one the interval would be wide); steps with no period are drawn one by one, as for medians. */
static void test_bootstrap_periods(void)
{
	double per[12] = { 10, 10, 10, 100, 10, 10, 10, 100, 10, 10, 10, 100 };
	double noise[12] = { 10, 13, 9, 12, 11, 10, 14, 9, 12, 10, 11, 13 };
	struct stats_sample a = { per, 12 }, b = { per, 12 }, c = { noise, 12 };
	struct stats_interval ci;
	stats_bootstrap(&a, 1, &b, 1, STATS_MEAN, &ci);
	CHECK(ci.known && ci.value == 1 && ci.lo == 1 && ci.hi == 1);
	stats_bootstrap(&c, 1, &c, 1, STATS_MEAN, &ci);
	CHECK(ci.known && ci.lo < 0.95 && ci.hi > 1.05);
}

static void test_percentile(void)
{
	double v[] = { 5, 1, 4, 2, 3 };
	CHECK_NEAR(stats_percentile(v, 5, 50), 3, 1e-12);
	CHECK_NEAR(stats_percentile(v, 5, 95), 4.8, 1e-12);
	CHECK_NEAR(stats_percentile(v, 5, 0), 1, 1e-12);
	double w[] = { 10, 20 };
	CHECK_NEAR(stats_percentile(w, 2, 50), 15, 1e-12);
	CHECK_NEAR(stats_percentile(w, 0, 50), 0, 0);
	/* the selection gives the sorted array's values, duplicates included */
	double a[301], b[301];
	unsigned seed = 3;
	for (int i = 0; i < 301; i++) {
		seed = seed * 1103515245u + 12345u;
		a[i] = b[i] = (double)((seed >> 16) % 40);
	}
	for (int p = 0; p <= 100; p += 5)
		CHECK(stats_percentile_unordered(a, 301, p) == stats_percentile(b, 301, p));
	CHECK(stats_percentile_unordered(a, 1, 50) == a[0]);
}

/* n values: base + spread x (a fixed sequence of pseudo-random numbers in [0, 1)). */
static void noisy(double *v, int n, double base, double spread, unsigned seed)
{
	for (int i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = base + spread * (double)((seed >> 8) % 10000) / 10000;
	}
}

static void test_bootstrap(void)
{
	double a[30], b[30], c[30], d[30];
	struct stats_interval ci, again;
	/* identical values: no spread, so the interval is the ratio itself */
	for (int i = 0; i < 30; i++)
		a[i] = 10, b[i] = 25;
	struct stats_sample sa = { a, 30 }, sb = { b, 30 };
	stats_bootstrap(&sb, 1, &sa, 1, STATS_MEDIAN, &ci);
	CHECK(ci.known && ci.value == 2.5 && ci.lo == 2.5 && ci.hi == 2.5);
	stats_bootstrap(&sa, 1, &sa, 1, STATS_MEAN, &ci);
	CHECK(ci.known && ci.value == 1 && ci.lo == 1 && ci.hi == 1);
	CHECK(stats_interval_holds(&ci, 1.0));
	/* a quotient of products: (25 x 25) / (10 x 10) */
	struct stats_sample two_b[2] = { sb, sb }, two_a[2] = { sa, sa };
	stats_bootstrap(two_b, 2, two_a, 2, STATS_MEDIAN, &ci);
	CHECK(ci.known && ci.value == 6.25 && ci.lo == 6.25 && ci.hi == 6.25);
	/* clearly apart: 100-110 against 150-165; the ratio's interval excludes 1 and holds
	 * the ratio of the medians */
	noisy(a, 30, 100, 10, 1);
	noisy(b, 30, 150, 15, 2);
	stats_bootstrap(&sb, 1, &sa, 1, STATS_MEDIAN, &ci);
	memcpy(c, a, sizeof a);
	memcpy(d, b, sizeof b);
	CHECK_NEAR(ci.value, stats_percentile(d, 30, 50) / stats_percentile(c, 30, 50), 1e-12);
	CHECK(ci.known && ci.lo > 1.3 && ci.hi < 1.7 && ci.lo <= ci.value && ci.value <= ci.hi);
	CHECK(!stats_interval_holds(&ci, 1.0));
	/* the same inputs, the same interval to the bit (a fixed seed) */
	stats_bootstrap(&sb, 1, &sa, 1, STATS_MEDIAN, &again);
	CHECK(!memcmp(&ci, &again, sizeof ci));
	/* two noisy samples of one distribution overlap: the interval spans 1 */
	noisy(a, 30, 100, 50, 3);
	noisy(b, 30, 100, 50, 4);
	stats_bootstrap(&sb, 1, &sa, 1, STATS_MEDIAN, &ci);
	CHECK(ci.known && ci.lo < 1 && ci.hi > 1 && stats_interval_holds(&ci, 1.0));
	stats_bootstrap(&sb, 1, &sa, 1, STATS_MEAN, &ci);
	CHECK(ci.known && ci.lo < 1 && ci.hi > 1);
	/* nothing to resample, or a denominator of 0: not known */
	struct stats_sample none = { a, 0 }, zero = { c, 30 };
	stats_bootstrap(&sb, 1, &none, 1, STATS_MEDIAN, &ci);
	CHECK(!ci.known && ci.lo == 0 && ci.hi == 0);
	memset(c, 0, sizeof c);
	stats_bootstrap(&sb, 1, &zero, 1, STATS_MEDIAN, &ci);
	CHECK(!ci.known);
	CHECK(!stats_interval_holds(&ci, 0));
}

static void test_verdicts_and_scaling(void)
{
	fixture("base", 2, 64, 1, 30, 50, 10, 9, 0);   /* compute-bound: comm 10 % */
	fixture("comm", 4, 128, 1, 30, 50, 150, 9, 0); /* comm 62.5 %, compute 37.1 % */
	fixture("data", 2, 64, 100, 30, 50, 5, 5, 0);  /* data 52.6 %, compute 44.2 % */
	fixture("dead", 2, 64, 1, 1, 1, 1, 1, 0);
	struct ana_run run = new_run(0);
	add(&run, "base", "COMPLETED", 1, 2);
	add(&run, "comm", "COMPLETED", 2, 2);
	add(&run, "data", "COMPLETED", 1, 1);
	add(&run, "dead", "FAILED", 1, 2);
	CHECK(ana_run_analyse(&run) == 0);
	struct ana_scenario *b = &run.sc[0], *c = &run.sc[1], *d = &run.sc[2], *x = &run.sc[3];
	CHECK(b->data.analysed && c->data.analysed && d->data.analysed && !x->data.analysed);
	CHECK_STR(V(b), "compute-bound");
	CHECK_STR(V(c), "communication-bound");
	CHECK_STR(V(d), "data-loader-bound");
	CHECK(b->steps.active_steps == 10);
	/* per step the slowest rank (r = 1, factor 1.1 + 0.01 s) sets the time */
	CHECK_NEAR(b->steps.step_min_ms, 100 * 1.12, 1e-9);
	CHECK_NEAR(b->steps.step_max_ms, 100 * 1.21, 1e-9);
	CHECK_NEAR(b->steps.step_med_ms, 100 * 1.165, 1e-9);
	CHECK_NEAR(b->steps.throughput, 64 * 1000.0 / 116.5, 1e-9);
	/* Rank r's phases are scaled by 1 + 0.01 s + 0.1 r: per step the
	 * communication counted is rank 0's (the smallest), and what rank 1
	 * spent beyond it is peer wait. */
	double num = 0, wait = 0, den = 0;
	for (int st = 2; st < 12; st++) {
		double k0 = 1 + 0.01 * st;
		num += 2 * k0 * 10;
		wait += 0.1 * 10;
		den += (2 * k0 + 0.1) * 100;
	}
	CHECK_NEAR(b->shares.comm_pct, 100 * num / den, 1e-9);
	CHECK_NEAR(b->shares.sync_wait_pct, 100 * wait / den, 1e-9);
	CHECK_NEAR(b->shares.comm_total_pct, 10, 1e-9);
	CHECK_NEAR(b->shares.compute_pct, 89, 1e-9);
	CHECK_NEAR(b->shares.data_pct, 1, 1e-9);
	CHECK_NEAR(b->shares.comm_pct + b->shares.sync_wait_pct + b->shares.compute_pct +
			   b->shares.data_pct + b->shares.io_pct + b->shares.other_pct,
		   100, 1e-9);
	CHECK_NEAR(c->shares.comm_total_pct, 100 * 150.0 / 240, 1e-9);
	CHECK(b->steps.slowest_rank == 1);
	/* rank 0 has the least communication in every step (it arrives last): named, its
	 * waiting apart from the transfer */
	CHECK(c->comm.n_stragglers == 1 && c->comm.stragglers[0].rank == 0);
	CHECK(strstr(E(c, &run), "exposed communication takes 5") == E(c, &run));
	CHECK(!b->outcome.v.borderline && !c->outcome.v.borderline);
	CHECK(strstr(E(d, &run), "data loading takes 52.6 % of step time, the largest share") !=
	      NULL);
	CHECK(strstr(E(d, &run), "over their thresholds: data loading 52.6 % (threshold 30 %)") !=
	      NULL);
	CHECK(flagged(d, FLAG_DATA) && !flagged(b, FLAG_DATA) && flagged(c, FLAG_COMMUNICATION));
	CHECK_NEAR(b->steps.loss_first, 1.0, 1e-12);
	CHECK_NEAR(b->steps.loss_last, 1.0 / 12, 1e-6);
	/* comm: 4 ranks, batch 128; its slowest rank (r = 3) has factor 1.3 */
	CHECK_STR(c->scaling.baseline, "base");
	CHECK_NEAR(c->scaling.speedup, (128 * 1000.0 / (240 * 1.365)) / (64 * 1000.0 / 116.5),
		   1e-9);
	CHECK_NEAR(c->scaling.efficiency, c->scaling.speedup * 2 / 4, 1e-12);
	CHECK(b->scaling.is_baseline && b->scaling.speedup == 1.0);
	/* their intervals hold them, the efficiency's is the speedup's over the ranks' ratio;
	 * the baseline's is 1 to 1 */
	CHECK(stats_interval_holds(&c->scaling.speedup_ci, c->scaling.speedup));
	CHECK(c->scaling.speedup_ci.lo < c->scaling.speedup_ci.hi);
	CHECK_NEAR(c->scaling.efficiency_ci.lo, c->scaling.speedup_ci.lo / 2, 1e-12);
	CHECK_NEAR(c->scaling.efficiency_ci.hi, c->scaling.speedup_ci.hi / 2, 1e-12);
	CHECK(b->scaling.speedup_ci.known && b->scaling.speedup_ci.lo == 1 &&
	      b->scaling.speedup_ci.hi == 1);
	/* 1 task per node: its own series */
	CHECK(d->scaling.baseline[0] == '\0' || !strcmp(d->scaling.baseline, "data"));
	CHECK(ana_run_write(&run) == 0);
	char p[600];
	snprintf(p, sizeof p, "%s/BOTTLENECK_ANALYSIS.md", dir);
	char *md;
	CHECK(fsio_read(p, 1 << 20, &md, NULL) == 0);
	const char *sections[] = { "## Executive Summary",
				   "## Per-Scenario Analysis",
				   "## Scaling Analysis",
				   "## Recommendations",
				   "## Methodology",
				   "not analysed: **dead** (FAILED: exit status 137)",
				   NULL };
	for (int i = 0; sections[i]; i++)
		CHECK(strstr(md, sections[i]) != NULL);
	free(md);
	ana_run_free(&run);
}

/* Every rank the same: forward fwd ms, communication comm ms, nothing else. */
static void exact(const char *name, int ranks, long gbatch, double fwd, double comm, double flops,
		  const char *gpu_csv)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s/metrics", dir, name);
	fsio_mkdir_p(path, 0755);
	for (int r = 0; r < ranks; r++) {
		snprintf(path, sizeof path, "%s/%s/metrics/rank_%d.jsonl", dir, name, r);
		FILE *f = fopen(path, "w");
		fprintf(f,
			"{\"type\": \"meta\", \"rank\": %d, \"world_size\": %d, \"global_batch\": %ld, \"flops_per_step\": %g, \"host\": \"n\\\"1\"}\n",
			r, ranks, gbatch, flops);
		for (int st = 0; st < 5; st++)
			fprintf(f,
				"{\"type\": \"step\", \"step\": %d, \"phase\": \"active\", \"forward_ms\": %.17g, \"comm_ms\": %.17g, \"step_ms\": %.17g, \"start_us\": %d}\n",
				st, fwd, comm, fwd + comm, 1000000 + st * 200000);
		fclose(f);
	}
	if (gpu_csv) {
		snprintf(path, sizeof path, "%s/%s/monitor/n1", dir, name);
		fsio_mkdir_p(path, 0755);
		snprintf(path, sizeof path, "%s/%s/monitor/n1/gpu_monitor.csv", dir, name);
		FILE *f = fopen(path, "w");
		fputs(gpu_csv, f);
		fclose(f);
	}
}

static const char gpu_head[] =
	"timestamp, index, utilization.gpu [%], utilization.memory [%], memory.used [MiB], memory.total [MiB], power.draw [W], clocks.sm [MHz], node\n";

/* compute 100/N and communication 2 + 3 log2 N at a fixed global batch: the
 * fit recovers b = 100, a = 2, c = 3 exactly. */
static void test_model_gpu_mfu(void)
{
	char csv_full[512], csv_idle[512];
	snprintf(
		csv_full, sizeof csv_full,
		"%s2026/11/21 10:00:00.000, 0, 95 %%, 40 %%, 76000 MiB, 80000 MiB, 300 W, 1410 MHz, n1\n"
		"2026/11/21 10:00:01.000, 1, 97 %%, [N/A], 72000 MiB, 80000 MiB, [N/A], 1410 MHz, n1\n",
		gpu_head);
	snprintf(
		csv_idle, sizeof csv_idle,
		"%s2026/11/21 10:00:00.000, 0, 40 %%, 10 %%, 8000 MiB, 80000 MiB, 100 W, 1410 MHz, n1\n",
		gpu_head);
	exact("m1", 1, 64, 100, 2, 2e9, NULL);
	exact("m2", 2, 64, 50, 5, 2e9, csv_full);
	exact("m4", 4, 64, 25, 8, 2e9, csv_idle);
	struct ana_run run = new_run(20);
	run.peak_gflops = 100;
	add(&run, "m1", "COMPLETED", 1, 1);
	add(&run, "m2", "COMPLETED", 2, 1);
	add(&run, "m4", "COMPLETED", 4, 1);
	CHECK(ana_run_analyse(&run) == 0);
	CHECK(run.nmodels == 1);
	struct ana_model *m = &run.models[0];
	CHECK_STR(m->series, "m1");
	CHECK_NEAR(m->b, 100, 1e-9);
	CHECK_NEAR(m->a, 2, 1e-9);
	CHECK_NEAR(m->c, 3, 1e-9);
	CHECK_NEAR(m->eff8, 102.0 / (8 * 23.5), 1e-12);
	CHECK_NEAR(m->eff16, 102.0 / (16 * 20.25), 1e-12);
	CHECK(m->crossover == 9);
	CHECK(m->limit == SHARE_COMMUNICATION && !m->contention.found);
	char *limit = model_limit(m);
	CHECK(strstr(limit,
		     "Fitted on 3 scenarios (1 to 4 nodes), compute takes 100.00 ms / N and the rest 2.00 + 3.00 x log2(N) ms (time other than compute; at 1 node its largest part is exposed communication and waiting for peers, 2.0 % of the step), so scaling is limited by communication, which outgrows compute from 9 nodes on: predicted efficiency 54 % at 8 nodes and 31 % at 16") !=
	      NULL);
	free(limit);
	struct ana_scenario *s1 = &run.sc[0], *s2 = &run.sc[1], *s4 = &run.sc[2];
	/* MFU: 2e9 FLOPs per 102 ms step = 19.61 GFLOP/s of a 100 GFLOP/s peak */
	CHECK_NEAR(s1->steps.achieved_gflops, 2e9 / 0.102 / 1e9, 1e-9);
	CHECK_NEAR(s1->steps.mfu_pct, 100 * 2e9 / 0.102 / 1e9 / 100, 1e-9);
	CHECK(s1->mon.gpu_mem_peak_pct == -1 && s1->mon.gpu_util_mean_pct == -1);
	/* m2: GPU memory at 95 % > 90 % is a flag beside the verdict, which is the largest
	 * share (compute 50 of 55 ms); utilisation over both GPUs */
	CHECK_STR(V(s2), "compute-bound");
	CHECK(flagged(s2, FLAG_MEMORY));
	CHECK(s2->mon.gpus == 2);
	CHECK_NEAR(s2->mon.gpu_util_mean_pct, 96, 1e-9);
	CHECK_NEAR(s2->mon.gpu_mem_util_mean_pct, 40, 1e-9);
	CHECK_NEAR(s2->mon.gpu_mem_peak_pct, 95, 1e-9);
	CHECK(strstr(E(s2, &run), "memory peak 95.0 % (threshold 90 %)") != NULL);
	/* m4: communication 8 of 33 ms = 24.2 % > 20 % is a flag; compute (75.8 %) is the
	 * largest share: compute-bound, never communication-bound beside 75.8 % compute */
	CHECK_STR(V(s4), "compute-bound");
	CHECK(!s4->outcome.v.borderline);
	CHECK(strstr(E(s4, &run), "compute takes 75.8 % of step time, the largest share") != NULL);
	CHECK(strstr(E(s4, &run),
		     "over their thresholds: exposed communication and waiting for peers 24.2 % (threshold 20 %), GPU idle 60.0 % (threshold 30 %)") !=
	      NULL);
	/* the median step's phases per rank, for the figure */
	CHECK(s4->steps.tl_ranks == 4 && s4->steps.tl[3][1] == 25 && s4->steps.tl[3][3] == 8);
	CHECK(ana_run_write(&run) == 0);
	char p[600], *md;
	json_error_t jerr;
	snprintf(p, sizeof p, "%s/BOTTLENECK_ANALYSIS.md", dir);
	CHECK(fsio_read(p, 1 << 20, &md, NULL) == 0);
	/* FLOPs to the same precision whatever their digits ("2.00e+09", never "2e+09") */
	CHECK(strstr(md,
		     "Achieved 19.6 GFLOP/s per rank at the median step (2.00e+09 FLOPs per step per rank): **MFU 19.6 %** of the 100 GFLOP/s peak per rank.") !=
	      NULL);
	free(md);
	snprintf(p, sizeof p, "%s/timeline.json", dir);
	json_t *tl = json_load_file(p, 0, &jerr);
	CHECK(tl != NULL);
	/* 3 process names, 7 thread names, 7 ranks x 5 steps x (step + forward + communication) */
	CHECK(json_array_size(json_object_get(tl, "traceEvents")) == 3 + 7 + 7 * 5 * 3);
	json_t *e = json_array_get(json_object_get(tl, "traceEvents"), 2);
	CHECK_STR(json_string_value(json_object_get(e, "name")), "step 0");
	CHECK_NEAR(json_number_value(json_object_get(e, "ts")), 0, 0);
	CHECK_NEAR(json_number_value(json_object_get(e, "dur")), 102000, 1e-9);
	json_decref(tl);
	snprintf(p, sizeof p, "%s/summary.json", dir);
	json_t *sum = json_load_file(p, 0, &jerr);
	json_t *sm = json_array_get(json_object_get(sum, "scaling_models"), 0);
	CHECK_NEAR(json_number_value(json_object_get(sm, "efficiency_16_nodes")), 0.315, 1e-12);
	CHECK_NEAR(json_number_value(json_object_get(
			   json_array_get(json_object_get(sum, "scenarios"), 0), "mfu_pct")),
		   19.608, 1e-12);
	json_decref(sum);
	/* a run's figures are SVG only (campaign paper adds PDF and PNG) */
	const char *figs[] = { "scaling.svg", "breakdown.svg", "timeline.svg", "phases.svg",
			       "data/model.dat", NULL };
	for (int i = 0; figs[i]; i++) {
		snprintf(p, sizeof p, "%s/figures/%s", dir, figs[i]);
		CHECK(fsio_exists(p));
	}
	snprintf(p, sizeof p, "%s/figures/scaling.png", dir);
	CHECK(!fsio_exists(p));
	ana_run_free(&run);
}

/* AORTA-style rank_<r>_metrics.jsonl: per-stream compute 30, all-reduce 6 and
 * reduce-scatter 8 ms, 9 ms of them hidden, 41 ms per iteration. */
static struct ana_scenario *add_in(struct ana_run *run, const char *name, int nodes, int tpn,
				   const char *series)
{
	add(run, name, "COMPLETED", nodes, tpn);
	run->sc[run->n - 1].in.series = strdup(series);
	return &run->sc[run->n - 1];
}

/* Strong scaling (the global batch fixed) that gets slower is reported as a
 * speedup below 1; without a batch the throughput is steps/s and no speedup
 * is given unless analysis.scaling says the mode; batches that are neither
 * weak nor strong get no speedup; the verdict counts waiting for peers as
 * communication and says when it is borderline. */
static void test_batch_and_scaling_modes(void)
{
	exact("s1", 2, 256, 100, 0, 0, NULL);
	exact("s2", 4, 256, 120, 0, 0, NULL);
	exact("u1", 2, 0, 100, 0, 0, NULL);
	exact("u2", 4, 0, 60, 0, 0, NULL);
	exact("m1", 2, 64, 100, 0, 0, NULL);
	exact("m2", 4, 96, 100, 0, 0, NULL);
	fixture("cw", 2, 64, 1, 30, 50, 23, 9, 0);
	struct ana_run run = new_run(0);
	add_in(&run, "s1", 1, 2, "S");
	add_in(&run, "s2", 2, 2, "S");
	add_in(&run, "u1", 1, 2, "U");
	add_in(&run, "u2", 2, 2, "U");
	add_in(&run, "m1", 1, 2, "M");
	add_in(&run, "m2", 2, 2, "M");
	add_in(&run, "cw", 1, 2, "C");
	CHECK(ana_run_analyse(&run) == 0);
	struct ana_scenario *s2 = &run.sc[1], *u1 = &run.sc[2], *u2 = &run.sc[3], *m2 = &run.sc[5],
			    *cw = &run.sc[6];
	CHECK(s2->scaling.mode == SCALING_STRONG);
	CHECK_NEAR(s2->scaling.speedup, 100.0 / 120.0, 1e-12);
	CHECK_NEAR(s2->scaling.efficiency, 100.0 / 120.0 / 2, 1e-12);
	CHECK_STR(data_text_throughput_unit(u1), "steps/s");
	CHECK(u1->steps.batch_from == BATCH_UNKNOWN);
	CHECK_NEAR(u1->steps.throughput, 10, 1e-12);
	CHECK(u1->steps.global_batch == 0);
	CHECK(u2->scaling.mode == SCALING_UNKNOWN);
	CHECK(u2->scaling.speedup == 0 && u2->scaling.note == SCALING_NOTE_NO_BATCH);
	char *note = note_of(u2);
	CHECK(strstr(note, "samples per step are not known") != NULL);
	free(note);
	CHECK(m2->scaling.mode == SCALING_UNKNOWN);
	CHECK(m2->scaling.note == SCALING_NOTE_BATCHES_DIFFER && m2->scaling.base_batch == 64 &&
	      m2->scaling.base_ranks == 2);
	note = note_of(m2);
	CHECK(strstr(note,
		     "batch semantics differ from m1's (global batch 96 at 4 ranks against 64 at 2") !=
	      NULL);
	free(note);
	CHECK(run.nmodels == 0); /* two points per series: no model */
	/* communication and waiting over their 20 % threshold beside 78 % compute: the
	 * threshold is a flag, the verdict the largest share, and not borderline */
	CHECK(cw->shares.comm_pct < 20 && cw->shares.comm_pct + cw->shares.sync_wait_pct > 20);
	CHECK_STR(V(cw), "compute-bound");
	CHECK(!cw->outcome.v.borderline && flagged(cw, FLAG_COMMUNICATION));
	CHECK(strstr(E(cw, &run), "**borderline**") == NULL);
	CHECK(ana_run_write(&run) == 0);
	char p[600], *md;
	snprintf(p, sizeof p, "%s/BOTTLENECK_ANALYSIS.md", dir);
	CHECK(fsio_read(p, 1 << 20, &md, NULL) == 0);
	/* every step of s1 and s2 is as long as the others: the intervals are the ratios; the
	 * p95 of 10 steps is rough */
	CHECK(strstr(md,
		     "strong scaling: speedup 0.83x (95 % CI 0.83-0.83; slower than the baseline) and efficiency 42 % (95 % CI 42-42 %) against s1") !=
	      NULL);
	CHECK(strstr(md, "10.0 steps/s") != NULL);
	/* real nodes (a cluster's run: no host_cpus): no emulation said */
	CHECK(strstr(md, "**emulated**") == NULL && strstr(md, "loopback") == NULL);
	CHECK(strstr(md, "samples/s") == NULL ||
	      strstr(md, "| u1 | 1 | 2 | COMPLETED | 100.00 | 100.00 (rough) | 10.0 steps/s |") !=
		      NULL);
	CHECK(strstr(md, "A p95 marked (rough) comes from fewer than 20 active steps.") != NULL);
	CHECK(strstr(md, "- **cw** (1 node, 2 ranks, gloo): **compute-bound**: compute 78.") !=
	      NULL);
	CHECK(strstr(md, "**cw**: compute-bound (78.") != NULL);
	CHECK(strstr(md, "no share passes") == NULL && strstr(md, "(0.0 % compute)") == NULL);
	free(md);
	snprintf(p, sizeof p, "%s/summary.json", dir);
	json_t *j = json_load_file(p, 0, NULL), *sc = json_object_get(j, "scenarios");
	CHECK(json_is_null(json_object_get(json_array_get(sc, 3), "speedup")));
	CHECK(json_is_null(json_object_get(json_array_get(sc, 3), "throughput_samples_per_s")));
	CHECK_STR(json_string_value(json_object_get(json_array_get(sc, 3), "throughput_unit")),
		  "steps/s");
	CHECK_STR(json_string_value(json_object_get(json_array_get(sc, 1), "scaling_mode")),
		  "strong");
	CHECK(json_is_false(json_object_get(json_array_get(sc, 6), "borderline")));
	json_t *fl = json_array_get(json_object_get(json_array_get(sc, 6), "flags"), 0);
	CHECK_STR(json_string_value(json_object_get(fl, "kind")), "communication");
	CHECK_NEAR(json_number_value(json_object_get(fl, "threshold_pct")), 20, 0);
	json_decref(j);
	ana_run_free(&run);
	/* The same unknown batches with analysis.scaling: strong: the step-rate ratio. */
	struct ana_run r2 = { .campaign = strdup("t"),
			      .run_id = strdup("r"),
			      .run_dir = strdup(dir),
			      .th = { 20, 30, 70, 90 },
			      .scaling = strdup("strong") };
	add_in(&r2, "u1", 1, 2, "U");
	add_in(&r2, "u2", 2, 2, "U");
	CHECK(ana_run_analyse(&r2) == 0);
	CHECK(r2.sc[1].scaling.mode == SCALING_STRONG);
	CHECK_NEAR(r2.sc[1].scaling.speedup, 100.0 / 60.0, 1e-12);
	CHECK_NEAR(r2.sc[1].scaling.efficiency, 100.0 / 60.0 / 2, 1e-12);
	ana_run_free(&r2);
}

/* Twelve active steps of `name` (ranks, global batch gbatch): `ms` each, but every 4th
 * `slow_ms` (a checkpoint). */
static void bursty(const char *name, int ranks, long gbatch, double ms, double slow_ms)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s/metrics", dir, name);
	fsio_mkdir_p(path, 0755);
	for (int r = 0; r < ranks; r++) {
		snprintf(path, sizeof path, "%s/%s/metrics/rank_%d.jsonl", dir, name, r);
		FILE *f = fopen(path, "w");
		fprintf(f,
			"{\"type\": \"meta\", \"rank\": %d, \"world_size\": %d, \"global_batch\": %ld}\n",
			r, ranks, gbatch);
		for (int st = 0; st < 12; st++) {
			double t = st % 4 == 3 ? slow_ms : ms;
			fprintf(f,
				"{\"type\": \"step\", \"step\": %d, \"phase\": \"active\", \"forward_ms\": %g, \"step_ms\": %g}\n",
				st, t, t);
		}
		fclose(f);
	}
}

/* A tie: compute and communication half of every step each. The borderline verdict says the
 * two are a tie at two decimals, and the compute advice names the other share. */
static void test_near_tie(void)
{
	exact("tie", 2, 64, 50.001, 50, 0, NULL);
	struct ana_run run = new_run(0);
	add(&run, "tie", "COMPLETED", 1, 2);
	CHECK(ana_run_analyse(&run) == 0);
	const struct ana_scenario *s = &run.sc[0];
	CHECK(s->outcome.v.borderline == BORDERLINE_NEAR && s->outcome.v.share == SHARE_COMPUTE);
	const char *e = E(s, &run);
	CHECK(strstr(e, "(50.00 against 50.00 %: a tie, which these steps cannot break)") != NULL);
	size_t k = 0;
	while (k < run.nrecs && run.recs[k].kind != REC_KERNELS)
		k++;
	CHECK(k < run.nrecs);
	char *t = k < run.nrecs ? rec_text(&run.recs[k], &run) : NULL;
	CHECK(t &&
	      strstr(t,
		     ". But exposed communication and waiting for peers takes nearly as much of the step in tie (50.0 against 50.0 %, borderline), so a remedy for it may pay as much") !=
		      NULL);
	/* and what its own change is predicted to pay there: the ceiling (step data, no
	 * graph to replay), the median step less the communication share */
	char said[240];
	snprintf(
		said, sizeof said,
		"may pay as much: its change (`communication`) would take the step from %.2f ms to no less than %.2f ms there (a ceiling, not a replay)",
		s->steps.step_med_ms, advice_predicted_ms(s, REC_COMMUNICATION));
	CHECK(advice_predicted_ms(s, REC_COMMUNICATION) > 0 &&
	      advice_predicted_ms(s, REC_COMMUNICATION) < s->steps.step_med_ms);
	CHECK(t && strstr(t, said));
	free(t);
	ana_run_free(&run);
}

/* Weak scaling of steps not alike (a slow step every 4th): the speedup is of samples per
 * second over the run, the mean steps' (b1: 3 x 10 + 100 ms = 32.5 ms a step, b2: 3 x 12 +
 * 80 = 29), 2.24x, not the medians' 1.67x; said in the table, its note and summary.json. */
static void test_scaling_by_means(void)
{
	bursty("b1", 2, 64, 10, 100);
	bursty("b2", 4, 128, 12, 80);
	struct ana_run run = new_run(0);
	add_in(&run, "b1", 1, 2, "B");
	add_in(&run, "b2", 2, 2, "B");
	CHECK(ana_run_analyse(&run) == 0);
	const struct ana_scenario *b1 = &run.sc[0], *b2 = &run.sc[1];
	CHECK(b2->scaling.mode == SCALING_WEAK && b2->scaling.by_means && !b1->scaling.by_means);
	CHECK_NEAR(b2->scaling.speedup, (128 / 29.0) / (64 / 32.5), 1e-12);
	CHECK_NEAR(b2->scaling.efficiency, (128 / 29.0) / (64 / 32.5) / 2, 1e-12);
	CHECK(stats_interval_holds(&b2->scaling.speedup_ci, b2->scaling.speedup));
	CHECK(ana_run_write(&run) == 0);
	char p[600], *md;
	snprintf(p, sizeof p, "%s/BOTTLENECK_ANALYSIS.md", dir);
	CHECK(fsio_read(p, 1 << 20, &md, NULL) == 0);
	/* the throughputs at the mean steps (64000 / 32.5, 128000 / 29): the speedup their ratio */
	CHECK(strstr(md, "| b1 | 1 | 2 | 64 | 1969 (mean step) | baseline | 1.00x |") != NULL);
	CHECK(strstr(md, "| b2 | 2 | 4 | 128 | 4414 (mean step) | weak | 2.24x (") != NULL);
	CHECK(strstr(md,
		     "A throughput marked (mean step) is the global batch over the mean step") !=
	      NULL);
	CHECK(strstr(md, ") by the means | 112 % (") != NULL);
	/* b1's median has no interval, and its section says why and gives the mean */
	CHECK(strstr(md,
		     "the step time was 10.00 ms median (no interval: its steps are not alike, which a median's resamples would make too wide; mean 32.50 ms)") !=
	      NULL);
	CHECK(strstr(md, "- **b2**: speedup and efficiency **by the means**: ") != NULL);
	free(md);
	snprintf(p, sizeof p, "%s/summary.json", dir);
	json_t *j = json_load_file(p, 0, NULL), *sc = json_object_get(j, "scenarios");
	CHECK(json_is_true(json_object_get(json_array_get(sc, 1), "speedup_by_means")));
	CHECK_NEAR(json_number_value(
			   json_object_get(json_array_get(sc, 1), "throughput_at_mean_step")),
		   4413.793, 0.001);
	CHECK(json_is_false(json_object_get(json_array_get(sc, 0), "speedup_by_means")));
	json_decref(j);
	ana_run_free(&run);
}

static void test_aorta(void)
{
	char path[512];
	snprintf(path, sizeof path, "%s/aorta/metrics", dir);
	fsio_mkdir_p(path, 0755);
	for (int r = 0; r < 2; r++) {
		snprintf(path, sizeof path, "%s/aorta/metrics/rank_%d_metrics.jsonl", dir, r);
		FILE *f = fopen(path, "w");
		for (int st = 0; st < 4; st++)
			fprintf(f,
				"{\"rank\": %d, \"epoch\": 0, \"step\": %d, \"global_step\": %d, \"loss\": 2.5, \"profile\": {\"total_ms\": 41.0, \"overlap\": {\"per_stream_ms\": {\"compute\": 30.0, \"allreduce\": 6.0, \"reducescatter\": 8.0}, \"overlap_ms\": {\"compute_comm\": 9.0}}}}\n",
				r, st, st);
		fclose(f);
	}
	struct ana_run run = new_run(20);
	add(&run, "aorta", "COMPLETED", 1, 2);
	CHECK(ana_run_analyse(&run) == 0);
	struct ana_scenario *s = &run.sc[0];
	CHECK(s->data.analysed && s->steps.active_steps == 4);
	CHECK(s->data.format == METRICS_AORTA);
	CHECK_STR(metrics_format_name(s->data.format), "aorta");
	CHECK_NEAR(s->steps.step_med_ms, 41, 1e-12);
	CHECK_NEAR(s->shares.compute_pct, 100 * 30.0 / 41, 1e-9);
	CHECK_NEAR(s->shares.comm_total_pct, 100 * 14.0 / 41, 1e-9);
	CHECK_NEAR(s->shares.comm_pct, 100 * 5.0 / 41, 1e-9);
	CHECK_STR(V(s), "compute-bound");
	ana_run_free(&run);
}

/* 4 ranks on a machine of 2 CPUs (the local executor): the verdict is the
 * largest share as anywhere, borderline only when the runner-up is within 20 %
 * of it, and the oversubscription is said once. */
static void test_oversubscribed(void)
{
	fixture("osdata", 4, 128, 35, 5, 5, 50, 5, 0);
	fixture("oscomm", 4, 128, 1, 22, 17, 55, 5, 0);
	struct ana_run run = new_run(0);
	run.host_cpus = 2;
	add(&run, "osdata", "COMPLETED", 2, 2);
	add(&run, "oscomm", "COMPLETED", 2, 2);
	CHECK(ana_run_analyse(&run) == 0);
	struct ana_scenario *d = &run.sc[0], *c = &run.sc[1];
	CHECK(d->shares.data_pct > 30 && c->shares.data_pct < 30);
	CHECK_STR(V(d), "communication-bound");
	CHECK(!d->outcome.v.borderline && flagged(d, FLAG_DATA));
	const char *e = E(d, &run), *o = strstr(e, "4 ranks on this machine's 2 CPUs");
	CHECK(o != NULL && strstr(o + 1, "4 ranks on this machine's 2 CPUs") == NULL);
	CHECK_STR(V(c), "communication-bound");
	CHECK(c->outcome.v.borderline);
	CHECK_STR(verdict_name(c->outcome.v.runner_up), "compute-bound");
	CHECK(strstr(E(c, &run), "; **borderline**: compute takes 44.0 %") != NULL);
	/* near, not by flips: the flips sentence is not said beside it (it was, with "2 of 12
	 * steps", under the quarter its rule needs) */
	CHECK(c->outcome.v.borderline != BORDERLINE_NEAR ||
	      strstr(E(c, &run), "took the larger share in") == NULL);
	ana_run_free(&run);
	/* on a machine of one CPU the count is said in the singular */
	struct ana_run one = { .campaign = strdup("t"),
			       .run_id = strdup("r"),
			       .run_dir = strdup(dir),
			       .th = { 20, 30, 70, 90 },
			       .host_cpus = 1 };
	add(&one, "osdata", "COMPLETED", 2, 2);
	CHECK(ana_run_analyse(&one) == 0);
	CHECK(strstr(E(&one.sc[0], &one), "4 ranks on this machine's 1 CPU, so ranks") != NULL);
	ana_run_free(&one);
}

static char *read_in(const char *rel)
{
	char p[600], *buf = NULL;
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	CHECK(fsio_read(p, 1 << 20, &buf, NULL) == 0);
	return buf;
}

/* Emulated nodes of one 2-CPU machine, 4 ranks at the widest, per-rank compute as it was
 * (no contention found) but the rest growing (10 -> 40 -> 120 ms: communication, or one disk
 * for every rank): the model predicts nothing, and says why; no series advice. */
static void test_emulated_no_prediction(void)
{
	exact("e1", 1, 64, 10, 10, 0, NULL);
	exact("e2", 2, 128, 10, 40, 0, NULL);
	exact("e4", 4, 256, 10, 120, 0, NULL);
	struct ana_run run = new_run(20);
	run.host_cpus = 2;
	add(&run, "e1", "COMPLETED", 1, 1);
	add(&run, "e2", "COMPLETED", 2, 1);
	add(&run, "e4", "COMPLETED", 4, 1);
	CHECK(ana_run_analyse(&run) == 0);
	CHECK(run.nmodels == 1);
	const struct ana_model *m = &run.models[0];
	CHECK(!m->contention.found && m->emulated_ranks == 4 && !m->predicts);
	CHECK(ana_run_write(&run) == 0);
	char *md = read_in("BOTTLENECK_ANALYSIS.md");
	CHECK(strstr(md,
		     "No prediction is drawn from it: the local executor ran the 4 ranks of e4 on this machine's 2 CPUs, whose cores, memory and storage every rank shares, so what the model extrapolates is this machine's contention, not the cost of more nodes.") !=
	      NULL);
	CHECK(strstr(md, "Predicted parallel efficiency") == NULL &&
	      strstr(md, "at scale**") == NULL);
	free(md);
	ana_run_free(&run);
}

/* A total printed beside its parts is their sum as printed, wherever it is said: the
 * thresholds' "exposed communication and waiting for peers" and the communication line's
 * "in collectives", even where the rounded true sum differs (the fixture's does: checked). */
static void test_printed_sums(void)
{
	fixture("ps", 2, 64, 1, 30, 50, 23, 9, 0);
	struct ana_run run = new_run(20);
	add(&run, "ps", "COMPLETED", 1, 2);
	CHECK(ana_run_analyse(&run) == 0);
	const struct ana_scenario *x = &run.sc[0];
	double c = x->shares.comm_pct, w = x->shares.sync_wait_pct;
	double shown = round(10 * c) / 10 + round(10 * w) / 10;
	CHECK(w > 0 && fabs(shown - round(10 * (c + w)) / 10) > 0.05);
	char want[160];
	snprintf(want, sizeof want,
		 "exposed communication and waiting for peers %.1f %% (threshold", shown);
	CHECK(strstr(E(x, &run), want) != NULL);
	CHECK(ana_run_write(&run) == 0);
	char *md = read_in("BOTTLENECK_ANALYSIS.md");
	snprintf(want, sizeof want, "Communication: %.1f %% of step time in collectives, ", shown);
	CHECK(md && strstr(md, want) != NULL);
	free(md);
	ana_run_free(&run);
}

/* Compute 0.6 -> 0.86 ms (1.4x) in steps of 40 -> 160 ms of communication: that growth is
 * 0.2 % of the widest step, under MODEL_CONTENTION_MIN_PCT: no contention is said of it
 * (a paper reader's io series: checkpoints grew, not compute). */
static void test_contention_immaterial(void)
{
	exact("q1", 1, 64, 0.6, 40, 0, NULL);
	exact("q2", 2, 128, 0.73, 80, 0, NULL);
	exact("q4", 4, 256, 0.86, 160, 0, NULL);
	struct ana_run run = new_run(20);
	add(&run, "q1", "COMPLETED", 1, 1);
	add(&run, "q2", "COMPLETED", 2, 1);
	add(&run, "q4", "COMPLETED", 4, 1);
	CHECK(ana_run_analyse(&run) == 0);
	CHECK(run.nmodels == 1 && !run.models[0].contention.found);
	ana_run_free(&run);
}

/* Contention: per-rank compute 10 -> 12 -> 14 ms at the same work per rank (weak
 * scaling, 1 rank per node), communication 10 -> 40 -> 120 ms (10 + 10 log2 N at the
 * baseline's batch: the model fits within 3 %). On 2 CPUs with 4 ranks
 * (oversubscribed emulated nodes) the model predicts nothing, the figure has no curve
 * and the contention sentence says that communication grew more; on a cluster the
 * model predicts, its rest is named by the baseline's shares. */
static void test_contention_words(void)
{
	exact("k1", 1, 64, 10, 10, 0, NULL);
	exact("k2", 2, 128, 12, 40, 0, NULL);
	exact("k4", 4, 256, 14, 120, 0, NULL);
	struct ana_run run = new_run(20);
	run.host_cpus = 2;
	add(&run, "k1", "COMPLETED", 1, 1);
	add(&run, "k2", "COMPLETED", 2, 1);
	add(&run, "k4", "COMPLETED", 4, 1);
	CHECK(ana_run_analyse(&run) == 0);
	CHECK(run.nmodels == 1);
	const struct ana_model *m = &run.models[0];
	CHECK(m->contention.found && m->contention.oversubscribed && !m->predicts);
	CHECK(m->max_err_pct <= MODEL_FITS_PCT); /* it fits, and still predicts nothing */
	CHECK(ana_run_write(&run) == 0);
	char *md = read_in("BOTTLENECK_ANALYSIS.md");
	CHECK(strstr(md,
		     "**Contention.** Per-rank compute grew 1.4x (95 % CI 1.4-1.4x), from 10.00 ms at 1 node to 14.00 ms at 4 nodes, with the same work per rank: the ranks contend for CPUs, memory bandwidth or the network (the local executor ran all 4 ranks of k4 on this machine's 2 CPUs). Exposed communication and waiting for peers grew more, from 10.00 to 120.00 ms per rank and step, so it slows the step more than compute does, but the same contention inflates it, by an amount these runs cannot separate from its own growth.\n") !=
	      NULL);
	CHECK(strstr(md, "not communication") == NULL);
	/* the summary's efficiency of k4 (4 ranks on 2 CPUs) says it is this machine's; k2's
	 * (2 ranks: one CPU each) that its nodes are this machine, its collectives loopback */
	CHECK(strstr(md,
		     " against k1 (**emulated**: its 4 nodes are this one machine, its 4 ranks more than its CPUs, so this speedup and efficiency include the machine's contention, not only how the workload scales)") !=
	      NULL);
	CHECK(strstr(md,
		     " against k1 (**emulated**: its 2 nodes are this one machine, any collectives over loopback, not a network, so this speedup and efficiency are not those of real nodes)") !=
	      NULL);
	CHECK(strstr(md, "**emulated**: its 2 nodes are this one machine, its 2 ranks") == NULL);
	CHECK(strstr(md,
		     "No prediction is drawn from it: the local executor ran the 4 ranks of k4 on this machine's 2 CPUs and their per-rank compute grew with the node count (see Contention), so what the model extrapolates is this machine's contention, not the cost of more nodes.\n") !=
	      NULL);
	CHECK(strstr(md, "Predicted parallel efficiency") == NULL);
	CHECK(strstr(md,
		     "**Series of k1**: measure scaling where each rank has its own resources (real nodes, not ranks sharing this machine): per-rank compute grew 1.4x (95 % CI 1.4-1.4x) from 1 to 4 nodes with the same work per rank, so the measured 15 % efficiency (95 % CI 15-15 %) at 4 nodes includes this machine's contention (how much of it cannot be told from these runs), and the model predicts nothing.") !=
	      NULL);
	free(md);
	/* summary.json: the fitted terms, no predictions; the figure: no curve */
	char p[600];
	snprintf(p, sizeof p, "%s/summary.json", dir);
	json_t *sum = json_load_file(p, 0, NULL);
	json_t *sm = json_array_get(json_object_get(sum, "scaling_models"), 0);
	CHECK(json_is_number(json_object_get(sm, "b_ms")));
	CHECK(json_is_null(json_object_get(sm, "efficiency_8_nodes")));
	CHECK(json_is_null(json_object_get(sm, "efficiency_16_nodes")));
	CHECK(json_is_null(json_object_get(sm, "overhead_exceeds_compute_from_nodes")));
	CHECK(json_is_null(json_object_get(sm, "limit")));
	CHECK(json_is_false(json_object_get(sm, "predicts")));
	CHECK(!strncmp(json_string_value(json_object_get(sm, "no_prediction")),
		       "No prediction is drawn from it: the local executor", 50));
	json_decref(sum);
	char *dat = read_in("figures/data/model.dat"), *gp = read_in("figures/scaling.gp");
	CHECK_STR(
		dat,
		"# per series whose model predicts (gnuplot index): nodes predicted_efficiency (T(N) = b/N + a + c log2 N)\n");
	CHECK(strstr(gp, "model.dat") == NULL);
	free(dat);
	free(gp);
	ana_run_free(&run);
	/* on a cluster (no host_cpus) the same growth predicts, its rest named by the
	 * baseline's largest share, what limits scaling said to be inflated */
	struct ana_run cl = { .campaign = strdup("t"),
			      .run_id = strdup("r"),
			      .run_dir = strdup(dir),
			      .th = { 20, 30, 70, 90, 20 } };
	add(&cl, "k1", "COMPLETED", 1, 1);
	add(&cl, "k2", "COMPLETED", 2, 1);
	add(&cl, "k4", "COMPLETED", 4, 1);
	CHECK(ana_run_analyse(&cl) == 0);
	m = &cl.models[0];
	CHECK(m->contention.found && !m->contention.oversubscribed && m->predicts);
	char *limit = model_limit(m);
	CHECK(strstr(limit,
		     "x log2(N) ms (time other than compute; at 1 node its largest part is exposed communication and waiting for peers, 50.0 % of the step), so scaling is limited by communication (the largest part of the rest at 4 nodes), inflated by the ranks contending for the machine (see below), which outgrows compute") !=
	      NULL);
	free(limit);
	CHECK(ana_run_write(&cl) == 0);
	char *dat2 = read_in("figures/data/model.dat"), *gp2 = read_in("figures/scaling.gp");
	CHECK(strstr(dat2, "# k1\n1 1.0000\n") != NULL);
	CHECK(strstr(gp2,
		     "'data/model.dat' index 0 using 1:2 with lines dt 2 lw 1.5 lc 1 title 'k1 model'") !=
	      NULL);
	free(dat2);
	free(gp2);
	ana_run_free(&cl);
	/* compute grew more than anything else: the slowdown is contention first */
	exact("j1", 1, 64, 10, 10, 0, NULL);
	exact("j2", 2, 128, 20, 11, 0, NULL);
	exact("j4", 4, 256, 30, 12, 0, NULL);
	struct ana_run cj = { .campaign = strdup("t"),
			      .run_id = strdup("r"),
			      .run_dir = strdup(dir),
			      .th = { 20, 30, 70, 90, 20 } };
	add(&cj, "j1", "COMPLETED", 1, 1);
	add(&cj, "j2", "COMPLETED", 2, 1);
	add(&cj, "j4", "COMPLETED", 4, 1);
	CHECK(ana_run_analyse(&cj) == 0);
	struct strbuf sb = STRBUF_INIT;
	scaling_text_contention(&sb, &cj.models[0], 0);
	CHECK_STR(
		sb.buf,
		"Per-rank compute grew 3.0x (95 % CI 3.0-3.0x), from 10.00 ms at 1 node to 30.00 ms at 4 nodes, with the same work per rank: the ranks contend for CPUs, memory bandwidth or the network; compute grew more than any other part of the step, so the slowdown is first of all contention.");
	strbuf_free(&sb);
	ana_run_free(&cj);
	/* a share is never said to be 100 % below 99.95 */
	char pct[32];
	scaling_text_pct(pct, sizeof pct, 99.946);
	CHECK_STR(pct, "99.9 %");
	scaling_text_pct(pct, sizeof pct, 99.97);
	CHECK_STR(pct, "nearly all");
	scaling_text_pct(pct, sizeof pct, 100);
	CHECK_STR(pct, "100 %");
	scaling_text_pct(pct, sizeof pct, 99.4);
	CHECK_STR(pct, "99 %");
}

/* The decision alone: the largest share, ties to the first, the runner-up
 * of another verdict, borderline within 20 % or when the runner-up is larger
 * in a quarter of the steps, nothing from zeros; flags only over their
 * thresholds. */
static void test_verdict_decide(void)
{
	struct verdict_out v;
	struct candidate c[] = {
		{ SHARE_COMPUTE, VERDICT_COMPUTE, 78 },
		{ SHARE_COMMUNICATION, VERDICT_COMMUNICATION, 21.1 },
		{ SHARE_DATA, VERDICT_DATA_LOADER, 0.5 },
	};
	verdict_decide(c, 3, &v);
	CHECK(v.verdict == VERDICT_COMPUTE && v.share == SHARE_COMPUTE && !v.borderline);
	CHECK(v.runner_up == VERDICT_COMMUNICATION && v.runner_pct == 21.1);
	c[1].pct = 65; /* within 20 % of 78 */
	verdict_decide(c, 3, &v);
	CHECK(v.borderline && v.runner_up == VERDICT_COMMUNICATION);
	c[1].pct = 60; /* 23 % below: not within 20 % */
	verdict_decide(c, 3, &v);
	CHECK(!v.borderline);
	verdict_flips(&v, 2, 12); /* the runner-up larger in 2 of 12 steps: still sure */
	CHECK(!v.borderline && v.flips == 2 && v.steps == 12);
	verdict_flips(&v, 3, 12); /* in a quarter of them: could go either way */
	CHECK(v.borderline);
	/* the runner-up is of another verdict */
	struct candidate m[] = {
		{ SHARE_COMPUTE, VERDICT_MEMORY, 40 },
		{ SHARE_COPIES, VERDICT_MEMORY, 39 },
		{ SHARE_HOST, VERDICT_HOST, 10 },
	};
	verdict_decide(m, 3, &v);
	CHECK(v.verdict == VERDICT_MEMORY && v.runner_up == VERDICT_HOST && !v.borderline);
	struct candidate z[] = { { SHARE_COMPUTE, VERDICT_COMPUTE, 0 },
				 { SHARE_IO, VERDICT_IO, 0 } };
	verdict_decide(z, 2, &v);
	CHECK(v.verdict == VERDICT_UNDETERMINED);
	verdict_decide(c, 0, &v);
	CHECK(v.verdict == VERDICT_UNDETERMINED && v.nflags == 0);
	verdict_flag(&v, FLAG_COMMUNICATION, 20, 20); /* at the threshold: not over it */
	verdict_flag(&v, FLAG_DATA, 30.5, 30);
	verdict_flag(&v, FLAG_IO, 50, 0); /* no threshold: no flag */
	CHECK(v.nflags == 1 && v.flags[0].kind == FLAG_DATA);
	for (int k = 0; k < VERDICT_N; k++)
		CHECK(strcmp(verdict_name((enum verdict)k), "undetermined") || k == 0);
}

/* The candidates of s as its analysis decides on them (their shares kept in
 * s->outcome.v), for a scenario made by hand. */
static void decided(struct ana_scenario *s)
{
	struct candidate c[SHARE_N];
	verdict_decide(c, ana_candidates(s, c), &s->outcome.v);
}

/* Every verdict kind gets its own advice, never another's words, with the
 * predicted step where the accounting gives a ceiling. */
static void test_advice_every_kind(void)
{
	struct ana_run run = new_run(0);
	struct ana_scenario s = { 0 };
	s.in.name = "x";
	s.data.analysed = 1;
	s.shares.shares_known = 1;
	s.outcome.basis = BASIS_HOST;
	s.outcome.wait_to = SHARE_COMMUNICATION; /* no straggler: waiting is communication's */
	s.steps.step_med_ms = 100;
	s.shares.comm_pct = 20, s.shares.sync_wait_pct = 11, s.shares.data_pct = 19,
	s.shares.io_pct = 7, s.shares.other_pct = 3, s.shares.compute_pct = 40;
	decided(&s);
	struct { enum verdict v; enum share_kind sh; enum rec_kind k; double pred; } want[] = {
		{ VERDICT_COMPUTE, SHARE_COMPUTE, REC_KERNELS, -1 },
		{ VERDICT_MEMORY, SHARE_COMPUTE, REC_ELEMENTWISE, -1 },
		{ VERDICT_COMMUNICATION, SHARE_COMMUNICATION, REC_COMMUNICATION, 69 },
		{ VERDICT_DATA_LOADER, SHARE_DATA, REC_DATA, 81 },
		{ VERDICT_IO, SHARE_IO, REC_IO, 93 },
		{ VERDICT_HOST, SHARE_HOST, REC_HOST, 97 },
		{ VERDICT_GPU_STARVED, SHARE_COMPUTE, REC_COLLECT, -1 },
		{ VERDICT_UNDETERMINED, SHARE_COMPUTE, REC_COLLECT, -1 },
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		s.outcome.v.verdict = want[i].v;
		s.outcome.v.share = want[i].sh;
		CHECK(advice_kind_of(&s) == want[i].k);
		CHECK_NEAR(advice_predicted_ms(&s, want[i].k), want[i].pred, 1e-9);
	}
	/* a straggler whose cause no phase explains: its impact is the ceiling */
	s.comm.n_stragglers = 1;
	s.outcome.wait_to = SHARE_PEER_WAIT;
	s.comm.stragglers[0].impact_pct = 69;
	decided(&s);
	s.outcome.v.verdict = VERDICT_STRAGGLER;
	CHECK(advice_kind_of(&s) == REC_STRAGGLER);
	CHECK_NEAR(advice_predicted_ms(&s, REC_STRAGGLER), 31, 1e-9);
	/* with a straggler named, communication is the transfer alone */
	CHECK_NEAR(advice_predicted_ms(&s, REC_COMMUNICATION), 80, 1e-9);
	/* a straggler whose cause is data loading: removing data loading removes its wait */
	s.outcome.wait_to = SHARE_DATA;
	decided(&s);
	CHECK_NEAR(advice_predicted_ms(&s, REC_DATA), 70, 1e-9);
	/* ... so the straggler's gain is part of the data-loading one's: they overlap */
	s.outcome.v.verdict = VERDICT_DATA_LOADER;
	s.outcome.v.share = SHARE_DATA;
	CHECK(advice_overlap(&s) == REC_DATA);
	s.outcome.v.verdict = VERDICT_COMMUNICATION; /* its ceiling holds no such wait */
	s.outcome.v.share = SHARE_COMMUNICATION;
	CHECK(advice_overlap(&s) == REC_KIND_N);
	s.outcome.v.verdict = VERDICT_COMPUTE; /* no ceiling at all: nothing to overlap */
	s.outcome.v.share = SHARE_COMPUTE;
	s.outcome.wait_to = SHARE_PEER_WAIT;
	CHECK(advice_overlap(&s) == REC_KIND_N);
	s.outcome.wait_to = SHARE_DATA;
	/* on the GPU, when it is the limit, the host's own step is a floor */
	s.outcome.basis = BASIS_GPU;
	s.gpu.gpu_pct[GPU_COMM] = 62;
	s.gpu.gpu_limits = 1;
	s.gpu.host_step_med_ms = 50;
	decided(&s);
	CHECK_NEAR(advice_predicted_ms(&s, REC_COMMUNICATION), 50, 1e-9);
	s.gpu.gpu_limits = 0;
	CHECK_NEAR(advice_predicted_ms(&s, REC_COMMUNICATION), 38, 1e-9);
	/* monitors alone: memory peak, no ceiling */
	s.outcome.basis = BASIS_MONITORS;
	s.outcome.v.verdict = VERDICT_MEMORY;
	CHECK(advice_kind_of(&s) == REC_MEMORY_PEAK);
	CHECK(advice_predicted_ms(&s, REC_MEMORY_PEAK) == -1);
	run_names_free(&run);
}

/* The contention sentence's measured efficiency is marked as the tables mark it when it is
 * by the means (the widest's steps not alike) */
static void test_contention_by_means(void)
{
	struct ana_model m = { 0 };
	snprintf(m.series, sizeof m.series, "k1");
	m.contention = (struct model_contention){ .found = 1, .oversubscribed = 1, .base_ms = 10,
						  .wide_ms = 14, .base_nodes = 1, .wide_nodes = 4,
						  .wide_eff = 0.3, .wide_by_means = 1 };
	m.contention.wide_eff_ci = (struct stats_interval){ .known = 1, .lo = 0.25, .hi = 0.35 };
	struct ana_run run = new_run(0);
	struct rec r = { 0 };
	CHECK(series_advice(&r, &m, &run) == 1);
	CHECK(r.text &&
	      strstr(r.text,
		     "so the measured 30 % efficiency by the means (95 % CI 25-35 %) at 4 nodes includes"));
	free(r.text);
	run_names_free(&run);
}

/* A speedup whose interval holds 1 is no speedup: said against the ideal (the ranks' ratio),
 * never as a neutral "no change" */
static void test_no_speedup_words(void)
{
	struct ana_scenario s = { 0 };
	s.scaling.speedup = 1.02, s.scaling.efficiency = 0.51;
	s.scaling.speedup_ci = (struct stats_interval){ .known = 1, .lo = 0.95, .hi = 1.08 };
	struct strbuf sb = STRBUF_INIT;
	scaling_text_speedup(&sb, &s);
	CHECK_STR(
		sb.buf,
		"speedup 1.02x (95 % CI 0.95-1.08; no measurable speedup over the baseline, where the ideal is 2x)");
	strbuf_reset(&sb);
	s.scaling.speedup = 0.8, s.scaling.speedup_ci.lo = 0.7, s.scaling.speedup_ci.hi = 0.9;
	scaling_text_speedup(&sb, &s);
	CHECK_STR(sb.buf, "speedup 0.80x (95 % CI 0.70-0.90; slower than the baseline)");
	strbuf_reset(&sb);
	/* a wider baseline (analysis.baseline): the ideal is under 1, and 1 is good news */
	s.scaling.speedup = 0.98, s.scaling.efficiency = 1.96;
	s.scaling.speedup_ci.lo = 0.9, s.scaling.speedup_ci.hi = 1.05;
	scaling_text_speedup(&sb, &s);
	CHECK_STR(
		sb.buf,
		"speedup 0.98x (95 % CI 0.90-1.05; no measurable change from the baseline, where the ideal is 0.5x)");
	strbuf_reset(&sb);
	/* a bound that two decimals would print as 1.00 keeps its side of 1: a third decimal */
	s.scaling.speedup = 1.54, s.scaling.efficiency = 0.77;
	s.scaling.speedup_ci.lo = 0.9962, s.scaling.speedup_ci.hi = 2.16;
	scaling_text_speedup(&sb, &s);
	CHECK_STR(
		sb.buf,
		"speedup 1.54x (95 % CI 0.996-2.16; no measurable speedup over the baseline, where the ideal is 2x)");
	strbuf_reset(&sb);
	s.scaling.speedup_ci.lo = 1.004; /* above 1: no "no measurable" and not 1.00 either */
	scaling_text_speedup(&sb, &s);
	CHECK_STR(sb.buf, "speedup 1.54x (95 % CI 1.004-2.16)");
	/* the same rule for percentages against 100 (efficiency): 99.6 is not "100" */
	CHECK(stats_bound_decimals(99.6, 100, 0) == 1 && stats_bound_decimals(100, 100, 0) == 0);
	CHECK(stats_bound_decimals(99.4, 100, 0) == 0 && stats_bound_decimals(0.9999, 1, 2) == 4);
	/* three significant figures: 0.0776, 5.43, 123, 12345; 99.96 is 100, 0.09996 0.100 */
	CHECK(stats_sig_decimals(0.0776, 3) == 4 && stats_sig_decimals(5.43, 3) == 2);
	CHECK(stats_sig_decimals(123.4, 3) == 0 && stats_sig_decimals(12345, 3) == 0);
	CHECK(stats_sig_decimals(99.96, 3) == 0 && stats_sig_decimals(0.09996, 3) == 3);
	CHECK(stats_sig_decimals(0, 3) == 0 && stats_sig_decimals(NAN, 3) == 0);
	strbuf_free(&sb);
}

/* The run's recommendations planned anew: the text of the first of kind k (NULL: none). */
static char *replanned_text(struct ana_run *run, enum rec_kind k)
{
	advice_free(run);
	advice_plan(run);
	for (size_t i = 0; i < run->nrecs; i++)
		if (run->recs[i].kind == k)
			return rec_text(&run->recs[i], run);
	return NULL;
}

/* A replayed change of under 2 % (c's communication): busy cores take up what it frees, or
 * other work sets the step, said so. */
static void no_gain_words(struct ana_run *run, struct ana_scenario *c)
{
	c->replay.cores = 2, c->replay.hosts = 1;
	c->replay.comm.step_ms = 99.5, c->replay.comm.mean_ms = 100.5;
	for (int busy = 0; busy < 2; busy++) {
		c->replay.comm.busy_pct = busy ? 95 : 30;
		char *t = replanned_text(run, REC_COMMUNICATION);
		CHECK(t &&
		      strstr(t,
			     busy ? ": no gain predicted: the 2 cores are busy 95 % of the changed replay, so the work it moves takes their time"
				  : ": no gain predicted: what it takes off is not what sets the step (other work does; the 2 cores are in use 30 %"));
		/* ... and said first: not a step to take first */
		CHECK(t &&
		      strstr(t,
			     "**comm-1n**: **no gain predicted** (its replay gains under 2 %): not a step to take first; "));
		CHECK(t && !strstr(t, "the node monitors saw")); /* (none here) */
		/* a change near the 2 % line to a tenth: -0.5 %, not "-0 %" or "-1 %" */
		CHECK(t && strstr(t, " -> 99.50 ms (-0.5 %"));
		free(t);
	}
	/* a slower step predicted: said so, not "gains under 2 %" */
	c->replay.comm.step_ms = 103, c->replay.comm.mean_ms = 103;
	char *slower = replanned_text(run, REC_COMMUNICATION);
	CHECK(slower &&
	      strstr(slower, "**no gain predicted** (its replay predicts a slower step): "));
	CHECK(slower && strstr(slower, " -> 103.00 ms (+3 %"));
	free(slower);
	c->replay.comm.step_ms = 99.5, c->replay.comm.mean_ms = 100.5;
	/* its other bound (all of the transfer per call) a slower step: said beside */
	double was = c->replay.comm.per_call_step_ms;
	c->replay.comm.per_call_step_ms = 140;
	slower = replanned_text(run, REC_COMMUNICATION);
	CHECK(slower &&
	      strstr(slower,
		     "**no gain predicted** (its replay gains under 2 %, and predicts a slower step under its other bound): "));
	free(slower);
	c->replay.comm.per_call_step_ms = was;
	/* node monitors that saw 38 % beside the replay's 95 %: why the two differ */
	c->mon.have_monitor = 1, c->mon.cpu_util_mean_pct = 38;
	c->mon.monitor_nodes = 1, c->mon.monitor_samples = 40;
	char *t = replanned_text(run, REC_COMMUNICATION);
	CHECK(t &&
	      strstr(t,
		     "so the work it moves takes their time as before (the node monitors saw its CPUs 38 % busy: they average the whole job, start-up and idle time included, where the replay counts the profiled steps alone"));
	free(t);
	c->mon.monitor_samples = 2; /* two samples: rough, and said so */
	t = replanned_text(run, REC_COMMUNICATION);
	CHECK(t &&
	      strstr(t, "(the node monitors saw its CPUs 38 % busy (rough: 2 samples a node): "));
	free(t);
	c->mon.have_monitor = 0;
}

/* A replay whose predicted steps are not alike (a checkpoint every few steps: median 4 ms,
 * mean 27) gains what its mean gains, the time per sample (73 %, not the median's 96 %): it
 * ranks below an 80 % gain of steps alike, and its words lead with the mean. */
/* A fragile median: round 11's cpu-2n, ten steps of 3.1-4.6 ms and ten of 5.6-8.6 (median
 * 5.118 between 4.595 and 5.64; the steps ranked one either side of those, 4.462 and 5.99,
 * 30 % of it apart); the slow mode's lowest two at 4.7 and 4.8 instead (4.462 to 4.8 around
 * 4.6475: 7 %); one mode of 20 steps 5.0-5.19 (0.6 %); and too few steps to say. */
static void test_median_fragile(void)
{
	double two[20] = { 3.111, 3.209, 3.556, 3.701, 3.867, 3.96,  4.247, 4.359, 4.462, 4.595,
			   5.64,  5.99,  7.869, 8.012, 8.018, 8.182, 8.225, 8.308, 8.319, 8.573 };
	double one[20];
	for (int i = 0; i < 20; i++)
		one[i] = 5.0 + 0.01 * i;
	CHECK(stats_median_fragile(two, 20));
	two[12] = 4.7, two[13] = 4.8;
	CHECK(!stats_median_fragile(two, 20));
	CHECK(!stats_median_fragile(one, 20));
	CHECK(!stats_median_fragile(two, 3));
	/* misleading: fragile, or not alike (a few much slower steps: median 1, mean 2.8) */
	double bursts[20];
	for (int i = 0; i < 20; i++)
		bursts[i] = i % 5 ? 1.0 : 10.0;
	CHECK(!stats_median_fragile(bursts, 20) && stats_median_misleads(bursts, 20));
	CHECK(!stats_median_misleads(one, 20) && !stats_median_misleads(one, 0));
}

/* A run's cpu-2n (two ranks on two cores): its measured steps alike enough, its replayed
 * ones moved between adjacent steps into two modes, the median at the top of the lower one
 * (4.68 ms against 5.37 measured, -12.8 %): judged by the means (+4.1 %), the replayed steps
 * named; the same steps as measured and replayed are judged by the medians. */
static void test_replay_judged_by(void)
{
	double mea[24] = { 8.158, 8.724, 11.122, 12.191, 6.136, 3.965, 4.105, 6.427,
			   5.135, 4.377, 5.479,	 6.272,	 4.04,	 4.189, 3.33,  5.235,
			   5.272, 3.827, 7.928,	 4.594,	 9.311,	 5.463, 4.667, 7.882 };
	double rep[24] = { 8.223, 8.788, 11.225, 12.352, 6.271, 4.012, 4.131, 7.424,
			   4.515, 4.111, 7.495,	 4.741,	 3.805,	 4.345, 3.464, 6.952,
			   3.581, 3.952, 8.053,	 4.616,	 10.791, 4.593, 4.609, 11.907 };
	CHECK(!stats_median_fragile(mea, 24) && stats_median_fragile(rep, 24));
	CHECK(replay_judged_by(rep, mea, 24) == REPLAY_MEANS_REPLAYED);
	CHECK(replay_judged_by(mea, rep, 24) == REPLAY_MEANS_MEASURED);
	CHECK(replay_judged_by(mea, mea, 24) == REPLAY_BY_MEDIANS);
	CHECK(replay_judged_by(rep, mea, 0) == REPLAY_BY_MEDIANS);
}

static void test_rec_by_means(void)
{
	struct ana_run run = new_run(0);
	struct ana_scenario *sc = xcalloc(2, sizeof *sc);
	const char *names[2] = { "io-1n", "comm-1n" };
	enum verdict v[2] = { VERDICT_IO, VERDICT_COMMUNICATION };
	enum share_kind sh[2] = { SHARE_IO, SHARE_COMMUNICATION };
	for (int i = 0; i < 2; i++) {
		struct ana_scenario *s = &sc[i];
		s->in.name = (char *)names[i];
		s->data.analysed = 1;
		s->shares.shares_known = 1;
		s->outcome.basis = BASIS_HOST;
		s->steps.step_med_ms = 100;
		s->replay.built = 1;
		s->replay.steps = 10;
		s->shares.comm_pct = s->shares.io_pct = 40, s->shares.compute_pct = 20;
		decided(s);
		s->outcome.v.verdict = v[i];
		s->outcome.v.share = sh[i];
	}
	sc[0].replay.io = (struct replay_pred){ .made = 1, .step_ms = 4, .lo_ms = 3, .hi_ms = 5,
						.mean_ms = 27, .mean_lo_ms = 25, .mean_hi_ms = 29,
						.measured_mean_ms = 100, .per_call_step_ms = -1,
						.proportional_step_ms = -1 };
	sc[1].replay.comm = (struct replay_pred){ .made = 1,
						  .step_ms = 20,
						  .lo_ms = 19,
						  .hi_ms = 21,
						  .mean_ms = 20.5,
						  .mean_lo_ms = 19,
						  .mean_hi_ms = 22,
						  .measured_mean_ms = 101,
						  .per_call_step_ms = -1,
						  .proportional_step_ms = -1 };
	run.sc = sc;
	run.n = 2;
	advice_plan(&run);
	CHECK(run.nrecs >= 2 && run.recs[0].kind == REC_COMMUNICATION);
	size_t k = 0;
	while (k < run.nrecs && run.recs[k].kind != REC_IO)
		k++;
	CHECK(k < run.nrecs && run.recs[k].by_means[0] && !run.recs[0].by_means[0]);
	CHECK(k < run.nrecs && fabs(run.recs[k].gain_pct - 73) < 1e-9);
	char *t = k < run.nrecs ? rec_text(&run.recs[k], &run) : NULL;
	CHECK(t && strstr(t, ". Step replayed with ") &&
	      strstr(t,
		     ": mean 100.00 -> 27.00 ms (-73 %; 95 % interval of the replayed mean 25.00-29.00 ms; its steps, measured or replayed, are not alike (their mean more than 25 % from their median)") &&
	      strstr(t, "), median 100.00 -> 4.00 ms (-96 %"));
	free(t);
	/* a median predicted above the ceiling (60: the share off the median), steps not
	 * alike: the ceiling is no "at most" there */
	double was = run.recs[k].predicted_ms[0];
	run.recs[k].predicted_ms[0] = 70;
	t = rec_text(&run.recs[k], &run);
	CHECK(t && !strstr(t, "at most") &&
	      strstr(t,
		     "; the ceiling says -40 % (60.00 ms), the cause's share of the summed step time taken off the median step, which bounds nothing where the steps are not alike"));
	free(t);
	run.recs[k].predicted_ms[0] = was;
	/* the mean's interval reaching the measured mean: no gain inside it too, said */
	t = rec_text(&run.recs[k], &run);
	CHECK(t && !strstr(t, "reaches the measured"));
	free(t);
	sc[0].replay.io.mean_hi_ms = 101;
	t = rec_text(&run.recs[k], &run);
	CHECK(t &&
	      strstr(t,
		     "; its interval of the mean reaches the measured mean 100.00 ms: no gain lies inside it too, so this replay cannot tell the gain from none"));
	free(t);
	sc[0].replay.io.mean_hi_ms = 29;
	t = rec_text(&run.recs[0], &run);
	CHECK(t && strstr(t, ". Median step replayed with ") && !strstr(t, "mean 10") &&
	      !strstr(t, "no gain predicted**"));
	free(t);
	/* a replay over 10 % off its measured median is flagged, not at 10 % */
	sc[1].replay.error_pct = -10;
	t = rec_text(&run.recs[0], &run);
	CHECK(t &&
	      strstr(t,
		     "; replay error -10.0 % (the unchanged graph against the measured median)") &&
	      !strstr(t, "rough"));
	free(t);
	sc[1].replay.error_pct = 12.5;
	t = rec_text(&run.recs[0], &run);
	CHECK(t &&
	      strstr(t,
		     "; replay error +12.5 % (the unchanged graph against the measured median), **over 10 %: a rough replay**, so its predictions are rough too"));
	free(t);
	/* steps not alike: the means' error leads and judges (+2.6 %: not rough), the medians'
	 * (+23.3 %) beside it */
	sc[1].replay.by_means = REPLAY_MEANS_MEASURED, sc[1].replay.mean_error_pct = 2.6;
	sc[1].replay.error_pct = 23.3;
	t = rec_text(&run.recs[0], &run);
	CHECK(t &&
	      strstr(t,
		     "; replay error +2.6 % by the means (the unchanged graph against the measured mean step: its steps are not alike; by the medians +23.3 %)") &&
	      !strstr(t, "rough"));
	free(t);
	/* the measured steps alike, the replayed ones not: whose is said */
	sc[1].replay.by_means = REPLAY_MEANS_REPLAYED;
	t = rec_text(&run.recs[0], &run);
	CHECK(t &&
	      strstr(t, "measured mean step: its replayed steps are not alike; by the medians") &&
	      strstr(t,
		     "+23.3 %), **its replayed median over 10 % off**: predictions of a median (ratios of replayed medians) are rough, those by the means are not"));
	free(t);
	sc[1].replay.by_means = 0, sc[1].replay.mean_error_pct = 0;
	sc[1].replay.error_pct = 0;
	/* an interval that reaches the measured median, and a mean that gains nothing: said */
	run.recs[0].lo_ms[0] = 15, run.recs[0].hi_ms[0] = 101;
	sc[1].replay.comm.mean_ms = 100;
	t = rec_text(&run.recs[0], &run);
	CHECK(t &&
	      strstr(t,
		     "; its interval reaches the measured 100.00 ms: no gain lies inside it too, so this replay cannot tell the gain from none; by the means, the time per sample over the run, 101.00 -> 100.00 ms (-1.0 %): no gain"));
	free(t);
	run.recs[0].lo_ms[0] = 19, run.recs[0].hi_ms[0] = 21;
	sc[1].replay.comm.mean_ms = 20.5;
	t = rec_text(&run.recs[0], &run);
	CHECK(t && !strstr(t, "its interval reaches") &&
	      !strstr(t, "by the means, the time per sample"));
	free(t);
	no_gain_words(&run, &sc[1]);
	/* one replayed step ranks nothing: the 73 % of ten steps comes first */
	sc[1].replay.comm.step_ms = 20, sc[1].replay.comm.mean_ms = 20.5;
	sc[1].replay.steps = 1;
	advice_free(&run);
	advice_plan(&run);
	CHECK(run.nrecs >= 2 && run.recs[0].kind == REC_IO);
	/* four, without an interval (replay_pred's -1: fewer than 5, as every sample of the
	 * report): no rank, no interval in words or in summary.json, a bound still a bound */
	sc[1].replay.steps = 4;
	sc[1].replay.comm.lo_ms = sc[1].replay.comm.hi_ms = -1;
	sc[1].replay.comm.mean_lo_ms = sc[1].replay.comm.mean_hi_ms = -1;
	advice_free(&run);
	advice_plan(&run);
	CHECK(run.nrecs >= 2 && run.recs[0].kind == REC_IO &&
	      run.recs[1].kind == REC_COMMUNICATION);
	t = rec_text(&run.recs[1], &run);
	CHECK(t &&
	      strstr(t,
		     "100.00 -> 20.00 ms (-80 %; 4 steps replayed: too few for an interval or a rank among the recommendations)"));
	free(t);
	json_t *js = recs_json(&run);
	CHECK(json_is_null(json_array_get(
		json_object_get(json_array_get(js, 1), "predicted_interval_ms"), 0)));
	CHECK(json_is_null(json_array_get(
		json_object_get(json_array_get(js, 1), "predicted_mean_interval_ms"), 0)));
	json_decref(js);
	sc[1].replay.comm.bound = 1;
	advice_free(&run);
	advice_plan(&run);
	t = rec_text(&run.recs[1], &run);
	CHECK(t &&
	      strstr(t,
		     "not what they will; between it and the measured step, none (4 steps replayed: 5 or more give one))"));
	free(t);
	/* ten replayed, too few timed in both replays: no interval, no rank; the words say why */
	sc[1].replay.steps = 10;
	advice_free(&run);
	advice_plan(&run);
	CHECK(run.nrecs >= 2 && run.recs[0].kind == REC_IO);
	t = rec_text(&run.recs[1], &run);
	CHECK(t &&
	      strstr(t,
		     "between it and the measured step, none (too few of its steps were timed in both replays for one))"));
	free(t);
	sc[1].replay.comm.bound = 0;
	advice_free(&run);
	advice_plan(&run);
	t = rec_text(&run.recs[1], &run);
	CHECK(t &&
	      strstr(t,
		     "100.00 -> 20.00 ms (-80 %; no interval: too few of its steps were timed in both replays for one, so no rank among the recommendations)"));
	free(t);
	/* every step moved by nothing: no spread, not an interval of zero width */
	sc[1].replay.comm.lo_ms = sc[1].replay.comm.hi_ms = 20;
	advice_free(&run);
	advice_plan(&run);
	t = rec_text(&run.recs[0], &run);
	CHECK(t &&
	      strstr(t,
		     "100.00 -> 20.00 ms (-80 %; its replayed steps all moved alike: no spread to give an interval)"));
	free(t);
	advice_free(&run);
	free(sc);
	run_names_free(&run);
}

/* A straggler's advice: a rank's own (balance its work), or a node's where every rank of a
 * real node is slow (check it); the local executor's emulated node is this machine, not a
 * node to check. */
static void test_straggler_advice_node(void)
{
	struct ana_run run = new_run(0);
	struct ana_scenario *s = xcalloc(2, sizeof *s);
	s->in.name = "sn";
	s->data.analysed = 1;
	s->shares.shares_known = 1;
	s->outcome.basis = BASIS_HOST;
	s->steps.step_med_ms = 100;
	s->shares.sync_wait_pct = 45, s->shares.compute_pct = 47, s->shares.comm_pct = 8;
	s->comm.n_stragglers = 2;
	for (int i = 0; i < 2; i++) {
		struct straggler *g = &s->comm.stragglers[i];
		g->rank = 2 + i, g->impact_pct = 88, g->cause_kind = STRAGGLER_COMPUTE;
		g->arrived_last_pct = 100, g->last_steps = 8;
		snprintf(g->node, sizeof g->node, "b");
	}
	s->comm.stragglers[1].together = 1;
	snprintf(s->comm.slow_node, sizeof s->comm.slow_node, "b");
	s->outcome.wait_to = SHARE_PEER_WAIT;
	decided(s);
	s->outcome.v.verdict = VERDICT_STRAGGLER, s->outcome.v.share = SHARE_PEER_WAIT;
	/* beside an even scenario of the same shape: its measurement set beside the ceiling */
	s[1].in.name = "even";
	struct collective ca = { .op = COLL_ALL_REDUCE, .size_class = 5, .latency_med = 6 },
			  cb = { .op = COLL_ALL_REDUCE, .size_class = 5, .latency_med = 8.15 };
	s[0].comm.colls = &ca, s[0].comm.ncolls = 1;
	s[1].comm.colls = &cb, s[1].comm.ncolls = 1;
	s[0].in.series = "gloo/2/0;extra=--slow-rank 3;steps=9";
	s[1].in.series = "gloo/2/0;extra=;steps=9;env#2";
	s[1].data.analysed = 1;
	s[1].steps.step_med_ms = 14.5, s[1].steps.step_p95_ms = 16.25;
	run.sc = s;
	run.n = 2;
	for (int emulated = 0; emulated < 2; emulated++) {
		s->comm.slow_node_emulated = emulated;
		advice_free(&run);
		advice_plan(&run);
		char *t = run.nrecs ? rec_text(&run.recs[0], &run) : NULL;
		CHECK(t &&
		      strstr(t,
			     emulated
				     ? "; balance their data or work before tuning the collectives"
				     : "; check b (every rank of it is slow: its load, clocks or hardware) or run without it, before tuning the collectives"));
		CHECK(t && strstr(t, "(a ceiling, from the ") &&
		      strstr(t,
			     "100.00 -> 12.00 ms (-88 %); beside it, `even`, of the same nodes and ranks with no straggler named (set apart by its `extra` parameter and its environment), measured 14.50 ms (p95 16.25 ms): a counterpart to set it against, not a check of it; its all_reduce's transfer (the latency once every rank has arrived) took 6.00 ms a call here, 8.15 ms in `even`: the replay keeps this run's"));
		free(t);
	}
	advice_free(&run);
	free(s);
	run_names_free(&run);
}

/* A scenario (calloc'd) analysed on the host's step of 100 ms, rank 3 its one straggler,
 * of compute (its waiting a candidate of its own): the shares are the caller's. */
static struct ana_scenario *compute_straggled(char *name)
{
	struct ana_scenario *s = xcalloc(1, sizeof *s);
	s->in.name = name;
	s->data.analysed = 1;
	s->shares.shares_known = 1;
	s->outcome.basis = BASIS_HOST;
	s->steps.step_med_ms = 100;
	s->comm.n_stragglers = 1;
	s->comm.stragglers[0].rank = 3, s->comm.stragglers[0].cause_kind = STRAGGLER_COMPUTE;
	s->comm.stragglers[0].arrived_last_pct = 100, s->comm.stragglers[0].last_steps = 8;
	s->outcome.wait_to = SHARE_PEER_WAIT;
	return s;
}

/* Compute wins beside a compute straggler: its share is compute less the straggler's own
 * extra (counted with the waiting for it), and the evidence, the advice and the runner-up
 * say both parts, never the column alone. */
static void test_compute_beside_excess(void)
{
	struct ana_run run = new_run(0);
	struct ana_scenario *s = compute_straggled("ce");
	s->shares.compute_pct = 60, s->shares.sync_wait_pct = 22, s->shares.comm_pct = 18;
	s->outcome.excess_pct = 15;
	decided(s);
	CHECK(s->outcome.v.verdict == VERDICT_COMPUTE && s->outcome.v.share == SHARE_COMPUTE);
	CHECK_NEAR(s->outcome.v.pct, 45, 1e-9);
	CHECK_NEAR(s->outcome.v.runner_pct, 37, 1e-9);
	const char *e = E(s, &run);
	CHECK(strstr(
		e,
		"compute takes 45.0 % of step time, the largest share: of compute's 60.0 %, the 15.0 % that is the slower ranks' own extra compute counts with the waiting for them"));
	CHECK(strstr(
		e,
		"; **borderline**: waiting for slower ranks and their own extra compute take 37.0 %"));
	run.sc = s;
	run.n = 1;
	advice_plan(&run);
	char *t = NULL;
	for (size_t i = 0; i < run.nrecs && !t; i++)
		if (run.recs[i].kind == REC_KERNELS)
			t = rec_text(&run.recs[i], &run);
	CHECK(run.nrecs == 2);
	CHECK(t && strstr(t, "compute-bound (45.0 % compute)"));
	CHECK(t &&
	      strstr(t,
		     "; the extra compute of rank 3 (15.0 % of step time) and the other ranks' waiting for it (22.0 %) go with the straggler's recommendation"));
	CHECK(t &&
	      strstr(t,
		     ". But waiting for slower ranks and their own extra compute take nearly as much of the step in ce (37.0 against 45.0 %, borderline)"));
	free(t);
	advice_free(&run);
	free(s);
	run_names_free(&run);
}

/* Rounded parts: compute 60.04 less an extra of 14.96 is said as 60.0 less 15.0, 45.0 (not
 * 45.1); a straggler-bound verdict's compute runner-up is named as compute less that extra.
 * Only the first straggler group's extra counts (the one the waiting follows). */
static void test_excess_rounding_and_groups(void)
{
	struct ana_run run = new_run(0);
	struct ana_scenario *s = compute_straggled("cr");
	s->shares.compute_pct = 60.04, s->shares.sync_wait_pct = 20, s->shares.comm_pct = 19.96;
	s->outcome.excess_pct = 14.96;
	decided(s);
	CHECK(s->outcome.v.share == SHARE_COMPUTE);
	CHECK(strstr(
		E(s, &run),
		"compute takes 45.0 % of step time, the largest share: of compute's 60.0 %, the 15.0 %"));
	/* the waiting larger: straggler-bound, compute beyond the extra the close second */
	s->shares.sync_wait_pct = 35, s->shares.comm_pct = 4.96;
	decided(s);
	CHECK(s->outcome.v.share == SHARE_PEER_WAIT);
	CHECK(strstr(
		E(s, &run),
		"; **borderline**: compute beyond the slower ranks' own extra takes 45.0 %, within 20 % of it"));
	CHECK(strstr(
		E(s, &run),
		"take 50.0 % of all ranks' time, the largest share (35.0 % the other ranks waiting, 15.0 %"));
	free(s);
	run_names_free(&run);
	/* two straggler groups of compute: the first's extra alone, 20 ms of 4 x 100 ms: 5 % */
	struct ana_run r2 = new_run(0);
	struct ana_scenario g = { 0 };
	struct rank_metrics rm = { 0 };
	struct scenario_metrics m = { &rm, 1 };
	g.shares.shares_known = 1;
	g.shares.compute_pct = 60, g.shares.sync_wait_pct = 30, g.shares.comm_pct = 10;
	g.shares.share_ranks = 4, g.shares.rank_step_mean_ms = 100;
	g.comm.n_stragglers = 2;
	g.comm.stragglers[0].rank = 3, g.comm.stragglers[0].cause_kind = STRAGGLER_COMPUTE;
	g.comm.stragglers[0].cause_ms = 20;
	g.comm.stragglers[1].rank = 1, g.comm.stragglers[1].cause_kind = STRAGGLER_COMPUTE;
	g.comm.stragglers[1].cause_ms = 10;
	accounting_outcome(&g, &r2, &m);
	CHECK(g.outcome.wait_to == SHARE_PEER_WAIT);
	CHECK_NEAR(g.outcome.excess_pct, 5, 1e-9);
	g.comm.stragglers[1].together = 1; /* one group: both ranks' extra */
	accounting_outcome(&g, &r2, &m);
	CHECK_NEAR(g.outcome.excess_pct, 7.5, 1e-9);
	run_names_free(&r2);
}

/* Step times alone (step lines of the logs) at 1, 2 and 4 nodes: shares are
 * unknown, so no verdict, no recommendation and no model term come from
 * them; the model fits step time without a compute term and says so. */
static void step_log(const char *name, int ranks, double ms)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s/logs", dir, name);
	fsio_mkdir_p(path, 0755);
	for (int r = 0; r < ranks; r++) {
		snprintf(path, sizeof path, "%s/%s/logs/rank_%d.out", dir, name, r);
		FILE *f = fopen(path, "w");
		for (int st = 0; st < 6; st++)
			fprintf(f, "step %d time %.2f ms\n", st, ms + 0.01 * st);
		fclose(f);
	}
}

/* Scenarios NAME1, NAME2 and NAME4 of series SERIES (1, 2 and 4 nodes of one rank, step
 * lines of ms[0..2] ms, the global batch 64 in each), analysed and written. */
static struct ana_run step_log_series(const char *name, const char *series, const double ms[3])
{
	static const int nodes[] = { 1, 2, 4 };
	struct ana_run run = new_run(0);
	run.global_batch = 64;
	run.step_log = strdup("step (?<step>\\d+) time (?<step_ms>[0-9.]+) ms");
	for (int k = 0; k < 3; k++) {
		char sc[16];
		snprintf(sc, sizeof sc, "%s%d", name, nodes[k]);
		step_log(sc, nodes[k], ms[k]);
		add_in(&run, sc, nodes[k], 1, series);
	}
	CHECK(ana_run_analyse(&run) == 0);
	CHECK(ana_run_write(&run) == 0);
	return run;
}

static void test_unknown_shares(void)
{
	struct ana_run run = step_log_series("l", "L", (const double[3]){ 100, 160, 330 });
	for (int i = 0; i < 3; i++) {
		CHECK(run.sc[i].data.analysed && !run.sc[i].shares.shares_known);
		CHECK_STR(V(&run.sc[i]), "undetermined");
		CHECK(run.sc[i].outcome.basis == BASIS_NONE);
	}
	CHECK(run.nmodels == 1 && run.models[0].step_only && run.models[0].b == 0);
	char *limit = model_limit(&run.models[0]);
	CHECK(strstr(limit, "without a compute term") != NULL);
	CHECK(strstr(limit, "limited by") == NULL);
	free(limit);
	CHECK(run.nrecs == 1 && run.recs[0].kind == REC_COLLECT && run.recs[0].n == 3);
	CHECK(run.recs[0].gain_pct == 0 && run.recs[0].basis == REC_BASIS_NONE);
	char p[600], *md;
	snprintf(p, sizeof p, "%s/BOTTLENECK_ANALYSIS.md", dir);
	CHECK(fsio_read(p, 1 << 20, &md, NULL) == 0);
	*strstr(md, "## Methodology") = '\0'; /* which describes every verdict */
	CHECK(strstr(md, "0.0 % compute") == NULL && strstr(md, "compute-bound") == NULL);
	CHECK(strstr(md, "compute takes") == NULL && strstr(md, "unaccounted") == NULL);
	CHECK(strstr(md,
		     "- **l1** (1 node, 1 rank, gloo): **undetermined**: where step time goes is not known.") !=
	      NULL);
	CHECK(strstr(md, "| l2 | 2 | 2 | 64 | ") != NULL &&
	      strstr(md, " | n/a | n/a | n/a |") != NULL);
	CHECK(strstr(md, "T(N) = ") != NULL &&
	      strstr(md, "(no compute term: step times only)") != NULL);
	CHECK(strstr(md, "**l1**, **l2**, **l4**: where step time goes is not known") != NULL);
	snprintf(p, sizeof p, "%s/l1/report.txt", dir);
	char *txt;
	CHECK(fsio_read(p, 1 << 20, &txt, NULL) == 0);
	CHECK(strstr(txt,
		     "\ndata, compute, communication, waiting for peers, I/O, other: n/a (step times only)\n") !=
	      NULL);
	free(txt);
	/* no figure of shares nobody knows; the step times are drawn */
	CHECK(strstr(md, "figures/breakdown.svg") == NULL &&
	      strstr(md, "figures/phases.svg") == NULL);
	CHECK(strstr(md, "figures/timeline.svg") != NULL);
	free(md);
	snprintf(p, sizeof p, "%s/summary.json", dir);
	json_t *j = json_load_file(p, 0, NULL);
	json_t *s0 = json_array_get(json_object_get(j, "scenarios"), 0);
	CHECK(json_is_null(json_object_get(s0, "shares_pct")));
	CHECK(json_is_null(json_object_get(s0, "verdict_share")));
	CHECK(json_is_null(json_object_get(s0, "overlap_pct")));
	json_t *m = json_array_get(json_object_get(j, "scaling_models"), 0);
	CHECK(json_is_false(json_object_get(m, "compute_term")));
	json_t *r = json_array_get(json_object_get(j, "recommendations"), 0);
	CHECK_STR(json_string_value(json_object_get(r, "kind")), "collect");
	CHECK(json_is_null(json_array_get(json_object_get(r, "predicted_step_ms"), 0)));
	json_decref(j);
	ana_run_free(&run);
	/* a model far from its points (off by over 10 %) predicts nothing */
	struct ana_run r2 = step_log_series("p", "P", (const double[3]){ 100, 300, 120 });
	CHECK(r2.nmodels == 1 && r2.models[0].max_err_pct > MODEL_FITS_PCT);
	snprintf(p, sizeof p, "%s/BOTTLENECK_ANALYSIS.md", dir);
	CHECK(fsio_read(p, 1 << 20, &md, NULL) == 0);
	CHECK(strstr(md, "The model does not fit the measured points") != NULL);
	CHECK(strstr(md, "No prediction is drawn from it.") != NULL);
	CHECK(strstr(md, "Predicted parallel efficiency") == NULL);
	CHECK(strstr(md, "at scale**") == NULL); /* no advice from it */
	free(md);
	ana_run_free(&r2);
	/* step times that fall as nodes are added (100, 60, 40 ms): a + c log2(N), c >= 0, is
	 * flat at best and off by far: no model is printed, and it is said why */
	struct ana_run r3 = step_log_series("f", "F", (const double[3]){ 100, 60, 40 });
	CHECK(r3.nmodels == 1 && r3.models[0].c <= 0 && r3.models[0].max_err_pct > MODEL_FITS_PCT);
	CHECK(fsio_read(p, 1 << 20, &md, NULL) == 0);
	CHECK(strstr(md,
		     "**Model for the series of f1**: none. Its step times fall as nodes are added") !=
	      NULL);
	CHECK(strstr(md, "T(N) = ") == NULL && strstr(md, "Predicted parallel efficiency") == NULL);
	free(md);
	ana_run_free(&r3);
}

/* A node monitor's file of one node: rows of cpu_util_pct (CPU) or utilization.gpu (GPU). */
static void monitor_rows(const char *name, const char *file, const char *head, const char *rows)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s/monitor/n1", dir, name);
	fsio_mkdir_p(path, 0755);
	snprintf(path, sizeof path, "%s/%s/monitor/n1/%s", dir, name, file);
	FILE *f = fopen(path, "w");
	fputs(head, f);
	fputs(rows, f);
	fclose(f);
}

/* Step lines and node monitors, no breakdown (issue 45, point 6): CPUs busy 99.7 % name
 * the resource, cpu-saturated, with no share of compute anywhere; 4 ranks (workers) on 2
 * CPUs are oversubscribed, said once. GPUs busy from the monitors alone: compute-bound from
 * their busy share, never a compute share of 0.0 %. */
static void test_monitors_name_the_resource(void)
{
	static const char cpu_head[] =
		"timestamp,node,interval_s,cpu_util_pct,iowait_pct,load1,mem_used_mib,mem_total_mib,disk_read_bytes,disk_write_bytes,net_rx_bytes,net_tx_bytes\n";
	char gpu[512];
	step_log("cs", 4, 40);
	monitor_rows(
		"cs", "cpu_monitor.csv", cpu_head,
		"1,n1,0.5,99.4,0.0,4,100,1000,0,0,0,0\n2,n1,0.5,100.0,0.0,4,120,1000,0,0,0,0\n");
	step_log("gb", 1, 40);
	snprintf(
		gpu, sizeof gpu,
		"%s2026/11/21 10:00:00.000, 0, 95 %%, 40 %%, 8000 MiB, 80000 MiB, 300 W, 1410 MHz, n1\n",
		gpu_head);
	monitor_rows("gb", "gpu_monitor.csv", "", gpu);
	monitor_rows("gb", "cpu_monitor.csv", cpu_head, "1,n1,0.5,30.0,0.0,1,100,1000,0,0,0,0\n");
	struct ana_run run = new_run(0);
	run.host_cpus = 2;
	run.step_log = strdup("step (?<step>\\d+) time (?<step_ms>[0-9.]+) ms");
	add_in(&run, "cs", 2, 2, "C");
	add_in(&run, "gb", 1, 1, "G");
	CHECK(ana_run_analyse(&run) == 0);
	struct ana_scenario *c = &run.sc[0], *g = &run.sc[1];
	CHECK_STR(V(c), "cpu-saturated");
	CHECK(c->outcome.basis == BASIS_MONITORS && c->outcome.oversubscribed);
	CHECK_STR(
		E(c, &run),
		"from the node monitors: CPUs busy 99.7 % of the time (90 % or more: saturated); which work keeps them busy, and what share of the step it takes, needs traces or telemetry; the local executor ran 4 ranks on this machine's 2 CPUs, so the ranks share them and also wait for CPU time: on real nodes their steps may be shorter");
	CHECK_STR(V(g), "compute-bound");
	CHECK(g->outcome.basis == BASIS_MONITORS && !g->outcome.oversubscribed);
	CHECK(ana_run_write(&run) == 0);
	char p[600], *md;
	snprintf(p, sizeof p, "%s/BOTTLENECK_ANALYSIS.md", dir);
	CHECK(fsio_read(p, 1 << 20, &md, NULL) == 0);
	*strstr(md, "## Methodology") = '\0';
	CHECK(strstr(md,
		     "- **cs** (2 nodes, 4 ranks, gloo): **cpu-saturated** (CPUs busy 99.7 %). Median step ") !=
	      NULL);
	CHECK(strstr(md,
		     "- **gb** (1 node, 1 rank, gloo): **compute-bound** (GPUs busy 95.0 %). Median step ") !=
	      NULL);
	CHECK(strstr(md,
		     "**cs**: the CPUs are saturated (busy 99.7 % of the time, from the node monitors), and more ranks ran than this machine's 2 CPUs: run fewer ranks per machine") !=
	      NULL);
	CHECK(strstr(md,
		     "**gb**: compute-bound (from the node monitors: GPUs busy 95.0 %): gains come") !=
	      NULL);
	CHECK(strstr(md, "% compute") == NULL && strstr(md, "compute takes") == NULL);
	free(md);
	snprintf(p, sizeof p, "%s/summary.json", dir);
	json_t *j = json_load_file(p, 0, NULL);
	json_t *s0 = json_array_get(json_object_get(j, "scenarios"), 0);
	CHECK_STR(json_string_value(json_object_get(s0, "verdict")), "cpu-saturated");
	CHECK(json_is_null(json_object_get(s0, "verdict_share")));
	CHECK(json_is_null(json_object_get(s0, "shares_pct")));
	CHECK(json_is_true(json_object_get(s0, "oversubscribed")));
	json_decref(j);
	ana_run_free(&run);
}

/* report.txt gives every share the table gives (I/O too), on the verdict's basis and named
 * so; unknown shares are n/a, a rate that is not 0 never reads 0 */
static void test_report_shares(void)
{
	char path[600], *txt;
	snprintf(path, sizeof path, "%s/io/metrics", dir);
	fsio_mkdir_p(path, 0755);
	snprintf(path, sizeof path, "%s/io/metrics/rank_0.jsonl", dir);
	FILE *f = fopen(path, "w");
	fprintf(f,
		"{\"type\": \"meta\", \"rank\": 0, \"world_size\": 1, \"global_batch\": 8, \"flops_per_step\": 3870000}\n");
	for (int st = 0; st < 6; st++)
		fprintf(f,
			"{\"type\": \"step\", \"step\": %d, \"phase\": \"active\", \"data_wait_ms\": 5, \"forward_ms\": 10, \"backward_ms\": 10, \"comm_ms\": 0, \"optimizer_ms\": 0, \"io_ms\": 70, \"step_ms\": 100, \"samples\": 8}\n",
			st);
	fclose(f);
	struct ana_run run = new_run(0);
	add(&run, "io", "COMPLETED", 1, 1);
	CHECK(ana_run_analyse(&run) == 0);
	CHECK_STR(V(&run.sc[0]), "io-bound");
	CHECK(ana_run_write(&run) == 0);
	snprintf(path, sizeof path, "%s/io/report.txt", dir);
	CHECK(fsio_read(path, 1 << 20, &txt, NULL) == 0);
	CHECK(strstr(txt,
		     "\nmedian step 100.00 ms, p95 100.00 ms (rough: fewer than 20 steps), 80.0 samples/s\nshares of the host's step: data 5.0 %, compute 20.0 %, communication 0.0 %, waiting for peers 0.0 %, I/O 70.0 %, other 5.0 %\n") !=
	      NULL);
	free(txt);
	/* 3.87e6 FLOPs in 100 ms: 0.0387 GFLOP/s, not 0.0 */
	snprintf(path, sizeof path, "%s/BOTTLENECK_ANALYSIS.md", dir);
	CHECK(fsio_read(path, 1 << 20, &txt, NULL) == 0);
	CHECK(strstr(txt,
		     "Achieved 0.0387 GFLOP/s per rank at the median step (3.87e+06 FLOPs per step per rank); MFU unknown") !=
	      NULL);
	free(txt);
	ana_run_free(&run);
	/* on the GPU timeline: the GPU's shares, which have no waiting or I/O of their own */
	struct ana_scenario g = { 0 };
	char cell[16], buf[24];
	g.outcome.basis = BASIS_GPU;
	g.shares.shares_known = 1;
	g.shares.compute_pct = 88.7;
	g.gpu.gpu_pct[GPU_IDLE_DATA] = 1.6;
	g.gpu.gpu_pct[GPU_COMPUTE] = 7.6;
	g.gpu.gpu_pct[GPU_COMM] = 40;
	CHECK_STR(share_text_basis(&g), "the GPU's time");
	share_text_cell(&g, COL_COMPUTE, cell, sizeof cell);
	CHECK_STR(cell, "7.6");
	share_text_cell(&g, COL_IO, cell, sizeof cell);
	CHECK_STR(cell, "–");
	CHECK_NEAR(share_text_pct(&g, COL_OTHER), 50.8, 1e-9);
	/* step times only: no basis, n/a, never 0 */
	g.outcome.basis = BASIS_NONE;
	g.shares.shares_known = 0;
	CHECK(share_text_basis(&g) == NULL && isnan(share_text_pct(&g, COL_DATA)));
	share_text_cell(&g, COL_DATA, cell, sizeof cell);
	CHECK_STR(cell, "n/a");
	CHECK_STR(share_text_rate(buf, sizeof buf, 0.03721, 1), "0.0372");
	CHECK_STR(share_text_rate(buf, sizeof buf, 0.00396, 2), "0.00396");
	CHECK_STR(share_text_rate(buf, sizeof buf, 0.52, 2), "0.52");
	CHECK_STR(share_text_rate(buf, sizeof buf, 16.04, 1), "16.0");
	CHECK_STR(share_text_rate(buf, sizeof buf, 0, 1), "0.0");
}

/* One check of a variant: its kind, parent steps p (n each) of batch pb, variant steps v of
 * batch vb (0: unknown), prediction pred with its interval [lo, hi] (< 0: none). */
struct check_in {
	const char *kind;
	const double *p, *v;
	size_t n;
	double pred, lo, hi;
	long pb, vb;
	/* the parent's step estimator, parent_periods + 1 (0: unknown, 1 rank_step, 2
	 * collective_period); the variant's steps are the slowest rank's */
	int parent_est;
	size_t np; /* the parent's steps, when not n */
	const double *ctl; /* a control run's steps (nctl of them; 0: no control) */
	size_t nctl;
};

/* The check in decided: its outcome; the measured median, the miss in words (NULL: none)
 * and the report's section into those of measured, miss and md that are not NULL. */
static enum check_outcome check_run_with(const struct check_in *in, int ctl_dirty,
					 double *measured, char **miss, char **md);

static enum check_outcome check_run(const struct check_in *in, double *measured, char **miss,
				    char **md)
{
	return check_run_with(in, 0, measured, miss, md);
}

/* check_run, the control's scenario measured beside other load where ctl_dirty. */
static enum check_outcome check_run_with(const struct check_in *in, int ctl_dirty,
					 double *measured, char **miss, char **md)
{
	struct ana_run run = { 0 };
	struct ana_scenario sc = { 0 };
	sc.in.name = "s";
	sc.steps.step_ms = (double *)in->v;
	sc.steps.active_steps = in->n;
	sc.steps.global_batch = in->vb;
	double *sorted = malloc(in->n * sizeof *sorted);
	memcpy(sorted, in->v, in->n * sizeof *sorted);
	sc.steps.step_med_ms = stats_percentile(sorted, in->n, 50);
	free(sorted);
	run.sc = &sc;
	run.n = 1;
	struct ana_check c = { .scenario = "s", .predicted_ms = in->pred, .pred_lo_ms = in->lo,
			       .pred_hi_ms = in->hi, .parent_steps = (double *)in->p,
			       .n_parent = in->np ? in->np : in->n, .parent_median_ms = 100,
			       .parent_batch = in->pb,
			       .parent_periods = in->parent_est - 1 };
	for (int k = 0; k < CHECK_SHARES; k++)
		c.parent_share_pct[k] = -1;
	c.control_steps = (double *)in->ctl, c.n_control = in->nctl;
	c.control_contaminated = ctl_dirty;
	run.variant = (struct ana_variant){ .of = "r", .kind = (char *)in->kind, .checks = &c,
					    .n = 1, .control = in->nctl ? "c" : NULL };
	prediction_check_run(&run);
	struct strbuf sb = STRBUF_INIT;
	if (miss && c.missed)
		prediction_check_miss_write(&sb, &c);
	if (miss)
		*miss = sb.len ? strbuf_detach(&sb) : NULL;
	strbuf_free(&sb);
	if (md) {
		prediction_check_md(&sb, &run.variant);
		*md = strbuf_detach(&sb);
	}
	if (measured)
		*measured = c.measured_ms;
	return c.outcome;
}

/* Side effects: the knob changed another scenario (t, 100 -> 150 ms every step) it made no
 * prediction for, and left a third (u) as it was: the report says t's change after the
 * checks, summary.json lists both, neither is a checked prediction. */
static void test_side_effects(void)
{
	static const double p[6] = { 100, 100, 100, 100, 100, 100 },
			    slow[6] = { 150, 150, 150, 150, 150, 150 };
	struct ana_run run = { 0 };
	struct ana_scenario sc[3];
	memset(sc, 0, sizeof sc);
	const char *names[3] = { "s", "t", "u" };
	const double *steps[3] = { p, slow, p };
	struct ana_check c[3] = { { 0 } };
	for (int i = 0; i < 3; i++) {
		sc[i].in.name = (char *)names[i];
		sc[i].steps.step_ms = (double *)steps[i];
		sc[i].steps.active_steps = 6;
		sc[i].steps.step_med_ms = steps[i][0];
		c[i] = (struct ana_check){ .scenario = (char *) names[i],
					   .predicted_ms = i ? -1 : 90,
					   .pred_lo_ms = -1,
					   .pred_hi_ms = -1,
					   .pred_mean_ms = -1,
					   .parent_steps = (double *) p,
					   .n_parent = 6,
					   .parent_median_ms = 100,
					   .parent_periods = -1,
					   .side = i > 0 };
		for (int k = 0; k < CHECK_SHARES; k++)
			c[i].parent_share_pct[k] = -1;
	}
	/* t had no I/O, and the knob gave it a third of its step: the report says what moved */
	for (int k = 0; k < CHECK_SHARES; k++)
		c[1].parent_share_pct[k] = k == 0 ? 100 : 0;
	sc[1].shares.shares_known = 1;
	sc[1].shares.compute_pct = 200.0 / 3, sc[1].shares.io_pct = 100.0 / 3;
	run.sc = sc;
	run.n = 3;
	run.variant = (struct ana_variant){ .of = "r", .kind = "io", .checks = c, .n = 3 };
	prediction_check_run(&run);
	CHECK(c[1].outcome == CHECK_UNPREDICTED && c[2].outcome == CHECK_UNPREDICTED);
	struct strbuf sb = STRBUF_INIT;
	prediction_check_md(&sb, &run.variant);
	CHECK(strstr(sb.buf,
		     "- The knob, set in every scenario, also changed scenarios it made no prediction for, by more than 10 % and beyond the noise of their steps within each run (not between runs, which two runs of the same scenario would show; their medians, or their means where the steps are not alike, the parent's and the variant's, with the 95 % bootstrap interval of their ratio): **t** 100.00 -> 150.00 ms, 1.50x slower (95 % CI 1.50-1.50x) (the share that moved most: its I/O 0.00 -> 50.00 ms per step) (whether they were measured alone is not known: no node monitor recorded the load of other processes).\n") !=
	      NULL);
	CHECK(strstr(sb.buf, "**u**") == NULL && strstr(sb.buf, "| t |") == NULL);
	strbuf_free(&sb);
	/* communication moved more ms than the I/O the knob brought: both are named */
	for (int k = 0; k < CHECK_SHARES; k++)
		c[1].parent_share_pct[k] = k == 0 ? 60 : k == 1 ? 40 : 0;
	sc[1].shares.compute_pct = 40, sc[1].shares.comm_pct = 160.0 / 3,
	sc[1].shares.io_pct = 20.0 / 3;
	prediction_check_run(&run);
	prediction_check_md(&sb, &run.variant);
	CHECK(strstr(sb.buf,
		     "(the share that moved most: its communication 40.00 -> 80.00 ms per step; one it did not have: its I/O 0.00 -> 10.00 ms per step)") !=
	      NULL);
	strbuf_free(&sb);
	for (int k = 0; k < CHECK_SHARES; k++)
		c[1].parent_share_pct[k] = k == 0 ? 100 : 0;
	sc[1].shares.compute_pct = 200.0 / 3, sc[1].shares.comm_pct = 0,
	sc[1].shares.io_pct = 100.0 / 3;
	prediction_check_run(&run);
	json_t *chk = prediction_check_json(&run.variant),
	       *side = prediction_check_side_json(&run.variant);
	CHECK(json_array_size(chk) == 1 && json_array_size(side) == 2);
	CHECK(json_is_true(json_object_get(json_array_get(side, 0), "changed")));
	CHECK(json_is_false(json_object_get(json_array_get(side, 1), "changed")));
	CHECK_STR(json_string_value(json_object_get(json_array_get(side, 0), "measured_change")),
		  "1.50x slower (95 % CI 1.50-1.50x)");
	json_decref(chk);
	json_decref(side);
	/* s predicted no gain (101 of 100) and 1.17x slower: confirmed as no gain, beside t's
	 * 1.50x that the knob predicted nothing for: said, as the drift a no-gain holds within */
	static const double s_slow[6] = { 117, 117, 117, 117, 117, 117 };
	sc[0].steps.step_ms = (double *)s_slow;
	sc[0].steps.step_med_ms = 117;
	c[0].predicted_ms = 101;
	prediction_check_run(&run);
	prediction_check_md(&sb, &run.variant);
	CHECK(c[0].outcome == CHECK_CONFIRMED &&
	      strstr(sb.buf,
		     "its figure did not (+15.8 % off). Beside it, **t**, for which the knob made no prediction, moved 100.00 -> 150.00 ms (+50.0 %, below): a side effect of the knob or the drift between two runs, which a confirmation of no gain is no stronger than.\n"));
	strbuf_free(&sb);
	/* the tally as summary.json keeps it for campaign try: the side scenarios not counted */
	json_t *tally = prediction_check_tally_json(&run.variant);
	char *tt = json_dumps(tally, JSON_SORT_KEYS | JSON_COMPACT);
	CHECK_STR(tt, "{\"checked\":1,\"confirmed\":1,\"drift\":0,\"few_steps\":0,\"no_gain\":1}");
	free(tt);
	json_decref(tally);
	/* a control 1.5x slower in t (its drift measurable, as in every step): against it t
	 * did not move, against the parent as it ran it did: the unchanged runs disagree, and
	 * no change is said of t */
	static const double ctl_t[6] = { 150, 151, 149, 150, 152, 148 };
	c[1].control_steps = (double *)ctl_t;
	c[1].n_control = 6;
	run.variant.control = "ctl";
	prediction_check_run(&run);
	CHECK(c[1].against_control && c[1].side_drift && !check_side_changed(&c[1]));
	side = prediction_check_side_json(&run.variant);
	CHECK(json_is_true(json_object_get(json_array_get(side, 0), "undecided")) &&
	      json_is_false(json_object_get(json_array_get(side, 0), "changed")));
	json_decref(side);
	c[1].control_steps = NULL;
	c[1].n_control = 0;
	run.variant.control = NULL;
	run.variant.of = NULL;
	tally = prediction_check_tally_json(&run.variant);
	CHECK(json_is_null(tally));
	json_decref(tally);
}

/* A communication check without a predicted interval (check_run). */
static enum check_outcome check_batch(const double *p, const double *v, size_t n, double pred,
				      long pb, long vb, double *measured, char **miss)
{
	const struct check_in in = {
		"communication", p, v, n, pred, -1, -1, pb, vb, 0, 0, NULL, 0
	};
	return check_run(&in, measured, miss, NULL);
}

static enum check_outcome check_of(const double *p, const double *v, size_t n, double pred,
				   char **miss)
{
	double m;
	return check_batch(p, v, n, pred, 0, 0, &m, miss);
}

/* A check of kind with a predicted interval, and the report's section into *md (check_run). */
static enum check_outcome check_kind(const char *kind, const double *p, const double *v,
				     size_t n, double pred, double lo, double hi, long pb, long vb,
				     char **md)
{
	const struct check_in in = { kind, p, v, n, pred, lo, hi, pb, vb, 0, 0, NULL, 0 };
	return check_run(&in, NULL, NULL, md);
}

/* A batch prediction is checked only where the variant's batch is twice the parent's; a
 * confirmation by a wide predicted interval alone is said to be one. */
static void test_checked_batch_and_wide(void)
{
	double p[40], twice[40], thrice[40], fast[40];
	for (int i = 0; i < 40; i++) {
		p[i] = 100 + (i % 5);
		fast[i] = 50 + (i % 5);      /* median 52 */
		twice[i] = 2 * fast[i];      /* 128 samples: 52 for the parent's 64 */
		thrice[i] = 3 * fast[i];     /* 192 samples: 52 for the parent's 64 too */
	}
	char *md = NULL;
	CHECK(check_kind("batch", p, twice, 40, 52, 50, 54, 64, 128, &md) == CHECK_CONFIRMED);
	CHECK(md && strstr(md, "its change is per sample") && !strstr(md, "not x2"));
	free(md);
	CHECK(check_kind("batch", p, thrice, 40, 52, 50, 54, 64, 192, &md) == CHECK_UNPREDICTED);
	CHECK(md && strstr(md, "global batch is 192 against the parent's 64 (x3.00, not x2)"));
	free(md);
	CHECK(check_kind("batch", p, twice, 40, 52, 50, 54, 64, 0, &md) == CHECK_UNPREDICTED);
	CHECK(md && strstr(md, "this variant's batch is not known") && !strstr(md, "not x2"));
	free(md);
	/* the same variant for a kind that changes no batch: checked per sample as it is */
	CHECK(check_kind("communication", p, thrice, 40, 52, -1, -1, 64, 192, &md) ==
	      CHECK_CONFIRMED);
	free(md);
	/* 52 measured against 40 predicted (30 % off) inside 30-80: confirmed, and said how */
	CHECK(check_kind("communication", p, fast, 40, 40, 30, 80, 0, 0, &md) == CHECK_CONFIRMED);
	CHECK(md &&
	      strstr(md,
		     "- **s**: confirmed by the predicted interval alone (30.00 to 80.00 ms): the measured median is 30 % off the predicted one, inside the interval, and so wide an interval (125 % of the prediction) says little (its width"));
	free(md);
	/* 52 against 46 (13 % off) inside 44-56: the interval alone confirms, not a wide one */
	CHECK(check_kind("communication", p, fast, 40, 46, 44, 56, 0, 0, &md) == CHECK_CONFIRMED);
	CHECK(md &&
	      strstr(md,
		     "- **s**: confirmed by the predicted interval alone (44.00 to 56.00 ms): the measured median is 13 % off the predicted one, inside the interval.\n"));
	free(md);
	/* "no gain" predicted (101 of a parent's 102; its summary's median 100 here) and the
	 * step 1.15x slower: confirmed as no gain, its figure's error said */
	double slow[40];
	for (int i = 0; i < 40; i++)
		slow[i] = 1.15 * p[i]; /* median 117.3 */
	CHECK(check_kind("communication", p, slow, 40, 101, 99, 103, 0, 0, &md) ==
	      CHECK_CONFIRMED);
	CHECK(md &&
	      strstr(md,
		     "- **s**: confirmed as no gain: 101.00 ms predicted against the parent's 100.00 (+1.0 %, a slower step), and the step did not gain more (measured: 1.17x slower (95 % CI 1.16-1.18x)") &&
	      strstr(md,
		     "): the advice not to take this step first held; its figure did not (+16.1 % off).\n") &&
	      strstr(md, "| 1.17x slower (95 % CI 1.16-1.18x): confirmed as no gain | +16.1 |") &&
	      strstr(md,
		     "|\n\n1 of 1 prediction confirmed, 1 of them as no gain (the advice held, not its figure).\n"));
	free(md);
	/* a gain of 5 % predicted (95 of a parent's 100) and the parent's own steps measured
	 * (102, 7 % off): confirmed by the 10 % rule, which the parent's step meets too */
	CHECK(check_kind("communication", p, p, 40, 95, -1, -1, 0, 0, &md) == CHECK_CONFIRMED);
	CHECK(md &&
	      strstr(md,
		     "- **s**: confirmed within 10 %, but the parent's step (100.00 ms) is within 10 % of the prediction (95.00 ms, -5.0 %) as well: this check cannot tell the predicted change from none.\n"));
	free(md);
	/* a gain predicted (95 of 102) and none measured: not confirmed */
	CHECK(check_kind("communication", p, slow, 40, 95, 93, 97, 0, 0, &md) == CHECK_WORSE);
	CHECK(md && !strstr(md, "confirmed as no gain") &&
	      strstr(md, "|\n\n0 of 1 prediction confirmed.\n"));
	free(md);
	/* within 10 % of the median: not by the interval alone */
	CHECK(check_kind("communication", p, fast, 40, 50, 30, 80, 0, 0, &md) == CHECK_CONFIRMED);
	CHECK(md && !strstr(md, "by the predicted interval alone") &&
	      !strstr(md, "cannot tell the predicted change from none") &&
	      !strstr(md, "**s**: its steps are not alike"));
	free(md);
	/* a parent timed by collective periods against a variant timed by the slowest rank */
	const struct check_in est = {
		"communication", p, fast, 40, 52, -1, -1, 0, 0, 2, 0, NULL, 0
	};
	check_run(&est, NULL, NULL, &md);
	CHECK(md &&
	      strstr(md,
		     "- **s**: its steps are timed as the slowest rank's steps and the parent's as collective periods"));
	free(md);
	const struct check_in same = {
		"communication", p, fast, 40, 52, -1, -1, 0, 0, 1, 0, NULL, 0
	};
	check_run(&same, NULL, NULL, &md);
	CHECK(md && !strstr(md, "its steps are timed as"));
	free(md);
	/* a slow step every 4th (a checkpoint): the medians leave it out, the means do not */
	double ckpt[40];
	for (int i = 0; i < 40; i++)
		ckpt[i] = i % 4 == 3 ? 150 : 4; /* median 4, mean 40.5 */
	CHECK(check_kind("io", p, ckpt, 40, 4, 3, 5, 0, 0, &md) == CHECK_CONFIRMED);
	CHECK(md &&
	      strstr(md,
		     "- **s**: its steps are not alike (median 4.00 ms, mean 40.50 ms; the parent's 100.00 and 102.00 ms): a median leaves periodic slow steps out (a checkpoint every few steps, a loader stall), so the time per sample over the run is the mean's: 2.52x faster by the means (25.00x faster by the medians, which the prediction and this check use).\n"));
	free(md);
}

/* A control run (campaign try --control): the machine twice as slow now as when the parent
 * ran, and the knob halving the step. Against the parent the variant gained nothing (worse
 * than predicted); against the control it halved the step, as predicted: measured = variant /
 * control x parent = 102 / 204 x 102 = 51 ms, its interval that of variant / control (the
 * parent's summary median, which the report shows, is 100 here). The two unchanged runs then
 * disagree on the verdict: undecided (the runs drift). A machine 5 % slower now and the same
 * knob: confirmed against either. */
static void test_check_against_control(void)
{
	double p[40], ctl[40];
	for (int i = 0; i < 40; i++)
		p[i] = 100 + (i % 5), ctl[i] = 2 * p[i]; /* medians 102 and 204 */
	double measured;
	char *md = NULL;
	const struct check_in alone = {
		"communication", p, p, 40, 51, -1, -1, 0, 0, 0, 0, NULL, 0
	};
	CHECK(check_run(&alone, &measured, NULL, NULL) == CHECK_NOISE && measured == 102);
	const struct check_in with = { "communication", p, p, 40, 51, -1, -1, 0, 0, 0, 0, ctl, 40 };
	CHECK(check_run(&with, &measured, NULL, &md) == CHECK_DRIFT &&
	      fabs(measured - 51) < 1e-9);
	CHECK(md &&
	      strstr(md,
		     "Set against control run `c` (the parent's campaign re-run unchanged before this variant)") &&
	      strstr(md,
		     "The control against the parent: `s` 100.00 -> 204.00 ms (2.04x slower (95 % CI ") &&
	      strstr(md, "): set against it). A drift whose interval holds no change") &&
	      strstr(md, ": undecided (the runs drift) (against the control) |") &&
	      strstr(md, "0 of 0 predictions confirmed; 1 more undecided: the runs drift.\n") &&
	      strstr(md,
		     "- **s**: undecided: against the control it is confirmed (51.00 ms measured, +0.0 % off the prediction), against the parent as it ran within noise (102.00 ms, +100.0 %). The two unchanged runs"));
	free(md);
	/* the same control measured beside other load: its drift is that load's, not used */
	CHECK(check_run_with(&with, 1, &measured, NULL, &md) == CHECK_NOISE && measured == 102);
	CHECK(md &&
	      strstr(md,
		     ": the control measured beside other load, set against the parent as it ran)"));
	free(md);
	double slower[40], knob[40];
	for (int i = 0; i < 40; i++)
		slower[i] = 1.05 * p[i], knob[i] = 0.525 * p[i];
	const struct check_in both = { "communication", p, knob, 40, 51, -1, -1, 0, 0, 0, 0,
				       slower, 40 };
	CHECK(check_run(&both, &measured, NULL, &md) == CHECK_CONFIRMED &&
	      fabs(measured - 51) < 1e-6);
	CHECK(md && strstr(md, ": confirmed (against the control) |") &&
	      strstr(md, "1 of 1 prediction confirmed.\n") && !strstr(md, "undecided:"));
	free(md);
	/* a control of 3 steps: no interval of its drift from so few, so none is corrected: set
	 * against the parent as it ran, as without a control */
	const struct check_in few = { "communication", p, p, 40, 60, -1, -1, 0, 0, 0, 0, ctl, 3 };
	CHECK(check_run(&few, &measured, NULL, &md) == CHECK_NOISE && measured == 102);
	CHECK(md && strstr(md, "`s` 100.00 -> 202.00 ms (") &&
	      strstr(md, ": too few steps to tell a drift, set against the parent as it ran)") &&
	      !strstr(md, "(against the control)") && !strstr(md, "without the control, it would"));
	free(md);
	/* a control that drifted no measurable amount (its steps the parent's, in another
	 * order): the check is the parent's as it ran, not divided by the control's noise */
	double same[40];
	for (int i = 0; i < 40; i++)
		same[i] = p[(i + 3) % 40];
	const struct check_in quiet = { "communication", p, p, 40, 51, -1, -1, 0, 0, 0, 0, same,
					40 };
	CHECK(check_run(&quiet, &measured, NULL, &md) == CHECK_NOISE && measured == 102);
	CHECK(md && strstr(md, ": no measurable drift, set against the parent as it ran)") &&
	      !strstr(md, "(against the control)"));
	free(md);
	/* a control named but not analysed when the variant was (SLURM: its aggregation ran
	 * first): set against the parent, and said how to set it against the control */
	struct ana_variant pending = { .of = "r",
				       .kind = "communication",
				       .control_pending = "c7" };
	struct strbuf sb = STRBUF_INIT;
	prediction_check_md(&sb, &pending);
	CHECK(strstr(
		sb.buf,
		"Set against the parent as it ran, not against control run `c7`, which was not analysed when this variant was: `campaign aggregate --force` of this run once `c7` is analysed sets each check against it.\n"));
	strbuf_free(&sb);
}

static void test_checked_outcomes(void)
{
	double p[40], fast[40], same[40], mid[40];
	for (int i = 0; i < 40; i++) {
		p[i] = 100 + (i % 5);     /* 100..104 */
		fast[i] = 50 + (i % 5);   /* half */
		same[i] = 100 + ((i + 2) % 5);
		mid[i] = 80 + (i % 5);
	}
	char *miss = NULL;
	CHECK(check_of(p, fast, 40, 52, &miss) == CHECK_CONFIRMED && !miss);
	CHECK(check_of(p, fast, 40, 54.5, &miss) == CHECK_CONFIRMED); /* within 5 % */
	CHECK(check_of(p, mid, 40, 52, &miss) == CHECK_WORSE && miss);
	CHECK(miss && strstr(miss, "cannot be said")); /* the shares are unknown */
	free(miss);
	/* faster than predicted: said too (what fell beyond the prediction) */
	CHECK(check_of(p, fast, 40, 80, &miss) == CHECK_BETTER && miss);
	CHECK(miss && strstr(miss, "cannot be said"));
	free(miss);
	CHECK(check_of(p, same, 40, 52, &miss) == CHECK_NOISE && miss);
	free(miss);
	CHECK(check_of(p, same, 40, -1, &miss) == CHECK_UNPREDICTED);
	CHECK(check_of(p, same, 0, 52, &miss) == CHECK_UNMEASURED);
	/* four steps: no interval, so a miss is neither noise nor a direction (and no miss);
	 * a measurement within 10 % of the prediction still confirms it */
	CHECK(check_of(p, mid, 4, 52, &miss) == CHECK_FEW_STEPS && !miss);
	CHECK(check_of(p, fast, 4, 52, &miss) == CHECK_CONFIRMED && !miss);
	CHECK(check_of(p, mid, 5, 52, &miss) == CHECK_WORSE && miss);
	free(miss);
	/* four on either side alone is as few: no interval */
	const struct check_in
		few_v = { "communication", p, mid, 4, 52, -1, -1, 0, 0, 0, 40, NULL, 0 },
		few_p = { "communication", p, mid, 40, 52, -1, -1, 0, 0, 0, 4, NULL, 0 };
	char *mv = NULL;
	CHECK(check_run(&few_v, NULL, NULL, &mv) == CHECK_FEW_STEPS);
	CHECK(mv && strstr(mv, "(the parent has 40, the variant 4); not within"));
	free(mv);
	char *md = NULL;
	CHECK(check_run(&few_p, NULL, NULL, &md) == CHECK_FEW_STEPS);
	CHECK(md && strstr(md, "| n/a | too few steps to tell |") &&
	      strstr(md,
		     "- **s**: too few steps to tell: an interval needs 5 active steps or more on each side (the parent has 4, the variant 40); not within 10 % of the prediction"));
	free(md);
	CHECK_STR(check_outcome_name(CHECK_WORSE), "worse than predicted");
	/* a knob that doubles the batch: twice the step time is the parent's time per sample */
	double twice[40], m = 0;
	for (int i = 0; i < 40; i++)
		twice[i] = 2 * fast[i]; /* 100..108 for 128 samples: 50..54 for the parent's 64 */
	CHECK(check_batch(p, twice, 40, 52, 64, 128, &m, &miss) == CHECK_CONFIRMED && !miss);
	CHECK(fabs(m - 52) < 1e-9);
	/* a batch not known on one side: the steps as they are */
	CHECK(check_batch(p, twice, 40, 52, 0, 128, &m, &miss) != CHECK_CONFIRMED);
	free(miss);
	CHECK(fabs(m - 104) < 1e-9);
}

/* A bound's check says how to read it: the step the change gives at best, so slower is
 * consistent with it and faster beats it; its outcome is the rule's as any prediction's
 * (here 20 ms at best, 24 measured: 20 % off, worse than predicted, and the note). */
static void test_checked_bound_note(void)
{
	double p[10], v[10];
	for (int i = 0; i < 10; i++)
		p[i] = 25 + 0.1 * i, v[i] = 24 + 0.1 * (i % 3);
	struct ana_run run = { 0 };
	struct ana_scenario sc = { 0 };
	sc.in.name = "s";
	sc.steps.step_ms = v;
	sc.steps.active_steps = 10;
	sc.steps.step_med_ms = 24.1;
	run.sc = &sc;
	run.n = 1;
	struct ana_check c = { .scenario = "s", .predicted_ms = 20, .pred_lo_ms = 19.5,
			       .pred_hi_ms = 25.45, .basis_bound = 1, .parent_steps = p,
			       .n_parent = 10, .parent_median_ms = 25.45, .parent_periods = -1 };
	for (int k = 0; k < CHECK_SHARES; k++)
		c.parent_share_pct[k] = -1;
	run.variant = (struct ana_variant){ .of = "r", .kind = "communication", .checks = &c,
					    .n = 1 };
	prediction_check_run(&run);
	CHECK(c.outcome == CHECK_WORSE);
	struct strbuf sb = STRBUF_INIT;
	prediction_check_md(&sb, &run.variant);
	CHECK(strstr(sb.buf, "| s | 25.45 | 20.00 | 19.50 to 25.45 (bound) | 24.10 |") &&
	      strstr(sb.buf,
		     "- **s**: the prediction is a bound, the step this change gives at best here (") &&
	      strstr(sb.buf,
		     "so a measured step slower than it is consistent with the bound and one faster beats it; the outcome is the rule's, as for every prediction: measured median 24.10 ms against at best 20.00 ms (+20.5 %).\n"));
	strbuf_free(&sb);
}

/* Bursty variant steps (a loader's: eight of 40 ms, two of 120; median 40, mean 56) against a
 * parent of 100 ms steps: a prediction with a mean is checked by the means (the time per
 * sample over the run), whatever the medians say; one without, by the medians. */
static void test_checked_by_means(void)
{
	double p[10], v[10];
	for (int i = 0; i < 10; i++)
		p[i] = 100, v[i] = i < 8 ? 40 : 120;
	struct ana_run run = { 0 };
	struct ana_scenario sc = { 0 };
	sc.in.name = "s";
	sc.steps.step_ms = v;
	sc.steps.active_steps = 10;
	sc.steps.step_med_ms = 40;
	run.sc = &sc;
	run.n = 1;
	struct ana_check c = { .scenario = "s", .predicted_ms = 40, .pred_lo_ms = 36,
			       .pred_hi_ms = 44, .pred_mean_ms = 54, .pmean_lo_ms = 50,
			       .pmean_hi_ms = 58, .parent_steps = p, .n_parent = 10,
			       .parent_median_ms = 100, .parent_periods = -1 };
	for (int k = 0; k < CHECK_SHARES; k++)
		c.parent_share_pct[k] = -1;
	run.variant = (struct ana_variant){ .of = "r", .kind = "data_loading", .checks = &c,
					    .n = 1 };
	prediction_check_run(&run);
	CHECK(c.by_means && c.outcome == CHECK_CONFIRMED);
	CHECK_NEAR(c.measured_mean_ms, 56, 1e-9);
	struct strbuf sb = STRBUF_INIT;
	prediction_check_md(&sb, &run.variant);
	CHECK(strstr(sb.buf, "| s | 100.00 | 54.00 | 50.00 to 58.00 | 56.00 |") &&
	      strstr(sb.buf, ": confirmed (by the means) |") &&
	      strstr(sb.buf, "the prediction's 40.00 and 54.00 ms): a median leaves") &&
	      strstr(sb.buf,
		     "this check is by the means (its row's numbers): 1.79x faster by the means (2.50x faster by the medians)"));
	strbuf_free(&sb);
	c.pred_mean_ms = 30, c.pmean_lo_ms = 28, c.pmean_hi_ms = 32; /* the medians agree */
	prediction_check_run(&run);
	CHECK(c.by_means && c.outcome == CHECK_WORSE);
	c.n_parent = 4; /* four parent steps: no interval of the means either */
	prediction_check_run(&run);
	CHECK(c.by_means && c.outcome == CHECK_FEW_STEPS && c.mean_lo_ms < 0);
	c.n_parent = 10;
	sc.mon.foreign.contaminated = 1; /* measured beside other load: nothing is checked */
	prediction_check_run(&run);
	CHECK(!c.by_means && c.outcome == CHECK_CONTAMINATED);
	sc.mon.foreign.contaminated = 0;
	c.pred_mean_ms = c.pmean_lo_ms = c.pmean_hi_ms = -1; /* a ceiling: no mean */
	prediction_check_run(&run);
	CHECK(!c.by_means && c.outcome == CHECK_CONFIRMED);
	/* steps alike on the variant's side and the prediction's, but not the parent's (eight of
	 * 100 ms, two of 300: median 100, mean 140): the recommendation predicted by the means
	 * (advice.c's rule), so the check is by the means too */
	for (int i = 0; i < 10; i++)
		p[i] = i < 8 ? 100 : 300, v[i] = 50;
	sc.steps.step_med_ms = 50;
	c.predicted_ms = 50, c.pred_lo_ms = 48, c.pred_hi_ms = 52;
	c.pred_mean_ms = 50, c.pmean_lo_ms = 48, c.pmean_hi_ms = 52;
	prediction_check_run(&run);
	CHECK(c.by_means && c.outcome == CHECK_CONFIRMED);
}

/* The GPU's exposed communication split: its collectives' transfer (each instance's least
 * time over its ranks, 2.5 ms a rank-step here, 15 ms over 3 ranks x 2 steps) is the most of it
 * that can be exposed; the rest of the exposed 24 ms (6 + 4 + 5 + 3 x 3) is waiting: 9 ms of
 * 60 ms of windows, 15 %, communication 40 %. A transfer beyond the exposed time leaves no
 * waiting. One rank, a whole profiled window (no steps) or no collectives: none known. */
static void test_gpu_peer_wait(void)
{
	struct step_rec st[3][2] = { { { 0 } } };
	const double comm[3][2] = { { 6, 3 }, { 4, 3 }, { 5, 3 } };
	struct rank_metrics rk[3] = { { 0 } };
	for (int r = 0; r < 3; r++) {
		for (int i = 0; i < 2; i++) {
			st[r][i].active = 1;
			st[r][i].gpu[GPU_WINDOW] = 10;
			st[r][i].gpu[GPU_COMM] = comm[r][i];
		}
		rk[r].rank = r, rk[r].steps = st[r], rk[r].n = 2;
	}
	struct scenario_metrics m = { rk, 3 };
	struct collective row = { .transfer_ms_per_step = 2.5 };
	struct ana_scenario s = { 0 };
	s.comm.colls = &row, s.comm.ncolls = 1;
	accounting_gpu_shares(&s, &m);
	CHECK(s.gpu.gpu_basis && s.gpu.peer_wait_known);
	CHECK_NEAR(s.gpu.gpu_pct[GPU_COMM], 40, 1e-9);
	CHECK_NEAR(s.gpu.peer_wait_pct, 15, 1e-9);
	s.outcome.basis = BASIS_GPU;
	CHECK_NEAR(share_text_pct(&s, COL_COMM), 25, 1e-9);
	CHECK_NEAR(share_text_pct(&s, COL_WAIT), 15, 1e-9);
	struct ana_scenario all = { 0 };
	row.transfer_ms_per_step = 5; /* 30 ms: more than the 24 exposed */
	all.comm.colls = &row, all.comm.ncolls = 1;
	accounting_gpu_shares(&all, &m);
	CHECK(all.gpu.peer_wait_known && all.gpu.peer_wait_pct == 0);
	struct ana_scenario one = { 0 }, none = { 0 }, whole = { 0 };
	one.comm.colls = &row, one.comm.ncolls = 1;
	m.n = 1;
	accounting_gpu_shares(&one, &m);
	CHECK(one.gpu.gpu_basis && !one.gpu.peer_wait_known);
	one.outcome.basis = BASIS_GPU;
	CHECK(share_text_pct(&one, COL_WAIT) < 0); /* rank 0 alone: 9 ms of 20, all its own */
	CHECK_NEAR(share_text_pct(&one, COL_COMM), 45, 1e-9);
	m.n = 3;
	accounting_gpu_shares(&none, &m); /* no collectives table */
	CHECK(none.gpu.gpu_basis && !none.gpu.peer_wait_known);
	whole.comm.colls = &row, whole.comm.ncolls = 1;
	rk[0].whole_window = 1;
	accounting_gpu_shares(&whole, &m);
	CHECK(whole.gpu.gpu_basis && !whole.gpu.peer_wait_known);
}

int main(void)
{
	RUN(test_gpu_peer_wait);
	if (!mkdtemp(dir))
		return 1;
	RUN(test_percentile);
	RUN(test_bootstrap);
	RUN(test_median_fragile);
	RUN(test_replay_judged_by);
	RUN(test_verdicts_and_scaling);
	RUN(test_model_gpu_mfu);
	RUN(test_aorta);
	RUN(test_batch_and_scaling_modes);
	RUN(test_scaling_by_means);
	RUN(test_near_tie);
	RUN(test_bootstrap_periods);
	RUN(test_emulated_no_prediction);
	RUN(test_oversubscribed);
	RUN(test_contention_words);
	RUN(test_contention_immaterial);
	RUN(test_printed_sums);
	RUN(test_verdict_decide);
	RUN(test_advice_every_kind);
	RUN(test_rec_by_means);
	RUN(test_straggler_advice_node);
	RUN(test_compute_beside_excess);
	RUN(test_excess_rounding_and_groups);
	RUN(test_no_speedup_words);
	RUN(test_contention_by_means);
	RUN(test_unknown_shares);
	RUN(test_monitors_name_the_resource);
	RUN(test_report_shares);
	RUN(test_checked_outcomes);
	RUN(test_checked_batch_and_wide);
	RUN(test_checked_by_means);
	RUN(test_checked_bound_note);
	RUN(test_side_effects);
	RUN(test_check_against_control);
	fsio_remove_tree(dir);
	HARNESS_END();
}
