/* SPDX-License-Identifier: MIT */
#include "analyzers/gpu_breakdown.h"
#include "analyzers/stats.h"

#include "util/sort.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct span {
	double s, e;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->s < y->s ? -1 : x->s > y->s;
}

/* Merges spans in place (a new group starts only when start > running max
 * end, HTA's rule); returns the count and sets *len to the covered time. */
static size_t merge(struct span *v, size_t n, double *len)
{
	*len = 0;
	if (n == 0)
		return 0;
	sort_runs(v, n, sizeof *v, cmp_span);
	size_t k = 0;
	for (size_t i = 1; i < n; i++) {
		if (v[i].s > v[k].e)
			v[++k] = v[i];
		else if (v[i].e > v[k].e)
			v[k].e = v[i].e;
	}
	for (size_t i = 0; i <= k; i++)
		*len += v[i].e - v[i].s;
	return k + 1;
}

static size_t spans_of(const struct gpu_trace *t, int cat, struct span *out)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (cat < 0 || t->ev[i].cat == cat)
			out[n++] = (struct span){ t->ev[i].start, t->ev[i].end };
	return n;
}

static double intersect(const struct span *a, size_t na, const struct span *b, size_t nb)
{
	double len = 0;
	for (size_t i = 0, j = 0; i < na && j < nb;) {
		double s = a[i].s > b[j].s ? a[i].s : b[j].s, e = a[i].e < b[j].e ? a[i].e : b[j].e;
		if (e > s)
			len += e - s;
		if (a[i].e < b[j].e)
			i++;
		else
			j++;
	}
	return len;
}

struct kstat {
	int name;
	long count;
	double sum, min, max;
};

/* Largest total first; ties by name, as HTA's groupby (sorted by name). */
static int cmp_kstat(const void *a, const void *b, void *names)
{
	const struct kstat *x = a, *y = b;
	char **n = names;
	if (x->sum != y->sum)
		return x->sum < y->sum ? 1 : -1;
	return strcmp(n[x->name], n[y->name]);
}

static json_t *top_kernels(const struct gpu_trace *t, int cats, const char **catname, int top_n)
{
	json_t *arr = json_array();
	double u = t->unit_per_us > 0 ? t->unit_per_us : 1;
	struct kstat *k = xcalloc(t->nnames + 1, sizeof *k);
	for (int c = 0; c < cats; c++) {
		memset(k, 0, (t->nnames + 1) * sizeof *k);
		for (size_t i = 0; i < t->nnames; i++)
			k[i].name = (int)i;
		for (size_t i = 0; i < t->n; i++) {
			if (t->ev[i].cat != c)
				continue;
			struct kstat *s = &k[t->ev[i].name];
			double d = t->ev[i].end - t->ev[i].start;
			if (!s->count || d < s->min)
				s->min = d;
			if (!s->count || d > s->max)
				s->max = d;
			s->count++;
			s->sum += d;
		}
		qsort_r(k, t->nnames, sizeof *k, cmp_kstat, t->names);
		for (int i = 0; i < top_n && (size_t)i < t->nnames && k[i].count; i++)
			json_array_append_new(
				arr,
				json_pack("{s:s, s:s, s:I, s:f, s:f, s:f, s:f}", "name",
					  t->names[k[i].name], "category", catname[c], "count",
					  (json_int_t) k[i].count, "total_us", k[i].sum / u,
					  "mean_us", k[i].sum / (double) k[i].count / u, "min_us",
					  k[i].min / u, "max_us", k[i].max / u));
	}
	free(k);
	return arr;
}

