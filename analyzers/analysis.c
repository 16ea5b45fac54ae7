#include "analyzers/analysis.h"
#include "util/run_layout.h"

#include "analyzers/advice.h"
#include "analyzers/read/metrics.h"
#include "analyzers/read/monitor.h"
#include "analyzers/stats.h"
#include "analyzers/read/steplog.h"
#include "analyzers/torchtrace.h"
#include "util/err.h"
#include "util/fsio.h"
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
	for (size_t i = 0; i < run->nprobes; i++)
		if (strcmp(run->probes[i].state, "COMPLETED"))
			snprintf(run->probes[i].problem, sizeof run->probes[i].problem,
				 "the probe job ended %s", run->probes[i].state);
		else
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

/* Per step, the least communication time over ranks: the transfer once
 * all have arrived; what a rank spends beyond it is waiting for peers. */
static void comm_floor(struct ana_scenario *s, const struct scenario_metrics *m)
{
	if (m->n < 2)
		return;
	s->comm.n_floor = m->ranks[0].n;
	s->comm.comm_floor_ms = xcalloc(s->comm.n_floor + 1, sizeof *s->comm.comm_floor_ms);
	for (size_t i = 0; i < s->comm.n_floor; i++) {
		double least = -1;
		for (size_t r = 0; r < m->n; r++)
			if (i < m->ranks[r].n &&
			    (least < 0 || m->ranks[r].steps[i].comm_ms < least))
				least = m->ranks[r].steps[i].comm_ms;
		s->comm.comm_floor_ms[i] = least > 0 ? least : 0;
	}
}

/* When the GPU's busy time per step outlasts the host's steps and the GPU
 * ends after the host (the host launches ahead and the queue grows), the
 * GPU's period bounds throughput: each step is timed by its GPU window, and
 * one without (the profiler drops the last step's GPU work) is not timed. */
static void gpu_period(struct ana_scenario *s, struct scenario_metrics *m)
{
	double gpu = 0, host = 0, ahead = 0;
	size_t n = 0, cap = 1;
	for (size_t r = 0; r < m->n; r++)
		cap += m->ranks[r].n;
	double *hs = xcalloc(cap, sizeof *hs);
	for (size_t r = 0; r < m->n && !m->ranks[r].whole_window; r++) {
		const struct step_rec *last = NULL;
		for (size_t i = 0; i < m->ranks[r].n; i++) {
			const struct step_rec *st = &m->ranks[r].steps[i];
			if (!st->active || st->gpu[GPU_WINDOW] <= 0)
				continue;
			gpu += st->gpu[GPU_WINDOW] - st->gpu[GPU_IDLE_HOST] -
				st->gpu[GPU_IDLE_DATA] - st->gpu[GPU_IDLE_KERNEL] -
				st->gpu[GPU_IDLE_OTHER];
			host += hs[n++] = st->step_ms;
			last = st;
		}
		double a = last ? (last->gpu_end_us - last->start_us) / 1000 - last->step_ms : 0;
		ahead = a > ahead ? a : ahead;
	}
	if (gpu > host && ahead > 0) {
		s->gpu.gpu_limits = 1;
		s->gpu.host_step_med_ms = stats_percentile(hs, n, 50);
		s->gpu.host_ahead_ms = ahead;
		for (size_t r = 0; r < m->n; r++)
			for (size_t i = 0; i < m->ranks[r].n; i++) {
				struct step_rec *st = &m->ranks[r].steps[i];
				if (st->gpu[GPU_WINDOW] > 0)
					st->step_ms = st->gpu[GPU_WINDOW];
				else
					st->active = 0;
			}
	}
	free(hs);
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
	double data, fwd, bwd, ops, comm, exposed, wait, opt, io, gemm, elem, bytes, total;
};

static void add_step(struct sums *u, const struct step_rec *st, double step_min_exposed)
{
	u->data += st->data_ms;
	u->fwd += st->forward_ms;
	u->bwd += st->backward_ms;
	u->ops += st->ops_ms;
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
			add_step(&u, st,
				 i < m->ranks[0].n ? min_exposed(m, i) : st->comm_exposed_ms);
			rank_total += st->step_ms;
			rank_steps++;
		}
		double mean = rank_steps ? rank_total / (double)rank_steps : 0;
		if (mean > worst) {
			worst = mean;
			s->steps.slowest_rank = m->ranks[r].rank;
			s->steps.slowest_rank_ms = mean;
		}
	}
	if (u.total <= 0)
		return;
	s->shares.data_pct = 100 * u.data / u.total;
	s->shares.forward_pct = 100 * u.fwd / u.total;
	s->shares.backward_pct = 100 * u.bwd / u.total;
	s->shares.optimizer_pct = 100 * u.opt / u.total;
	s->shares.ops_pct = 100 * u.ops / u.total;
	s->shares.compute_pct = s->shares.forward_pct + s->shares.backward_pct +
		s->shares.optimizer_pct + s->shares.ops_pct;
	/* what communication itself adds to the step */
	s->shares.comm_pct = 100 * u.exposed / u.total;
	s->shares.sync_wait_pct = 100 * u.wait / u.total;
	s->shares.comm_total_pct = 100 * u.comm / u.total;
	s->shares.overlap_pct = u.comm > 0 ? 100 * (1 - (u.exposed + u.wait) / u.comm) : 0;
	if (s->shares.overlap_pct < 0)
		s->shares.overlap_pct = 0;
	s->shares.io_pct = 100 * u.io / u.total;
	s->shares.other_pct = 100 - s->shares.data_pct - s->shares.compute_pct -
		s->shares.comm_pct - s->shares.sync_wait_pct - s->shares.io_pct;
	if (s->shares.other_pct < 0)
		s->shares.other_pct = 0;
	if (u.gemm + u.elem > 0) {
		s->shares.gemm_pct = 100 * u.gemm / (u.gemm + u.elem);
		s->shares.elementwise_pct = 100 * u.elem / (u.gemm + u.elem);
	}
	s->comm.allreduce_gbps = u.comm > 0 ? u.bytes / (u.comm / 1000) / 1e9 : 0;
}

