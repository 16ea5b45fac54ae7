#include "analysis.h"

#include "metrics.h"
#include "monitor.h"
#include "stats.h"
#include "../orchestrator/err.h"
#include "../orchestrator/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ana_run_add(struct ana_run *run, const char *name, const char *state, const char *reason,
		 const char *backend, const char *job_dir, int exit_code, int nodes, int tasks_per_node)
{
	run->sc = xrealloc(run->sc, (run->n + 1) * sizeof *run->sc);
	struct ana_scenario *s = &run->sc[run->n++];
	memset(s, 0, sizeof *s);
	s->name = xstrdup(name);
	s->state = xstrdup(state);
	s->reason = xstrdup(reason ? reason : "");
	s->backend = xstrdup(backend);
	s->job_dir = xstrdup(job_dir);
	s->exit_code = exit_code;
	s->nodes = nodes;
	s->tasks_per_node = tasks_per_node;
	s->ranks = nodes * tasks_per_node;
}

/* Per step, the slowest rank sets the step time. */
static void step_times(const struct scenario_metrics *m, double *out, size_t *n)
{
	const struct rank_metrics *r0 = &m->ranks[0];
	*n = 0;
	for (size_t i = 0; i < r0->n; i++) {
		if (!r0->steps[i].active)
			continue;
		double t = r0->steps[i].step_ms;
		for (size_t r = 1; r < m->n; r++)
			if (i < m->ranks[r].n && m->ranks[r].steps[i].step_ms > t)
				t = m->ranks[r].steps[i].step_ms;
		out[(*n)++] = t;
	}
}

struct sums {
	double data, fwd, bwd, comm, exposed, wait, opt, io, gemm, elem, bytes, total;
};

static void add_step(struct sums *u, const struct step_rec *st, double step_min_exposed)
{
	u->data += st->data_ms;
	u->fwd += st->forward_ms;
	u->bwd += st->backward_ms;
	u->comm += st->comm_ms;
	u->exposed += step_min_exposed;
	u->wait += st->comm_exposed_ms - step_min_exposed;
	u->opt += st->optimizer_ms;
	u->io += st->io_ms;
	u->gemm += st->gemm_ms;
	u->elem += st->elementwise_ms;
	u->bytes += st->bytes;
	u->total += st->step_ms;
}

/* A collective ends for everyone at once, so per step the rank that arrived
 * last spent the least time in it: that minimum is the communication itself,
 * and what other ranks spent beyond it was waiting for slower ranks. */
static double min_exposed(const struct scenario_metrics *m, size_t i)
{
	double v = m->ranks[0].steps[i].comm_exposed_ms;
	for (size_t r = 1; r < m->n; r++)
		if (i < m->ranks[r].n && m->ranks[r].steps[i].comm_exposed_ms < v)
			v = m->ranks[r].steps[i].comm_exposed_ms;
	return v < 0 ? 0 : v;
}

static void shares(struct ana_scenario *s, const struct scenario_metrics *m)
{
	struct sums u = { 0 };
	double worst = -1;
	for (size_t r = 0; r < m->n; r++) {
		double rank_total = 0;
		size_t rank_steps = 0;
		for (size_t i = 0; i < m->ranks[r].n; i++) {
			const struct step_rec *st = &m->ranks[r].steps[i];
			if (!st->active)
				continue;
			add_step(&u, st, i < m->ranks[0].n ? min_exposed(m, i) : st->comm_exposed_ms);
			rank_total += st->step_ms;
			rank_steps++;
		}
		double mean = rank_steps ? rank_total / (double)rank_steps : 0;
		if (mean > worst) {
			worst = mean;
			s->slowest_rank = m->ranks[r].rank;
			s->slowest_rank_ms = mean;
		}
	}
	if (u.total <= 0)
		return;
	s->data_pct = 100 * u.data / u.total;
	s->forward_pct = 100 * u.fwd / u.total;
	s->backward_pct = 100 * u.bwd / u.total;
	s->optimizer_pct = 100 * u.opt / u.total;
	s->compute_pct = s->forward_pct + s->backward_pct + s->optimizer_pct;
	s->comm_pct = 100 * u.exposed / u.total; /* what communication itself adds to the step */
	s->sync_wait_pct = 100 * u.wait / u.total;
	s->comm_total_pct = 100 * u.comm / u.total;
	s->overlap_pct = u.comm > 0 ? 100 * (1 - (u.exposed + u.wait) / u.comm) : 0;
	if (s->overlap_pct < 0)
		s->overlap_pct = 0;
	s->io_pct = 100 * u.io / u.total;
	s->other_pct = 100 - s->data_pct - s->compute_pct - s->comm_pct - s->sync_wait_pct - s->io_pct;
	if (s->other_pct < 0)
		s->other_pct = 0;
	if (u.gemm + u.elem > 0) {
		s->gemm_pct = 100 * u.gemm / (u.gemm + u.elem);
		s->elementwise_pct = 100 * u.elem / (u.gemm + u.elem);
	}
	s->allreduce_gbps = u.comm > 0 ? u.bytes / (u.comm / 1000) / 1e9 : 0;
}