static int cmp_stream_start(const void *a, const void *b)
{
	const struct gpu_event *x = a, *y = b;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* HTA's idle split per stream, over the events sorted by (stream, start). */
static void idle_split(const struct gpu_trace *t, struct gpu_breakdown_rank *h)
{
	struct gpu_event *ev = xmalloc((t->n ? t->n : 1) * sizeof *ev);
	memcpy(ev, t->ev, t->n * sizeof *ev);
	sort_runs(ev, t->n, sizeof *ev, cmp_stream_start);
	double threshold = GPU_BREAKDOWN_KERNEL_WAIT_US * t->unit_per_us;
	for (size_t i = 0; i < t->n; i++) {
		if (i == 0 || ev[i].stream != ev[i - 1].stream) {
			h->streams = xrealloc(h->streams, (h->nstreams + 1) * sizeof *h->streams);
			h->streams[h->nstreams++] =
				(struct gpu_breakdown_idle){ .stream = ev[i].stream };
			continue;
		}
		struct gpu_breakdown_idle *s = &h->streams[h->nstreams - 1];
		double gap = ev[i].start - ev[i - 1].end;
		const struct rt_event *rt = ev[i].corr >= 0 ? gpu_trace_rt(t, ev[i].corr) : NULL;
		if (rt && rt->start > ev[i - 1].end)
			s->host_wait += gap;
		else if (gap < threshold)
			s->kernel_wait += gap;
		else
			s->other += gap;
	}
	free(ev);
}

static void launch_stats(const struct gpu_trace *t, struct gpu_breakdown_launch *l)
{
	double *delay = xmalloc((t->n ? t->n : 1) * sizeof *delay), u = t->unit_per_us;
	double cpu = 0, gpu = 0, sum = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct rt_event *rt =
			t->ev[i].corr >= 0 ? gpu_trace_rt(t, t->ev[i].corr) : NULL;
		if (!rt || !rt->launch)
			continue;
		double g = t->ev[i].end - t->ev[i].start,
		       d = t->ev[i].start - (rt->start + rt->dur);
		cpu += rt->dur;
		gpu += g;
		sum += d;
		delay[l->n++] = d;
		l->gpu_shorter += g < rt->dur;
		l->runtime_outliers += rt->dur > 50 * u;
		l->delay_outliers += d > 100 * u;
	}
	if (l->n) {
		l->cpu_mean = cpu / (double)l->n;
		l->gpu_mean = gpu / (double)l->n;
		l->delay_mean = sum / (double)l->n;
		l->delay_p50 = stats_percentile_unordered(delay, (size_t)l->n, 50);
	}
	free(delay);
}

struct edge {
	double t;
	int cat, delta;
};

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->delta - y->delta; /* ends first */
}

/* HTA's kernel-type breakdown: a sweep over all GPU events attributes every
 * instant of busy time to the set of categories running then ("COMPUTATION",
 * "COMPUTATION overlapping COMMUNICATION", ...); categories in rule order. */
static json_t *type_sweep(const struct gpu_trace *t, int cats, const char **catname, double busy)
{
	struct edge *e = xmalloc((2 * t->n + 1) * sizeof *e);
	for (size_t i = 0; i < t->n; i++) {
		e[2 * i] = (struct edge){ t->ev[i].start, t->ev[i].cat, 1 };
		e[2 * i + 1] = (struct edge){ t->ev[i].end, t->ev[i].cat, -1 };
	}
	sort_runs(e, 2 * t->n, sizeof *e, cmp_edge);
	int active[RULES_MAX + 1] = { 0 };
	unsigned long long masks[64];
	double sums[64];
	int nm = 0;
	for (size_t i = 0; i + 1 < 2 * t->n; i++) {
		active[e[i].cat] += e[i].delta;
		double len = e[i + 1].t - e[i].t;
		unsigned long long m = 0;
		for (int c = 0; c < cats && c < 64; c++)
			m |= active[c] > 0 ? 1ULL << c : 0;
		if (len <= 0 || !m)
			continue;
		int k = 0;
		while (k < nm && masks[k] != m)
			k++;
		if (k == nm && nm < 64)
			masks[nm] = m, sums[nm++] = 0;
		if (k < nm)
			sums[k] += len;
	}
	free(e);
	json_t *o = json_object();
	double u = t->unit_per_us > 0 ? t->unit_per_us : 1;
	/* HTA's labels name computation first, then communication, then memory */
	int order[RULES_MAX + 1], no = 0;
	const char *first[] = { "COMPUTATION", "COMMUNICATION", "MEMORY" };
	for (int f = 0; f < 3; f++)
		for (int c = 0; c < cats; c++)
			if (!strcmp(catname[c], first[f]))
				order[no++] = c;
	for (int c = 0; c < cats; c++)
		if (strcmp(catname[c], "COMPUTATION") && strcmp(catname[c], "COMMUNICATION") &&
		    strcmp(catname[c], "MEMORY"))
			order[no++] = c;
	for (int k = 0; k < nm; k++) {
		struct strbuf label = STRBUF_INIT;
		for (int i = 0; i < no; i++)
			if (order[i] < 64 && (masks[k] & (1ULL << order[i])))
				strbuf_addf(&label, "%s%s", label.len ? " overlapping " : "",
					    catname[order[i]]);
		json_object_set_new(
			o, label.buf,
			json_pack("{s:f, s:o}", "us", sums[k] / u, "pct",
				  busy > 0 ? json_real(round(10000.0 * sums[k] / busy) / 100.0)
					   : json_null()));
		strbuf_free(&label);
	}
	return o;
}