/* Memory pressure: the GPU memory peak from the GPU monitor, else the host's. */
static double memory_peak(const struct ana_scenario *s, const char **what)
{
	*what = "GPU memory peaked at";
	if (s->mon.gpu_mem_peak_pct >= 0)
		return s->mon.gpu_mem_peak_pct;
	*what = "host memory peaked at";
	return s->mon.have_monitor ? s->mon.mem_peak_pct : 0;
}

/* The GPU view of the scenario: every rank's active steps with GPU work,
 * their parts summed over their windows (shares of the GPU window). */
static void gpu_shares(struct ana_scenario *s, const struct scenario_metrics *m)
{
	double sum[GPU_FIELDS] = { 0 };
	for (size_t r = 0; r < m->n; r++)
		for (size_t i = 0; i < m->ranks[r].n; i++) {
			const struct step_rec *st = &m->ranks[r].steps[i];
			if (!st->active || st->gpu[GPU_WINDOW] <= 0)
				continue;
			for (int f = 0; f < GPU_FIELDS; f++)
				sum[f] += st->gpu[f];
			s->gpu.gpu_steps++;
		}
	if (sum[GPU_WINDOW] <= 0)
		return;
	s->gpu.gpu_basis = 1;
	s->gpu.gpu_pct[GPU_WINDOW] = sum[GPU_WINDOW];
	for (int f = 1; f < GPU_FIELDS; f++)
		s->gpu.gpu_pct[f] = 100 * sum[f] / sum[GPU_WINDOW];
}

/* Where waiting for peers counts: see ana_outcome.wait_to. */
static enum share_kind wait_share(const struct ana_scenario *s)
{
	if (!s->comm.n_stragglers || s->steps.no_steps || s->steps.window_shares)
		return SHARE_COMMUNICATION;
	switch (s->comm.stragglers[0].cause_kind) {
	case STRAGGLER_COMPUTE:
		return SHARE_COMPUTE;
	case STRAGGLER_DATA:
		return SHARE_DATA;
	case STRAGGLER_IO:
		return SHARE_IO;
	case STRAGGLER_OTHER:
		return SHARE_HOST;
	case STRAGGLER_UNKNOWN:
		break;
	}
	return SHARE_PEER_WAIT;
}

/* The host's candidates: compute (memory-bound when elementwise work
 * outweighs GEMMs), exposed communication, data loading, I/O, host
 * overhead, each with the waiting for peers it causes (wait_to), and that
 * waiting apart (straggler-bound) when no phase explains it. */
static size_t host_candidates(const struct ana_scenario *s, struct candidate *c)
{
	const struct ana_shares *sh = &s->shares;
	enum share_kind w = s->outcome.wait_to;
	double wait = sh->sync_wait_pct;
	size_t n = 0;
	c[n++] = (struct candidate){ SHARE_COMPUTE,
				     sh->elementwise_pct > sh->gemm_pct ? VERDICT_MEMORY
									 : VERDICT_COMPUTE,
				     sh->compute_pct + (w == SHARE_COMPUTE ? wait : 0) };
	c[n++] = (struct candidate){ SHARE_COMMUNICATION, VERDICT_COMMUNICATION,
				     sh->comm_pct + (w == SHARE_COMMUNICATION ? wait : 0) };
	if (w == SHARE_PEER_WAIT)
		c[n++] = (struct candidate){ SHARE_PEER_WAIT, VERDICT_STRAGGLER, wait };
	c[n++] = (struct candidate){ SHARE_DATA, VERDICT_DATA_LOADER,
				     sh->data_pct + (w == SHARE_DATA ? wait : 0) };
	c[n++] = (struct candidate){ SHARE_IO, VERDICT_IO,
				     sh->io_pct + (w == SHARE_IO ? wait : 0) };
	c[n++] = (struct candidate){ SHARE_HOST, VERDICT_HOST,
				     sh->other_pct + (w == SHARE_HOST ? wait : 0) };
	return n;
}

/* The GPU's candidates, shares of its partitioned windows: compute kernels
 * (memory-bound when elementwise-like kernels outweigh matrix ones), exposed
 * communication, exposed copies, and the GPU idle waiting for the host
 * (data-loader-bound for the part the host spent loading data). */
static size_t gpu_candidates(const struct ana_scenario *s, struct candidate *c)
{
	const double *g = s->gpu.gpu_pct;
	size_t n = 0;
	c[n++] = (struct candidate){ SHARE_COMPUTE,
				     g[GPU_COMPUTE] - g[GPU_GEMM] > g[GPU_GEMM] ? VERDICT_MEMORY
										  : VERDICT_COMPUTE,
				     g[GPU_COMPUTE] };
	c[n++] = (struct candidate){ SHARE_COMMUNICATION, VERDICT_COMMUNICATION, g[GPU_COMM] };
	c[n++] = (struct candidate){ SHARE_COPIES, VERDICT_MEMORY, g[GPU_MEMCPY] };
	c[n++] = (struct candidate){ SHARE_DATA, VERDICT_DATA_LOADER, g[GPU_IDLE_DATA] };
	c[n++] = (struct candidate){ SHARE_HOST, VERDICT_HOST, g[GPU_IDLE_HOST] };
	return n;
}

size_t ana_candidates(const struct ana_scenario *s, struct candidate *c)
{
	return s->outcome.basis == BASIS_GPU ? gpu_candidates(s, c) : host_candidates(s, c);
}

/* The seed thresholds, as flags beside the verdict. */
static void flags_of(struct ana_scenario *s, const struct ana_thresholds *th)
{
	struct verdict_out *v = &s->outcome.v;
	const char *memwhat;
	if (s->outcome.basis == BASIS_GPU) {
		const double *g = s->gpu.gpu_pct;
		verdict_flag(v, FLAG_COMMUNICATION, g[GPU_COMM], th->comm_pct);
		verdict_flag(v, FLAG_COPIES, g[GPU_MEMCPY],
			     th->gpu_copy_pct > 0 ? th->gpu_copy_pct : VERDICT_COPY_PCT);
		verdict_flag(v, FLAG_DATA, g[GPU_IDLE_DATA], th->data_pct);
		verdict_flag(v, FLAG_GPU_IDLE,
			     g[GPU_IDLE_HOST] + g[GPU_IDLE_DATA] + g[GPU_IDLE_KERNEL] +
				     g[GPU_IDLE_OTHER],
			     100 - th->gpu_util_pct);
	} else {
		/* waiting a straggler's cause explains is that cause's, not communication's */
		verdict_flag(v, FLAG_COMMUNICATION,
			     s->shares.comm_pct + (s->outcome.wait_to == SHARE_COMMUNICATION
							   ? s->shares.sync_wait_pct
							   : 0),
			     th->comm_pct);
		verdict_flag(v, FLAG_DATA, s->shares.data_pct, th->data_pct);
		verdict_flag(v, FLAG_IO, s->shares.io_pct, th->io_pct);
		if (s->mon.gpu_util_mean_pct >= 0)
			verdict_flag(v, FLAG_GPU_IDLE, 100 - s->mon.gpu_util_mean_pct,
				     100 - th->gpu_util_pct);
	}
	verdict_flag(v, FLAG_MEMORY, memory_peak(s, &memwhat), th->memory_pct);
}

