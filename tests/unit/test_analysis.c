/* Unit tests of the first-cut analyzer on telemetry it is handed: exact
 * statistics, shares, verdicts with their thresholds, and scaling. */
#include "harness.h"

#include "../../analyzers/analysis.h"
#include "../../analyzers/stats.h"
#include "fsio.h"

#include <sys/stat.h>

static char dir[] = "/tmp/campaign-ana-XXXXXX";

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
		fprintf(f, "{\"type\": \"meta\", \"rank\": %d, \"world_size\": %d, \"global_batch\": %ld}\n", r, ranks, gbatch);
		fprintf(f, "not json at all\n");
		for (int s = 0; s < 12; s++) {
			int active = s >= 2;
			double k = 1 + 0.01 * s + 0.1 * r; /* rank r is slower */
			double step = active ? k * (data + fwd + bwd + comm + opt + extra) : 1000;
			fprintf(f, "{\"type\": \"step\", \"step\": %d, \"phase\": \"%s\", \"data_wait_ms\": %g, "
				"\"forward_ms\": %g, \"backward_ms\": %g, \"comm_ms\": %g, \"optimizer_ms\": %g, "
				"\"step_ms\": %g, \"samples\": 8, \"loss\": %g}\n",
				s, active ? "active" : "warmup", k * data, k * fwd, k * bwd, k * comm, k * opt, step, 1.0 / (s + 1));
		}
		fclose(f);
	}
}

static void add(struct ana_run *run, const char *name, const char *state, int nodes, int tpn)
{
	char jd[512];
	snprintf(jd, sizeof jd, "%s/%s", dir, name);
	ana_run_add(run, name, state, state[0] == 'C' ? "" : "exit status 137", "gloo", jd,
		    state[0] == 'C' ? 0 : 137, nodes, tpn);
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
}

static void test_verdicts_and_scaling(void)
{
	fixture("base", 2, 64, 1, 30, 50, 10, 9, 0);   /* compute-bound: comm 10 % */
	fixture("comm", 4, 128, 1, 30, 50, 60, 9, 0);  /* comm 40 % */
	fixture("data", 2, 64, 60, 30, 50, 5, 5, 0);   /* data 40 % */
	fixture("dead", 2, 64, 1, 1, 1, 1, 1, 0);
	struct ana_run run = { .campaign = strdup("t"), .run_id = strdup("r"), .run_dir = strdup(dir),
			       .th = { 20, 30, 70, 90 } };
	add(&run, "base", "COMPLETED", 1, 2);
	add(&run, "comm", "COMPLETED", 2, 2);
	add(&run, "data", "COMPLETED", 1, 1);
	add(&run, "dead", "FAILED", 1, 2);
	CHECK(ana_run_analyse(&run) == 0);
	struct ana_scenario *b = &run.sc[0], *c = &run.sc[1], *d = &run.sc[2], *x = &run.sc[3];
	CHECK(b->analysed && c->analysed && d->analysed && !x->analysed);
	CHECK_STR(b->verdict, "compute-bound");
	CHECK_STR(c->verdict, "communication-bound");
	CHECK_STR(d->verdict, "data-loader-bound");
	CHECK(b->active_steps == 10);
	/* per step the slowest rank (r = 1, factor 1.1 + 0.01 s) sets the time */
	CHECK_NEAR(b->step_min_ms, 100 * 1.12, 1e-9);
	CHECK_NEAR(b->step_max_ms, 100 * 1.21, 1e-9);
	CHECK_NEAR(b->step_med_ms, 100 * 1.165, 1e-9);
	CHECK_NEAR(b->throughput, 64 * 1000.0 / 116.5, 1e-9);
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
	CHECK_NEAR(b->comm_pct, 100 * num / den, 1e-9);
	CHECK_NEAR(b->sync_wait_pct, 100 * wait / den, 1e-9);
	CHECK_NEAR(b->comm_total_pct, 10, 1e-9);
	CHECK_NEAR(b->compute_pct, 89, 1e-9);
	CHECK_NEAR(b->data_pct, 1, 1e-9);
	CHECK_NEAR(b->comm_pct + b->sync_wait_pct + b->compute_pct + b->data_pct + b->io_pct + b->other_pct, 100, 1e-9);
	CHECK_NEAR(c->comm_total_pct, 40, 1e-9);
	CHECK(b->slowest_rank == 1);
	CHECK(strstr(c->evidence, "communication not hidden behind compute takes ") != NULL);
	CHECK(strstr(d->evidence, "ranks wait for data 40.0 % of step time (threshold 30 %)") != NULL);
	CHECK_NEAR(b->loss_first, 1.0, 1e-12);
	CHECK_NEAR(b->loss_last, 1.0 / 12, 1e-6);
	/* comm: 4 ranks, batch 128; its slowest rank (r = 3) has factor 1.3 */
	CHECK_STR(c->baseline, "base");
	CHECK_NEAR(c->speedup, (128 * 1000.0 / (150 * 1.365)) / (64 * 1000.0 / 116.5), 1e-9);
	CHECK_NEAR(c->efficiency, c->speedup * 2 / 4, 1e-12);
	CHECK(b->is_baseline && b->speedup == 1.0);
	CHECK(d->baseline[0] == '\0' || !strcmp(d->baseline, "data")); /* 1 task per node: its own series */
	CHECK(ana_run_write(&run) == 0);
	char p[600];
	snprintf(p, sizeof p, "%s/BOTTLENECK_ANALYSIS.md", dir);
	char *md;
	CHECK(fsio_read(p, 1 << 20, &md, NULL) == 0);
	const char *sections[] = { "## Executive Summary", "## Per-Scenario Analysis", "## Scaling Analysis",
				   "## Recommendations", "## Methodology", "not analysed: **dead** (FAILED: exit status 137)", NULL };
	for (int i = 0; sections[i]; i++)
		CHECK(strstr(md, sections[i]) != NULL);
	free(md);
	ana_run_free(&run);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(test_percentile);
	RUN(test_verdicts_and_scaling);
	fsio_remove_tree(dir);
	HARNESS_END();
}