void gpu_breakdown_rank_free(struct gpu_breakdown_rank *h)
{
	json_decref(h->types);
	h->types = NULL;
	json_decref(h->top);
	free(h->streams);
	h->top = NULL;
	h->streams = NULL;
}

/* The categories, numbered as events carry them: the rules' in their order,
 * each once, then the default. Returns how many. */
static int cat_names(const struct rules *r, const char **catname)
{
	int cats = 0;
	for (int i = 0; i < r->n; i++) {
		int seen = 0;
		for (int j = 0; j < cats && !seen; j++)
			seen = !strcmp(catname[j], r->category[i]);
		if (!seen)
			catname[cats++] = r->category[i];
	}
	catname[cats++] = r->fallback;
	return cats;
}

void gpu_breakdown_analyse(struct gpu_trace *t, const struct rules *r, int top_n,
			   struct gpu_breakdown_rank *h)
{
	memset(h, 0, sizeof *h);
	h->rank = t->rank;
	h->events = t->n;
	h->unit_per_us = t->unit_per_us > 0 ? t->unit_per_us : 1;
	const char *catname[RULES_MAX + 1];
	int cats = cat_names(r, catname), comp = -1, comm = -1;
	for (int c = 0; c < cats; c++) {
		if (!strcmp(catname[c], "COMPUTATION"))
			comp = c;
		if (!strcmp(catname[c], "COMMUNICATION"))
			comm = c;
	}
	int *cat_of = xmalloc((t->nnames + 1) * sizeof *cat_of);
	for (size_t i = 0; i < t->nnames; i++) {
		const char *c = rules_classify(r, t->names[i]);
		for (int k = 0; k < cats; k++)
			if (!strcmp(c, catname[k]))
				cat_of[i] = k;
	}
	for (size_t i = 0; i < t->n; i++)
		t->ev[i].cat = cat_of[t->ev[i].name];
	free(cat_of);
	h->top = top_kernels(t, cats, catname, top_n);
	if (t->n == 0)
		return;
	idle_split(t, h);
	launch_stats(t, &h->launch);
	struct span *all = xmalloc(t->n * sizeof *all), *cp = xmalloc(t->n * sizeof *cp),
		    *cm = xmalloc(t->n * sizeof *cm);
	double first = t->ev[0].start, last = t->ev[0].end, busy, comp_len, comm_len;
	for (size_t i = 0; i < t->n; i++) {
		if (t->ev[i].start < first)
			first = t->ev[i].start;
		if (t->ev[i].end > last)
			last = t->ev[i].end;
	}
	merge(all, spans_of(t, -1, all), &busy);
	size_t ncp = merge(cp, comp >= 0 ? spans_of(t, comp, cp) : 0, &comp_len);
	size_t ncm = merge(cm, comm >= 0 ? spans_of(t, comm, cm) : 0, &comm_len);
	h->kernel_time = last - first;
	h->busy = busy;
	h->types = type_sweep(t, cats, catname, busy);
	h->idle = h->kernel_time - busy;
	h->compute = comp_len;
	h->non_compute = h->kernel_time - h->compute - h->idle;
	h->has_comm = ncm > 0;
	h->comm_union = comm_len;
	h->overlap = intersect(cp, ncp, cm, ncm);
	free(all);
	free(cp);
	free(cm);
}

