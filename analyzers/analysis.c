/* SPDX-License-Identifier: MIT */
#include "analyzers/analysis.h"
#include "util/run_layout.h"

#include "analyzers/accounting.h"
#include "analyzers/advice.h"
#include "analyzers/contamination.h"
#include "analyzers/scaling.h"
#include "analyzers/read/metrics.h"
#include "analyzers/read/monitor.h"
#include "analyzers/stats.h"
#include "analyzers/read/steplog.h"
#include "analyzers/steptime.h"
#include "analyzers/torchtrace.h"
#include "analyzers/trace_files.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/sort.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void ana_run_add(struct ana_run *run, const char *name, const char *state, const char *reason,
		 const char *backend, const char *job_dir, int exit_code, int nodes,
		 int tasks_per_node)
{
	run->sc = xrealloc(run->sc, (run->n + 1) * sizeof *run->sc);
	struct ana_scenario *s = &run->sc[run->n++];
	memset(s, 0, sizeof *s);
	s->in.name = xstrdup(name);
	s->in.state = xstrdup(state);
	s->in.completed = !strcmp(state, "COMPLETED");
	s->data.format = METRICS_NONE;
	s->in.reason = xstrdup(reason ? reason : "");
	s->in.backend = xstrdup(backend);
	s->in.job_dir = xstrdup(job_dir);
	s->in.exit_code = exit_code;
	s->in.nodes = nodes;
	s->in.tasks_per_node = tasks_per_node;
	s->in.ranks = nodes * tasks_per_node;
}

void ana_run_add_probe(struct ana_run *run, const char *name, const char *state,
		       const char *backend, const char *job_dir, int nodes, int tasks_per_node)
{
	run->probes = xrealloc(run->probes, (run->nprobes + 1) * sizeof *run->probes);
	struct ana_probe *p = &run->probes[run->nprobes++];
	memset(p, 0, sizeof *p);
	p->name = xstrdup(name);
	p->state = xstrdup(state);
	p->backend = xstrdup(backend);
	p->job_dir = xstrdup(job_dir);
	p->nodes = nodes;
	p->ranks = nodes * tasks_per_node;
}

/* Each collective of known size against what the fabric probe of the same
 * node count and backend gave at that size. */
static void against_fabric(struct ana_run *run)
{
	for (size_t i = 0; i < run->nprobes; i++) /* one that did not complete has no result */
		if (!strcmp(run->probes[i].state, "COMPLETED"))
			fabric_load(&run->probes[i]);
	for (size_t i = 0; i < run->n; i++) {
		struct ana_scenario *s = &run->sc[i];
		const struct ana_probe *p =
			fabric_for(run->probes, run->nprobes, s->in.backend, s->in.nodes);
		for (size_t k = 0; p && k < s->comm.ncolls; k++)
			if (s->comm.colls[k].size_class >= 0)
				s->comm.colls[k].fabric_busbw_gbps =
					fabric_busbw_at(p, s->comm.colls[k].bytes);
	}
}

/* Profiler outputs, and the profilers that were asked for but left none. */
static void profiles(struct ana_scenario *s, const struct ana_run *run)
{
	struct perf_summary ps;
	if (perfstat_summarise(s->in.job_dir, &ps) == 0) {
		s->data.perf = xmalloc(sizeof *s->data.perf);
		*s->data.perf = ps;
	}
	s->data.nsys_reports = nsys_exports(s->in.job_dir);
	s->data.profile_missing = (run->want_nsys && !s->data.nsys_reports ? PROFILE_NSYS : 0) |
		(run->want_perf && !s->data.perf ? PROFILE_PERF : 0) |
		(run->want_inspector && !inspector_dumps(s->in.job_dir) ? PROFILE_INSPECTOR : 0);
}

/* The per-rank phases of the active step whose time is nearest the median,
 * for the step-timeline figure. */
static void timeline_step(struct ana_scenario *s, const struct scenario_metrics *m)
{
	const struct rank_metrics *r0 = &m->ranks[0];
	size_t best = 0;
	double best_d = -1;
	for (size_t i = 0; i < r0->n; i++) {
		double d = fabs(r0->steps[i].step_ms - s->steps.step_med_ms);
		if (r0->steps[i].active && (best_d < 0 || d < best_d))
			best = i, best_d = d;
	}
	s->steps.tl_step = r0->steps[best].step;
	s->steps.tl_ranks = (int)m->n;
	s->steps.tl = xcalloc(m->n, sizeof *s->steps.tl);
	for (size_t r = 0; r < m->n; r++) {
		if (best >= m->ranks[r].n)
			continue;
		const struct step_rec *st = &m->ranks[r].steps[best];
		double v[7] = { st->data_ms,	     st->forward_ms,   st->backward_ms,
				st->comm_exposed_ms, st->optimizer_ms, st->ops_ms,
				0 };
		double sum = v[0] + v[1] + v[2] + v[3] + v[4] + v[5];
		v[6] = st->step_ms > sum ? st->step_ms - sum : 0;
		memcpy(s->steps.tl[r], v, sizeof v);
	}
}

