/* accounting: the one accounting of a scenario's step time (docs/accounting.md): per
 * rank and step every instant attributed once (compute, exposed communication, waiting
 * for peers, data loading, I/O, host, GPU idle), the shares, the candidates the verdict
 * is decided on, the flags, and the verdict from monitors alone; numbers, no prose.
 * SPDX-License-Identifier: MIT */
#include "analyzers/analysis.h"
#include "util/run_layout.h"

#include "analyzers/advice.h"
#include "analyzers/scaling.h"
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
#include "analyzers/accounting.h"

/* Per step, the least communication time over ranks: the transfer once
 * all have arrived; what a rank spends beyond it is waiting for peers. */
void accounting_comm_floor(struct ana_scenario *s, const struct scenario_metrics *m)
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
void accounting_gpu_period(struct ana_scenario *s, struct scenario_metrics *m)
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

/* s's per-step compute samples emptied, with room for every step of m. */
static void step_compute_reset(struct ana_scenario *s, const struct scenario_metrics *m)
{
	size_t cap = 0;
	for (size_t r = 0; r < m->n; r++)
		cap += m->ranks[r].n;
	free(s->shares.step_compute_ms);
	s->shares.step_compute_ms = xcalloc(cap + 1, sizeof *s->shares.step_compute_ms);
	s->shares.n_step_compute = 0;
}

/* The rank whose active steps are longest on average, its mean step and the other ranks'
 * (s->steps.slowest_*). */
static void slowest_rank_of(struct ana_scenario *s, const struct scenario_metrics *m)
{
	double worst = -1, worst_total = 0, all_total = 0;
	size_t worst_steps = 0, all_steps = 0;
	for (size_t r = 0; r < m->n; r++) {
		double total = 0;
		size_t n = 0;
		for (size_t i = 0; i < m->ranks[r].n; i++)
			if (m->ranks[r].steps[i].active)
				total += m->ranks[r].steps[i].step_ms, n++;
		all_total += total, all_steps += n;
		if (n && total / (double)n > worst) {
			worst = total / (double)n, worst_total = total, worst_steps = n;
			s->steps.slowest_rank = m->ranks[r].rank;
			s->steps.slowest_rank_ms = worst;
		}
	}
	s->steps.slowest_others_ms = all_steps > worst_steps
		? (all_total - worst_total) / (double)(all_steps - worst_steps)
		: 0;
}

void accounting_shares(struct ana_scenario *s, const struct scenario_metrics *m)
{
	struct sums u = { 0 };
	size_t all_steps = 0;
	step_compute_reset(s, m);
	slowest_rank_of(s, m);
	for (size_t r = 0; r < m->n; r++) {
		size_t rank_steps = 0;
		for (size_t i = 0; i < m->ranks[r].n; i++) {
			const struct step_rec *st = &m->ranks[r].steps[i];
			if (!st->active)
				continue;
			add_step(&u, st,
				 i < m->ranks[0].n ? min_exposed(m, i) : st->comm_exposed_ms);
			s->shares.step_compute_ms[s->shares.n_step_compute++] =
				st->forward_ms + st->backward_ms + st->optimizer_ms + st->ops_ms;
			rank_steps++;
		}
		all_steps += rank_steps;
		s->shares.share_ranks += rank_steps > 0;
	}
	if (u.total <= 0)
		return;
	s->shares.rank_step_mean_ms = u.total / (double)all_steps;
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
		double compute = u.fwd + u.bwd + u.opt + u.ops;
		s->shares.split_cover_pct = compute > 0 ? 100 * (u.gemm + u.elem) / compute : 0;
	}
	s->comm.allreduce_gbps = u.comm > 0 ? u.bytes / (u.comm / 1000) / 1e9 : 0;
}

/* Memory pressure: the GPU memory peak from the GPU monitor, else the host's. */
static double memory_peak(const struct ana_scenario *s)
{
	if (s->mon.gpu_mem_peak_pct >= 0)
		return s->mon.gpu_mem_peak_pct;
	return s->mon.have_monitor ? s->mon.mem_peak_pct : 0;
}

/* A rank-step's transfer inside its collectives (ms): each instance's least time over its
 * ranks, summed per step over the collectives table's rows; -1 without rows. */
static double gpu_transfer_ms(const struct ana_scenario *s)
{
	double t = 0;
	for (size_t i = 0; i < s->comm.ncolls; i++)
		t += s->comm.colls[i].transfer_ms_per_step;
	return s->comm.ncolls ? t : -1;
}

/* The GPU view of the scenario: every rank's active steps with GPU work,
 * their parts summed over their windows (shares of the GPU window). */
void accounting_gpu_shares(struct ana_scenario *s, const struct scenario_metrics *m)
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
	/* the exposed communication beyond the most its transfer can be (the collectives'
	 * instances' least times, as if all of it were exposed) is waiting for slower ranks:
	 * known with two ranks or more sharing collectives, per step */
	double transfer = gpu_transfer_ms(s) * (double)s->gpu.gpu_steps;
	s->gpu.peer_wait_known = m->n >= 2 && !m->ranks[0].whole_window && transfer >= 0;
	s->gpu.peer_wait_pct = s->gpu.peer_wait_known && sum[GPU_COMM] > transfer
				       ? 100 * (sum[GPU_COMM] - transfer) / sum[GPU_WINDOW]
				       : 0;
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
	case STRAGGLER_COMPUTE: /* one rank's excess: no faster kernels everywhere remove it */
		return SHARE_PEER_WAIT;
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

