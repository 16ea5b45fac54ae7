/* SPDX-License-Identifier: MIT */
#include "analyzers/torchtrace.h"

#include "analyzers/collective.h"

#include "analyzers/gpu_breakdown.h"
#include "analyzers/read/nsys.h"
#include "analyzers/phases.h"
#include "analyzers/pool.h"
#include "analyzers/stats.h"
#include "analyzers/timeline_fragment.h"
#include "analyzers/trace_names.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/sort.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int by_start(const void *pa, const void *pb)
{
	const struct phase_range *a = pa, *b = pb;
	return a->start < b->start ? -1 : a->start > b->start;
}

static int by_tid_start(const void *pa, const void *pb)
{
	const struct cpu_range *a = pa, *b = pb;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end > b->end ? -1 : a->end < b->end;
}

/* The host ranges by thread, then start (the longer first): a stable pass
 * by thread, then each thread's ranges sorted where the file had them out
 * of order (one more entry at the end, for the caller). */
static struct cpu_range *by_thread(const struct gpu_trace *t)
{
	size_t *at = xcalloc(t->nnames + 1, sizeof *at);
	struct cpu_range *r = xmalloc((t->ncpu + 1) * sizeof *r);
	for (size_t i = 0; i < t->ncpu; i++)
		at[t->cpu[i].tid + 1]++;
	for (size_t k = 1; k <= t->nnames; k++)
		at[k] += at[k - 1];
	for (size_t i = 0; i < t->ncpu; i++)
		r[at[t->cpu[i].tid]++] = t->cpu[i];
	/* at[k]: where thread k's ranges end */
	for (size_t k = 0, from = 0; k < t->nnames; from = at[k++])
		sort_runs(r + from, at[k] - from, sizeof *r, by_tid_start);
	free(at);
	return r;
}

static const char *op_name(const void *v, size_t i)
{
	return ((const struct op_stat *)v)[i].name;
}

static void op_add(struct op_table *ops, const char *name, double ms, long count)
{
	size_t *slot = strindex_slot(&ops->index, name, ops->v, ops->n, op_name);
	ops->total_ms += ms;
	if (*slot) {
		ops->v[*slot - 1].self_ms += ms;
		ops->v[*slot - 1].count += count;
		return;
	}
	XGROW(ops->v, ops->n, ops->cap, 64);
	ops->v[ops->n] = (struct op_stat){ xstrdup(name), ms, count };
	*slot = ++ops->n;
}

/* Self time of every operator: per thread, a range's length less that of
 * the ranges directly inside it. Step ranges (ph) are no operators. */
static void self_times(const struct gpu_trace *t, const int *ph, struct op_table *ops)
{
	struct cpu_range *r = by_thread(t);
	double *self = xcalloc(t->nnames + 1, sizeof *self),
	       *child = xcalloc(t->ncpu + 1, sizeof *child);
	long *count = xcalloc(t->nnames + 1, sizeof *count);
	size_t *stack = xcalloc(t->ncpu + 1, sizeof *stack), depth = 0;
	for (size_t i = 0; i <= t->ncpu; i++) {
		while (depth && (i == t->ncpu || r[stack[depth - 1]].tid != r[i].tid ||
				 r[stack[depth - 1]].end <= r[i].start)) {
			size_t k = stack[--depth];
			double s = (r[k].end - r[k].start) - child[k];
			self[r[k].name] += s > 0 ? s : 0;
			count[r[k].name]++;
		}
		if (i == t->ncpu)
			break;
		if (depth) {
			const struct cpu_range *p = &r[stack[depth - 1]];
			child[stack[depth - 1]] +=
				(r[i].end < p->end ? r[i].end : p->end) - r[i].start;
		}
		stack[depth++] = i;
	}
	for (size_t i = 0; i < t->nnames; i++)
		if (count[i] && ph[i] != TRACE_NAME_STEP)
			op_add(ops, t->names[i], self[i] / 1000.0, count[i]);
	free(stack);
	free(count);
	free(child);
	free(self);
	free(r);
}

/* The operators that carry FLOPs, by start: a step sums those starting in it. */
struct flops_at {
	double start, flops;
};

static int by_flops_start(const void *pa, const void *pb)
{
	const struct flops_at *a = pa, *b = pb;
	return a->start < b->start ? -1 : a->start > b->start;
}

