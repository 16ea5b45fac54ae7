/* SPDX-License-Identifier: MIT */
#include "analyzers/replay_scenario.h"

#include "analyzers/read/kineto.h"
#include "analyzers/read/nsys.h"
#include "analyzers/replay/sim.h"
#include "analyzers/replay_build.h"
#include "analyzers/steptime.h"
#include "analyzers/stats.h"
#include "analyzers/trace_files.h"
#include "analyzers/trace_names.h"
#include "analyzers/trace_reduce.h"
#include "util/jsonio.h"
#include "util/err.h"
#include "util/run_layout.h"
#include "util/sort.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The traces of a scenario, each with its rank's index in m. */
struct loaded {
	struct gpu_trace *t;
	unsigned char **is_step;
	int **phase; /* per trace, per name: its phase (trace_name_phases) */
	struct replay_rank_in *in;
	size_t n;
	int nsys; /* the files are Nsight Systems exports (else Kineto traces) */
};

static void loaded_free(struct loaded *l)
{
	for (size_t i = 0; i < l->n; i++) {
		gpu_trace_free(&l->t[i]);
		free(l->is_step[i]);
		free(l->phase[i]);
	}
	free(l->t);
	free(l->is_step);
	free(l->phase);
	free(l->in);
}

static int rank_index(const struct scenario_metrics *m, int rank)
{
	for (size_t k = 0; k < m->n; k++)
		if (m->ranks[k].rank == rank)
			return (int)k;
	return -1;
}

/* Per name of t, 1 for a step range's (ProfilerStep#N, as the phase rules say; in an Nsight
 * Systems export's, labelled by process, NVTX step names too, as the analysis takes them);
 * each name's phase into *phase (malloc'ed) when phase is not NULL. */
static unsigned char *step_names(const struct gpu_trace *t, const struct rules *phases,
				 int **phase)
{
	int *ph = trace_name_phases(t, phases, t->label[0] != 0);
	unsigned char *is_step = xcalloc(t->nnames + 1, 1);
	for (size_t j = 0; j < t->nnames; j++)
		is_step[j] = ph[j] == TRACE_NAME_STEP;
	if (phase)
		*phase = ph;
	else
		free(ph);
	return is_step;
}

/* A rank's trace from path: a Kineto trace with its host ranges, or of an Nsight Systems
 * export (nsys: a rank's, profile.nsys) the process and GPU with the most GPU work, as the
 * analysis takes it, with its NVTX ranges and runtime calls as host ranges. */
static int load_rank_trace(const char *path, int nsys, struct gpu_trace *t)
{
	if (!nsys)
		return kineto_load(path, 1, t);
	struct nsys_report rep;
	int rc = nsys_load(path, 0, &rep);
	if (rc == 0 && !rep.n)
		rc = err_set(ERR_IO, "%s: no GPU work", path);
	if (rc == 0)
		rc = nsys_add_host(path, &rep);
	size_t busiest = nsys_busiest(&rep);
	if (rc == 0) {
		*t = rep.proc[busiest];
		t->rank = -1; /* (its position in the export: the file's name says the rank) */
		rep.proc[busiest] = rep.proc[--rep.n];
	}
	nsys_report_free(&rep);
	return rc;
}

/* Each of the n files of dir read with its host ranges, matched to its rank in m (the
 * trace's own, else hint[i]: trace_files_rank_hints); 0 with out->why set when they are not
 * one per rank of m. */
static int load_traces(const char *dir, char *const *names, size_t n, const int *hint,
		       const struct rules *phases, const struct scenario_metrics *m,
		       struct loaded *l, struct replay_result *out)
{
	int ok = 1;
	l->t = xcalloc(n + 1, sizeof *l->t);
	l->is_step = xcalloc(n + 1, sizeof *l->is_step);
	l->phase = xcalloc(n + 1, sizeof *l->phase);
	l->in = xcalloc(n + 1, sizeof *l->in);
	for (size_t i = 0; i < n && ok; i++) {
		struct strbuf p = STRBUF_INIT;
		strbuf_addf(&p, "%s/%s", dir, names[i]);
		ok = load_rank_trace(p.buf, l->nsys, &l->t[i]) == 0;
		strbuf_free(&p);
		if (!ok) {
			out->why_kind = REPLAY_UNREADABLE;
			snprintf(out->why, sizeof out->why, "%s", names[i]);
			break;
		}
		l->n++;
		int rank = trace_rank_for(l->t[i].rank, names[i], hint[i]);
		int k = rank_index(m, rank);
		for (size_t j = 0; j < i && k >= 0; j++)
			k = l->in[j].rank == rank ? -1 : k;
		if (k < 0) {
			out->why_kind = REPLAY_FILES;
			snprintf(out->why, sizeof out->why, "%s", names[i]);
			ok = 0;
			break;
		}
		l->is_step[i] = step_names(&l->t[i], phases, &l->phase[i]);
		l->in[i] = (struct replay_rank_in){ &l->t[i], rank, 0, l->is_step[i],
						    (int)m->ranks[k].n, l->phase[i] };
	}
	return ok;
}

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Every trace file of dir (Kineto traces, else Nsight Systems exports), one per rank of m,
 * read (load_traces); 0 with out->why set when there is no replay to make. */