/* Rank r's own compute beyond the others' median each step, where it is a compute straggler
 * of the first group (the one wait_to follows) whose waiting is a candidate of its own
 * (wait_to SHARE_PEER_WAIT); else 0. */
static double rank_excess_ms(const struct ana_scenario *s, int rank)
{
	size_t len = straggler_group_len(s->comm.stragglers, s->comm.n_stragglers, 0);
	if (s->outcome.wait_to != SHARE_PEER_WAIT)
		return 0;
	for (size_t i = 0; i < len; i++) {
		const struct straggler *g = &s->comm.stragglers[i];
		if (g->rank == rank && g->cause_kind == STRAGGLER_COMPUTE && g->cause_ms > 0)
			return g->cause_ms;
	}
	return 0;
}

/* The first group's compute stragglers' own excess as a share of step time (of the shares'
 * sum over ranks and steps), at most the compute share. */
static double excess_pct(const struct ana_scenario *s)
{
	const struct ana_shares *sh = &s->shares;
	double ms = 0;
	if (sh->share_ranks <= 0 || sh->rank_step_mean_ms <= 0)
		return 0;
	for (size_t i = 0; i < s->comm.n_stragglers; i++)
		ms += rank_excess_ms(s, s->comm.stragglers[i].rank);
	double pct = 100 * ms / (sh->share_ranks * sh->rank_step_mean_ms);
	return pct < sh->compute_pct ? pct : sh->compute_pct;
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
				     sh->compute_pct - s->outcome.excess_pct +
					     (w == SHARE_COMPUTE ? wait : 0) };
	c[n++] = (struct candidate){ SHARE_COMMUNICATION, VERDICT_COMMUNICATION,
				     sh->comm_pct + (w == SHARE_COMMUNICATION ? wait : 0) };
	if (w == SHARE_PEER_WAIT)
		c[n++] = (struct candidate){ SHARE_PEER_WAIT, VERDICT_STRAGGLER,
					     wait + s->outcome.excess_pct };
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
	c[n++] = (struct candidate){ SHARE_COPIES, VERDICT_COPY, g[GPU_MEMCPY] };
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
	verdict_flag(v, FLAG_MEMORY, memory_peak(s), th->memory_pct);
}

/* Share k of one rank's step (ms), as the scenario's candidates count it:
 * with a straggler named (least >= 0, the step's least exposed
 * communication) the transfer is the least and the rest, the waiting, goes
 * to wait_to. */
static double step_part(const struct step_rec *st, enum share_kind k, int gpu, double least,
			enum share_kind wait_to, double excess)
{
	double compute = step_compute_ms(st),
	       wait = !gpu && least >= 0 && k == wait_to ? st->comm_exposed_ms - least : 0;
	excess = excess < compute ? excess : compute;
	switch (k) {
	case SHARE_COMPUTE:
		return gpu ? st->gpu[GPU_COMPUTE] : compute - excess + wait;
	case SHARE_COMMUNICATION:
		return gpu ? st->gpu[GPU_COMM] : (least >= 0 ? least : st->comm_exposed_ms) + wait;
	case SHARE_PEER_WAIT:
		return wait + excess;
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
			double x = gpu ? 0 : rank_excess_ms(s, m->ranks[r].rank);
			a += step_part(st, v->share, gpu, least, s->outcome.wait_to, x);
			b += step_part(st, v->runner_share, gpu, least, s->outcome.wait_to, x);
		}
		if (judged && a + b > 0)
			steps++, flips += b > a;
	}
	verdict_flips(v, flips, steps);
}

/* More ranks than the local executor's CPUs: under a per-node launcher the ranks are its
 * workers (nodes x workers per node), never the launchers. */
static int oversubscribed(const struct ana_scenario *s, const struct ana_run *run)
{
	return run->host_cpus > 0 && s->in.ranks > run->host_cpus;
}

/* The verdict from the step's accounted shares: the GPU timeline's when the
 * traces have kernels (on a GPU the host's ranges time launches, not the
 * work), else the host's; the largest share wins, thresholds are flags. */
void accounting_outcome(struct ana_scenario *s, const struct ana_run *run,
		       const struct scenario_metrics *m)
{
	struct candidate c[SHARE_N];
	s->outcome.basis = s->gpu.gpu_basis ? BASIS_GPU : BASIS_HOST;
	s->outcome.wait_to = s->gpu.gpu_basis ? SHARE_COMMUNICATION : wait_share(s);
	s->outcome.excess_pct = s->gpu.gpu_basis ? 0 : excess_pct(s);
	verdict_decide(c, ana_candidates(s, c), &s->outcome.v);
	step_flips(s, m);
	flags_of(s, &run->th);
	s->outcome.oversubscribed = oversubscribed(s, run) && s->outcome.basis == BASIS_HOST;
}

/* With no step breakdown (monitors alone, or step times alone): what the
 * node monitors say of saturated resources, naming the resource (no share of
 * the step is known); undetermined without them. */
void accounting_monitor_verdict(struct ana_scenario *s, const struct ana_run *run)
{
	const struct ana_thresholds *th = &run->th;
	double mem = memory_peak(s);
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
	else if (s->mon.gpu_util_mean_pct >= 0)
		v = VERDICT_COMPUTE;
	else if (s->mon.cpu_util_mean_pct >= ANA_CPU_BUSY_PCT)
		v = VERDICT_CPU_SATURATED;
	s->outcome.v.verdict = v;
	s->outcome.oversubscribed = oversubscribed(s, run);
}