static double flops_in(const struct flops_at *f, size_t n, double start, double end)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	double sum = 0;
	for (size_t i = lo; i < n && f[i].start < end; i++)
		sum += f[i].flops;
	return sum;
}

static void one_step(const struct cpu_range *st, long n, const struct phase_range *cls, size_t ncls,
		     double maxdur, struct phase_range *buf, double flops, struct rank_metrics *out)
{
	/* the classified ranges that overlap the step: they start after st->start - maxdur */
	size_t lo = 0, hi = ncls, k = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cls[mid].start < st->start - maxdur)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < ncls && cls[i].start < st->end; i++)
		if (cls[i].end > st->start)
			buf[k++] = cls[i];
	struct step_phases p;
	phases_of_step(buf, k, st->start, st->end, &p);
	struct step_rec s = { .step = n, .active = 1 };
	s.forward_ms = p.ms[PH_FORWARD];
	s.backward_ms = p.ms[PH_BACKWARD];
	s.optimizer_ms = p.ms[PH_OPTIMIZER];
	s.data_ms = p.ms[PH_DATA];
	s.comm_exposed_ms = p.ms[PH_COMM];
	s.comm_ms = p.comm_total_ms;
	s.io_ms = p.ms[PH_IO];
	s.ops_ms = p.ms[PH_OPS];
	s.step_ms = (st->end - st->start) / 1000.0;
	s.start_us = st->start > 0 ? st->start : 0;
	metrics_add_step(out, &s);
	out->flops_per_step += flops;
}

/* The window of a trace's classified ranges and operators (from the first
 * start to the last end) into *w; 0 when it has none. */
static int host_window(const struct gpu_trace *t, const int *ph, struct cpu_range *w)
{
	int any = 0;
	for (size_t i = 0; i < t->ncpu; i++) {
		const struct cpu_range *c = &t->cpu[i];
		if (ph[c->name] < 0)
			continue;
		if (!any || c->start < w->start)
			w->start = c->start;
		if (!any || c->end > w->end)
			w->end = c->end;
		any = 1;
	}
	return any && w->end > w->start;
}