static int load_dir(const char *dir, const struct rules *phases,
		    const struct scenario_metrics *m, struct loaded *l, struct replay_result *out)
{
	char **names;
	size_t n;
	int rc = trace_files_list(dir, 0, &names, &n);
	if (rc == 0 && n == 0) {
		free(names);
		rc = trace_files_list(dir, l->nsys = 1, &names, &n);
	}
	if (rc < 0 || n != m->n) {
		out->why_kind = REPLAY_FILES;
		snprintf(out->why, sizeof out->why, "%s", n ? names[0] : "");
		names_free(names, n);
		return 0;
	}
	int *hint = xcalloc(n + 1, sizeof *hint);
	trace_files_rank_hints(dir, names, n, hint);
	int ok = load_traces(dir, names, n, hint, phases, m, l, out);
	names_free(names, n);
	free(hint);
	return ok;
}

/* Each rank's host: one per distinct m->host ("" being one more), or one for all. */
static int hosts_of(const struct scenario_metrics *m, struct loaded *l, int one_host)
{
	if (one_host) {
		for (size_t i = 0; i < l->n; i++)
			l->in[i].host = 0;
		return 1;
	}
	int nh = 0;
	int *host_of = xcalloc(m->n + 1, sizeof *host_of);
	for (size_t k = 0; k < m->n; k++) {
		host_of[k] = nh;
		for (size_t j = 0; j < k; j++)
			if (!strcmp(m->ranks[j].host, m->ranks[k].host)) {
				host_of[k] = host_of[j];
				break;
			}
		nh += host_of[k] == nh;
	}
	for (size_t i = 0; i < l->n; i++)
		l->in[i].host = host_of[rank_index(m, l->in[i].rank)];
	free(host_of);
	return nh;
}

/* The error of replayed against measured, in percent. */
static double replay_error_pct(double replayed, double measured)
{
	return measured > 0 ? 100 * (replayed - measured) / measured : 0;
}

double replay_result_error(const struct replay_result *r)
{
	return r->by_means ? r->mean_error_pct : r->error_pct;
}

/* The replayed span of rank's step i, -1 when it has none. */
static double span_of(const struct replay_sim *s, int rank, int i)
{
	double a = replay_sim_step_start(s, rank, i), b = replay_sim_step_end(s, rank, i);
	return a >= 0 && b >= a ? b - a : -1;
}

/* Per rank of m, per step, when its last blocking collective ended in replay s of g (µs,
 * as steptime_completions gives the measured ones; NAN where none). */
static double **replay_completions(const struct replay_sim *s, const struct scenario_metrics *m)
{
	const struct rgraph *g = replay_sim_graph(s);
	double **c = xcalloc(m->n + 1, sizeof *c);
	for (size_t k = 0; k < m->n; k++) {
		c[k] = xmalloc((m->ranks[k].n + 1) * sizeof **c);
		for (size_t i = 0; i <= m->ranks[k].n; i++)
			c[k][i] = NAN;
	}
	for (int v = 0; v < g->nnodes; v++) {
		const struct rnode *x = &g->nodes[v];
		if (x->kind != RNODE_COLL || x->coll_step < 0 || !x->blocking)
			continue;
		int k = rank_index(m, g->lanes[x->lane].rank);
		double e = replay_sim_end(s, v) * 1000;
		if (k >= 0 && (size_t)x->coll_step < m->ranks[k].n && !(c[k][x->coll_step] >= e))
			c[k][x->coll_step] = e;
	}
	return c;
}

/* The active steps of the first rank, timed as the analysis times them (steptime.h): where
 * the measured step is a collective period, the replayed period of the same step (-1 where
 * the replay has none), else the slowest rank's span, replayed (-1 where none) into rep and
 * measured into mea; returns how many (rep and mea hold m->ranks[0].n). */
static size_t step_spans(const struct replay_sim *s, const struct scenario_metrics *m,
			 double *rep, double *mea)
{
	const struct rank_metrics *r0 = &m->ranks[0];
	double **cm = m->n > 1 ? steptime_completions(m) : NULL;
	double **cr = m->n > 1 ? replay_completions(s, m) : NULL;
	size_t n = 0;
	for (size_t i = 0; i < r0->n; i++) {
		if (!r0->steps[i].active)
			continue;
		double p = steptime_period(m, cm, i), a = -1;
		if (p > 0) {
			rep[n] = steptime_period(m, cr, i), mea[n++] = p;
			continue;
		}
		for (size_t k = 0; k < m->n; k++) {
			double x = i < m->ranks[k].n ? span_of(s, m->ranks[k].rank, (int)i) : -1;
			a = x > a ? x : a;
		}
		rep[n] = a, mea[n++] = steptime_slowest(m, i);
	}
	steptime_completions_free(cm, m);
	steptime_completions_free(cr, m);
	return n;
}

/* The measured steps' median, else the replayed ones': where ranks share cores, the replay
 * moves time between adjacent steps otherwise than the run did (which rank's threads the
 * cores serve first), and its median from one mode of its steps to the other, while the mean
 * holds (measured: 5.37 ms median, replayed 4.68, -12.8 %; means 6.16 and 6.41, +4.1 %). */
enum replay_means replay_judged_by(const double *rep, const double *mea, size_t n)
{
	return stats_median_misleads(mea, n)   ? REPLAY_MEANS_MEASURED
	       : stats_median_misleads(rep, n) ? REPLAY_MEANS_REPLAYED
					       : REPLAY_BY_MEDIANS;
}

/* Scenario and per-rank medians over the active steps of the first rank, the scenario's
 * step timed as the analysis times it (step_spans), a rank's by its own span. */