static void monitors(struct ana_scenario *s)
{
	struct monitor_summary ms; /* the GPU fields stay -1 (unknown) without GPU data */
	if (monitor_summarise(s->in.job_dir, &ms) < 0)
		return;
	s->mon.have_monitor = ms.samples > 0;
	s->mon.monitor_nodes = ms.nodes;
	s->mon.monitor_samples = ms.samples;
	s->mon.cpu_util_mean_pct = ms.cpu_util_mean_pct;
	s->mon.iowait_mean_pct = ms.iowait_mean_pct;
	s->mon.mem_peak_pct = ms.mem_peak_pct;
	s->mon.gpus = ms.gpus;
	if (ms.gpu_util_n)
		s->mon.gpu_util_mean_pct = ms.gpu_util_mean_pct;
	if (ms.gpu_memutil_n)
		s->mon.gpu_mem_util_mean_pct = ms.gpu_mem_util_mean_pct;
	if (ms.gpu_samples)
		s->mon.gpu_mem_peak_pct = ms.gpu_mem_peak_pct;
}

static void add_source(struct ana_scenario *s, enum data_source kind, size_t files)
{
	if (s->data.n_sources < ANA_SOURCES)
		s->data.sources[s->data.n_sources++] = (struct ana_source){ kind, files };
}

static int copy_top(struct ana_op *dst, const struct op_table *t)
{
	int n = 0;
	for (size_t i = 0; i < t->n && n < ANA_TOP_OPS; i++, n++) {
		snprintf(dst[n].name, sizeof dst[n].name, "%s", t->v[i].name);
		dst[n].self_ms = t->v[i].self_ms;
		dst[n].count = t->v[i].count;
	}
	return n;
}

static void keep_top_ops(struct ana_scenario *s, const struct trace_set *ts)
{
	s->data.trace_files = ts->files;
	s->data.trace_unused = ts->unreadable + ts->no_steps;
	memcpy(s->data.trace_problem, ts->problem, sizeof s->data.trace_problem);
	s->data.trace_gpu_files = ts->gpu_files;
	s->data.ops_total_ms = ts->ops.total_ms;
	s->data.n_top_ops = copy_top(s->data.top_ops, &ts->ops);
	if (ts->gpu_kernel_us > 0) {
		s->gpu.gpu_kernel_ms = ts->gpu_kernel_us / 1000;
		s->gpu.gpu_idle_pct = 100 * ts->gpu_idle_us / ts->gpu_kernel_us;
		s->gpu.gpu_compute_pct = 100 * ts->gpu_compute_us / ts->gpu_kernel_us;
		s->gpu.gpu_non_compute_pct = 100 * ts->gpu_non_compute_us / ts->gpu_kernel_us;
		s->gpu.gpu_overlap_pct =
			ts->gpu_comm_us > 0 ? 100 * ts->gpu_overlap_us / ts->gpu_comm_us : -1;
		s->gpu.kernels_total_ms = ts->kernels.total_ms;
		s->gpu.n_top_kernels = copy_top(s->gpu.top_kernels, &ts->kernels);
	}
}

/* The files of ts that a failed shard of the map step left unread. */
static void note_not_analysed(struct ana_scenario *s, const struct trace_set *ts)
{
	if (!ts->not_analysed)
		return;
	str_list_append(&s->data.trace_not_analysed_names, ", ", ts->not_analysed_names);
	s->data.trace_not_analysed += ts->not_analysed;
}

static int trace_like(const char *name)
{
	size_t n = strlen(name);
	return (n > 14 &&
		(strstr(name, ".pt.trace.json") ||
		 (strstr(name, "trace") && !strcmp(name + n - 5, ".json"))));
}

/* Trace-like files under dir (relative to base), outside campaign's own
 * folders: how many, the first few named, at most 4 levels and 10,000 entries down. */
static void find_trace_like(struct ana_data *d, const char *base, const char *rel, int depth,
			    int *budget)
{
	static const char *const skip[] = { JOB_TRACES, "attempts", JOB_METRICS, JOB_MONITOR,
					    JOB_RANKS,  JOB_NSYS,   NULL };
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s%s%s", base, *rel ? "/" : "", rel);
	struct argv names; /* in name order: the report names the same files on every file system */
	fsio_list(p.buf, &names);
	for (size_t i = 0; i < names.n && (*budget)-- > 0; i++) {
		int k = 0;
		while (skip[k] && (depth > 0 || strcmp(skip[k], names.v[i])))
			k++;
		if (skip[k])
			continue;
		struct strbuf r2 = STRBUF_INIT, full = STRBUF_INIT;
		struct stat st;
		strbuf_addf(&r2, "%s%s%s", rel, *rel ? "/" : "", names.v[i]);
		strbuf_addf(&full, "%s/%s", base, r2.buf);
		int is = lstat(full.buf, &st) == 0;
		if (is && S_ISDIR(st.st_mode) && depth < 4)
			find_trace_like(d, base, r2.buf, depth + 1, budget);
		else if (is && S_ISREG(st.st_mode) && trace_like(names.v[i]) &&
			 d->n_trace_like++ < ANA_TRACE_LIKE_SHOWN)
			d->trace_like[d->n_trace_like - 1] = xstrdup(r2.buf);
		strbuf_free(&r2);
		strbuf_free(&full);
	}
	argv_free(&names);
	strbuf_free(&p);
}

/* profile.traces matched nothing: where trace-like files are. */
static void note_traces_missed(struct ana_scenario *s)
{
	int budget = 10000;
	s->data.traces_missed = 1;
	find_trace_like(&s->data, s->in.job_dir, "", 0, &budget);
}

/* Steps from the NVTX ranges of the scenario's Nsight Systems exports; else why not, into
 * missing. */