/* Share k of one rank's step (ms), as the scenario's candidates count it:
 * with a straggler named (least >= 0, the step's least exposed
 * communication) the transfer is the least and the rest, the waiting, goes
 * to wait_to. */
static double step_part(const struct step_rec *st, enum share_kind k, int gpu, double least,
			enum share_kind wait_to)
{
	double compute = step_compute_ms(st),
	       wait = !gpu && least >= 0 && k == wait_to ? st->comm_exposed_ms - least : 0;
	switch (k) {
	case SHARE_COMPUTE:
		return gpu ? st->gpu[GPU_COMPUTE] : compute + wait;
	case SHARE_COMMUNICATION:
		return gpu ? st->gpu[GPU_COMM] : (least >= 0 ? least : st->comm_exposed_ms) + wait;
	case SHARE_PEER_WAIT:
		return wait;
	case SHARE_DATA:
		return gpu ? st->gpu[GPU_IDLE_DATA] : st->data_ms + wait;
	case SHARE_IO:
		return gpu ? 0 : st->io_ms + wait;
	case SHARE_HOST:
		return gpu ? st->gpu[GPU_IDLE_HOST]
			   : st->step_ms - compute - st->data_ms - st->io_ms - st->comm_exposed_ms +
				wait;
	case SHARE_COPIES:
		return gpu ? st->gpu[GPU_MEMCPY] : 0;
	case SHARE_N:
		break;
	}
	return 0;
}

/* In how many active steps (summed over ranks) the runner-up's share was the
 * larger: a verdict that flips from step to step is borderline. */
static void step_flips(struct ana_scenario *s, const struct scenario_metrics *m)
{
	struct verdict_out *v = &s->outcome.v;
	int gpu = s->outcome.basis == BASIS_GPU, straggler = s->comm.n_stragglers > 0;
	long flips = 0, steps = 0;
	if (v->runner_up == VERDICT_UNDETERMINED || s->steps.no_steps || s->steps.window_shares)
		return;
	for (size_t i = 0; i < m->ranks[0].n; i++) {
		double a = 0, b = 0, least = straggler && !gpu ? min_exposed(m, i) : -1;
		int judged = m->ranks[0].steps[i].active;
		for (size_t r = 0; r < m->n && judged; r++) {
			const struct step_rec *st = &m->ranks[r].steps[i];
			if (i >= m->ranks[r].n || (gpu && st->gpu[GPU_WINDOW] <= 0))
				continue;
			a += step_part(st, v->share, gpu, least, s->outcome.wait_to);
			b += step_part(st, v->runner_share, gpu, least, s->outcome.wait_to);
		}
		if (judged && a + b > 0)
			steps++, flips += b > a;
	}
	verdict_flips(v, flips, steps);
}

/* The verdict from the step's accounted shares: the GPU timeline's when the
 * traces have kernels (on a GPU the host's ranges time launches, not the
 * work), else the host's; the largest share wins, thresholds are flags. */
static void outcome_of(struct ana_scenario *s, const struct ana_run *run,
		       const struct scenario_metrics *m)
{
	struct candidate c[SHARE_N];
	s->outcome.basis = s->gpu.gpu_basis ? BASIS_GPU : BASIS_HOST;
	s->outcome.wait_to = s->gpu.gpu_basis ? SHARE_COMMUNICATION : wait_share(s);
	verdict_decide(c, ana_candidates(s, c), &s->outcome.v);
	step_flips(s, m);
	flags_of(s, &run->th);
	s->outcome.oversubscribed = run->host_cpus > 0 && s->in.ranks > run->host_cpus &&
		s->outcome.basis == BASIS_HOST;
}

/* With no step breakdown (monitors alone, or step times alone): what the
 * node monitors say of saturated resources; undetermined without them. */
static void monitor_verdict(struct ana_scenario *s, const struct ana_thresholds *th)
{
	const char *memwhat;
	double mem = memory_peak(s, &memwhat);
	enum verdict v = VERDICT_UNDETERMINED;
	memset(&s->outcome, 0, sizeof s->outcome); /* no runner-up, no flags */
	s->outcome.basis = s->mon.have_monitor ? BASIS_MONITORS : BASIS_NONE;
	if (!s->mon.have_monitor)
		;
	else if (mem > th->memory_pct)
		v = VERDICT_MEMORY;
	else if (s->mon.iowait_mean_pct > th->io_pct)
		v = VERDICT_IO;
	else if (s->mon.gpu_util_mean_pct >= 0 && s->mon.gpu_util_mean_pct < th->gpu_util_pct)
		v = VERDICT_GPU_STARVED;
	else if (s->mon.gpu_util_mean_pct >= 0 || s->mon.cpu_util_mean_pct >= ANA_CPU_BUSY_PCT)
		v = VERDICT_COMPUTE;
	s->outcome.v.verdict = v;
}