static void compare(const struct replay_sim *s, const struct scenario_metrics *m,
		    struct replay_result *out)
{
	const struct rank_metrics *r0 = &m->ranks[0];
	double *rep = xcalloc(r0->n + 1, sizeof *rep), *mea = xcalloc(r0->n + 1, sizeof *mea);
	size_t n = 0, all = step_spans(s, m, rep, mea);
	for (size_t i = 0; i < all; i++)
		if (rep[i] >= 0)
			rep[n] = rep[i], mea[n++] = mea[i];
	out->steps = n;
	out->replayed_steps_ms = xmalloc((n + 1) * sizeof *rep);
	out->measured_steps_ms = xmalloc((n + 1) * sizeof *mea);
	memcpy(out->replayed_steps_ms, rep, n * sizeof *rep);
	memcpy(out->measured_steps_ms, mea, n * sizeof *mea);
	out->step_ms = n ? stats_percentile_unordered(rep, n, 50) : 0;
	out->measured_ms = n ? stats_percentile_unordered(mea, n, 50) : 0;
	out->error_pct = replay_error_pct(out->step_ms, out->measured_ms);
	out->mean_step_ms = n ? stats_mean(rep, n) : 0;
	out->measured_mean_ms = n ? stats_mean(mea, n) : 0;
	out->mean_error_pct = replay_error_pct(out->mean_step_ms, out->measured_mean_ms);
	out->by_means = replay_judged_by(out->replayed_steps_ms, out->measured_steps_ms, n);
	out->ranks = xcalloc(m->n + 1, sizeof *out->ranks);
	for (size_t k = 0; k < m->n; k++) {
		const struct rank_metrics *r = &m->ranks[k];
		size_t q = 0;
		for (size_t i = 0; i < r->n; i++) {
			double x = span_of(s, r->rank, (int)i);
			if (r->steps[i].active && x >= 0)
				rep[q] = x, mea[q++] = r->steps[i].step_ms;
		}
		struct replay_rank_result *o = &out->ranks[out->nranks++];
		o->rank = r->rank;
		o->steps = q;
		o->step_ms = q ? stats_percentile_unordered(rep, q, 50) : 0;
		o->measured_ms = q ? stats_percentile_unordered(mea, q, 50) : 0;
		o->error_pct = replay_error_pct(o->step_ms, o->measured_ms);
	}
	free(rep);
	free(mea);
}

/* The mean step predicted into p: the measured mean (base, over every active step, as the
 * analysis' mean is) times the changed replay's mean step (b, nb) over the unchanged one's
 * (a, na), with the 95 % bootstrap interval of that quotient. */
static void mean_prediction(const double *a, size_t na, const double *b, size_t nb,
			    double base, struct replay_pred *p)
{
	struct stats_sample num = { b, nb }, den = { a, na };
	struct stats_interval ci;
	p->mean_ms = p->mean_lo_ms = p->mean_hi_ms = p->measured_mean_ms = -1;
	if (!na || !nb || base <= 0)
		return;
	p->measured_mean_ms = base;
	stats_bootstrap(&num, 1, &den, 1, STATS_MEAN, &ci);
	p->mean_ms = base * ci.value;
	if (ci.known && na >= STATS_BOOTSTRAP_MIN_N && nb >= STATS_BOOTSTRAP_MIN_N)
		p->mean_lo_ms = base * ci.lo, p->mean_hi_ms = base * ci.hi;
}

/* The prediction of the changed replay s against the unchanged one (base): the measured
 * median base_ms times the median of each active step's ratio of the two, with the 95 %
 * bootstrap interval of that median (a change that leaves some steps as they were, as
 * fewer checkpoints do, makes the steps' own spread far wider than the median's). 0 when
 * no step was replayed in both. */
static int ratio_prediction(const struct replay_sim *base, const struct replay_sim *s,
			    const struct scenario_metrics *m, double base_ms, struct replay_pred *p)
{
	size_t cap = m->ranks[0].n + 1, n = 0;
	double *a = xcalloc(cap, sizeof *a), *b = xcalloc(cap, sizeof *b);
	double *mea = xcalloc(cap, sizeof *mea);
	size_t na = step_spans(base, m, a, mea), nb = step_spans(s, m, b, mea), k = 0;
	double *ra = xcalloc(cap, sizeof *ra), *rb = xcalloc(cap, sizeof *rb);
	for (size_t i = 0; i < na && i < nb; i++)
		if (a[i] > 0 && b[i] >= 0)
			ra[k] = a[i], rb[k] = b[i], k++;
	mean_prediction(ra, k, rb, k, na ? stats_mean(mea, na) : 0, p);
	free(ra);
	free(rb);
	for (size_t i = 0; i < na && i < nb; i++)
		if (a[i] > 0 && b[i] >= 0)
			b[n] = b[i] / a[i], n++;
	if (n) {
		struct stats_sample one = { b, n };
		struct stats_interval ci;
		stats_bootstrap(&one, 1, NULL, 0, STATS_MEDIAN, &ci);
		p->step_ms = base_ms * ci.value;
		p->lo_ms = p->hi_ms = -1; /* (too few steps: none) */
		if (ci.known && n >= STATS_BOOTSTRAP_MIN_N)
			p->lo_ms = base_ms * ci.lo, p->hi_ms = base_ms * ci.hi;
	}
	free(a);
	free(b);
	free(mea);
	return n > 0;
}

/* The step predicted from the two replays as base_ms times the changed replay's median
 * active step over the unchanged one's, with the 95 % bootstrap interval of that quotient:
 * for a change that makes the steps differ from one another in another way than before (a
 * loader with more threads runs ahead, then falls behind), where step i of one replay is
 * not step i of the other. 0 when either replay has no active step. */