static int load_nsys_steps(struct ana_scenario *s, const struct rules *phases,
			   const struct rules *kernels, const struct ana_run *run,
			   struct scenario_metrics *m, struct ana_missing *missing)
{
	struct strbuf dir = STRBUF_INIT;
	struct trace_set ns = { 0 };
	strbuf_addf(&dir, "%s/" JOB_NSYS, s->in.job_dir);
	int rc = phases
		? torchtrace_load_nsys_dir(dir.buf, phases, kernels, run->jobs, run->src, &ns)
		: ERR_NOTFOUND;
	strbuf_free(&dir);
	note_not_analysed(s, &ns);
	if (rc == 0 && ns.m.n) {
		*m = ns.m;
		memset(&ns.m, 0, sizeof ns.m);
		if (!s->data.n_top_ops && !s->gpu.gpu_kernel_ms)
			keep_top_ops(s, &ns);
		s->data.trace_files = ns.files;
		s->data.source = SOURCE_NSYS;
		add_source(s, SOURCE_NSYS, ns.files);
	} else {
		missing->nsys = rc == 0 ? MISS_NSYS_UNUSABLE : MISS_NSYS_ABSENT;
		if (rc == 0)
			memcpy(missing->nsys_problem, ns.problem, sizeof missing->nsys_problem);
		rc = ERR_NOTFOUND;
	}
	trace_set_free(&ns);
	return rc;
}

/* The scenario's traces/ into ts (phases: the rules to classify them; NULL: no traces read);
 * 1 when they were read. */
static int read_traces(struct ana_scenario *s, const struct ana_run *run,
		       const struct rules *phases, const struct rules *kernels,
		       struct trace_set *ts)
{
	struct strbuf dir = STRBUF_INIT;
	int have = 0;
	strbuf_addf(&dir, "%s/" JOB_TRACES, s->in.job_dir);
	if (phases && torchtrace_load_dir(dir.buf, phases, kernels, run->jobs, run->src, ts) == 0) {
		have = 1;
		keep_top_ops(s, ts);
		note_not_analysed(s, ts);
	}
	if (run->n_trace_globs && !ts->files)
		note_traces_missed(s);
	strbuf_free(&dir);
	return have;
}

/* Step data from the telemetry (trainer or AORTA-style), the traces' operators beside. */
static int from_telemetry(struct ana_scenario *s, const struct ana_run *run, int have_traces,
			  const struct trace_set *ts, struct scenario_metrics *m)
{
	struct strbuf dir = STRBUF_INIT;
	strbuf_addf(&dir, "%s/" JOB_METRICS, s->in.job_dir);
	int rc = metrics_load_dir(dir.buf, run->jobs, m);
	strbuf_free(&dir);
	if (rc != 0)
		return rc;
	s->data.source = m->ranks[0].format == METRICS_AORTA ? SOURCE_AORTA : SOURCE_TELEMETRY;
	add_source(s, s->data.source, 0);
	if (have_traces && ts->ops.n)
		add_source(s, SOURCE_TRACE_OPS, 0);
	return 0;
}

/* Step data from the PyTorch-profiler traces; else why there is none, into missing. */
static int from_traces(struct ana_scenario *s, const struct ana_run *run, int have_traces,
		       struct trace_set *ts, struct scenario_metrics *m,
		       struct ana_missing *missing)
{
	if (have_traces && ts->m.n) {
		*m = ts->m;
		memset(&ts->m, 0, sizeof ts->m);
		s->steps.partial_steps = ts->partial_steps;
		s->data.source = SOURCE_TRACES;
		add_source(s, SOURCE_TRACES, ts->files);
		return 0;
	}
	/* keep_top_ops kept the files' count and the first's problem */
	if (have_traces && ts->files)
		missing->traces = MISS_TRACES_UNUSABLE;
	else if (run->n_trace_globs && s->data.traces_missed)
		missing->traces = MISS_TRACES_UNMATCHED;
	else
		missing->traces = MISS_TRACES_ABSENT;
	return -1;
}

/* The step lines of the scenario's rank logs, each line its rank's: under a per-node
 * launcher a node's log holds its workers' lines (analyzers/read/ranklines.h). */
static int step_lines(const struct ana_scenario *s, const struct ana_run *run,
		      struct scenario_metrics *m)
{
	struct ranklines rl;
	ranklines_load(s->in.job_dir, s->in.ranks, &rl);
	int rc = steplog_load(s->in.job_dir, &rl, run->step_log, run->warmup_steps, m);
	ranklines_free(&rl);
	return rc;
}

static int by_step_no(const void *a, const void *b)
{
	const struct step_rec *x = a, *y = b;
	return (x->step > y->step) - (x->step < y->step);
}

/* The seconds a rank's step lines claim: each step number once, at its longest (a node's
 * log holds its workers' lines when the launcher does not prefix them, a logger may print a
 * line twice: the same step then appears more than once). */
static double lines_claim_s(const struct rank_metrics *r)
{
	struct step_rec *v = xmalloc((r->n + 1) * sizeof *v);
	memcpy(v, r->steps, r->n * sizeof *v);
	sort_runs(v, r->n, sizeof *v, by_step_no);
	double sum = 0;
	for (size_t i = 0, j; i < r->n; i = j) {
		double most = 0;
		for (j = i; j < r->n && v[j].step == v[i].step; j++)
			most = v[j].step_ms > most ? v[j].step_ms : most;
		sum += most / 1000;
	}
	free(v);
	return sum;
}

/* Step lines are what the workload printed: where one rank's add up to more than its job
 * ran (10 % and 1 s of slack for the job script's own clock), they cannot all be true. */