/* Profiler outputs, and the profilers that were asked for but left none. */
static void profiles(struct ana_scenario *s, int want_nsys, int want_perf)
{
	struct perf_summary ps;
	if (perfstat_summarise(s->in.job_dir, &ps) == 0) {
		s->data.perf = xmalloc(sizeof *s->data.perf);
		*s->data.perf = ps;
	}
	s->data.nsys_reports = nsys_exports(s->in.job_dir);
	snprintf(s->data.profile_missing, sizeof s->data.profile_missing, "%s%s%s",
		 want_nsys && !s->data.nsys_reports ? "nsys" : "",
		 want_nsys && !s->data.nsys_reports && want_perf && !s->data.perf ? ", " : "",
		 want_perf && !s->data.perf ? "perf" : "");
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

static void add_source(struct ana_scenario *s, const char *what)
{
	size_t n = strlen(s->data.sources);
	snprintf(s->data.sources + n, sizeof s->data.sources - n, "%s%s", n ? "; " : "", what);
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
 * folders; the first few named, at most 4 levels and 10,000 entries down. */
static void find_trace_like(const char *base, const char *rel, int depth, struct strbuf *found,
			    int *count, int *budget)
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
			find_trace_like(base, r2.buf, depth + 1, found, count, budget);
		else if (is && S_ISREG(st.st_mode) && trace_like(names.v[i]) && (*count)++ < 3)
			strbuf_addf(found, "%s`%s`", found->len ? ", " : "", r2.buf);
		strbuf_free(&r2);
		strbuf_free(&full);
	}
	argv_free(&names);
	strbuf_free(&p);
}

/* profile.traces matched nothing: the globs, and where trace-like files are. */
static void note_traces_missed(struct ana_scenario *s, const struct ana_run *run)
{
	struct strbuf m = STRBUF_INIT, found = STRBUF_INIT;
	int count = 0, budget = 10000;
	for (size_t i = 0; i < run->n_trace_globs; i++)
		strbuf_addf(&m, "%s\"%s\"", i ? ", " : "profile.traces [", run->trace_globs[i]);
	strbuf_adds(&m, "] matched no file");
	find_trace_like(s->in.job_dir, "", 0, &found, &count, &budget);
	if (count) {
		const char *first = found.buf + 1, *end = strchr(first, '`'),
			   *slash = end ? memrchr(first, '/', (size_t) (end - first)) : NULL;
		strbuf_addf(&m, "; %d trace-like file%s %s in the job directory: %s%s", count,
			    count == 1 ? "" : "s", count == 1 ? "is" : "are", found.buf,
			    count > 3 ? ", ..." : "");
		if (slash)
			strbuf_addf(&m, " (a glob that matches %s: \"%.*s/*%s\")",
				    count == 1 ? "it" : "them", (int) (slash - first), first,
				    strstr(first, ".pt.trace.json") ? ".pt.trace.json" : ".json");
		else
			strbuf_addf(&m, " (a glob that matches %s: \"*%s\")",
				    count == 1 ? "it" : "them",
				    strstr(first, ".pt.trace.json") ? ".pt.trace.json" : ".json");
	}
	s->data.traces_missed = strbuf_detach(&m);
	strbuf_free(&found);
}

/* Steps from the NVTX ranges of the scenario's Nsight Systems exports. */
static int load_nsys_steps(struct ana_scenario *s, const struct rules *phases,
			   const struct rules *kernels, const struct ana_run *run,
			   struct scenario_metrics *m, struct strbuf *missing)
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
		snprintf(s->data.source, sizeof s->data.source, "Nsight Systems exports");
		char what[96];
		snprintf(what, sizeof what, "Nsight Systems exports (%zu, NVTX ranges)", ns.files);
		add_source(s, what);
	} else {
		strbuf_addf(missing,
			    rc == 0 ? "; nsys/ holds exports but none usable: %s"
				    : "; no Nsight Systems export in nsys/ (profile.nsys)%s",
			    rc == 0 ? ns.problem : "");
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
		note_traces_missed(s, run);
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
	snprintf(s->data.source, sizeof s->data.source, "%s",
		 m->ranks[0].format == METRICS_AORTA ? "AORTA-style metrics" : "trainer telemetry");
	add_source(s, s->data.source);
	if (have_traces && ts->ops.n)
		add_source(s, "PyTorch profiler traces (operators)");
	return 0;
}

/* Step data from the PyTorch-profiler traces; else why there is none, into missing. */
static int from_traces(struct ana_scenario *s, const struct ana_run *run, int have_traces,
		       struct trace_set *ts, struct scenario_metrics *m, struct strbuf *missing)
{
	if (have_traces && ts->m.n) {
		*m = ts->m;
		memset(&ts->m, 0, sizeof ts->m);
		snprintf(s->data.source, sizeof s->data.source, "PyTorch profiler traces");
		char what[96];
		snprintf(what, sizeof what, "PyTorch profiler traces (%zu file%s)", ts->files,
			 ts->files == 1 ? "" : "s");
		add_source(s, what);
		return 0;
	}
	if (have_traces && ts->files)
		strbuf_addf(missing, "; traces/ holds %zu file%s but none usable: %s", ts->files,
			    ts->files == 1 ? "" : "s", ts->problem);
	else if (run->n_trace_globs && s->data.traces_missed)
		strbuf_addf(missing, "; %s", s->data.traces_missed);
	else
		strbuf_addf(
			missing,
			"; no PyTorch-profiler traces in traces/ (profile.traces copies the files your script writes, e.g. [\"profiler/*.json\"])");
	return -1;
}

/* Step data from the step lines of the rank logs (analysis.step_log); rc when there is
 * no pattern. */
static int from_step_log(struct ana_scenario *s, const struct ana_run *run,
			 struct scenario_metrics *m, struct strbuf *missing, int rc)
{
	if (!run->step_log) {
		strbuf_addf(missing,
			    "; no analysis.step_log pattern for step times the script prints");
		return rc;
	}
	struct strbuf dir = STRBUF_INIT;
	strbuf_addf(&dir, "%s/" JOB_LOGS, s->in.job_dir);
	rc = steplog_load_dir(dir.buf, run->step_log, run->warmup_steps, m);
	strbuf_free(&dir);
	if (rc == 0) {
		snprintf(s->data.source, sizeof s->data.source, "step lines in rank logs");
		add_source(s, "step lines in rank logs (analysis.step_log)");
	} else {
		strbuf_addf(missing,
			    "; no line of logs/rank_<r>.out matches analysis.step_log.pattern");
	}
	return rc;
}

/* The step data of a scenario from the first source present: the trainer's (or
 * AORTA-style) telemetry, PyTorch-profiler traces, Nsight Systems exports, step lines in
 * the rank logs. The traces' operators are kept whatever the source. ERR_NOTFOUND with
 * *missing saying what each source lacked. */