static int by_step_start(const void *pa, const void *pb)
{
	const struct cpu_range *a = pa, *b = pb;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* A host range and its index in the trace (sorted as by_tid_start sorts ranges). */
struct range_at {
	struct cpu_range c;
	size_t i;
};

/* Per host range of t: 1 for an operator with device work, a range no rule
 * classifies that encloses a launch call (a kernel, a copy, a memset) on its
 * own thread: it counts as compute where no phase range is around it. */
static unsigned char *device_work(const struct gpu_trace *t, const int *ph)
{
	unsigned char *dev = xcalloc(t->ncpu + 1, 1), *launch = xcalloc(t->nnames + 1, 1);
	struct range_at *r = xmalloc((t->ncpu + 1) * sizeof *r);
	size_t *stack = xmalloc((t->ncpu + 1) * sizeof *stack), depth = 0;
	for (size_t i = 0; i < t->nnames; i++)
		launch[i] = (unsigned char)kineto_is_launch(t->names[i]);
	for (size_t i = 0; i < t->ncpu; i++)
		r[i] = (struct range_at){ t->cpu[i], i };
	sort_runs(r, t->ncpu, sizeof *r, by_tid_start); /* compares the first member */
	for (size_t k = 0; k < t->ncpu; k++) {
		while (depth && (r[stack[depth - 1]].c.tid != r[k].c.tid ||
				 r[stack[depth - 1]].c.end <= r[k].c.start))
			depth--;
		if (launch[r[k].c.name])
			for (size_t d = 0; d < depth; d++)
				dev[r[stack[d]].i] |= ph[r[stack[d]].c.name] == -1;
		stack[depth++] = k;
	}
	free(stack);
	free(r);
	free(launch);
	return dev;
}

void torchtrace_rank(const struct gpu_trace *t, const struct rules *phases, int loose_steps,
		     struct rank_metrics *out, struct op_table *ops)
{
	int *ph = trace_name_phases(t, phases, loose_steps);
	unsigned char *dev = device_work(t, ph);
	struct phase_range *cls = xcalloc(t->ncpu + 1, sizeof *cls),
			   *buf = xcalloc(t->ncpu + 1, sizeof *buf);
	struct cpu_range *steps = xcalloc(t->ncpu + 1, sizeof *steps);
	struct flops_at *fl = NULL;
	size_t ncls = 0, nsteps = 0, nfl = 0, flcap = 0;
	double maxdur = 0;
	for (size_t i = 0; i < t->ncpu; i++) {
		const struct cpu_range *c = &t->cpu[i];
		if (ph[c->name] == TRACE_NAME_STEP)
			steps[nsteps++] = *c;
		else if (ph[c->name] >= 0 || dev[i]) {
			cls[ncls++] = (struct phase_range){ c->start, c->end, c->tid,
							    dev[i] ? PH_OPS : ph[c->name] };
			if (c->end - c->start > maxdur)
				maxdur = c->end - c->start;
		}
		if (c->flops > 0) {
			XGROW(fl, nfl, flcap, 64);
			fl[nfl++] = (struct flops_at){ c->start, c->flops };
		}
	}
	/* stable, and one pass for what the trace wrote in time order */
	sort_runs(fl, nfl, sizeof *fl, by_flops_start);
	sort_runs(cls, ncls, sizeof *cls, by_start);
	sort_runs(steps, nsteps, sizeof *steps, by_step_start);
	out->format = METRICS_TORCH_TRACE;
	out->rank = t->rank;
	out->own_clock = t->legacy;
	for (size_t i = 0; i < nsteps; i++) {
		long n;
		trace_step_name(t->names[steps[i].name], &n, loose_steps);
		one_step(&steps[i], n >= 0 ? n : (long)i, cls, ncls, maxdur, buf,
			 flops_in(fl, nfl, steps[i].start, steps[i].end), out);
	}
	/* no step marker, no GPU work (the legacy autograd profiler, a script that never
	 * calls prof.step()): the operators' whole window as one step, shares only */
	if (!nsteps && !loose_steps && !t->n && host_window(t, ph, &steps[0])) {
		one_step(&steps[0], 0, cls, ncls, maxdur, buf, flops_in(fl, nfl, steps[0].start,
									steps[0].end),
			 out);
		out->whole_window = out->n == 1;
		nsteps = out->n;
	}
	free(fl);
	if (out->n)
		out->flops_per_step /= (double)out->n;
	if (ops && nsteps)
		self_times(t, ph, ops);
	free(steps);
	free(buf);
	free(cls);
	free(dev);
	free(ph);
}

/* The one record of rank, or NULL (none, or several). */
static const struct rank_record *record_of(const struct rank_record *rec, size_t nrec, long rank)
{
	const struct rank_record *one = NULL;
	for (size_t k = 0; k < nrec; k++)
		if (rec[k].rank == rank) {
			if (one)
				return NULL;
			one = &rec[k];
		}
	return one;
}

void torchtrace_rank_nodes(const char *job_dir, struct scenario_metrics *m)
{
	struct rank_record *rec;
	size_t nrec = ranklines_records(job_dir, &rec);
	for (size_t i = 0; i < m->n; i++) {
		const struct rank_record *r = record_of(rec, nrec, m->ranks[i].rank);
		/* a record names the world's rank when campaign started every rank (one
		 * record per rank) or a launcher's worker was recorded with its RANK */
		if (r && (nrec == m->n || r->worker) && !m->ranks[i].host[0])
			snprintf(m->ranks[i].host, sizeof m->ranks[i].host, "%.127s", r->node);
	}
	free(rec);
}

void torchtrace_rank_hints(const char *dir, char *const *names, size_t n, int *hints)
{
	char *copy = xstrdup(dir), *slash = strrchr(copy, '/');
	if (slash)
		*slash = '\0';
	struct rank_record *rec;
	size_t nrec = ranklines_records(copy, &rec);
	free(copy);
	struct argv workers = { 0 }; /* distinct processes, in file order */
	long base = 0; /* processes no record names come after the recorded ranks */
	for (size_t k = 0; k < nrec; k++)
		if (rec[k].rank + 1 > base)
			base = rec[k].rank + 1;
	for (size_t i = 0; i < n; i++) {
		char worker[512], host[256];
		long pid = -1;
		hints[i] = -1;
		int named = trace_worker_of_name(names[i], worker, sizeof worker, host,
						      sizeof host, &pid);
		for (size_t k = 0; named && k < nrec && hints[i] < 0; k++)
			if (rec[k].pid == pid && !strcmp(rec[k].host, host))
				hints[i] = (int)rec[k].rank;
		if (hints[i] < 0)
			hints[i] = trace_rank_of_name(names[i]);
		if (hints[i] >= 0)
			continue;
		/* a file named after no process is a worker of its own */
		size_t w = named ? 0 : workers.n;
		while (w < workers.n && strcmp(workers.v[w], worker))
			w++;
		if (w == workers.n)
			argv_push(&workers, named ? worker : names[i]);
		hints[i] = (int)(base + (long)w);
	}
	argv_free(&workers);
	free(rec);
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	return n > k && !strcmp(s + n - k, tail);
}

static int is_trace_name(const char *name)
{
	return ends_with(name, ".json") || ends_with(name, ".json.gz");
}

static int is_nsys_name(const char *name)
{
	return ends_with(name, ".sqlite");
}

/* Adds a file's steps to the rank it belongs to (a rank may have written
 * several files: one per profiling cycle). */
static void add_rank(struct trace_set *ts, struct rank_metrics *r)
{
	for (size_t i = 0; i < ts->m.n; i++) {
		struct rank_metrics *x = &ts->m.ranks[i];
		if (x->rank != r->rank)
			continue;
		for (size_t k = 0; k < r->ncoll; k++) { /* its steps follow x's */
			XGROW(x->coll, x->ncoll, x->collcap, 64);
			x->coll[x->ncoll] = r->coll[k];
			x->coll[x->ncoll++].step += (int)x->n;
		}
		for (size_t k = 0; k < r->n; k++)
			metrics_add_step(x, &r->steps[k]);
		rank_metrics_free(r);
		return;
	}
	ts->m.ranks = xrealloc(ts->m.ranks, (ts->m.n + 1) * sizeof *ts->m.ranks);
	ts->m.ranks[ts->m.n++] = *r;
}

/* A trace with GPU kernels: HTA's breakdown of this rank, added to the
 * scenario's sums, and its kernels' time by name. */
static void gpu_time(struct trace_set *ts, struct gpu_trace *t, const struct rules *kernels)
{
	struct gpu_breakdown_rank h;
	gpu_breakdown_analyse(t, kernels, 1, &h);
	double us = 1 / (t->unit_per_us > 0 ? t->unit_per_us : 1);
	ts->gpu_kernel_us += h.kernel_time * us;
	ts->gpu_idle_us += h.idle * us;
	ts->gpu_compute_us += h.compute * us;
	ts->gpu_non_compute_us += h.non_compute * us;
	ts->gpu_comm_us += h.comm_union * us;
	ts->gpu_overlap_us += h.overlap * us;
	gpu_breakdown_rank_free(&h);
	/* per name first: one table look-up per kernel name */
	double *ms = xcalloc(t->nnames + 1, sizeof *ms);
	long *count = xcalloc(t->nnames + 1, sizeof *count);
	for (size_t i = 0; i < t->n; i++) {
		ms[t->ev[i].name] += (t->ev[i].end - t->ev[i].start) * us / 1000.0;
		count[t->ev[i].name]++;
	}
	for (size_t i = 0; i < t->nnames; i++)
		if (count[i])
			op_add(&ts->kernels, t->names[i], ms[i], count[i]);
	free(count);
	free(ms);
}

/* A file's rank (the trace's own, else its name's, else its order) joins the
 * set when it has steps; else the first such file is named with what to do. */
static void keep_rank(struct trace_set *ts, struct rank_metrics *r, const char *name, int order,
		      const char *path, const char *no_steps)
{
	r->rank = trace_rank_for(r->rank, name, order);
	if (r->n) {
		add_rank(ts, r);
		return;
	}
	ts->no_steps++;
	if (!ts->problem[0])
		snprintf(ts->problem, sizeof ts->problem, "%s %s", path, no_steps);
	rank_metrics_free(r);
}

/* A reader's message as one line of the report: newlines (yajl's pointer
 * at the error) become spaces, trailing blanks go. */
static void one_line(char *dst, size_t n, const char *msg)
{
	size_t k = 0;
	for (; *msg && k + 1 < n; msg++)
		if (*msg != '\r' && !(*msg == '\n' && k && dst[k - 1] == ' '))
			dst[k++] = *msg == '\n' || *msg == '\t' ? ' ' : *msg;
	while (k && dst[k - 1] == ' ')
		k--;
	dst[k] = '\0';
}

struct step_at {
	double start, end;
	size_t i; /* the step in r */
};

static int by_step_at(const void *pa, const void *pb)
{
	const struct step_at *a = pa, *b = pb;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* The GPU view of each of r's steps (a trace with kernels, categories set):
 * gpu_breakdown_steps over the steps' host ranges, with the host's data-loading ranges. */
static void gpu_steps(const struct gpu_trace *t, const struct rules *phases,
		      const struct rules *kernels, struct rank_metrics *r)
{
	if (!t->n || !r->n || !kernels || !phases)
		return;
	double u = t->unit_per_us > 0 ? t->unit_per_us : 1;
	struct step_at *at = xcalloc(r->n, sizeof *at);
	double(*st)[2] = xcalloc(r->n, sizeof *st), (*data)[2] = xcalloc(t->ncpu + 1, sizeof *data);
	for (size_t i = 0; i < r->n; i++)
		at[i] = (struct step_at){ r->steps[i].start_us * u,
					  (r->steps[i].start_us + r->steps[i].step_ms * 1000) * u,
					  i };
	qsort(at, r->n, sizeof *at, by_step_at);
	for (size_t i = 0; i < r->n; i++)
		st[i][0] = at[i].start, st[i][1] = at[i].end;
	int *ph = trace_name_phases(t, phases, 0);
	size_t nd = 0;
	for (size_t i = 0; i < t->ncpu; i++)
		if (ph[t->cpu[i].name] == PH_DATA)
			data[nd][0] = t->cpu[i].start * u, data[nd++][1] = t->cpu[i].end * u;
	struct gpu_breakdown_step *o = xcalloc(r->n, sizeof *o);
	gpu_breakdown_steps(t, kernels, (const double(*)[2]) st, r->n, (const double(*)[2]) data,
			    nd, o);
	for (size_t k = 0; k < r->n; k++) {
		double *g = r->steps[at[k].i].gpu, ms = 1 / (u * 1000);
		const double v[GPU_FIELDS] = { o[k].window,    o[k].compute,     o[k].comm,
					       o[k].memcpy,    o[k].other,       o[k].idle_host,
					       o[k].idle_data, o[k].idle_kernel, o[k].idle_other,
					       o[k].gemm };
		for (int f = 0; f < GPU_FIELDS; f++)
			g[f] = v[f] * ms;
		r->steps[at[k].i].gpu_end_us = o[k].window > 0 ? o[k].end / u : 0;
	}
	free(o);
	free(ph);
	free(data);
	free(st);
	free(at);
}

/* A trace with GPU work but no step boundaries: one step standing for its
 * whole GPU window (first kernel start to last end), broken down as a step
 * is, so the shares and the verdict come from the GPU timeline; it carries
 * no step statistics (whole_window). */
static void gpu_window_step(const struct gpu_trace *t, const struct rules *phases,
			    const struct rules *kernels, struct rank_metrics *r)
{
	if (r->n || !t->n || !kernels)
		return;
	double first = t->ev[0].start, last = t->ev[0].end,
	       u = t->unit_per_us > 0 ? t->unit_per_us : 1;
	for (size_t i = 1; i < t->n; i++) {
		first = t->ev[i].start < first ? t->ev[i].start : first;
		last = t->ev[i].end > last ? t->ev[i].end : last;
	}
	for (size_t i = 0; i < t->nrt; i++) /* the window opens with the first launch */
		first = t->rt[i].start < first ? t->rt[i].start : first;
	struct step_rec s = {
		.step = 0, .active = 1, .step_ms = (last - first) / u / 1000, .start_us = first / u
	};
	metrics_add_step(r, &s);
	r->whole_window = r->n == 1;
	gpu_steps(t, phases, kernels, r);
}

int torchtrace_drop_partial_step(const struct gpu_trace *t, struct rank_metrics *r)
{
	if (r->n < 2 || r->whole_window)
		return 0;
	size_t last = r->n - 1;
	const struct step_rec *s = &r->steps[last];
	double *ms = xmalloc(last * sizeof *ms), flops = 0;
	for (size_t i = 0; i < last; i++)
		ms[i] = r->steps[i].step_ms;
	double med = stats_percentile(ms, last, 50);
	free(ms);
	if (!(3 * s->step_ms < med))
		return 0;
	for (size_t i = 0; i < r->ncoll; i++)
		if (r->coll[i].step == (int)last)
			return 0;
	for (size_t i = 0; i < t->ncpu; i++)
		if (t->cpu[i].flops > 0 && t->cpu[i].start >= s->start_us &&
		    t->cpu[i].start < s->start_us + s->step_ms * 1000)
			flops += t->cpu[i].flops;
	r->flops_per_step = (r->flops_per_step * (double)r->n - flops) / (double)last;
	r->n = last;
	return 1;
}

/* The rank's collectives (collective.h) within its steps' windows; gpu:
 * the trace with its GPU kernels (may be host, or NULL). */
static void rank_collectives(const struct gpu_trace *host, const struct gpu_trace *gpu,
			     struct rank_metrics *r)
{
	double (*win)[2] = xcalloc(r->n + 1, sizeof *win);
	for (size_t i = 0; i < r->n; i++) {
		win[i][0] = r->steps[i].start_us;
		win[i][1] = r->steps[i].start_us + r->steps[i].step_ms * 1000;
	}
	free(r->coll);
	r->coll = NULL;
	r->ncoll = r->collcap = 0;
	if (!r->whole_window)
		collective_recs(host, gpu, (const double (*)[2])win, r->n, r);
	free(win);
}

static void load_one(struct trace_set *ts, const char *dir, const char *name, int order,
		     const struct rules *phases, const struct rules *kernels, const char *frag)
{
	struct strbuf p = STRBUF_INIT;
	struct gpu_trace t;
	strbuf_addf(&p, "%s/%s", dir, name);
	if (kineto_load(p.buf, 1, &t) < 0) {
		ts->unreadable++;
		if (!ts->problem[0])
			one_line(ts->problem, sizeof ts->problem, err_last());
		if (frag) /* a fragment failing to be written is read again by the timeline */
			timeline_fragment_write_state(frag, TIMELINE_FRAGMENT_UNREADABLE);
		strbuf_free(&p);
		return;
	}
	if (frag)
		timeline_fragment_write(frag, &t, phases, 0, trace_rank_for(t.rank, name, order));
	struct rank_metrics r = { 0 };
	torchtrace_rank(&t, phases, 0, &r, &ts->ops);
	ts->malformed += t.malformed;
	ts->gpu_files += t.n > 0;
	if (t.n > 0 && kernels) {
		gpu_time(ts, &t, kernels); /* sets the kernels' categories */
		gpu_steps(&t, phases, kernels, &r);
		gpu_window_step(&t, phases, kernels, &r);
	}
	rank_collectives(&t, &t, &r);
	ts->partial_steps += (size_t)torchtrace_drop_partial_step(&t, &r);
	keep_rank(
		ts, &r, name, order, p.buf,
		"has no ProfilerStep#N ranges: call prof.step() once per training step inside the torch.profiler context");
	gpu_trace_free(&t);
	strbuf_free(&p);
}

/* An export's GPU work: the GPU breakdown of every process and device,
 * and the steps' GPU view from the rank's own GPU (the busiest). */
static void nsys_gpu(struct trace_set *ts, const struct gpu_trace *host, struct nsys_report *rep,
		     const struct rules *phases, const struct rules *kernels,
		     struct rank_metrics *r)
{
	size_t busiest = 0;
	for (size_t i = 0; i < rep->n; i++) {
		ts->gpu_files += rep->proc[i].n > 0;
		if (rep->proc[i].n)
			gpu_time(ts, &rep->proc[i], kernels);
		if (rep->proc[i].n > rep->proc[busiest].n)
			busiest = i;
	}
	if (rep->n && rep->proc[busiest].n) {
		gpu_steps(&rep->proc[busiest], phases, kernels, r);
		gpu_window_step(&rep->proc[busiest], phases, kernels, r);
		rank_collectives(host, &rep->proc[busiest], r);
	}
}

/* An Nsight Systems export: its NVTX ranges as the rank's host ranges (steps
 * from step-named ranges), its GPU work for the GPU breakdown; with frag,
 * its timeline fragment (host ranges and every process's GPU work). */
static void load_nsys(struct trace_set *ts, const char *dir, const char *name, int order,
		      const struct rules *phases, const struct rules *kernels, const char *frag)
{
	struct strbuf p = STRBUF_INIT;
	struct gpu_trace host;
	struct nsys_report rep;
	strbuf_addf(&p, "%s/%s", dir, name);
	if (!nsys_is_sqlite(p.buf) || nsys_load_host(p.buf, &host) < 0) {
		ts->unreadable++;
		if (!ts->problem[0])
			snprintf(ts->problem, sizeof ts->problem,
				 "%s is not an Nsight Systems SQLite export", p.buf);
		if (frag)
			timeline_fragment_write_state(frag, TIMELINE_FRAGMENT_UNREADABLE);
		strbuf_free(&p);
		return;
	}
	struct rank_metrics r = { 0 };
	torchtrace_rank(&host, phases, 1, &r, &ts->ops);
	r.format = METRICS_NSYS;
	rank_collectives(&host, NULL, &r);
	int have_rep = (kernels || frag) && nsys_load(p.buf, 1, &rep) == 0;
	if (have_rep && kernels)
		nsys_gpu(ts, &host, &rep, phases, kernels, &r);
	keep_rank(
		ts, &r, name, order, p.buf,
		"has no NVTX range per step: wrap each step in a range named \"step\" (or ProfilerStep#N)");
	if (frag) { /* the analysis is done with host: the GPU work joins it */
		if (have_rep)
			timeline_fragment_add_nsys(&host, &rep);
		timeline_fragment_write(frag, &host, phases, 1, trace_rank_for(-1, name, order));
	}
	if (have_rep)
		nsys_report_free(&rep);
	gpu_trace_free(&host);
	strbuf_free(&p);
}

void torchtrace_load_file(const char *dir, const char *name, int nsys, int order,
			  const struct rules *phases, const struct rules *kernels,
			  const char *frag, struct trace_set *part)
{
	memset(part, 0, sizeof *part);
	if (!phases)
		frag = NULL;
	if (nsys)
		load_nsys(part, dir, name, order, phases, kernels, frag);
	else
		load_one(part, dir, name, order, phases, kernels, frag);
}

struct dir_job {
	const char *dir;
	char **names;
	int nsys;
	const struct rules *phases, *kernels;
	const struct trace_source *src;
	struct trace_set *part; /* one per file, filled by whichever worker takes it */
	int *hint;              /* each file's rank when the trace does not say */
};

static void dir_job_one(void *ctx, size_t i)
{
	struct dir_job *j = ctx;
	struct strbuf frag = STRBUF_INIT;
	int shown = j->src && j->src->timeline_dir && i < TIMELINE_FRAGMENT_RANKS;
	if (shown)
		timeline_fragment_path(&frag, j->src->timeline_dir, j->dir, j->names[i]);
	memset(&j->part[i], 0, sizeof j->part[i]);
	if (!j->src || !j->src->part ||
	    j->src->part(j->src->ctx, j->dir, j->names[i], &j->part[i]) != 1)
		torchtrace_load_file(j->dir, j->names[i], j->nsys, j->hint[i], j->phases,
				     j->kernels, shown ? frag.buf : NULL, &j->part[i]);
	else if (shown && j->part[i].not_analysed) /* the timeline leaves it out, too */
		timeline_fragment_write_state(frag.buf, TIMELINE_FRAGMENT_NOT_ANALYSED);
	strbuf_free(&frag);
}

static void merge_ops(struct op_table *into, const struct op_table *from)
{
	/* in the order they were added: the sums add up in the same order */
	for (size_t i = 0; i < from->n; i++)
		op_add(into, from->v[i].name, from->v[i].self_ms, from->v[i].count);
}

/* Adds one file's results to the scenario's, in file order. */
static void merge_part(struct trace_set *ts, struct trace_set *p)
{
	for (size_t i = 0; i < p->m.n; i++)
		add_rank(ts, &p->m.ranks[i]);
	free(p->m.ranks);
	memset(&p->m, 0, sizeof p->m);
	merge_ops(&ts->ops, &p->ops);
	merge_ops(&ts->kernels, &p->kernels);
	ts->unreadable += p->unreadable;
	ts->no_steps += p->no_steps;
	ts->gpu_files += p->gpu_files;
	ts->malformed += p->malformed;
	ts->partial_steps += p->partial_steps;
	ts->gpu_kernel_us += p->gpu_kernel_us;
	ts->gpu_idle_us += p->gpu_idle_us;
	ts->gpu_compute_us += p->gpu_compute_us;
	ts->gpu_non_compute_us += p->gpu_non_compute_us;
	ts->gpu_comm_us += p->gpu_comm_us;
	ts->gpu_overlap_us += p->gpu_overlap_us;
	if (!ts->problem[0])
		memcpy(ts->problem, p->problem, sizeof ts->problem);
	if (p->not_analysed) {
		str_list_append(&ts->not_analysed_names, ", ",
				p->not_analysed_names ? p->not_analysed_names : "?");
		ts->not_analysed += p->not_analysed;
	}
	trace_set_free(p);
}

int torchtrace_list(const char *dir, int nsys, char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	struct argv all;
	if (fsio_list(dir, &all) < 0) /* sorted: the same order whatever readdir says */
		return err_set(ERR_NOTFOUND, "no directory %s", dir);
	size_t cap = 0;
	for (size_t i = 0; i < all.n; i++)
		if (nsys ? is_nsys_name(all.v[i]) : is_trace_name(all.v[i])) {
			XGROW(*names, *n, cap, 16);
			(*names)[(*n)++] = xstrdup(all.v[i]);
		}
	argv_free(&all);
	return 0;
}

static int load_dir(const char *dir, int nsys, const struct rules *phases,
		    const struct rules *kernels, int jobs, const struct trace_source *src,
		    struct trace_set *ts)
{
	memset(ts, 0, sizeof *ts);
	char **names;
	size_t n;
	int rc = torchtrace_list(dir, nsys, &names, &n);
	if (rc < 0)
		return rc;
	struct dir_job j = { dir,
			     names,
			     nsys,
			     phases,
			     kernels,
			     src,
			     xcalloc(n + 1, sizeof *j.part),
			     xcalloc(n + 1, sizeof(int)) };
	torchtrace_rank_hints(dir, names, n, j.hint);
	pool_run(n, jobs, dir_job_one, &j); /* each worker holds one file's data at a time */
	for (size_t i = 0; i < n; i++) {
		merge_part(ts, &j.part[i]);
		free(names[i]);
	}
	free(j.part);
	free(j.hint);
	free(names);
	ts->files = n;
	metrics_sort_ranks(&ts->m);
	op_table_sort(&ts->ops);
	op_table_sort(&ts->kernels);
	if (n == 0)
		return err_set(ERR_NOTFOUND, nsys ? "no Nsight Systems exports (*.sqlite) in %s" :
			       "no trace files (*.json, *.json.gz) in %s", dir);
	return 0;
}

int torchtrace_load_dir(const char *dir, const struct rules *phases, const struct rules *kernels,
			int jobs, const struct trace_source *src, struct trace_set *ts)
{
	return load_dir(dir, 0, phases, kernels, jobs, src, ts);
}

int torchtrace_load_nsys_dir(const char *dir, const struct rules *phases,
			     const struct rules *kernels, int jobs, const struct trace_source *src,
			     struct trace_set *ts)
{
	return load_dir(dir, 1, phases, kernels, jobs, src, ts);
}

static int by_self(const void *pa, const void *pb)
{
	const struct op_stat *a = pa, *b = pb;
	if (a->self_ms != b->self_ms)
		return a->self_ms > b->self_ms ? -1 : 1;
	return strcmp(a->name, b->name);
}

void op_table_sort(struct op_table *ops)
{
	if (ops->n)
		qsort(ops->v, ops->n, sizeof *ops->v, by_self);
	strindex_clear(&ops->index);
}

void op_table_free(struct op_table *ops)
{
	for (size_t i = 0; i < ops->n; i++)
		free(ops->v[i].name);
	free(ops->v);
	strindex_clear(&ops->index);
	memset(ops, 0, sizeof *ops);
}

void trace_set_free(struct trace_set *ts)
{
	metrics_free(&ts->m);
	op_table_free(&ts->ops);
	op_table_free(&ts->kernels);
	free(ts->not_analysed_names);
	memset(ts, 0, sizeof *ts);
}