static void lines_against_job(struct ana_scenario *s, const struct scenario_metrics *m)
{
	double job = steplog_job_wall_s(s->in.job_dir), most = 0;
	int rank = -1;
	for (size_t r = 0; job >= 0 && r < m->n; r++) {
		double sum = lines_claim_s(&m->ranks[r]);
		if (sum > most)
			most = sum, rank = m->ranks[r].rank;
	}
	if (job >= 0 && most > 1.1 * job + 1)
		s->data.lines_s = most, s->data.job_s = job, s->data.lines_rank = rank;
}

/* Step data from the step lines of the rank logs (analysis.step_log); rc when there is
 * no pattern. */
static int from_step_log(struct ana_scenario *s, const struct ana_run *run,
			 struct scenario_metrics *m, struct ana_missing *missing, int rc)
{
	if (!run->step_log) {
		missing->step_log = MISS_STEP_LOG_NO_PATTERN;
		return rc;
	}
	rc = step_lines(s, run, m);
	if (rc == 0) {
		s->data.source = SOURCE_STEP_LOG;
		add_source(s, SOURCE_STEP_LOG, 0);
		lines_against_job(s, m);
	} else {
		missing->step_log = MISS_STEP_LOG_NO_MATCH;
	}
	return rc;
}

/* The step data of a scenario from the first source present: the trainer's (or
 * AORTA-style) telemetry, PyTorch-profiler traces, Nsight Systems exports, step lines in
 * the rank logs. The traces' operators are kept whatever the source. ERR_NOTFOUND with
 * data.missing saying what each source lacked. */
static int load_steps(struct ana_scenario *s, const struct ana_run *run, const struct rules *phases,
		      const struct rules *kernels, struct scenario_metrics *m)
{
	struct trace_set ts = { 0 };
	struct ana_missing *missing = &s->data.missing;
	int have_traces = read_traces(s, run, phases, kernels, &ts);
	int rc = from_telemetry(s, run, have_traces, &ts, m);
	if (rc != 0)
		rc = from_traces(s, run, have_traces, &ts, m, missing);
	if (rc != 0 && (rc = load_nsys_steps(s, phases, kernels, run, m, missing)) != 0)
		rc = from_step_log(s, run, m, missing, rc);
	trace_set_free(&ts);
	return rc;
}

/* Step lines of rank 0 alone, of a world of several: the others print none. */
static int rank0_only(const struct ana_scenario *s, const struct scenario_metrics *lines)
{
	return s->in.ranks > 1 && lines->n == 1 && lines->ranks[0].rank == 0;
}

/* The ranks launched against those the step data covers: the ones missing
 * (the first ANA_RANKS_SHOWN of them kept), and ranks beyond the world size.
 * Step lines that rank 0 alone prints leave the others without data by
 * design; data under numbers beyond the world (files that no name or record
 * ties to a rank) may be the missing ranks': which ones lack data is unknown. */
static void rank_coverage(struct ana_scenario *s, const struct scenario_metrics *m)
{
	struct ana_data *d = &s->data;
	d->ranks_with_data = (int)m->n;
	for (size_t i = 0; i < m->n; i++)
		d->ranks_beyond += m->ranks[i].rank >= s->in.ranks;
	if (d->source == SOURCE_STEP_LOG && rank0_only(s, m)) {
		d->rank0_lines_only = 1;
		return;
	}
	if (d->ranks_beyond) {
		d->ranks_without_data = s->in.ranks > (int)m->n ? s->in.ranks - (int)m->n : 0;
		return;
	}
	for (int r = 0; r < s->in.ranks; r++) {
		size_t i = 0;
		while (i < m->n && m->ranks[i].rank != r)
			i++;
		if (i == m->n && d->ranks_without_data++ < ANA_RANKS_SHOWN)
			d->ranks_missing[d->ranks_without_data - 1] = r;
	}
}

/* Samples per step across ranks: the telemetry's, else the step lines'
 * samples, else the scenario's analysis batch, else the campaign's; else
 * unknown (0), and the throughput is in steps per second. */
static void batch_of(struct ana_scenario *s, const struct scenario_metrics *m,
		     const struct ana_run *run)
{
	struct ana_steps *st = &s->steps;
	st->global_batch = m->ranks[0].global_batch;
	st->batch_from = BATCH_TELEMETRY;
	for (size_t r = 0; r < m->n && st->global_batch <= 0; r++)
		for (size_t i = 0; i < m->ranks[r].n; i++)
			if (m->ranks[r].steps[i].active && m->ranks[r].steps[i].samples > 0) {
				st->global_batch += m->ranks[r].steps[i].samples;
				st->batch_from = BATCH_STEP_SAMPLES;
				break;
			}
	if (st->global_batch <= 0 && s->in.global_batch_set > 0)
		st->global_batch = s->in.global_batch_set, st->batch_from = BATCH_SCENARIO_GLOBAL;
	else if (st->global_batch <= 0 && s->in.batch_per_rank > 0)
		st->global_batch = (long) s->in.batch_per_rank * s->in.ranks,
		st->batch_from = BATCH_SCENARIO_PER_RANK;
	else if (st->global_batch <= 0 && run->global_batch > 0)
		st->global_batch = run->global_batch, st->batch_from = BATCH_CAMPAIGN_GLOBAL;
	else if (st->global_batch <= 0 && run->batch_per_rank > 0)
		st->global_batch = (long) run->batch_per_rank * s->in.ranks,
		st->batch_from = BATCH_CAMPAIGN_PER_RANK;
	if (st->global_batch <= 0) {
		st->global_batch = 0;
		st->batch_from = BATCH_UNKNOWN;
	}
}