static int medians_prediction(const struct replay_sim *base, const struct replay_sim *s,
			      const struct scenario_metrics *m, double base_ms,
			      struct replay_pred *p)
{
	size_t cap = m->ranks[0].n + 1, na = 0, nb = 0;
	double *a = xcalloc(cap, sizeof *a), *b = xcalloc(cap, sizeof *b);
	double *mea = xcalloc(cap, sizeof *mea);
	size_t ka = step_spans(base, m, a, mea), kb = step_spans(s, m, b, mea);
	for (size_t i = 0; i < ka; i++)
		if (a[i] > 0)
			a[na++] = a[i];
	for (size_t i = 0; i < kb; i++)
		if (b[i] >= 0)
			b[nb++] = b[i];
	mean_prediction(a, na, b, nb, ka ? stats_mean(mea, ka) : 0, p);
	struct stats_sample num = { b, nb }, den = { a, na };
	struct stats_interval ci;
	stats_bootstrap(&num, 1, &den, 1, STATS_MEDIAN, &ci);
	if (ci.known) {
		p->step_ms = base_ms * ci.value;
		p->lo_ms = p->hi_ms = -1; /* (too few steps: none) */
		if (na >= STATS_BOOTSTRAP_MIN_N && nb >= STATS_BOOTSTRAP_MIN_N)
			p->lo_ms = base_ms * ci.lo, p->hi_ms = base_ms * ci.hi;
	}
	free(a);
	free(b);
	free(mea);
	return ci.known;
}

/* The change ch replayed against the unchanged replay (base) into *p (p->why when none);
 * info: what the builder made (replay_build_info_free when 1 is returned). A loader change
 * is predicted from the replays' medians, any other step by step (ratio_prediction). */
static int change_pred(struct replay_build_in *in, const struct replay_change *ch,
		       const struct replay_sim *base, const struct scenario_metrics *m,
		       double measured_ms, struct replay_pred *p, struct replay_build_info *info)
{
	struct rgraph *g = NULL;
	struct replay_sim *s = NULL;
	p->per_call_step_ms = p->proportional_step_ms = -1; /* no other bound yet */
	in->change = ch;
	int built = replay_build(in, &g, info) == 0;
	in->change = NULL;
	int (*predict)(const struct replay_sim *, const struct replay_sim *,
		       const struct scenario_metrics *, double, struct replay_pred *) =
		ch->kind == REPLAY_CHANGE_LOADERS ? medians_prediction : ratio_prediction;
	if (built && replay_sim_run(&s, g) == 0 && predict(base, s, m, measured_ms, p)) {
		p->made = 1;
		p->busy_pct = replay_sim_busiest_pct(s, g);
	} else {
		if (s) /* replayed, but no active step in both */
			err_set(ERR_USAGE, "no active step was replayed");
		snprintf(p->why, sizeof p->why, "%s", err_last());
	}
	replay_sim_free(s);
	rgraph_free(g);
	return built;
}

/* p's intervals (its median's, and its mean's where both have one) widened to span q's,
 * another replay of the same change under the other bound (none where either has none). */
static void widen_to(struct replay_pred *p, const struct replay_pred *q)
{
	if (p->lo_ms < 0 || q->lo_ms < 0) {
		p->lo_ms = p->hi_ms = p->mean_lo_ms = p->mean_hi_ms = -1;
		return;
	}
	p->lo_ms = q->lo_ms < p->lo_ms ? q->lo_ms : p->lo_ms;
	p->hi_ms = q->hi_ms > p->hi_ms ? q->hi_ms : p->hi_ms;
	if (p->mean_ms > 0 && q->mean_ms > 0 && (p->mean_lo_ms < 0 || q->mean_lo_ms < 0)) {
		p->mean_lo_ms = p->mean_hi_ms = -1;
	} else if (p->mean_ms > 0 && q->mean_ms > 0) {
		p->mean_lo_ms = q->mean_lo_ms < p->mean_lo_ms ? q->mean_lo_ms : p->mean_lo_ms;
		p->mean_hi_ms = q->mean_hi_ms > p->mean_hi_ms ? q->mean_hi_ms : p->mean_hi_ms;
	}
}

/* The communication change replayed against the unchanged replay (base) into out->comm.
 * Where no transfer model could be fitted, the change is replayed a second time as if all
 * of the transfer were per call: the interval spans both (the run cannot tell them apart). */
static void predict_comm(struct replay_build_in *in, const struct replay_sim *base,
			 const struct scenario_metrics *m, struct replay_result *out)
{
	struct replay_change ch = { .kind = REPLAY_CHANGE_BUCKETS,
				    .bucket_bytes = REPLAY_BUCKET_BYTES };
	struct replay_pred *p = &out->comm, q = { 0 };
	struct replay_build_info info;
	if (!change_pred(in, &ch, base, m, out->measured_ms, p, &info))
		return;
	p->buckets = info.buckets;
	p->fit_colls = info.fit_colls;
	p->per_call_ms = info.per_call_ms;
	p->ms_per_mib = info.ms_per_mib;
	p->fit_max_bytes = info.fit_max_bytes;
	p->bucket_max_bytes = info.bucket_max_bytes;
	p->bound = info.early;
	replay_build_info_free(&info);
	if (p->bound) { /* a bound: the step between it and the measured one */
		if (p->lo_ms >= 0)
			p->hi_ms = out->measured_ms > p->hi_ms ? out->measured_ms : p->hi_ms;
		if (p->mean_lo_ms >= 0 && p->measured_mean_ms > p->mean_hi_ms)
			p->mean_hi_ms = p->measured_mean_ms;
		return;
	}
	/* the other bound: no model (all per call, against in proportion to bytes), or a model
	 * extrapolated far past the sizes it saw (in proportion to bytes: no per-call saving) */
	int extrapolated = p->fit_colls && p->bucket_max_bytes > 2 * p->fit_max_bytes;
	ch.all_per_call = !p->fit_colls;
	ch.proportional = extrapolated;
	if (!p->made || (p->fit_colls && !extrapolated) ||
	    !change_pred(in, &ch, base, m, out->measured_ms, &q, &info))
		return;
	replay_build_info_free(&info);
	if (!q.made)
		return;
	*(extrapolated ? &p->proportional_step_ms : &p->per_call_step_ms) = q.step_ms;
	widen_to(p, &q);
}