static json_t *pct(double x, double of)
{
	return of > 0 ? json_real(round(10000.0 * x / of) / 100.0) : json_null();
}

static json_t *idle_json(const struct gpu_breakdown_rank *h)
{
	json_t *a = json_array();
	double u = h->unit_per_us;
	for (size_t i = 0; i < h->nstreams; i++) {
		const struct gpu_breakdown_idle *s = &h->streams[i];
		json_array_append_new(a,
				      json_pack("{s:i, s:f, s:f, s:f}", "stream", s->stream,
						"host_wait_us", s->host_wait / u, "kernel_wait_us",
						s->kernel_wait / u, "other_us", s->other / u));
	}
	return a;
}

static json_t *launch_json(const struct gpu_breakdown_launch *l, double u)
{
	if (!l->n)
		return json_pack("{s:i}", "n", 0);
	return json_pack("{s:I, s:f, s:f, s:f, s:f, s:I, s:I, s:I}", "n", (json_int_t) l->n,
			 "cpu_duration_mean_us", l->cpu_mean / u, "gpu_duration_mean_us",
			 l->gpu_mean / u, "launch_delay_mean_us", l->delay_mean / u,
			 "launch_delay_p50_us", l->delay_p50 / u, "gpu_shorter_than_cpu",
			 (json_int_t) l->gpu_shorter, "runtime_outliers_gt50us",
			 (json_int_t) l->runtime_outliers, "launch_delay_outliers_gt100us",
			 (json_int_t) l->delay_outliers);
}

json_t *gpu_breakdown_json(const struct gpu_breakdown_rank *h)
{
	if (!h->events)
		return json_null();
	json_t *o = json_object();
	double u = h->unit_per_us > 0 ? h->unit_per_us : 1, host = 0, kern = 0, other = 0;
	for (size_t i = 0; i < h->nstreams; i++) {
		host += h->streams[i].host_wait;
		kern += h->streams[i].kernel_wait;
		other += h->streams[i].other;
	}
	json_object_set_new(o, "kernel_time_us", json_real(h->kernel_time / u));
	json_object_set_new(o, "idle_us", json_real(h->idle / u));
	json_object_set_new(o, "compute_us", json_real(h->compute / u));
	json_object_set_new(o, "non_compute_us", json_real(h->non_compute / u));
	json_object_set_new(o, "idle_pct", pct(h->idle, h->kernel_time));
	json_object_set_new(o, "compute_pct", pct(h->compute, h->kernel_time));
	json_object_set_new(o, "non_compute_pct", pct(h->non_compute, h->kernel_time));
	json_object_set_new(o, "comm_comp_overlap_pct",
			    h->has_comm ? pct(h->overlap, h->comm_union) : json_null());
	json_object_set_new(o, "idle_host_wait_pct", pct(host, host + kern + other));
	json_object_set_new(o, "idle_kernel_wait_pct", pct(kern, host + kern + other));
	json_object_set_new(o, "idle_other_pct", pct(other, host + kern + other));
	json_object_set_new(o, "kernel_types", h->types ? json_incref(h->types) : json_object());
	json_object_set_new(o, "idle_by_stream", idle_json(h));
	json_object_set_new(o, "launch", launch_json(&h->launch, u));
	json_object_set_new(o, "top_kernels", json_incref(h->top));
	return o;
}

/* ---- the GPU view of each step ------------------------------------------ */