/* Traces without step boundaries give the shares of their whole window;
 * the step times then come from the step lines of the rank logs when the
 * campaign has a pattern for them (1, into *logged). */
static int window_times(struct ana_scenario *s, const struct ana_run *run,
			const struct scenario_metrics *m, struct scenario_metrics *logged)
{
	int ok = 0;
	if (!m->ranks[0].whole_window || !run->step_log)
		return 0;
	if (step_lines(s, run, logged) == 0) {
		add_source(s, SOURCE_STEP_LOG_TIMES, 0);
		s->data.rank0_lines_only = rank0_only(s, logged);
		ok = 1;
	}
	return ok;
}

/* The active steps' statistics (t sorted, n of them). */
static void step_stats(struct ana_scenario *s, double *t, size_t n)
{
	s->steps.active_steps = n;
	s->steps.step_ms = xmalloc(n * sizeof *s->steps.step_ms); /* in the order they ran */
	memcpy(s->steps.step_ms, t, n * sizeof *t);
	s->steps.step_mean_ms = stats_mean(t, n);
	s->steps.step_med_ms = stats_percentile(t, n, 50); /* (t sorted from here) */
	/* the median's interval where the steps are alike: a median's resamples are drawn step
	 * by step, which steps that repeat with a period (a checkpoint every few) would make too
	 * wide; where they are not alike the report cites the mean, not the median */
	struct stats_sample one = { s->steps.step_ms, n };
	struct stats_interval ci = { 0 };
	s->steps.step_med_lo_ms = s->steps.step_med_hi_ms = -1;
	if (n >= STATS_BOOTSTRAP_MIN_N &&
	    !stats_unalike(s->steps.step_med_ms, s->steps.step_mean_ms))
		stats_bootstrap(&one, 1, NULL, 0, STATS_MEDIAN, &ci);
	if (ci.known)
		s->steps.step_med_lo_ms = ci.lo, s->steps.step_med_hi_ms = ci.hi;
	s->steps.step_p95_ms = stats_percentile(t, n, 95);
	s->steps.step_min_ms = t[0];
	s->steps.step_max_ms = t[n - 1];
	s->steps.spread_pct = s->steps.step_med_ms > 0
		? 100 * (s->steps.step_p95_ms - s->steps.step_min_ms) / s->steps.step_med_ms
		: 0;
}

/* Samples (or steps) per second at the median step and at the mean step (the rate over the
 * run, which the median overstates where the steps are not alike). */
static void throughputs_of(struct ana_scenario *s)
{
	double per = (s->steps.global_batch > 0 ? (double)s->steps.global_batch : 1.0) * 1000.0;
	s->steps.throughput = s->steps.step_med_ms > 0 ? per / s->steps.step_med_ms : 0;
	s->steps.throughput_at_mean = s->steps.step_mean_ms > 0 ? per / s->steps.step_mean_ms : 0;
}

/* The loss at the first step and the last active one of rank 0. */
static void loss_of(struct ana_scenario *s, const struct rank_metrics *r0)
{
	for (size_t i = 0; i < r0->n; i++) {
		if (!r0->steps[i].active && i > 0)
			continue;
		if (i == 0)
			s->steps.loss_first = r0->steps[i].loss;
		s->steps.loss_last = r0->steps[i].loss;
		s->steps.loss_known |= s->steps.loss_last != 0;
	}
}

/* Who waits for whom: stragglers (and their node's monitors against the
 * rest), the collectives matched across ranks, the communication floor; the ranks'
 * nodes are set (clocks_of); emulated: the nodes are the local executor's, this machine. */
static void waiting_of(struct ana_scenario *s, struct scenario_metrics *m, int emulated)
{
	straggler_find(m, s->steps.step_med_ms, s->comm.stragglers, &s->comm.n_stragglers,
		       s->comm.slow_node, sizeof s->comm.slow_node, &s->comm.straggler_test);
	s->comm.slow_node_emulated = s->comm.slow_node[0] && emulated;
	s->comm.have_slow_mon = s->comm.slow_node[0] &&
		monitor_summarise_nodes(s->in.job_dir, s->comm.slow_node, 0, &s->comm.slow_mon) ==
			0 &&
		monitor_summarise_nodes(s->in.job_dir, s->comm.slow_node, 1, &s->comm.rest_mon) ==
			0;
	collectives_of(m, &s->comm.colls, &s->comm.ncolls);
	accounting_comm_floor(s, m);
}

/* Each rank's and node's clock against the first rank's, from the collectives' ends. */
static void clocks_of(struct ana_scenario *s, struct scenario_metrics *m,
		      const struct ana_run *run)
{
	/* traces and step logs do not say where a rank ran: the launch's records do (once,
	 * for the clocks and then the stragglers) */
	trace_files_rank_nodes(s->in.job_dir, m);
	/* the local executor's ranks share one clock; traces may come from elsewhere */
	int one_clock = run->host_cpus > 0 && s->data.format != METRICS_TORCH_TRACE &&
			s->data.format != METRICS_NSYS;
	clocks_of_scenario(m, one_clock, &s->comm.clocks);
}