/* x raised to at least floor. */
static void raise_to(double *x, double floor)
{
	*x = *x < floor ? floor : *x;
}

/* Asynchronous checkpoints written no faster than the storage took for them (info's floors:
 * the replay keeps each fsync as long as it was, which overlapping the ranks' writes more
 * than they were need not allow): the median (where every step checkpoints) and the mean
 * held at or above theirs, the intervals reaching them (from the replay's, fsyncs as
 * measured). */
static void storage_floored(struct replay_pred *p, const struct replay_build_info *info,
			    struct replay_result *out)
{
	out->io_storage_mean_ms = info->storage_busy_mean_ms;
	if (info->storage_busy_ms > 0) {
		out->io_storage_ms = info->storage_busy_ms;
		raise_to(&p->step_ms, out->io_storage_ms);
		if (p->lo_ms >= 0) /* (an interval where there is one) */
			raise_to(&p->hi_ms, out->io_storage_ms);
	}
	if (p->mean_ms > 0) {
		raise_to(&p->mean_ms, out->io_storage_mean_ms);
		if (p->mean_lo_ms >= 0)
			raise_to(&p->mean_hi_ms, out->io_storage_mean_ms);
	}
}

/* Fewer checkpoints (one step of every io_every keeps its own): which of the parent's are
 * kept is the phase of a count, no property of the run, and a few kept ones (3 of 12 steps)
 * sample the parent's spread of them, so out->io (phase 0) becomes the mean of the change
 * replayed at every phase: every checkpoint of the run counts once. An interval that a phase
 * has none of leaves none; a phase that makes no prediction leaves phase 0's alone. */
static void io_phases(struct replay_build_in *in, struct replay_change ch,
		      const struct replay_sim *base, const struct scenario_metrics *m,
		      struct replay_result *out)
{
	int n = out->io_every;
	struct replay_pred *q = xcalloc((size_t)n, sizeof *q), sum = out->io;
	q[0] = out->io;
	for (int k = 1; k < n; k++) {
		struct replay_build_info info;
		ch.phase = k;
		if (!change_pred(in, &ch, base, m, out->measured_ms, &q[k], &info) || !q[k].made) {
			free(q);
			return; /* (phase 0's stays) */
		}
		replay_build_info_free(&info);
	}
	sum.step_ms = sum.lo_ms = sum.hi_ms = sum.busy_pct = 0;
	sum.mean_ms = sum.mean_lo_ms = sum.mean_hi_ms = 0;
	int no_interval = 0, no_mean = 0, no_mean_interval = 0;
	for (int k = 0; k < n; k++) {
		no_interval |= q[k].lo_ms < 0;
		no_mean |= q[k].mean_ms <= 0;
		no_mean_interval |= q[k].mean_lo_ms < 0;
		sum.step_ms += q[k].step_ms / n, sum.lo_ms += q[k].lo_ms / n;
		sum.hi_ms += q[k].hi_ms / n, sum.busy_pct += q[k].busy_pct / n;
		sum.mean_ms += q[k].mean_ms / n, sum.mean_lo_ms += q[k].mean_lo_ms / n;
		sum.mean_hi_ms += q[k].mean_hi_ms / n;
	}
	if (no_interval)
		sum.lo_ms = sum.hi_ms = -1;
	if (no_mean)
		sum.mean_ms = -1;
	if (no_mean || no_mean_interval)
		sum.mean_lo_ms = sum.mean_hi_ms = -1;
	out->io = sum;
	free(q);
}

/* The I/O change (the checkpoints w's io knob makes: every ckpt_every steps, asynchronous
 * where it says so; a knob that says neither, or none: each checkpoint written
 * asynchronously; an input from before: REPLAY_CHECKPOINT_LEGACY) replayed against the
 * unchanged replay (base) into out->io. */
static void predict_io(struct replay_build_in *in, const struct replay_sim *base,
		       const struct scenario_metrics *m, const struct replay_where *w,
		       struct replay_result *out)
{
	int said = w->ckpt_every > 0 || w->ckpt_async, legacy = w->ckpt_every < 0;
	out->io_every = legacy ? REPLAY_CHECKPOINT_LEGACY : w->ckpt_every > 0 ? w->ckpt_every : 1;
	out->io_async = !legacy && (w->ckpt_async || !said);
	struct replay_change ch = { .kind = REPLAY_CHANGE_CHECKPOINTS, .every = out->io_every,
				    .async = out->io_async };
	struct replay_build_info info;
	out->io_storage_ms = out->io_storage_mean_ms = -1;
	if (!change_pred(in, &ch, base, m, out->measured_ms, &out->io, &info))
		return;
	if (out->io.made && !legacy && out->io_every > 1)
		io_phases(in, ch, base, m, out);
	if (out->io.made && out->io_async && info.storage_busy_mean_ms > 0)
		storage_floored(&out->io, &info, out);
	replay_build_info_free(&info);
}