int gpu_breakdown_is_gemm(const char *name)
{
	/* cuBLAS (nvjet: its JIT GEMMs since CUDA 12.8), CUTLASS, cuDNN, rocBLAS
	 * (Tensile's Cijk_) and attention (flash, fmha: fused matrix multiplies);
	 * "onvol" and conv_/convNd, never "conv", which "convert" holds. */
	static const char *const marks[] = { "gemm",   "GEMM",   "Gemm",   "cutlass", "matmul",
					     "xmma",   "wgmma",  "cublas", "nvjet",   "Cijk_",
					     "onvol",  "conv_",  "conv1d", "conv2d",  "conv3d",
					     "flash",  "fmha",   NULL };
	if (strstr(name, "fbgemm_gpu::")) /* FBGEMM's embedding and permute kernels */
		return 0;
	for (int k = 0; marks[k]; k++)
		if (strstr(name, marks[k]))
			return 1;
	return 0;
}

/* The category indices of COMPUTATION, COMMUNICATION and MEMORY as
 * gpu_breakdown_analyse numbers them (the rules' categories in order, then the
 * default); -1 for one the rules lack. */
static void step_cats(const struct rules *r, int *comp, int *comm, int *mem)
{
	const char *catname[RULES_MAX + 1];
	int cats = cat_names(r, catname);
	*comp = *comm = *mem = -1;
	for (int c = 0; c < cats; c++) {
		if (!strcmp(catname[c], "COMPUTATION"))
			*comp = c;
		else if (!strcmp(catname[c], "COMMUNICATION"))
			*comm = c;
		else if (!strcmp(catname[c], "MEMORY"))
			*mem = c;
	}
}

/* The length of [a, b] covered by the merged spans v (sorted, apart): from the first that
 * ends after a, found by bisection, as intersect sums them. */
static double covered(const struct span *v, size_t n, double a, double b)
{
	if (b <= a)
		return 0;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].e <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	struct span w = { a, b };
	return intersect(v + lo, n - lo, &w, 1);
}

/* Spans of the events idx[0..n) of category cat (-1: all), clipped to [a, b]. */
static size_t step_spans(const struct gpu_trace *t, const size_t *idx, size_t n, int cat, double a,
			 double b, struct span *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const struct gpu_event *e = &t->ev[idx[i]];
		double s = e->start > a ? e->start : a, f = e->end < b ? e->end : b;
		if ((cat < 0 || e->cat == cat) && f > s)
			out[k++] = (struct span){ s, f };
	}
	return k;
}

/* When the GPU work of an event could start: its runtime call, else itself. */
static double launched_at(const struct gpu_trace *t, const struct gpu_event *e)
{
	const struct rt_event *rt = e->corr >= 0 ? gpu_trace_rt(t, e->corr) : NULL;
	return rt ? rt->start : e->start;
}

/* Idle time of the step's window split by what the GPU waited for: each gap
 * before a kernel whose launch came after the gap began (and the gaps at the
 * window's edges) is waiting for the host, the part of it the host spent
 * loading data is data; a short gap otherwise is kernel-to-kernel; the rest
 * other. starts: the step's events as (start, launch), sorted by start. */
static void step_idle(const struct span *starts, size_t n, const struct span *busy, size_t nb,
		      double a, double b, const struct span *data, size_t nd, double threshold,
		      struct gpu_breakdown_step *o)
{
	double g0 = a;
	size_t p = 0;
	for (size_t j = 0; j <= nb; j++) {
		/* the earliest launch of what starts the busy span */
		double g1 = j < nb ? busy[j].s : b, next = -1;
		while (j < nb && p < n && starts[p].s < busy[j].s)
			p++;
		for (; j < nb && p < n && starts[p].s == busy[j].s; p++)
			if (next < 0 || starts[p].e < next)
				next = starts[p].e;
		if (g1 > g0) {
			double d = covered(data, nd, g0, g1), gap = g1 - g0;
			if (j == 0 || j == nb || next > g0) {
				o->idle_data += d;
				o->idle_host += gap - d;
			} else if (gap < threshold) {
				o->idle_kernel += gap;
			} else {
				o->idle_other += gap;
			}
		}
		if (j < nb)
			g0 = busy[j].e;
	}
}