/* Rank 0's steps for the step-time figure; achieved FLOP/s and MFU. */
static void rank0_and_flops(struct ana_scenario *s, const struct rank_metrics *r0,
			    double flops_per_step, double peak_gflops)
{
	s->steps.n_rank0 = r0->n;
	s->steps.rank0 = xcalloc(s->steps.n_rank0 + 1, sizeof *s->steps.rank0);
	for (size_t i = 0; i < s->steps.n_rank0; i++) {
		s->steps.rank0[i][0] = (double)r0->steps[i].step;
		s->steps.rank0[i][1] = r0->steps[i].step_ms;
		s->steps.rank0[i][2] = r0->steps[i].active;
	}
	s->steps.flops_per_step = flops_per_step;
	if (s->steps.flops_per_step > 0 && s->steps.step_med_ms > 0)
		s->steps.achieved_gflops =
			s->steps.flops_per_step / (s->steps.step_med_ms / 1000) / 1e9;
	if (s->steps.achieved_gflops > 0 && peak_gflops > 0)
		s->steps.mfu_pct = 100 * s->steps.achieved_gflops / peak_gflops;
}

/* The monitors and the step data of a completed scenario into m; < 0 when there is no
 * step data (the problem said; the monitors' verdict when there are monitors). */
static int scenario_data(struct ana_scenario *s, const struct ana_run *run,
			 const struct rules *phases, const struct rules *kernels,
			 struct scenario_metrics *m)
{
	monitors(s);
	if (load_steps(s, run, phases, kernels, m) < 0) {
		s->data.problem = PROBLEM_NO_STEP_DATA;
		struct scenario_metrics none = { 0 };
		contamination_of(s, &none); /* over every sample: no steps to bound them */
		if (s->mon.have_monitor) {
			s->data.monitors_only = 1;
			add_source(s, SOURCE_MONITORS, 0);
			accounting_monitor_verdict(s, run);
		}
		return -1;
	}
	rank_coverage(s, m);
	contamination_of(s, m); /* over its active steps */
	if (s->mon.have_monitor)
		add_source(s, SOURCE_MONITORS, 0);
	for (size_t i = 0; i < m->n; i++)
		s->data.bad_lines += m->ranks[i].bad_lines;
	accounting_gpu_period(s, m);
	return 0;
}

/* Why the scenario's step data gives no graph to replay; REPLAY_MADE when it may (the
 * trainer's telemetry: when the trainer's traces are there, replay_scenario_trainer says). */
static enum replay_why replay_source(const struct ana_scenario *s, int cores, int own_times)
{
	if (s->data.source == SOURCE_TELEMETRY)
		return REPLAY_MADE;
	if (s->data.source == SOURCE_AORTA)
		return REPLAY_TELEMETRY;
	if (s->data.source != SOURCE_TRACES && s->data.source != SOURCE_NSYS)
		return REPLAY_STEP_LINES;
	if (!own_times)
		return REPLAY_NO_STEP_RANGES;
	return cores <= 0 ? REPLAY_NO_CORES : REPLAY_MADE;
}

/* The shortest span of any rank's active steps on a clock of its own (seconds; 0: none). */
static double own_clock_span_s(const struct scenario_metrics *m)
{
	double least = 0;
	for (size_t r = 0; r < m->n; r++) {
		double a = -1, b = -1;
		for (size_t i = 0; i < m->ranks[r].n && m->ranks[r].own_clock; i++) {
			const struct step_rec *st = &m->ranks[r].steps[i];
			if (!st->active)
				continue;
			a = a < 0 || st->start_us < a ? st->start_us : a;
			b = st->start_us + st->step_ms * 1e3 > b ? st->start_us + st->step_ms * 1e3
								 : b;
		}
		if (b > a && a >= 0 && (least <= 0 || (b - a) / 1e6 < least))
			least = (b - a) / 1e6;
	}
	return least;
}

/* The cores the job kept busy over its active steps, by the node monitors, into w: over the
 * steps' window, or where their traces keep a clock of their own, over the part of the job
 * they must have covered wherever they fell in it before the traces were written
 * (w->job_cores_span_s; w->ends_by_write where that time bounds it); -1 unknown. */
static void job_cores_of(const struct ana_scenario *s, const struct scenario_metrics *m,
			 int cores, struct replay_where *w)
{
	double from, to, span = own_clock_span_s(m), by = 0, whole = 0;
	contamination_window(m, &from, &to);
	if (to > from) {
		if (monitor_job_cores(s->in.job_dir, from, to, cores, &w->job_cores) < 0)
			w->job_cores = -1;
		return;
	}
	w->job_cores = -1;
	if (span <= 0)
		return;
	struct strbuf dir = STRBUF_INIT;
	strbuf_addf(&dir, "%s/" JOB_TRACES, s->in.job_dir);
	by = trace_files_written(dir.buf);
	strbuf_free(&dir);
	if (monitor_span(s->in.job_dir, span, by, &w->monitored_s, &whole) < 0)
		return;
	w->ends_by_write = w->monitored_s < whole;
	if (monitor_job_cores_within(s->in.job_dir, span, by, cores, &w->job_cores) == 0)
		w->job_cores_span_s = span;
	else
		w->unplaced_span_s = span; /* (monitors, but too long a job to place a sample) */
}

/* The share of the active steps' per-sample compute (forward, backward, operators outside
 * them) that the telemetry or the traces timed as GEMMs (0: none timed so), at most 1. */
static double gemm_share_of(const struct scenario_metrics *m)
{
	double gemm = 0, all = 0;
	for (size_t r = 0; r < m->n; r++)
		for (size_t i = 0; i < m->ranks[r].n; i++) {
			const struct step_rec *st = &m->ranks[r].steps[i];
			if (!st->active)
				continue;
			gemm += st->gemm_ms;
			all += st->forward_ms + st->backward_ms + st->ops_ms;
		}
	return all > 0 && gemm > 0 ? (gemm < all ? gemm / all : 1) : 0;
}

