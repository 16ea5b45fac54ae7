/* SPDX-License-Identifier: MIT */
#include "analyzers/trace_reduce.h"

#include "analyzers/collective.h"
#include "analyzers/gpu_breakdown.h"
#include "analyzers/phases.h"
#include "analyzers/stats.h"
#include "analyzers/trace_names.h"
#include "util/sort.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static int by_start(const void *pa, const void *pb)
{
	const struct phase_range *a = pa, *b = pb;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* Self time of every operator: per thread, a range's length less that of
 * the ranges directly inside it. Step ranges (ph) are no operators. */
static void self_times(const struct gpu_trace *t, const int *ph, struct op_table *ops)
{
	size_t n = 0;
	struct range_ref *r = gpu_trace_by_thread(t, NULL, &n);
	double *self = xcalloc(t->nnames + 1, sizeof *self),
	       *child = xcalloc(t->ncpu + 1, sizeof *child);
	long *count = xcalloc(t->nnames + 1, sizeof *count);
	size_t *stack = xcalloc(t->ncpu + 1, sizeof *stack), depth = 0;
	for (size_t i = 0; i <= n; i++) {
		while (depth && (i == n || r[stack[depth - 1]].tid != r[i].tid ||
				 r[stack[depth - 1]].e <= r[i].s)) {
			size_t k = stack[--depth];
			double s = (r[k].e - r[k].s) - child[k];
			int name = t->cpu[r[k].i].name;
			self[name] += s > 0 ? s : 0;
			count[name]++;
		}
		if (i == n)
			break;
		if (depth) {
			const struct range_ref *p = &r[stack[depth - 1]];
			child[stack[depth - 1]] +=
				(r[i].e < p->e ? r[i].e : p->e) - r[i].s;
		}
		stack[depth++] = i;
	}
	for (size_t i = 0; i < t->nnames; i++)
		if (count[i] && ph[i] != TRACE_NAME_STEP)
			op_table_add(ops, t->names[i], self[i] / 1000.0, count[i]);
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

/* Per host range of t: 1 for an operator with device work, a range no rule
 * classifies that encloses a launch call (a kernel, a copy, a memset) on its
 * own thread: it counts as compute where no phase range is around it. */
static unsigned char *device_work(const struct gpu_trace *t, const int *ph)
{
	unsigned char *dev = xcalloc(t->ncpu + 1, 1), *launch = xcalloc(t->nnames + 1, 1);
	size_t n = 0;
	struct range_ref *r = gpu_trace_by_thread(t, NULL, &n);
	size_t *stack = xmalloc((t->ncpu + 1) * sizeof *stack), depth = 0;
	for (size_t i = 0; i < t->nnames; i++)
		launch[i] = (unsigned char)kineto_is_launch(t->names[i]);
	for (size_t k = 0; k < n; k++) {
		while (depth && (r[stack[depth - 1]].tid != r[k].tid ||
				 r[stack[depth - 1]].e <= r[k].s))
			depth--;
		if (launch[t->cpu[r[k].i].name])
			for (size_t d = 0; d < depth; d++)
				dev[r[stack[d]].i] |= ph[t->cpu[r[stack[d]].i].name] == -1;
		stack[depth++] = k;
	}
	free(stack);
	free(r);
	free(launch);
	return dev;
}

void trace_reduce_rank(const struct gpu_trace *t, const struct rules *phases, int loose_steps,
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
	out->clock_base_us = t->legacy ? 0 : t->base_us;
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
void trace_reduce_gpu_steps(const struct gpu_trace *t, const struct rules *phases,
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
	sort_runs(at, r->n, sizeof *at, by_step_at);
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
void trace_reduce_gpu_window(const struct gpu_trace *t, const struct rules *phases,
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
	trace_reduce_gpu_steps(t, phases, kernels, r);
}

int trace_reduce_drop_partial_step(const struct gpu_trace *t, struct rank_metrics *r)
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
void trace_reduce_collectives(const struct gpu_trace *host, const struct gpu_trace *gpu,
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