static int load_steps(struct ana_scenario *s, const struct ana_run *run, const struct rules *phases,
		      const struct rules *kernels, struct scenario_metrics *m,
		      struct strbuf *missing)
{
	struct trace_set ts = { 0 };
	int have_traces = read_traces(s, run, phases, kernels, &ts);
	int rc = from_telemetry(s, run, have_traces, &ts, m);
	if (rc != 0) {
		strbuf_addf(missing, "no telemetry (metrics/rank_<r>.jsonl)");
		rc = from_traces(s, run, have_traces, &ts, m, missing);
	}
	if (rc != 0 && (rc = load_nsys_steps(s, phases, kernels, run, m, missing)) != 0)
		rc = from_step_log(s, run, m, missing, rc);
	trace_set_free(&ts);
	return rc;
}

/* The ranks launched against those the step data covers: the ones missing
 * are named, and ranks beyond the world size said. */
static void rank_coverage(struct ana_scenario *s, const struct scenario_metrics *m)
{
	struct strbuf miss = STRBUF_INIT;
	int beyond = 0, shown = 0;
	s->data.ranks_with_data = (int)m->n;
	for (int r = 0; r < s->in.ranks; r++) {
		size_t i = 0;
		while (i < m->n && m->ranks[i].rank != r)
			i++;
		if (i == m->n && shown++ < 16)
			strbuf_addf(&miss, "%s%d", miss.len ? ", " : "", r);
	}
	for (size_t i = 0; i < m->n; i++)
		beyond += m->ranks[i].rank >= s->in.ranks;
	if (shown)
		snprintf(s->data.ranks_note, sizeof s->data.ranks_note,
			 "%d of %d launched rank%s left no step data (rank%s %s%s)", shown,
			 s->in.ranks, s->in.ranks == 1 ? "" : "s", shown == 1 ? "" : "s", miss.buf,
			 shown > 16 ? ", ..." : "");
	else if (beyond)
		snprintf(
			s->data.ranks_note, sizeof s->data.ranks_note,
			"the step data names %d rank%s beyond the %d launched (files of one process are one rank only when their names or the launcher's records say so)",
			beyond, beyond == 1 ? "" : "s", s->in.ranks);
	strbuf_free(&miss);
}

/* Samples per step across ranks: the telemetry's, else the step lines'
 * samples, else the scenario's analysis batch, else the campaign's; else
 * unknown (0), and the throughput is in steps per second. */
static void batch_of(struct ana_scenario *s, const struct scenario_metrics *m,
		     const struct ana_run *run)
{
	snprintf(s->steps.throughput_unit, sizeof s->steps.throughput_unit, "samples/s");
	s->steps.global_batch = m->ranks[0].global_batch;
	const char *from = "the telemetry";
	for (size_t r = 0; r < m->n && s->steps.global_batch <= 0; r++)
		for (size_t i = 0; i < m->ranks[r].n; i++)
			if (m->ranks[r].steps[i].active && m->ranks[r].steps[i].samples > 0) {
				s->steps.global_batch += m->ranks[r].steps[i].samples;
				from = "the step lines' samples";
				break;
			}
	if (s->steps.global_batch <= 0 && s->in.global_batch_set > 0)
		s->steps.global_batch = s->in.global_batch_set,
		from = "the scenario's analysis.global_batch";
	else if (s->steps.global_batch <= 0 && s->in.batch_per_rank > 0)
		s->steps.global_batch = (long) s->in.batch_per_rank * s->in.ranks,
		from = "the scenario's analysis.batch_per_rank";
	else if (s->steps.global_batch <= 0 && run->global_batch > 0)
		s->steps.global_batch = run->global_batch, from = "analysis.global_batch";
	else if (s->steps.global_batch <= 0 && run->batch_per_rank > 0)
		s->steps.global_batch = (long) run->batch_per_rank * s->in.ranks,
		from = "analysis.batch_per_rank";
	if (s->steps.global_batch <= 0) {
		s->steps.global_batch = 0;
		from = "";
		snprintf(s->steps.throughput_unit, sizeof s->steps.throughput_unit, "steps/s");
	}
	snprintf(s->steps.batch_from, sizeof s->steps.batch_from, "%s", from);
}

/* Traces without step boundaries give the shares of their whole window;
 * the step times then come from the step lines of the rank logs when the
 * campaign has a pattern for them (1, into *logged). */
static int window_times(struct ana_scenario *s, const struct ana_run *run,
			const struct scenario_metrics *m, struct scenario_metrics *logged)
{
	struct strbuf dir = STRBUF_INIT;
	int ok = 0;
	if (!m->ranks[0].whole_window || !run->step_log)
		return 0;
	strbuf_addf(&dir, "%s/" JOB_LOGS, s->in.job_dir);
	if (steplog_load_dir(dir.buf, run->step_log, run->warmup_steps, logged) == 0) {
		add_source(s, "step lines in rank logs (analysis.step_log) for the step times");
		ok = 1;
	}
	strbuf_free(&dir);
	return ok;
}

/* The active steps' statistics (t sorted, n of them). */
static void step_stats(struct ana_scenario *s, double *t, size_t n)
{
	s->steps.active_steps = n;
	s->steps.step_med_ms = stats_percentile(t, n, 50);
	s->steps.step_p95_ms = stats_percentile(t, n, 95);
	s->steps.step_min_ms = t[0];
	s->steps.step_max_ms = t[n - 1];
	s->steps.spread_pct = s->steps.step_med_ms > 0
		? 100 * (s->steps.step_p95_ms - s->steps.step_min_ms) / s->steps.step_med_ms
		: 0;
	s->steps.step_ms = xmalloc(n * sizeof *s->steps.step_ms);
	memcpy(s->steps.step_ms, t, n * sizeof *t);
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
 * rest), the collectives matched across ranks, the communication floor. */