size_t gpu_breakdown_window_at(const double (*win)[2], size_t n, double t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (win[mid][0] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 ? lo - 1 : n;
}

/* Each event's step: the host range its runtime call (else its start) falls
 * in, nsteps for none; events listed step by step in *idx from *first. */
static void owners(const struct gpu_trace *t, const double (*steps)[2], size_t nsteps, size_t **idx,
		   size_t **first)
{
	size_t *owner = xmalloc((t->n + 1) * sizeof *owner), *at = xcalloc(nsteps + 2, sizeof *at);
	for (size_t i = 0; i < t->n; i++) {
		double l = launched_at(t, &t->ev[i]);
		size_t k = gpu_breakdown_window_at(steps, nsteps, l);
		owner[i] = k < nsteps && l < steps[k][1] ? k : nsteps;
		at[owner[i] + 1]++;
	}
	for (size_t k = 0; k <= nsteps; k++)
		at[k + 1] += at[k];
	*idx = xmalloc((t->n + 1) * sizeof **idx);
	*first = xmalloc((nsteps + 2) * sizeof **first);
	memcpy(*first, at, (nsteps + 2) * sizeof *at);
	for (size_t i = 0; i < t->n; i++)
		(*idx)[at[owner[i]]++] = i;
	free(owner);
	free(at);
}

struct start_at {
	double start;
	size_t i;
};

static int cmp_start_at(const void *a, const void *b)
{
	const struct start_at *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Event indices by start; *maxdur the longest event. */
static size_t *by_start(const struct gpu_trace *t, double *maxdur)
{
	size_t *v = xmalloc((t->n + 1) * sizeof *v);
	struct start_at *key = xmalloc((t->n + 1) * sizeof *key);
	*maxdur = 0;
	for (size_t i = 0; i < t->n; i++) {
		key[i] = (struct start_at){ t->ev[i].start, i };
		if (t->ev[i].end - t->ev[i].start > *maxdur)
			*maxdur = t->ev[i].end - t->ev[i].start;
	}
	sort_runs(key, t->n, sizeof *key, cmp_start_at);
	for (size_t i = 0; i < t->n; i++)
		v[i] = key[i].i;
	free(key);
	return v;
}

/* The events of any step that overlap [a, b), from those sorted by start. */
static size_t in_window(const struct gpu_trace *t, const size_t *byst, double maxdur, double a,
			double b, size_t *out)
{
	size_t lo = 0, hi = t->n, k = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->ev[byst[mid]].start < a - maxdur)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < t->n && t->ev[byst[i]].start < b; i++)
		if (t->ev[byst[i]].end > a)
			out[k++] = byst[i];
	return k;
}

/* Where each step's GPU window ends: the end of the last GPU work it
 * launched, never before the previous window's end; the first window
 * begins at the first step's first kernel. win[k] = {start, end}, 0-long
 * for a step that launched nothing. */
static void windows(const struct gpu_trace *t, const size_t *idx, const size_t *first,
		    size_t nsteps, double (*win)[2])
{
	double at = -1;
	for (size_t k = 0; k < nsteps; k++) {
		size_t n = first[k + 1] - first[k];
		double lo = 0, hi = 0;
		for (size_t i = 0; i < n; i++) {
			const struct gpu_event *e = &t->ev[idx[first[k] + i]];
			lo = i == 0 || e->start < lo ? e->start : lo;
			hi = i == 0 || e->end > hi ? e->end : hi;
		}
		if (n && at < 0)
			at = lo;
		win[k][0] = at;
		win[k][1] = n && hi > at ? hi : at;
		if (n)
			at = win[k][1];
	}
}

/* One window's breakdown, from every event in it (ix[0..n), any step's); gemm: whether each
 * of the trace's names is a matrix kernel's; buf:
 * six spans' buffers of the trace's events, the fifth (compute or
 * communication) of twice that. */