/* The loader change ch replayed again with a user's DataLoader's loading all CPU work
 * (share 1) or all waiting (0), the intervals of out->data (its median's and its mean's)
 * widened to it; its median. */
static double loader_bound(struct replay_build_in *in, struct replay_change ch, double share,
			   const struct replay_sim *base, const struct scenario_metrics *m,
			   struct replay_result *out, double *mean_ms)
{
	struct replay_build_info info;
	struct replay_pred q = { 0 };
	ch.job_cores = -1, ch.cpu_share = share;
	*mean_ms = -1;
	if (!change_pred(in, &ch, base, m, out->measured_ms, &q, &info))
		return -1;
	replay_build_info_free(&info);
	if (!q.made)
		return -1;
	widen_to(&out->data, &q);
	*mean_ms = q.mean_ms > 0 ? q.mean_ms : -1;
	return q.step_ms;
}

/* The data-loading change (the loader w asks for) replayed against the unchanged replay
 * (base) into out->data. A user's DataLoader's loading is CPU work in the share the monitors
 * measured, else all of it; the interval reaches the replays with all of it waiting and all
 * of it CPU work (the share is an estimate: replay_build.h). */
static void predict_data(struct replay_build_in *in, const struct replay_sim *base,
			 const struct scenario_metrics *m, const struct replay_where *w,
			 struct replay_result *out)
{
	struct replay_change ch = { .kind = REPLAY_CHANGE_LOADERS, .workers = w->loader_workers,
				    .depth = w->loader_depth, .job_cores = w->job_cores,
				    .cpu_share = 1, .host_ranks = w->host_ranks };
	struct replay_build_info info;
	out->loader_cpu_pct = out->loader_wait_step_ms = out->loader_cpu_step_ms = -1;
	out->loader_wait_mean_ms = out->loader_cpu_mean_ms = -1;
	out->loader_cpu_span_s = 0;
	out->loader_unplaced_s = w->unplaced_span_s, out->loader_monitored_s = w->monitored_s;
	out->loader_by_write = w->ends_by_write;
	if (w->loader_workers <= 0 || w->loader_depth <= 0) {
		err_set(ERR_USAGE,
			"the campaign's data_loading knob sets no --workers or --prefetch of the reference trainer, and no loader: {workers} for a DataLoader");
		snprintf(out->data.why, sizeof out->data.why, "%s", err_last());
		return;
	}
	if (!change_pred(in, &ch, base, m, out->measured_ms, &out->data, &info))
		return;
	out->loaders = info.loaders;
	out->user_loader = info.user_loader;
	double share = info.loader_cpu_share;
	replay_build_info_free(&info);
	if (!out->user_loader || !out->data.made)
		return;
	out->loader_cpu_step_ms = out->data.step_ms;
	out->loader_cpu_mean_ms = out->data.mean_ms > 0 ? out->data.mean_ms : -1;
	if (w->job_cores >= 0) {
		out->loader_cpu_pct = 100 * share;
		out->loader_cpu_span_s = w->job_cores_span_s;
		if (share < 1)
			out->loader_cpu_step_ms =
				loader_bound(in, ch, 1, base, m, out, &out->loader_cpu_mean_ms);
	}
	out->loader_wait_step_ms = loader_bound(in, ch, 0, base, m, out, &out->loader_wait_mean_ms);
}

/* The straggler change (the slow ranks w names) replayed against the unchanged replay
 * (base) into out->straggler. */
static void predict_straggler(struct replay_build_in *in, const struct replay_sim *base,
			      const struct scenario_metrics *m, const struct replay_where *w,
			      struct replay_result *out)
{
	struct replay_change ch = { .kind = REPLAY_CHANGE_STRAGGLERS, .slow_ranks = w->slow_ranks,
				    .nslow = w->nslow };
	struct replay_build_info info;
	if (!w->nslow) {
		err_set(ERR_USAGE, "the analysis named no straggler");
		snprintf(out->straggler.why, sizeof out->straggler.why, "%s", err_last());
		return;
	}
	if (change_pred(in, &ch, base, m, out->measured_ms, &out->straggler, &info))
		replay_build_info_free(&info);
}

/* The host change (launch overhead halved) replayed against the unchanged replay (base) into
 * out->host. */
static void predict_host(struct replay_build_in *in, const struct replay_sim *base,
			 const struct scenario_metrics *m, struct replay_result *out)
{
	struct replay_change ch = { .kind = REPLAY_CHANGE_HOST };
	struct replay_build_info info;
	if (change_pred(in, &ch, base, m, out->measured_ms, &out->host, &info))
		replay_build_info_free(&info);
}

/* The batch change (twice the samples a step) replayed against the unchanged replay (base)
 * into out->batch. */
static void predict_batch(struct replay_build_in *in, const struct replay_sim *base,
			  const struct scenario_metrics *m, const struct replay_where *w,
			  struct replay_result *out)
{
	struct replay_change ch = { .kind = REPLAY_CHANGE_BATCH };
	struct replay_build_info info;
	struct replay_pred q = { 0 };
	out->batch.gemm_bound_step_ms = -1;
	if (!change_pred(in, &ch, base, m, out->measured_ms, &out->batch, &info))
		return;
	replay_build_info_free(&info);
	/* the other bound: GEMMs as long as they were (what twice the rows costs them is not in
	 * the run) */
	ch.gemm_share = w->gemm_share;
	if (!out->batch.made || w->gemm_share <= 0 ||
	    !change_pred(in, &ch, base, m, out->measured_ms, &q, &info))
		return;
	replay_build_info_free(&info);
	if (!q.made)
		return;
	out->batch.gemm_bound_step_ms = q.step_ms;
	out->gemm_share = w->gemm_share;
	widen_to(&out->batch, &q);
}