/* Each phase that exceeds its threshold is a candidate; the one furthest
 * above its threshold (relative) wins. Otherwise compute decides, and it is
 * memory-bound when elementwise (bandwidth-bound) work outweighs GEMMs. */
static void verdict(struct ana_scenario *s, const struct ana_thresholds *th)
{
	struct { const char *name, *what; double pct, th; } c[] = {
		{ "communication-bound", "communication not hidden behind compute takes", s->comm_pct, th->comm_pct },
		{ "data-loader-bound", "ranks wait for data", s->data_pct, th->data_pct },
		{ "io-bound", "checkpoint and other I/O takes", s->io_pct, th->io_pct },
	};
	int best = -1;
	double best_ratio = 0;
	for (int i = 0; i < 3; i++) {
		double ratio = c[i].th > 0 ? c[i].pct / c[i].th : c[i].pct;
		if (c[i].pct > c[i].th && (best < 0 || ratio > best_ratio)) {
			best = i;
			best_ratio = ratio;
		}
	}
	if (best >= 0) {
		snprintf(s->verdict, sizeof s->verdict, "%s", c[best].name);
		snprintf(s->evidence, sizeof s->evidence,
			 "%s %.1f %% of step time (threshold %.0f %%); compute %.1f %%, communication %.1f %%, "
			 "data loading %.1f %%, I/O %.1f %%",
			 c[best].what, c[best].pct, c[best].th, s->compute_pct, s->comm_pct, s->data_pct, s->io_pct);
	} else if (s->elementwise_pct > s->gemm_pct) {
		snprintf(s->verdict, sizeof s->verdict, "memory-bound");
		snprintf(s->evidence, sizeof s->evidence,
			 "compute takes %.1f %% of step time and %.1f %% of it is elementwise (memory-bandwidth-bound) "
			 "work against %.1f %% in GEMMs; communication %.1f %% and data loading %.1f %% are within thresholds",
			 s->compute_pct, s->elementwise_pct, s->gemm_pct, s->comm_pct, s->data_pct);
	} else {
		snprintf(s->verdict, sizeof s->verdict, "compute-bound");
		snprintf(s->evidence, sizeof s->evidence,
			 "compute takes %.1f %% of step time; communication %.1f %% is within %.0f %%, data loading %.1f %% "
			 "within %.0f %% and I/O %.1f %% within %.0f %%",
			 s->compute_pct, s->comm_pct, th->comm_pct, s->data_pct, th->data_pct, s->io_pct, th->io_pct);
	}
}

/* Profiler outputs, and the profilers that were asked for but left none. */
static void profiles(struct ana_scenario *s, int want_nsys, int want_perf)
{
	struct perf_summary ps;
	if (perfstat_summarise(s->job_dir, &ps) == 0) {
		s->perf = xmalloc(sizeof *s->perf);
		*s->perf = ps;
	}
	s->nsys_reports = nsys_exports(s->job_dir);
	snprintf(s->profile_missing, sizeof s->profile_missing, "%s%s%s", want_nsys && !s->nsys_reports ? "nsys" : "",
		 want_nsys && !s->nsys_reports && want_perf && !s->perf ? ", " : "", want_perf && !s->perf ? "perf" : "");
}