/* The replay of the scenario's traces, unchanged (replay_scenario.h): only of host traces
 * that gave the step data, or of the trainer's traces beside its telemetry (which still
 * gives the step data), on nodes whose cores are known; else why not. */
static void replay_of(struct ana_scenario *s, const struct ana_run *run,
		      const struct rules *phases, const struct scenario_metrics *m, int own_times)
{
	struct replay_result *r = &s->replay;
	int cores = run->cores_per_node > 0 ? run->cores_per_node : run->host_cpus;
	int trainer = s->data.source == SOURCE_TELEMETRY, rc;
	r->why_kind = phases ? replay_source(s, cores, own_times) : REPLAY_NOT_BUILT;
	if (r->why_kind != REPLAY_MADE)
		return;
	struct strbuf dir = STRBUF_INIT;
	strbuf_addf(&dir, "%s/%s", s->in.job_dir,
		    trainer ? JOB_METRICS : s->data.source == SOURCE_NSYS ? JOB_NSYS : JOB_TRACES);
	/* under the local executor every emulated node is this machine */
	int slow[STRAGGLER_MAX];
	size_t nslow = 0;
	for (size_t k = 0; k < s->comm.n_stragglers && nslow < STRAGGLER_MAX; k++)
		slow[nslow++] = s->comm.stragglers[k].rank;
	struct replay_where w = { .cores = cores, .one_host = run->host_cpus > 0,
				  .loader_workers = s->in.loader_workers,
				  .loader_depth = s->in.loader_prefetch, .job_cores = -1,
				  .ckpt_every = s->in.ckpt_every, .ckpt_async = s->in.ckpt_async,
				  .slow_ranks = slow, .nslow = nslow };
	if (s->in.ranks > 0 && s->in.nodes > 0) /* the emulated nodes share this machine */
		w.host_ranks = w.one_host ? s->in.ranks
					  : (s->in.ranks + s->in.nodes - 1) / s->in.nodes;
	if (s->in.loader_workers > 0)
		job_cores_of(s, m, cores, &w);
	/* (on a GPU the host's compute is dispatch, which the batch does not scale) */
	w.gemm_share = s->data.trace_gpu_files ? 0 : gemm_share_of(m);
	rc = trainer ? replay_scenario_trainer(dir.buf, phases, m, &w, r)
		     : replay_scenario_run(dir.buf, phases, m, &w, r);
	if (rc < 0) {
		r->why_kind = REPLAY_FAILED;
		snprintf(r->why, sizeof r->why, "%s", err_last());
	}
	strbuf_free(&dir);
}

/* Why a scenario without step data has no replay. */
static void no_replay(struct ana_scenario *s)
{
	if (s->replay.built || s->replay.why_kind != REPLAY_MADE)
		return;
	s->replay.why_kind = s->data.problem == PROBLEM_INCOMPLETE ? REPLAY_INCOMPLETE
			     : s->data.monitors_only		 ? REPLAY_MONITORS_ONLY
								 : REPLAY_NO_STEP_DATA;
}

/* Rank 0's steps, FLOPs, and the replay: what the scenario's step data gives last. */
static void scenario_tail(struct ana_scenario *s, const struct ana_run *run,
			  const struct rules *phases, const struct scenario_metrics *m,
			  const struct rank_metrics *r0, int own_times)
{
	rank0_and_flops(s, r0, m->ranks[0].flops_per_step, run->peak_gflops);
	replay_of(s, run, phases, m, own_times);
}

static void analyse_scenario(struct ana_scenario *s, const struct ana_run *run,
			     const struct rules *phases, const struct rules *kernels)
{
	s->mon.gpu_util_mean_pct = s->mon.gpu_mem_util_mean_pct = s->mon.gpu_mem_peak_pct = -1;
	s->steps.mfu_pct = -1;
	struct scenario_metrics m;
	if (!s->in.completed) {
		s->data.problem = PROBLEM_INCOMPLETE;
		return;
	}
	if (scenario_data(s, run, phases, kernels, &m) < 0)
		return;
	struct scenario_metrics logged = { 0 }, *times = &m;
	if (window_times(s, run, &m, &logged))
		times = &logged;
	size_t cap = times->ranks[0].n ? times->ranks[0].n : 1;
	double *t = calloc(cap, sizeof *t);
	size_t n;
	steptime_list(times, t, &n, &s->steps.step_periods);
	if (n == 0) {
		s->data.problem = times->ranks[0].format == METRICS_STEP_LOG ? PROBLEM_ALL_WARMUP
									      : PROBLEM_NO_ACTIVE;
		free(t);
		metrics_free(&m);
		metrics_free(&logged);
		return;
	}
	s->data.analysed = 1;
	step_stats(s, t, n);
	batch_of(s, times, run);
	throughputs_of(s);
	const struct rank_metrics *r0 = &times->ranks[0];
	loss_of(s, r0);
	accounting_shares(s, &m);
	s->data.format = m.ranks[0].format;
	s->shares.shares_known = m.ranks[0].format != METRICS_STEP_LOG;
	s->steps.window_shares = times != &m;
	s->steps.no_steps = m.ranks[0].whole_window && times == &m;
	clocks_of(s, &m, run);
	if (s->shares.shares_known && !m.ranks[0].whole_window)
		waiting_of(s, &m, run->host_cpus > 0);
	if (s->steps.no_steps) /* one window, not a step: nothing per step or per second to say */
		s->steps.throughput = s->steps.throughput_at_mean = 0;
	accounting_gpu_shares(s, &m);
	if (!s->shares.shares_known && !s->gpu.gpu_basis)
		/* step times alone say nothing of where they go */
		accounting_monitor_verdict(s, run);
	else
		accounting_outcome(s, run, &m);
	inspector_scenario(s, &m); /* after the verdict: its stragglers name, never weigh */
	clocks_from_inspector(&s->comm.insp, &s->comm.clocks);
	timeline_step(s, &m);
	scenario_tail(s, run, phases, &m, r0, times == &m);
	free(t);
	metrics_free(&m);
	metrics_free(&logged);
}