static void window_parts(const struct gpu_trace *t, const size_t *ix, size_t n, double a,
			 double b, const int cats[3], const struct span *dv, size_t nd,
			 const unsigned char *gemm, struct span *buf[6],
			 struct gpu_breakdown_step *o)
{
	struct span *all = buf[0], *cp = buf[1], *cm = buf[2], *mm = buf[3], *cc = buf[4],
		    *st = buf[5];
	double busy, lcp, lcm, lmm, lcc;
	size_t nb = merge(all, step_spans(t, ix, n, -1, a, b, all), &busy);
	size_t ncp = merge(cp, step_spans(t, ix, n, cats[0], a, b, cp), &lcp);
	size_t ncm = merge(cm, cats[1] >= 0 ? step_spans(t, ix, n, cats[1], a, b, cm) : 0, &lcm);
	size_t nmm = merge(mm, cats[2] >= 0 ? step_spans(t, ix, n, cats[2], a, b, mm) : 0, &lmm);
	memcpy(cc, cp, ncp * sizeof *cc); /* compute or communication */
	memcpy(cc + ncp, cm, ncm * sizeof *cc);
	size_t ncc = merge(cc, ncp + ncm, &lcc);
	o->window = b - a;
	o->compute = lcp;
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) { /* matrix kernels among the compute ones */
		const struct gpu_event *e = &t->ev[ix[i]];
		double s0 = e->start > a ? e->start : a, s1 = e->end < b ? e->end : b;
		if (e->cat == cats[0] && s1 > s0 && gemm[e->name])
			st[ng++] = (struct span){ s0, s1 };
	}
	merge(st, ng, &o->gemm);
	o->comm = lcm - intersect(cp, ncp, cm, ncm); /* communication not hidden behind compute */
	o->memcpy = lmm - intersect(mm, nmm, cc, ncc); /* copies hidden behind neither */
	o->other = busy - lcc - o->memcpy;             /* other kernels, alone */
	if (o->other < 0)
		o->other = 0;
	ng = 0; /* (start, launch) of what starts in the window, by start */
	for (size_t i = 0; i < n; i++) {
		const struct gpu_event *e = &t->ev[ix[i]];
		st[ng++] = (struct span){ e->start > a ? e->start : a, launched_at(t, e) };
	}
	sort_runs(st, ng, sizeof *st, cmp_span);
	step_idle(st, ng, all, nb, a, b, dv, nd, GPU_BREAKDOWN_KERNEL_WAIT_US * t->unit_per_us, o);
}

void gpu_breakdown_steps(const struct gpu_trace *t, const struct rules *r, const double (*steps)[2],
	       size_t nsteps, const double (*data)[2], size_t ndata, struct gpu_breakdown_step *out)
{
	int cats[3];
	step_cats(r, &cats[0], &cats[1], &cats[2]);
	memset(out, 0, nsteps * sizeof *out);
	size_t *idx, *first;
	owners(t, steps, nsteps, &idx, &first);
	double(*win)[2] = xcalloc(nsteps + 1, sizeof *win), maxdur;
	windows(t, idx, first, nsteps, win);
	size_t *byst = by_start(t, &maxdur), *ix = xmalloc((t->n + 1) * sizeof *ix);
	struct span *dv = xmalloc((ndata + 1) * sizeof *dv), *buf[6];
	for (size_t i = 0; i < ndata; i++)
		dv[i] = (struct span){ data[i][0], data[i][1] };
	double len;
	size_t nd = merge(dv, ndata, &len);
	for (int i = 0; i < 6; i++)
		buf[i] = xmalloc(((i == 4 ? 2 : 1) * t->n + 1) * sizeof **buf);
	unsigned char *gemm = xcalloc(t->nnames + 1, 1); /* each name judged once */
	for (size_t i = 0; i < t->nnames; i++)
		gemm[i] = (unsigned char)gpu_breakdown_is_gemm(t->names[i]);
	for (size_t k = 0; k < nsteps; k++) {
		/* no GPU work of its own (the profiler's dropped last step): not judged */
		if (first[k + 1] == first[k] || win[k][1] <= win[k][0])
			continue;
		size_t n = in_window(t, byst, maxdur, win[k][0], win[k][1], ix);
		window_parts(t, ix, n, win[k][0], win[k][1], cats, dv, nd, gemm, buf, &out[k]);
		out[k].end = win[k][1];
	}
	for (int i = 0; i < 6; i++)
		free(buf[i]);
	free(gemm);
	free(dv);
	free(ix);
	free(byst);
	free(win);
	free(idx);
	free(first);
}