static void waiting_of(struct ana_scenario *s, struct scenario_metrics *m)
{
	/* traces and step logs do not say where a rank ran */
	torchtrace_rank_nodes(s->in.job_dir, m);
	straggler_find(m, s->steps.step_med_ms, s->comm.stragglers, &s->comm.n_stragglers,
		       s->comm.slow_node, sizeof s->comm.slow_node);
	s->comm.have_slow_mon = s->comm.slow_node[0] &&
		monitor_summarise_nodes(s->in.job_dir, s->comm.slow_node, 0, &s->comm.slow_mon) ==
			0 &&
		monitor_summarise_nodes(s->in.job_dir, s->comm.slow_node, 1, &s->comm.rest_mon) ==
			0;
	collectives_of(m, &s->comm.colls, &s->comm.ncolls);
	comm_floor(s, m);
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
	struct strbuf missing = STRBUF_INIT;
	monitors(s);
	if (load_steps(s, run, phases, kernels, m, &missing) < 0) {
		strbuf_addf(&missing, "%s",
			    s->mon.have_monitor ? "; the node monitors are reported alone"
					    : "; no node monitor data either (profile.monitor)");
		s->data.problem = strbuf_detach(&missing);
		if (s->mon.have_monitor) {
			s->data.monitors_only = 1;
			add_source(s, "node monitors");
			monitor_verdict(s, &run->th);
		}
		return -1;
	}
	strbuf_free(&missing);
	rank_coverage(s, m);
	if (s->mon.have_monitor)
		add_source(s, "node monitors");
	for (size_t i = 0; i < m->n; i++)
		s->data.bad_lines += m->ranks[i].bad_lines;
	gpu_period(s, m);
	return 0;
}