/* The predictions to 0.001 ms, as summary.json keeps them: the report's figures are then the
 * ones a variant's check reads back (a mean of 52.2549.. was 52.25 in the parent's report and,
 * stored as 52.255, 52.26 in the variant's). */
static void predictions_rounded(struct replay_result *r)
{
	struct replay_pred *p[] = {
		&r->comm, &r->io, &r->data, &r->straggler, &r->host, &r->batch
	};
	for (size_t i = 0; i < sizeof p / sizeof *p; i++) {
		double *v[] = { &p[i]->step_ms, &p[i]->lo_ms, &p[i]->hi_ms, &p[i]->mean_ms,
				&p[i]->mean_lo_ms, &p[i]->mean_hi_ms, &p[i]->measured_mean_ms,
				&p[i]->per_call_step_ms, &p[i]->proportional_step_ms,
				&p[i]->gemm_bound_step_ms };
		for (size_t k = 0; k < sizeof v / sizeof *v; k++)
			*v[k] = jsonio_round3(*v[k]);
	}
	double *v[] = { &r->loader_wait_step_ms, &r->loader_cpu_step_ms, &r->loader_wait_mean_ms,
			&r->loader_cpu_mean_ms, &r->io_storage_ms, &r->io_storage_mean_ms };
	for (size_t k = 0; k < sizeof v / sizeof *v; k++)
		*v[k] = jsonio_round3(*v[k]);
}

/* The loaded traces l (ranks and steps those of m) built into a graph, replayed, and set
 * against m's steps; with predict, each recommendation's change replayed too. */
static int replay_loaded(struct loaded *l, const struct scenario_metrics *m,
			 const struct replay_where *w, int predict, struct replay_result *out)
{
	out->hosts = hosts_of(m, l, w->one_host);
	out->cores = w->cores;
	int *hc = xcalloc((size_t)out->hosts + 1, sizeof *hc);
	for (int h = 0; h < out->hosts; h++)
		hc[h] = w->cores;
	struct replay_build_in in = { l->in, l->n, hc, out->hosts, NULL };
	struct rgraph *g = NULL;
	struct replay_sim *s = NULL;
	struct replay_build_info info = { 0 };
	int rc = 0;
	out->compute_core_wait_pct = -1;
	if (replay_build(&in, &g, &info) < 0) {
		out->why_kind = REPLAY_NOT_BUILT;
		snprintf(out->why, sizeof out->why, "%s", err_last());
	} else if ((rc = replay_sim_run(&s, g)) == 0) {
		compare(s, m, out);
		if (info.compute_wall_ms > 0)
			out->compute_core_wait_pct =
				100 * (1 - info.compute_demand_ms / info.compute_wall_ms);
		out->built = out->steps > 0;
		out->why_kind = out->built ? REPLAY_MADE : REPLAY_NO_ACTIVE;
		out->predicted = out->built && predict;
		if (out->built && predict) {
			predict_comm(&in, s, m, out);
			predict_io(&in, s, m, w, out);
			predict_data(&in, s, m, w, out);
			predict_straggler(&in, s, m, w, out);
			predict_host(&in, s, m, out);
			predict_batch(&in, s, m, w, out);
			predictions_rounded(out);
		}
	}
	if (g)
		replay_build_info_free(&info);
	replay_sim_free(s);
	rgraph_free(g);
	free(hc);
	return rc < 0 ? rc : 0;
}

int replay_scenario_run(const char *dir, const struct rules *phases,
			const struct scenario_metrics *m, const struct replay_where *w,
			struct replay_result *out)
{
	memset(out, 0, sizeof *out);
	struct loaded l = { 0 };
	int rc = 0;
	if (m->n && load_dir(dir, phases, m, &l, out))
		rc = replay_loaded(&l, m, w, 1, out);
	loaded_free(&l);
	return rc;
}

/* The trainer's trace file of each rank of m in dir (names[k] for m->ranks[k]), with the rank
 * as its hint; 0 when a rank has none. */
static int trainer_names(const char *dir, const struct scenario_metrics *m, char ***names,
			 int **hint)
{
	*names = xcalloc(m->n + 1, sizeof **names);
	*hint = xcalloc(m->n + 1, sizeof **hint);
	int all = m->n > 0;
	for (size_t k = 0; k < m->n; k++) {
		struct strbuf p = STRBUF_INIT;
		strbuf_addf(&p, "%s/" JOB_TRAINER_TRACE, dir, m->ranks[k].rank);
		all = all && access(p.buf, F_OK) == 0;
		strbuf_reset(&p);
		strbuf_addf(&p, JOB_TRAINER_TRACE, m->ranks[k].rank);
		(*names)[k] = strbuf_detach(&p);
		(*hint)[k] = m->ranks[k].rank;
	}
	return all;
}

static int by_start(const void *x, const void *y)
{
	const double *a = x, *c = y;
	return a[0] < c[0] ? -1 : a[0] > c[0];
}

/* A rank's steps as its trace's step ranges, by start: the i-th is step i (the trainer writes
 * one per step from 0), of the range's time, active when the telemetry's step i is, and
 * ending its last collective when the telemetry says (its clock: the measured periods are
 * the analysis's) (tel NULL: every one, and out's rank and host are left as they are). */