static void analyse_scenario(struct ana_scenario *s, const struct ana_thresholds *th)
{
	struct scenario_metrics m;
	struct strbuf dir = STRBUF_INIT;
	strbuf_addf(&dir, "%s/metrics", s->job_dir);
	if (strcmp(s->state, "COMPLETED")) {
		s->problem = xstrdup("the job did not complete");
		strbuf_free(&dir);
		return;
	}
	if (metrics_load_dir(dir.buf, &m) < 0) {
		s->problem = xstrdup(err_last());
		strbuf_free(&dir);
		return;
	}
	strbuf_free(&dir);
	size_t cap = m.ranks[0].n ? m.ranks[0].n : 1;
	double *t = calloc(cap, sizeof *t);
	size_t n;
	step_times(&m, t, &n);
	if (n == 0) {
		s->problem = xstrdup("the telemetry has no active steps");
		free(t);
		metrics_free(&m);
		return;
	}
	s->analysed = 1;
	s->active_steps = n;
	struct monitor_summary ms;
	if (monitor_summarise(s->job_dir, &ms) == 0) {
		s->have_monitor = 1;
		s->monitor_nodes = ms.nodes;
		s->monitor_samples = ms.samples;
		s->cpu_util_mean_pct = ms.cpu_util_mean_pct;
		s->iowait_mean_pct = ms.iowait_mean_pct;
		s->mem_peak_pct = ms.mem_peak_pct;
	}
	s->step_med_ms = stats_percentile(t, n, 50);
	s->step_p95_ms = stats_percentile(t, n, 95);
	s->step_min_ms = t[0];
	s->step_max_ms = t[n - 1];
	s->spread_pct = s->step_med_ms > 0 ? 100 * (s->step_p95_ms - s->step_min_ms) / s->step_med_ms : 0;
	s->global_batch = m.ranks[0].global_batch;
	s->throughput = s->step_med_ms > 0 ? (double)s->global_batch * 1000.0 / s->step_med_ms : 0;
	for (size_t i = 0; i < m.ranks[0].n; i++) {
		if (!m.ranks[0].steps[i].active && i > 0)
			continue;
		if (i == 0)
			s->loss_first = m.ranks[0].steps[i].loss;
		s->loss_last = m.ranks[0].steps[i].loss;
	}
	shares(s, &m);
	verdict(s, th);
	free(t);
	metrics_free(&m);
}

/* Scenarios scale against a baseline of the same series (same backend and
 * tasks per node): the campaign's baseline if it is in the series, else the
 * analysed scenario with the fewest nodes. */
static void scaling(struct ana_run *run)
{
	for (size_t i = 0; i < run->n; i++) {
		struct ana_scenario *s = &run->sc[i], *base = NULL;
		if (!s->analysed)
			continue;
		for (size_t j = 0; j < run->n; j++) {
			struct ana_scenario *b = &run->sc[j];
			if (!b->analysed || strcmp(b->backend, s->backend) || b->tasks_per_node != s->tasks_per_node)
				continue;
			if (run->baseline && !strcmp(run->baseline, b->name)) {
				base = b;
				break;
			}
			if (!base || b->nodes < base->nodes)
				base = b;
		}
		if (!base || base->throughput <= 0)
			continue;
		snprintf(s->baseline, sizeof s->baseline, "%s", base->name);
		s->is_baseline = base == s;
		s->speedup = s->throughput / base->throughput;
		s->efficiency = s->speedup * (double)base->ranks / (double)s->ranks;
	}
}

int ana_run_analyse(struct ana_run *run)
{
	for (size_t i = 0; i < run->n; i++) {
		analyse_scenario(&run->sc[i], &run->th);
		profiles(&run->sc[i], run->want_nsys, run->want_perf);
	}
	scaling(run);
	return 0;
}

void ana_run_free(struct ana_run *run)
{
	for (size_t i = 0; i < run->n; i++) {
		struct ana_scenario *s = &run->sc[i];
		free(s->name);
		free(s->state);
		free(s->reason);
		free(s->backend);
		free(s->job_dir);
		free(s->problem);
		free(s->perf);
	}
	free(run->sc);
	free(run->campaign);
	free(run->run_id);
	free(run->run_dir);
	free(run->baseline);
	memset(run, 0, sizeof *run);
}