static void analyse_scenario(struct ana_scenario *s, const struct ana_run *run,
			     const struct rules *phases, const struct rules *kernels)
{
	s->mon.gpu_util_mean_pct = s->mon.gpu_mem_util_mean_pct = s->mon.gpu_mem_peak_pct = -1;
	s->steps.mfu_pct = -1;
	struct scenario_metrics m;
	if (!s->in.completed) {
		s->data.problem = xstrdup("the job did not complete");
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
	step_times(times, t, &n);
	if (n == 0) {
		s->data.problem = xstrdup(
			times->ranks[0].format == METRICS_STEP_LOG
				? "every matching step line is warm-up (profile.warmup_steps)"
				: "the step data has no active steps");
		free(t);
		metrics_free(&m);
		metrics_free(&logged);
		return;
	}
	s->data.analysed = 1;
	step_stats(s, t, n);
	batch_of(s, times, run);
	s->steps.throughput = s->steps.step_med_ms <= 0
		? 0
		: (s->steps.global_batch > 0 ? (double) s->steps.global_batch : 1.0) * 1000.0 /
			s->steps.step_med_ms;
	const struct rank_metrics *r0 = &times->ranks[0];
	loss_of(s, r0);
	shares(s, &m);
	s->data.format = m.ranks[0].format;
	s->shares.shares_known = m.ranks[0].format != METRICS_STEP_LOG;
	s->steps.window_shares = times != &m;
	s->steps.no_steps = m.ranks[0].whole_window && times == &m;
	if (s->shares.shares_known && !m.ranks[0].whole_window)
		waiting_of(s, &m);
	if (s->steps.no_steps) /* one window, not a step: nothing per step or per second to say */
		s->steps.throughput = 0;
	gpu_shares(s, &m);
	if (!s->shares.shares_known && !s->gpu.gpu_basis)
		monitor_verdict(s, &run->th); /* step times alone say nothing of where they go */
	else
		outcome_of(s, run, &m);
	timeline_step(s, &m);
	rank0_and_flops(s, r0, m.ranks[0].flops_per_step, run->peak_gflops);
	free(t);
	metrics_free(&m);
	metrics_free(&logged);
}

static int same_series(const struct ana_scenario *a, const struct ana_scenario *b)
{
	if (a->in.series && b->in.series)
		return !strcmp(a->in.series, b->in.series);
	return !strcmp(a->in.backend, b->in.backend) &&
		a->in.tasks_per_node == b->in.tasks_per_node;
}

/* Weak scaling keeps the per-rank batch, strong scaling the global batch;
 * from the batches when both are known, else from analysis.scaling. Either
 * way speedup is the ratio of samples per second (of step rates at strong
 * scaling's fixed work) and efficiency is speedup x baseline ranks / ranks.
 * Scenarios whose batch semantics differ from the baseline's get no speedup,
 * with the reason in scaling_note. */
static void scale_against(struct ana_scenario *s, const struct ana_scenario *base,
			  const char *declared)
{
	double rr = (double) s->in.ranks / (double) (base->in.ranks ? base->in.ranks : 1),
	       tr = base->steps.step_med_ms / s->steps.step_med_ms;
	const char *mode = NULL;
	s->scaling.speedup = s->scaling.efficiency = 0;
	if (s == base) {
		mode = s->steps.global_batch > 0 ? "" : declared ? declared : "";
	} else if (s->steps.global_batch > 0 && base->steps.global_batch > 0) {
		if (s->steps.global_batch * base->in.ranks ==
		    base->steps.global_batch * s->in.ranks)
			mode = "weak";
		else if (s->steps.global_batch == base->steps.global_batch)
			mode = "strong";
		else {
			snprintf(
				s->scaling.scaling_note, sizeof s->scaling.scaling_note,
				"no speedup: its batch semantics differ from %s's (global batch %ld at %d rank%s against %ld at %d: neither the per-rank nor the global batch is the same)",
				base->in.name, s->steps.global_batch, s->in.ranks,
				s->in.ranks == 1 ? "" : "s", base->steps.global_batch,
				base->in.ranks);
			return;
		}
		if (declared && strcmp(declared, mode))
			snprintf(
				s->scaling.scaling_note, sizeof s->scaling.scaling_note,
				"analysis.scaling says %s, but the batches (%ld at %d rank%s against %ld at %d) say %s scaling; the batches are used",
				declared, s->steps.global_batch, s->in.ranks,
				s->in.ranks == 1 ? "" : "s", base->steps.global_batch,
				base->in.ranks, mode);
	} else if (s->steps.global_batch > 0 || base->steps.global_batch > 0) {
		snprintf(
			s->scaling.scaling_note, sizeof s->scaling.scaling_note,
			"no speedup: the batch of %s is known and that of %s is not; give both (analysis.batch_per_rank or analysis.global_batch)",
			s->steps.global_batch > 0 ? s->in.name : base->in.name,
			s->steps.global_batch > 0 ? base->in.name : s->in.name);
		return;
	} else if (!declared) {
		snprintf(
			s->scaling.scaling_note, sizeof s->scaling.scaling_note,
			"no speedup: the samples per step are not known, so neither samples/s nor the scaling mode can be said; set analysis.global_batch (strong scaling), analysis.batch_per_rank (weak scaling) or analysis.scaling");
		return;
	} else
		mode = declared;
	snprintf(s->scaling.scaling_mode, sizeof s->scaling.scaling_mode, "%s", mode);
	if (s->steps.global_batch > 0)
		s->scaling.speedup = s->steps.throughput / base->steps.throughput;
	else
		s->scaling.speedup = !strcmp(mode, "strong") ? tr : tr * rr;
	s->scaling.efficiency = s->scaling.speedup / rr;
	if (s != base && s->scaling.efficiency > 1.0 && !s->scaling.scaling_note[0])
		snprintf(
			s->scaling.scaling_note, sizeof s->scaling.scaling_note,
			"efficiency above 100 %% (%.0f %%) is not expected: most often the baseline was slowed by something the wider scenario escaped (a node shared with another job, see slurm.exclusive; caches the smaller per-rank share now fits), or noise (step spread %.1f %% against %.1f %%)",
			100 * s->scaling.efficiency, s->steps.spread_pct, base->steps.spread_pct);
}

/* Scenarios scale against a baseline of the same series (same backend and
 * tasks per node): the campaign's baseline if it is in the series, else the
 * analysed scenario with the fewest nodes. */
static void scaling(struct ana_run *run)
{
	for (size_t i = 0; i < run->n; i++) {
		struct ana_scenario *s = &run->sc[i], *base = NULL;
		if (!s->data.analysed || s->steps.no_steps) /* no steps, no step rate to scale */
			continue;
		for (size_t j = 0; j < run->n; j++) {
			struct ana_scenario *b = &run->sc[j];
			if (!b->data.analysed || b->steps.no_steps || !same_series(b, s))
				continue;
			if (run->baseline && !strcmp(run->baseline, b->in.name)) {
				base = b;
				break;
			}
			if (!base || b->in.nodes < base->in.nodes)
				base = b;
		}
		if (!base || base->steps.throughput <= 0)
			continue;
		snprintf(s->scaling.baseline, sizeof s->scaling.baseline, "%s", base->in.name);
		s->scaling.is_baseline = base == s;
		scale_against(s, base, run->scaling);
	}
}

/* The step time at the baseline's global batch. */
static double norm_step(const struct ana_scenario *s, const struct ana_scenario *base)
{
	if (s->steps.global_batch > 0 && base->steps.global_batch > 0)
		return s->steps.step_med_ms * (double) base->steps.global_batch /
			(double) s->steps.global_batch;
	if (!strcmp(s->scaling.scaling_mode, "weak")) /* the global batch grows with the ranks */
		return s->steps.step_med_ms * (double)base->in.ranks / (double)s->in.ranks;
	return s->steps.step_med_ms;
}

/* A scenario that scales against base with a known mode (base itself too). */
static int in_series(const struct ana_scenario *s, const struct ana_scenario *base)
{
	return s->data.analysed && !s->steps.no_steps &&
		!strcmp(s->scaling.baseline, base->in.name) && s->in.nodes >= 1 &&
		(s == base || s->scaling.scaling_mode[0]);
}

static double model_at(const struct ana_model *m, double n)
{
	return m->b / n + m->a + m->c * log2(n);
}

/* The compute share of a scenario's step (the GPU's when the verdict came
 * from the GPU timeline); -1 when unknown. */
static double compute_share(const struct ana_scenario *s)
{
	if (s->outcome.basis == BASIS_GPU)
		return s->gpu.gpu_pct[GPU_COMPUTE];
	return s->outcome.basis == BASIS_HOST ? s->shares.compute_pct : -1;
}

/* The largest share that is not compute in the series' widest scenario. */
static const char *overhead_name(const struct ana_scenario *w)
{
	const double *g = w->gpu.gpu_pct;
	int gpu = w->outcome.basis == BASIS_GPU;
	struct { const char *name; double pct;
	} o[] = {
		{ "communication", gpu ? g[GPU_COMM] : w->shares.comm_pct },
		{ "waiting for slower ranks", gpu ? 0 : w->shares.sync_wait_pct },
		{ "data loading", gpu ? g[GPU_IDLE_DATA] : w->shares.data_pct },
		{ gpu ? "host-device copies" : "I/O", gpu ? g[GPU_MEMCPY] : w->shares.io_pct },
		{ gpu ? "the GPU waiting for the host" : "host overhead",
		  gpu ? g[GPU_IDLE_HOST] : w->shares.other_pct },
	};
	int k = 0;
	for (int i = 1; i < 5; i++)
		if (o[i].pct > o[k].pct)
			k = i;
	return o[k].name;
}

static void model_sentence(struct ana_model *m, const struct ana_scenario *widest)
{
	double n16 = model_at(m, 16), over16 = m->a + m->c * 4;
	if (m->step_only) {
		snprintf(
			m->limit, sizeof m->limit,
			"Fitted on the step times of %d scenarios (%d to %d nodes) without a compute term (where step time goes is not known, so no part of it can be called compute): %.2f + %.2f x log2(N) ms; predicted efficiency %.0f %% at 8 nodes and %.0f %% at 16. What limits scaling cannot be said from step times alone: a trace with steps or the trainer's telemetry would say.",
			m->points, m->base_nodes, m->max_nodes, m->a, m->c, 100 * m->eff8,
			100 * m->eff16);
		return;
	}
	const char *limiter = m->contention[0] ? "the ranks contending for the machine (see below)"
					       : overhead_name(widest);
	char from[64];
	snprintf(from, sizeof from, "beyond %d nodes", MODEL_MAX_NODES);
	if (m->crossover)
		snprintf(from, sizeof from, "from %d node%s on", m->crossover,
			 m->crossover == 1 ? "" : "s");
	snprintf(
		m->limit, sizeof m->limit,
		"Fitted on %d scenarios (%d to %d nodes), compute takes %.2f ms / N and the rest %.2f + %.2f x log2(N) ms, so scaling is limited by %s, which outgrows compute %s: predicted efficiency %.0f %% at 8 nodes and %.0f %% at 16, where that overhead is %.0f %% of a %.2f ms step.",
		m->points, m->base_nodes, m->max_nodes, m->b, m->a, m->c, limiter, from,
		100 * m->eff8, 100 * m->eff16, n16 > 0 ? 100 * over16 / n16 : 0, n16);
}

/* How far the model is from the points it was fitted on. */
static void fit_quality(const struct ana_run *run, const struct ana_scenario *base,
			struct ana_model *m)
{
	for (size_t i = 0; i < run->n; i++) {
		const struct ana_scenario *s = &run->sc[i];
		if (!in_series(s, base))
			continue;
		double t = norm_step(s, base),
		       err = t > 0 ? 100 * fabs(model_at(m, s->in.nodes) - t) / t : 0;
		if (err > m->max_err_pct)
			m->max_err_pct = err, m->max_err_nodes = s->in.nodes;
	}
	if (m->max_err_pct <= MODEL_FITS_PCT)
		snprintf(
			m->fit, sizeof m->fit,
			"The model fits the measured points within %.1f %% (largest error at %d node%s).",
			m->max_err_pct, m->max_err_nodes, m->max_err_nodes == 1 ? "" : "s");
	else
		snprintf(
			m->fit, sizeof m->fit,
			"The model does not fit the measured points: it is off by %.1f %% at %d node%s, so its predictions beyond them are not reliable.",
			m->max_err_pct, m->max_err_nodes, m->max_err_nodes == 1 ? "" : "s");
}

/* Per-rank compute that grows with the node count at the same work per
 * rank is ranks contending for the machine, not communication. */
static void contention(const struct ana_run *run, const struct ana_scenario *base,
		       const struct ana_scenario *w, struct ana_model *m)
{
	double cb = base->steps.step_med_ms * compute_share(base) / 100,
	       cw = w->steps.step_med_ms * compute_share(w) / 100;
	int same_work = base->in.ranks > 0 && w->in.ranks > 0 &&
		base->steps.global_batch * w->in.ranks == w->steps.global_batch * base->in.ranks;
	if (!same_work || cb <= 0 || cw < MODEL_CONTENTION_RATIO * cb)
		return;
	char where[160] = "";
	if (run->host_cpus > 0)
		snprintf(where, sizeof where,
			 " (the local executor ran all %d ranks of %s on this machine's %d CPU%s)",
			 w->in.ranks, w->in.name, run->host_cpus, run->host_cpus == 1 ? "" : "s");
	snprintf(
		m->contention, sizeof m->contention,
		"Per-rank compute grew from %.2f ms at %d node%s to %.2f ms at %d nodes with the same work per rank: the ranks contend for CPUs, memory bandwidth or the network%s, so the slowdown is contention, not communication.",
		cb, base->in.nodes, base->in.nodes == 1 ? "" : "s", cw, w->in.nodes, where);
}

/* Least squares: b >= 0 on compute ~ b/N; a, c >= 0 on the rest ~ a + c log2 N. */
static void fit_series(struct ana_run *run, const struct ana_scenario *base)
{
	double cn = 0, nn = 0, sl = 0, so = 0, sll = 0, slo = 0, k = 0;
	const struct ana_scenario *widest = base;
	int minn = base->in.nodes, maxn = base->in.nodes, step_only = 0;
	for (size_t i = 0; i < run->n; i++)
		step_only |= in_series(&run->sc[i], base) && compute_share(&run->sc[i]) < 0;
	for (size_t i = 0; i < run->n; i++) {
		const struct ana_scenario *s = &run->sc[i];
		if (!in_series(s, base))
			continue;
		double t = norm_step(s, base), comp = step_only ? 0 : t * compute_share(s) / 100,
		       over = t - comp, n = s->in.nodes, l = log2(n);
		cn += comp / n, nn += 1 / (n * n);
		sl += l, so += over, sll += l * l, slo += l * over, k++;
		if (s->in.nodes > maxn)
			maxn = s->in.nodes, widest = s;
		if (s->in.nodes < minn)
			minn = s->in.nodes;
	}
	if (k < MODEL_MIN_POINTS || maxn == minn)
		/* a + c log2 N needs three points: with two, only measured speedups are shown */
		return;
	struct ana_model m = {
		.points = (int)k, .base_nodes = minn, .max_nodes = maxn, .step_only = step_only
	};
	snprintf(m.series, sizeof m.series, "%s", base->in.name);
	m.b = step_only ? 0 : cn / nn;
	double det = k * sll - sl * sl;
	m.c = det > 0 ? (k * slo - sl * so) / det : 0;
	m.a = (so - m.c * sl) / k;
	if (m.c < 0)
		m.c = 0, m.a = so / k;
	if (m.a < 0)
		m.a = 0, m.c = sll > 0 ? slo / sll : 0;
	double t0 = model_at(&m, base->in.nodes);
	m.eff8 = t0 * base->in.nodes / (model_at(&m, 8) * 8);
	m.eff16 = t0 * base->in.nodes / (model_at(&m, 16) * 16);
	for (int n = 1; n <= MODEL_MAX_NODES && !m.crossover && !step_only; n++)
		if (m.a + m.c * log2(n) > m.b / n)
			m.crossover = n;
	if (!step_only)
		contention(run, base, widest, &m);
	model_sentence(&m, widest);
	fit_quality(run, base, &m);
	run->models = xrealloc(run->models, (run->nmodels + 1) * sizeof *run->models);
	run->models[run->nmodels++] = m;
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
		profiles(&run->sc[i], run->want_nsys, run->want_perf);
	}
	if (have_phases)
		rules_free(&phases);
	if (have_kernels)
		rules_free(&kernels);
	scaling(run);
	for (size_t i = 0; i < run->n; i++)
		if (run->sc[i].scaling.is_baseline)
			fit_series(run, &run->sc[i]);
	against_fabric(run);
	advice_plan(run);
	checked_run(run);
	return 0;
}

void ana_run_free(struct ana_run *run)
{
	checked_free(&run->variant);
	for (size_t i = 0; i < run->n; i++) {
		struct ana_scenario *s = &run->sc[i];
		free(s->in.name);
		free(s->in.state);
		free(s->in.reason);
		free(s->in.requeued);
		free(s->in.backend);
		free(s->in.job_dir);
		free(s->in.series);
		free(s->data.problem);
		free(s->data.trace_not_analysed_names);
		free(s->data.traces_missed);
		free(s->steps.step_ms);
		free(s->comm.colls);
		free(s->comm.comm_floor_ms);
		free(s->data.perf);
		free(s->steps.tl);
		free(s->steps.rank0);
	}
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