/* Of analyse_scenario's parts, those a trace file alone has the data for: no batch (a trace
 * does not say it), loss, GPU shares, waiting for peers, FLOPs or verdict. A key added to
 * summary_traces_json needs its part here. */
void ana_scenario_of_traces(struct ana_scenario *s, struct trace_set *ts)
{
	memset(s, 0, sizeof *s);
	s->mon.gpu_util_mean_pct = s->mon.gpu_mem_util_mean_pct = s->mon.gpu_mem_peak_pct = -1;
	s->steps.mfu_pct = -1;
	op_table_sort(&ts->ops);
	op_table_sort(&ts->kernels);
	keep_top_ops(s, ts);
	s->steps.partial_steps = ts->partial_steps;
	struct scenario_metrics *m = &ts->m;
	if (!m->n)
		return;
	s->data.source = SOURCE_TRACES;
	accounting_gpu_period(s, m);
	double *t = xcalloc(m->ranks[0].n + 1, sizeof *t);
	size_t n;
	steptime_list(m, t, &n, &s->steps.step_periods);
	if (n) {
		s->data.analysed = s->shares.shares_known = 1;
		step_stats(s, t, n);
		s->steps.no_steps = m->ranks[0].whole_window;
		if (!s->steps.no_steps)
			throughputs_of(s);
		accounting_shares(s, m);
	}
	free(t);
}

int ana_phase_rules_load(const struct ana_run *run, struct rules *r)
{
	char why[300];
	rules_init(r);
	for (size_t i = 0; i < run->n_phase_rules; i++)
		if (rules_add(r, run->phase_names[i], run->phase_patterns[i], why, sizeof why) <
		    0) {
			rules_free(r);
			return err_set(ERR_USAGE, "analysis.phase_rules[%zu]: %s", i, why);
		}
	char *path = rules_phase_path();
	int rc = rules_load_more(path, r);
	free(path);
	return rc;
}

int ana_run_analyse(struct ana_run *run)
{
	struct rules phases, kernels;
	int have_phases = ana_phase_rules_load(run, &phases) == 0;
	if (!have_phases)
		fprintf(stderr, "campaign: warning: traces are not analysed: %s\n", err_last());
	char *kpath = rules_default_path();
	int have_kernels = rules_load(kpath, &kernels) == 0;
	free(kpath);
	for (size_t i = 0; i < run->n; i++) {
		analyse_scenario(&run->sc[i], run, have_phases ? &phases : NULL,
				 have_kernels ? &kernels : NULL);
		no_replay(&run->sc[i]);
		profiles(&run->sc[i], run);
	}
	if (have_phases)
		rules_free(&phases);
	if (have_kernels)
		rules_free(&kernels);
	scaling_run(run);
	for (size_t i = 0; i < run->n; i++)
		if (run->sc[i].scaling.is_baseline)
			scaling_fit_series(run, &run->sc[i]);
	against_fabric(run);
	advice_plan(run);
	prediction_check_run(run);
	return 0;
}

void ana_scenario_free(struct ana_scenario *s)
{
	free(s->in.name);
	free(s->in.state);
	free(s->in.reason);
	free(s->in.requeued);
	free(s->in.backend);
	free(s->in.job_dir);
	free(s->in.series);
	free(s->data.trace_not_analysed_names);
	for (int k = 0; k < s->data.n_trace_like && k < ANA_TRACE_LIKE_SHOWN; k++)
		free(s->data.trace_like[k]);
	free(s->steps.step_ms);
	free(s->shares.step_compute_ms);
	collectives_free(s->comm.colls, s->comm.ncolls);
	clocks_free(&s->comm.clocks);
	free(s->comm.comm_floor_ms);
	inspector_summary_free(&s->comm.insp);
	free(s->data.perf);
	free(s->steps.tl);
	free(s->steps.rank0);
	replay_result_free(&s->replay);
}

void ana_run_free(struct ana_run *run)
{
	prediction_check_free(&run->variant);
	for (size_t i = 0; i < run->n; i++)
		ana_scenario_free(&run->sc[i]);
	free(run->sc);
	for (size_t i = 0; i < run->nprobes; i++)
		ana_probe_free(&run->probes[i]);
	free(run->probes);
	advice_free(run);
	free(run->models);
	free(run->campaign);
	free(run->run_id);
	free(run->run_dir);
	free(run->baseline);
	free(run->scaling);
	for (size_t i = 0; i < run->n_phase_rules; i++) {
		free(run->phase_names[i]);
		free(run->phase_patterns[i]);
	}
	free(run->phase_names);
	free(run->phase_patterns);
	free(run->step_log);
	for (size_t i = 0; i < run->n_trace_globs; i++)
		free(run->trace_globs[i]);
	free(run->trace_globs);
	memset(run, 0, sizeof *run);
}

/* Trace files were read and some could not be used: said whether or not the steps came
 * from them (telemetry may have been the source). */
int ana_some_traces_unused(const struct ana_scenario *s)
{
	return s->data.analysed && s->data.trace_unused;
}