static void trace_steps(const struct replay_rank_in *in, const struct rank_metrics *tel,
			struct rank_metrics *out)
{
	const struct gpu_trace *t = in->t;
	double (*w)[2] = xcalloc(t->ncpu + 1, sizeof *w);
	size_t n = 0;
	for (size_t i = 0; i < t->ncpu; i++)
		if (in->is_step[t->cpu[i].name])
			w[n][0] = t->cpu[i].start, w[n++][1] = t->cpu[i].end;
	sort_runs(w, n, sizeof *w, by_start);
	if (tel) {
		out->rank = tel->rank;
		memcpy(out->host, tel->host, sizeof out->host);
	}
	out->steps = xcalloc(n + 1, sizeof *out->steps);
	out->n = out->cap = n;
	for (size_t j = 0; tel && j < tel->n; j++)
		if (tel->steps[j].step >= 0 && (size_t)tel->steps[j].step < n) {
			out->steps[tel->steps[j].step].active = tel->steps[j].active;
			out->steps[tel->steps[j].step].coll_end_us = tel->steps[j].coll_end_us;
		}
	for (size_t i = 0; i < n; i++) {
		struct step_rec *r = &out->steps[i];
		r->step = (long)i;
		r->active = r->active || !tel;
		r->step_ms = (w[i][1] - w[i][0]) / 1000; /* (host ranges are in µs) */
		r->start_us = w[i][0];
	}
	free(w);
}

int replay_scenario_trainer(const char *dir, const struct rules *phases,
			    const struct scenario_metrics *m, const struct replay_where *w,
			    struct replay_result *out)
{
	memset(out, 0, sizeof *out);
	struct loaded l = { 0 };
	struct scenario_metrics mt = { xcalloc(m->n + 1, sizeof *mt.ranks), m->n };
	char **names;
	int *hint, rc = 0;
	if (!trainer_names(dir, m, &names, &hint)) {
		out->why_kind = REPLAY_TELEMETRY;
	} else if (w->cores <= 0) {
		out->why_kind = REPLAY_NO_CORES;
	} else if (load_traces(dir, names, m->n, hint, phases, m, &l, out)) {
		for (size_t i = 0; i < l.n; i++) {
			int k = rank_index(m, l.in[i].rank);
			trace_steps(&l.in[i], &m->ranks[k], &mt.ranks[k]);
			l.in[i].nsteps = (int)mt.ranks[k].n;
		}
		rc = replay_loaded(&l, &mt, w, 1, out);
	}
	names_free(names, m->n);
	free(hint);
	metrics_free(&mt);
	loaded_free(&l);
	return rc;
}

/* The threads of t's host ranges. */
static int threads_of(const struct gpu_trace *t)
{
	unsigned char *seen = xcalloc(t->nnames + 1, 1);
	int n = 0;
	for (size_t i = 0; i < t->ncpu; i++)
		if (!seen[t->cpu[i].tid]) {
			seen[t->cpu[i].tid] = 1;
			n++;
		}
	free(seen);
	return n;
}

/* The trace's last step left out where it is the profiler's tail, as a run's analysis leaves
 * it out (trace_reduce_drop_partial_step, docs/analysis.md), its collectives read for that
 * alone. */
static void drop_partial_step(const struct gpu_trace *t, struct rank_metrics *r)
{
	trace_reduce_collectives(t, t, r);
	trace_reduce_drop_partial_step(t, r);
	free(r->coll);
	r->coll = NULL;
	r->ncoll = r->collcap = 0;
}

int replay_scenario_traces(struct gpu_trace *t, size_t n, const struct rules *phases,
			   struct replay_result *out)
{
	memset(out, 0, sizeof *out);
	struct loaded l = { .t = t, .is_step = xcalloc(n + 1, sizeof *l.is_step),
			    .in = xcalloc(n + 1, sizeof *l.in), .n = n };
	struct scenario_metrics m = { xcalloc(n + 1, sizeof *m.ranks), n };
	struct replay_where w = { .cores = 1, .job_cores = -1 };
	int own = 1; /* every file's own rank, all distinct */
	for (size_t i = 0; i < n; i++) {
		own = own && t[i].rank >= 0;
		for (size_t j = 0; j < i; j++)
			own = own && t[i].rank != t[j].rank;
	}
	for (size_t i = 0; i < n; i++) {
		l.is_step[i] = step_names(&t[i], phases, NULL);
		m.ranks[i].rank = own ? t[i].rank : (int)i;
		snprintf(m.ranks[i].host, sizeof m.ranks[i].host, "rank%d", m.ranks[i].rank);
		l.in[i] = (struct replay_rank_in){ &t[i], m.ranks[i].rank, 0, l.is_step[i], 0,
						   NULL };
		trace_steps(&l.in[i], NULL, &m.ranks[i]);
		drop_partial_step(&t[i], &m.ranks[i]);
		l.in[i].nsteps = (int)m.ranks[i].n;
		int k = threads_of(&t[i]);
		w.cores = k > w.cores ? k : w.cores;
	}
	int rc = replay_loaded(&l, &m, &w, 0, out);
	for (size_t i = 0; i < n; i++)
		free(l.is_step[i]);
	free(l.is_step);
	free(l.in);
	metrics_free(&m);
	return rc;
}

void replay_result_free(struct replay_result *r)
{
	free(r->ranks);
	free(r->replayed_steps_ms);
	free(r->measured_steps_ms);
	memset(r, 0, sizeof *r);
}

const char *replay_means_whose(const struct replay_result *r)
{
	return r->by_means == REPLAY_MEANS_REPLAYED ? " replayed" : "";
}

int replay_median_rough(const struct replay_result *r)
{
	return r->by_means == REPLAY_MEANS_REPLAYED && fabs(r->error_pct) > REPLAY_ROUGH_PCT;
}
