/* SPDX-License-Identifier: MIT */
#include "analyzers/collective.h"
#include "analyzers/clock_offset.h"
#include "analyzers/gpu_breakdown.h"

#include "analyzers/stats.h"
#include "util/sort.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[COLL_OPS] = { "collectives",    "all_reduce", "all_gather",
						"reduce_scatter", "all_to_all", "broadcast",
						"reduce",         "gather",     "scatter",
						"send_recv",      "barrier" };

const char *coll_op_name(int op)
{
	return op >= 0 && op < COLL_OPS ? op_names[op] : "collectives";
}

/* name lower-cased without '_' into buf: "_allgather_base" -> "allgatherbase". */
static void squash(const char *name, size_t len, char *buf, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < len && name[i] && k + 1 < n; i++)
		if (name[i] != '_')
			buf[k++] = (char)tolower((unsigned char)name[i]);
	buf[k] = '\0';
}

int coll_op_of(const char *name)
{
	static const struct { const char *prefix; int op;
	} table[] = {
		{ "allreduce", COLL_ALL_REDUCE },
		{ "allgather", COLL_ALL_GATHER },
		{ "reducescatter", COLL_REDUCE_SCATTER },
		{ "alltoall", COLL_ALL_TO_ALL },
		{ "broadcast", COLL_BROADCAST },
		{ "reduce", COLL_REDUCE },
		{ "gather", COLL_GATHER },
		{ "scatter", COLL_SCATTER },
		{ "sendrecv", COLL_SEND_RECV },
		{ "send", COLL_SEND_RECV },
		{ "recv", COLL_SEND_RECV },
		{ "isend", COLL_SEND_RECV },
		{ "irecv", COLL_SEND_RECV },
		{ "barrier", COLL_BARRIER },
	};
	const char *s = name, *k;
	size_t len = strlen(name);
	if (!strncmp(name, "gloo:", 5) || !strncmp(name, "nccl:", 5))
		s = name + 5, len -= 5;
	/* ncclKernel_AllReduce_RING_LL_Sum_float(...) */
	else if (!strncmp(name, "nccl", 4) && (k = strstr(name, "Kernel_"))) {
		s = k + 7;
		len = strcspn(s, "_(");
	}
	char buf[48];
	squash(s, len, buf, sizeof buf);
	for (size_t i = 0; i < sizeof table / sizeof *table; i++)
		if (!strncmp(buf, table[i].prefix, strlen(table[i].prefix)))
			return table[i].op;
	return -1;
}

double coll_busbw_factor(int op, int n)
{
	if (n < 1)
		return 1;
	switch (op) {
	case COLL_ALL_REDUCE: return 2.0 * (n - 1) / n;
	case COLL_ALL_GATHER:
	case COLL_REDUCE_SCATTER:
	case COLL_ALL_TO_ALL:
	case COLL_GATHER:
	case COLL_SCATTER:
		return (double)(n - 1) / n;
	default: return 1;
	}
}

/* The step an event starting at us belongs to: the last that began at or
 * before it; a host range must also start before that step ends (a GPU
 * kernel runs late: it is its launch's step). -1 when none. */
static int step_at(const double (*win)[2], size_t nwin, double us, int gpu)
{
	size_t k = gpu_breakdown_window_at(win, nwin, us);
	if (k == nwin || (!gpu && us >= win[k][1]))
		return -1;
	return (int)k;
}

struct pending {
	struct coll_rec r;
	double start;
	int sized; /* bytes from the event itself */
};

struct plist {
	struct pending *v;
	size_t n, cap;
};

static void add(struct plist *l, const double (*win)[2], size_t nwin, double start_us,
		double end_us, int op, unsigned pg, int group, double bytes, int gpu)
{
	int step = op < 0 ? -1 : step_at(win, nwin, start_us, gpu);
	if (step < 0 || end_us < start_us)
		return;
	XGROW(l->v, l->n, l->cap, 64);
	l->v[l->n++] = (struct pending){ { step, 0, pg, op, group > 0 ? group : 0, bytes,
					   (end_us - start_us) / 1000.0, end_us },
					 start_us,
					 bytes >= 0 };
}

static int by_key_start(const void *pa, const void *pb)
{
	const struct pending *a = pa, *b = pb;
	if (a->r.step != b->r.step)
		return a->r.step - b->r.step;
	if (a->r.op != b->r.op)
		return a->r.op - b->r.op;
	if (a->r.pg != b->r.pg)
		return a->r.pg < b->r.pg ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* Sorts l by step, op, process group and start, and numbers each within
 * its step, op and (unless any_pg) process group. */
static void number(struct plist *l, int any_pg)
{
	if (any_pg)
		for (size_t i = 0; i < l->n; i++)
			l->v[i].r.pg = 0;
	if (l->n)
		sort_runs(l->v, l->n, sizeof *l->v, by_key_start);
	for (size_t i = 0; i < l->n; i++) {
		const struct coll_rec *p = i ? &l->v[i - 1].r : NULL, *c = &l->v[i].r;
		int same = p && p->step == c->step && p->op == c->op && p->pg == c->pg;
		l->v[i].r.seq = same ? p->seq + 1 : 0;
	}
}

static int cmp_key(const struct coll_rec *a, const struct coll_rec *b)
{
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	if (a->op != b->op)
		return a->op < b->op ? -1 : 1;
	if (a->pg != b->pg)
		return a->pg < b->pg ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The entry of l (numbered) with k's step, op, process group and seq. */
static const struct pending *find(const struct plist *l, const struct coll_rec *k)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_key(&l->v[mid].r, k);
		if (c == 0)
			return &l->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static unsigned pg_of(const struct gpu_trace *t, int pg)
{
	return (unsigned)str_hash(t->names[pg]);
}

/* The kernels or ranges that carry no sizes take those of the host's
 * record_param_comms of the same step and operation, in order. */
static void borrow_sizes(struct plist *l, const struct gpu_trace *host, const double (*win)[2],
			 size_t nwin)
{
	struct plist h = { 0 };
	for (size_t i = 0; i < host->ncomm; i++) {
		const struct comm_event *c = &host->comm[i];
		if (!c->gpu)
			add(&h, win, nwin, c->start, c->end, coll_op_of(host->names[c->coll]), 0,
			    c->group_size, c->bytes, 0);
	}
	number(&h, 1);
	number(l, 1);
	for (size_t i = 0; i < l->n; i++) {
		const struct pending *p = l->v[i].sized ? NULL : find(&h, &l->v[i].r);
		if (p) {
			l->v[i].r.bytes = p->r.bytes;
			l->v[i].r.group = p->r.group;
		}
	}
	free(h.v);
}

/* PyTorch's nccl:<op> host ranges, by start, to name what a kernel did
 * (all-to-all runs as SendRecv kernels). */
struct named {
	double start, end;
	int op;
};

static int by_named_start(const void *pa, const void *pb)
{
	const struct named *a = pa, *b = pb;
	return a->start < b->start ? -1 : a->start > b->start;
}

struct launch {
	long corr;
	double start;
};

static int by_corr(const void *pa, const void *pb)
{
	const struct launch *a = pa, *b = pb;
	return a->corr < b->corr ? -1 : a->corr > b->corr;
}

struct coll_namer {
	struct named *r;
	size_t nr;
	struct launch *l;
	size_t nl;
};

static void namer_init(struct coll_namer *nm, const struct gpu_trace *host,
		       const struct gpu_trace *gpu)
{
	memset(nm, 0, sizeof *nm);
	size_t cap = 0;
	int *op_of = xmalloc((host->nnames + 1) * sizeof *op_of); /* each name's op, once */
	for (size_t k = 0; k < host->nnames; k++)
		op_of[k] = strncmp(host->names[k], "nccl:", 5) ? -1 : coll_op_of(host->names[k]);
	for (size_t i = 0; i < host->ncpu; i++) {
		int op = op_of[host->cpu[i].name];
		if (op >= 0) {
			XGROW(nm->r, nm->nr, cap, 64);
			nm->r[nm->nr++] =
				(struct named){ host->cpu[i].start, host->cpu[i].end, op };
		}
	}
	free(op_of);
	if (!nm->nr || gpu != host) /* launches and ranges on one clock: a Kineto trace */
		return;
	sort_runs(nm->r, nm->nr, sizeof *nm->r, by_named_start);
	nm->l = xcalloc(gpu->nrt + 1, sizeof *nm->l);
	for (size_t i = 0; i < gpu->nrt; i++)
		nm->l[nm->nl++] = (struct launch){ gpu->rt[i].corr, gpu->rt[i].start };
	sort_runs(nm->l, nm->nl, sizeof *nm->l, by_corr);
}

/* The op of the nccl:<op> range around the launch of kernel corr, else op. */
int coll_namer_op(const struct coll_namer *nm, long corr, int op)
{
	struct launch k = { corr, 0 },
		      *l = nm->nl && corr >= 0 ? bsearch(&k, nm->l, nm->nl, sizeof k, by_corr)
					       : NULL;
	if (!l)
		return op;
	size_t lo = 0, hi = nm->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (nm->r[mid].start <= l->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && nm->r[lo - 1].end >= l->start ? nm->r[lo - 1].op : op;
}

struct coll_namer *coll_namer_new(const struct gpu_trace *t)
{
	struct coll_namer *nm = xmalloc(sizeof *nm);
	namer_init(nm, t, t);
	return nm;
}

void coll_namer_free(struct coll_namer *nm)
{
	if (!nm)
		return;
	free(nm->r);
	free(nm->l);
	free(nm);
}

void collective_recs(const struct gpu_trace *host, const struct gpu_trace *gpu,
		     const double (*win)[2], size_t nwin, struct rank_metrics *out)
{
	struct plist l = { 0 };
	double u = gpu && gpu->unit_per_us > 0 ? gpu->unit_per_us : 1;
	for (size_t i = 0; gpu && i < gpu->ncomm; i++) { /* 1. kernels with a collective's args */
		const struct comm_event *c = &gpu->comm[i];
		if (c->gpu)
			add(&l, win, nwin, c->start / u, c->end / u,
			    coll_op_of(gpu->names[c->coll]), pg_of(gpu, c->pg), c->group_size,
			    c->bytes, 1);
	}
	int named = !l.n; /* 2 and 3 carry no sizes */
	struct coll_namer nm;
	namer_init(&nm, host, gpu ? gpu : host);
	for (size_t i = 0; gpu && named && i < gpu->n; i++) { /* 2. collective kernels by name */
		int op = coll_op_of(gpu->names[gpu->ev[i].name]);
		if (op >= 0)
			add(&l, win, nwin, gpu->ev[i].start / u, gpu->ev[i].end / u,
			    coll_namer_op(&nm, gpu->ev[i].corr, op), 0, 0, -1, 1);
	}
	free(nm.r);
	free(nm.l);
	int gloo = named && !l.n;
	/* 3. gloo's ranges on its worker threads */
	for (size_t i = 0; gloo && i < host->ncpu; i++) {
		const char *name = host->names[host->cpu[i].name];
		if (!strncmp(name, "gloo:", 5))
			add(&l, win, nwin, host->cpu[i].start, host->cpu[i].end, coll_op_of(name),
			    0, 0, -1, 0);
	}
	if (l.n && named)
		borrow_sizes(&l, host, win, nwin);
	int host_only = !l.n;
	/* 4. record_param_comms as the host saw them */
	for (size_t i = 0; host_only && i < host->ncomm; i++) {
		const struct comm_event *c = &host->comm[i];
		if (!c->gpu)
			add(&l, win, nwin, c->start, c->end, coll_op_of(host->names[c->coll]),
			    pg_of(host, c->pg), c->group_size, c->bytes, 0);
	}
	number(&l, 0);
	out->ncoll = out->collcap = l.n;
	out->coll = xcalloc(l.n + 1, sizeof *out->coll);
	for (size_t i = 0; i < l.n; i++)
		out->coll[i] = l.v[i].r;
	free(l.v);
}

/* The per-step stand-in of a rank without collective records: its
 * telemetry's communication time of each active step. */
static struct coll_rec *stand_in(const struct rank_metrics *r, size_t *n)
{
	struct coll_rec *v = xcalloc(r->n + 1, sizeof *v);
	int trainer = r->format == METRICS_TRAINER;
	*n = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->steps[i].active && r->steps[i].comm_ms > 0)
			v[(*n)++] = (struct coll_rec){ (int) i,
						       0,
						       0,
						       trainer ? COLL_ALL_REDUCE : COLL_UNKNOWN,
						       0,
						       trainer && r->steps[i].bytes > 0
							       ? r->steps[i].bytes
							       : -1,
						       r->steps[i].comm_ms,
						       0 };
	return v;
}

static int cmp_rec(const void *a, const void *b)
{
	return cmp_key(a, b);
}

static const struct coll_rec *find_rec(const struct coll_rec *v, size_t n, const struct coll_rec *k)
{
	return n ? bsearch(k, v, n, sizeof *v, cmp_rec) : NULL;
}

static int size_class(double bytes)
{
	if (bytes < 0)
		return -1;
	int k = 0;
	for (double lim = 1024; bytes >= lim && k < 40; lim *= 4)
		k++;
	return k;
}

static void size_text(double v, char *buf, size_t n)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;
	while (v >= 1024 && u < 4)
		v /= 1024, u++;
	snprintf(buf, n, "%g %s", v, unit[u]);
}

const char *coll_size_label(int size_class, char *buf, size_t n)
{
	char lo[24], hi[24];
	if (size_class < 0)
		snprintf(buf, n, "unknown");
	else if (size_class == 0)
		snprintf(buf, n, "< 1 KiB");
	else {
		double l = 1024 * pow(4, size_class - 1);
		size_text(l, lo, sizeof lo);
		size_text(4 * l, hi, sizeof hi);
		snprintf(buf, n, "%s - %s", lo, hi);
	}
	return buf;
}

/* At most keep values (0: all), evenly spaced over those pushed: every stride-th, the
 * stride doubling (and half the kept dropped) whenever the sample is full. */
static void sample_push(struct coll_sample *s, double v, size_t keep)
{
	size_t i = s->seen++;
	if (!s->stride)
		s->stride = 1;
	if (i % s->stride)
		return;
	if (keep && s->n >= keep) {
		for (size_t k = 0; 2 * k < s->n; k++)
			s->v[k] = s->v[2 * k];
		s->n = (s->n + 1) / 2;
		s->stride *= 2;
		if (i % s->stride)
			return;
	}
	XGROW(s->v, s->n, s->cap, 64);
	s->v[s->n++] = v;
}

/* Where an instance ran on one rank: [start, end) µs on the rank's clock, in a step; w
 * weighs its time in the ranks' mean (1 / the instance's ranks). */
struct coll_span {
	double start, end, w;
	size_t rank, inst;
	int step;
};

/* The instances of one operation and size class. */
struct coll_acc {
	int op, size_class;
	struct coll_sample lat, wait, bw, bytes;
	double ms;    /* the ranks' mean time in its instances, added up */
	double lat_sum; /* its instances' latencies (each the least of its ranks'), added up */
	double loose; /* the part of ms whose span is unknown (no end time) */
	struct coll_span *sp;
	size_t nsp, spcap;
	size_t n; /* instances (the samples may keep fewer) */
	int group;
	/* per step number: the ranks' mean time in its instances (the union of spans added
	 * in rows_of) and whether it had one; stepless: an instance's step was not known */
	double *step_ms;
	unsigned char *step_in;
	size_t nstep, stepcap;
	int stepless;
};

static struct coll_acc *acc_of(struct coll_aggr *a, int op, int cls)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].op == op && a->v[i].size_class == cls)
			return &a->v[i];
	XGROW(a->v, a->n, a->cap, 8);
	struct coll_acc *x = &a->v[a->n++];
	memset(x, 0, sizeof *x);
	x->op = op, x->size_class = cls;
	return x;
}

/* x's per-step slot of step (grown as needed). */
static double *step_slot(struct coll_acc *x, int step)
{
	size_t k = (size_t)step;
	if (k >= x->nstep) {
		size_t cap = x->stepcap ? x->stepcap : 64;
		while (cap <= k)
			cap *= 2;
		if (cap != x->stepcap) {
			x->step_ms = xrealloc(x->step_ms, cap * sizeof *x->step_ms);
			x->step_in = xrealloc(x->step_in, cap);
			x->stepcap = cap;
		}
		memset(x->step_ms + x->nstep, 0, (k + 1 - x->nstep) * sizeof *x->step_ms);
		memset(x->step_in + x->nstep, 0, k + 1 - x->nstep);
		x->nstep = k + 1;
	}
	x->step_in[k] = 1;
	return &x->step_ms[k];
}

void coll_aggr_add_at(struct coll_aggr *a, int op, double bytes, int group, const double *ms,
		      size_t nr, int step, const double *end_us)
{
	double lat = ms[0], total = 0, loose = 0;
	for (size_t r = 1; r < nr; r++)
		lat = ms[r] < lat ? ms[r] : lat;
	if (lat <= 0)
		return;
	struct coll_acc *x = acc_of(a, op, size_class(bytes));
	sample_push(&x->lat, lat, a->keep);
	sample_push(&x->bytes, bytes, a->keep);
	sample_push(&x->bw, bytes >= 0 ? bytes / (lat / 1000) / 1e9 : -1, a->keep);
	x->group = group > 0 ? group : (int)nr;
	for (size_t r = 0; r < nr; r++) {
		sample_push(&x->wait, ms[r] - lat, a->keep);
		total += ms[r];
		if (!end_us || !(end_us[r] > 0)) {
			loose += ms[r];
			continue;
		}
		XGROW(x->sp, x->nsp, x->spcap, 64);
		x->sp[x->nsp++] = (struct coll_span){ end_us[r] - ms[r] * 1000, end_us[r],
						      1 / (double)nr, r, x->n, step };
	}
	x->n++;
	x->ms += total / (double)nr;
	x->lat_sum += lat;
	x->loose += loose / (double)nr;
	if (step < 0)
		x->stepless = 1;
	else
		*step_slot(x, step) += loose / (double)nr;
}

void coll_aggr_add(struct coll_aggr *a, int op, double bytes, int group, const double *ms,
		   size_t nr)
{
	coll_aggr_add_at(a, op, bytes, group, ms, nr, -1, NULL);
}

static int by_rank_step_start(const void *pa, const void *pb)
{
	const struct coll_span *a = pa, *b = pb;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* The weighted union of sp's spans (ms), each rank's in each step taken together: time in
 * two overlapping instances counts once; over[i] set for every instance i whose span
 * overlaps another's (of its rank and step), and each step's part added to per_step[step]
 * (ms; nstep of them). Sorts sp. */
static double spans_union(struct coll_span *sp, size_t n, unsigned char *over, double *per_step,
			  size_t nstep)
{
	double us = 0;
	if (n)
		sort_runs(sp, n, sizeof *sp, by_rank_step_start);
	for (size_t i = 0, last = 0; i < n; i++) {
		const struct coll_span *c = &sp[i], *l = &sp[last];
		int same = i && l->rank == c->rank && l->step == c->step;
		int overlaps = same && c->start < l->end; /* the one that ends last so far */
		double add = !overlaps	      ? (c->end - c->start) * c->w
			     : c->end > l->end ? (c->end - l->end) * c->w
					       : 0;
		if (overlaps)
			over[c->inst] = over[l->inst] = 1;
		if (!overlaps || c->end > l->end)
			last = i;
		us += add;
		if (c->step >= 0 && (size_t)c->step < nstep)
			per_step[c->step] += add / 1000;
	}
	return us / 1000;
}

/* One instance: every rank's record of it (ranks[r] for rank r); ms and end: room for
 * nr values. */
static void instance(struct coll_aggr *a, const struct coll_rec *const *recs, size_t nr,
		     double *ms, double *end)
{
	for (size_t r = 0; r < nr; r++) {
		ms[r] = recs[r]->ms;
		end[r] = recs[r]->end_us;
	}
	coll_aggr_add_at(a, recs[0]->op, recs[0]->bytes, recs[0]->group, ms, nr, recs[0]->step,
			 end);
}

/* n values of v, times f, into c's kept k: every one, or COLL_KEPT_MAX evenly spaced. */
static void keep(struct collective *c, enum coll_kept k, const double *v, size_t n, double f)
{
	size_t m = n > COLL_KEPT_MAX ? COLL_KEPT_MAX : n;
	if (!m)
		return;
	c->kept[k] = xmalloc(m * sizeof *c->kept[k]);
	for (size_t i = 0; i < m; i++)
		c->kept[k][i] = f * v[m < n ? i * n / m : i];
	c->nkept[k] = m;
}

/* Each step's time in the row, of the steps that had one, then a 0 for each further step
 * with collectives (of other rows): steps values, whose mean is the time per step. */
static void keep_steps(struct collective *c, const struct coll_acc *x, size_t steps)
{
	size_t m = 0;
	if (x->stepless || !steps)
		return;
	for (size_t i = 0; i < x->nstep; i++)
		m += x->step_in[i];
	double *v = xcalloc((m > steps ? m : steps) + 1, sizeof *v);
	for (size_t i = 0, k = 0; i < x->nstep; i++)
		if (x->step_in[i])
			v[k++] = x->step_ms[i];
	keep(c, COLL_KEPT_STEP_MS, v, m > steps ? m : steps, 1);
	free(v);
}

void collectives_free(struct collective *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++)
		for (int k = 0; k < COLL_KEPT; k++)
			free(c[i].kept[k]);
	free(c);
}

static struct collective row_of(struct coll_acc *x, size_t steps)
{
	struct collective c = {
		.op = x->op, .size_class = x->size_class, .instances = x->n, .steps = steps
	};
	unsigned char *over = xcalloc(x->n + 1, 1);
	double u = x->loose + spans_union(x->sp, x->nsp, over, x->step_ms, x->nstep);
	for (size_t i = 0; i < x->n; i++)
		c.concurrent += over[i];
	free(over);
	c.count_per_step = (double)x->n / (double)steps;
	c.ms_per_step_summed = x->ms / (double)steps;
	c.transfer_ms_per_step = x->lat_sum / (double)steps;
	/* without overlaps the union is the sum: the same number, not one rounded otherwise */
	c.ms_per_step = c.concurrent ? u / (double)steps : c.ms_per_step_summed;
	c.latency_med = stats_percentile(x->lat.v, x->lat.n, 50);
	c.latency_p95 = stats_percentile(x->lat.v, x->lat.n, 95);
	c.wait_med = stats_percentile(x->wait.v, x->wait.n, 50);
	c.wait_p95 = stats_percentile(x->wait.v, x->wait.n, 95);
	c.bytes = c.algbw_gbps = c.busbw_gbps = c.fabric_busbw_gbps = -1;
	if (x->size_class >= 0) {
		c.bytes = stats_percentile(x->bytes.v, x->bytes.n, 50);
		c.algbw_gbps = stats_percentile(x->bw.v, x->bw.n, 50);
		c.busbw_gbps = c.algbw_gbps * coll_busbw_factor(x->op, x->group);
		keep(&c, COLL_KEPT_BUSBW, x->bw.v, x->bw.n, coll_busbw_factor(x->op, x->group));
	}
	keep(&c, COLL_KEPT_WAIT_MS, x->wait.v, x->wait.n, 1);
	keep_steps(&c, x, steps);
	return c;
}

static int by_cost(const void *pa, const void *pb)
{
	const struct collective *a = pa, *b = pb;
	if (a->ms_per_step != b->ms_per_step)
		return a->ms_per_step < b->ms_per_step ? 1 : -1;
	return a->op != b->op ? a->op - b->op : a->size_class - b->size_class;
}

void coll_aggr_rows(struct coll_aggr *a, size_t steps, struct collective **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (a->n && steps) {
		*out = xcalloc(a->n, sizeof **out);
		for (size_t i = 0; i < a->n; i++)
			(*out)[i] = row_of(&a->v[i], steps);
		*n = a->n;
		sort_runs(*out, *n, sizeof **out, by_cost);
	}
	for (size_t i = 0; i < a->n; i++) {
		free(a->v[i].lat.v);
		free(a->v[i].wait.v);
		free(a->v[i].bw.v);
		free(a->v[i].bytes.v);
		free(a->v[i].sp);
		free(a->v[i].step_ms);
		free(a->v[i].step_in);
	}
	free(a->v);
	memset(a, 0, sizeof *a);
}

void collectives_of(const struct scenario_metrics *m, struct collective **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (m->n < 2)
		return;
	struct coll_rec **v = xcalloc(m->n, sizeof *v);
	size_t *nv = xcalloc(m->n, sizeof *nv), steps = 0;
	for (size_t r = 0; r < m->n; r++) {
		const struct rank_metrics *rk = &m->ranks[r];
		if (rk->ncoll) {
			v[r] = xmalloc(rk->ncoll * sizeof *v[r]);
			memcpy(v[r], rk->coll, rk->ncoll * sizeof *v[r]);
			nv[r] = rk->ncoll;
		} else
			v[r] = stand_in(rk, &nv[r]);
		if (nv[r])
			sort_runs(v[r], nv[r], sizeof *v[r], cmp_rec);
	}
	const struct rank_metrics *r0 = &m->ranks[0];
	char *seen = xcalloc(r0->n + 1, 1);
	const struct coll_rec **recs = xcalloc(m->n, sizeof *recs);
	double *ms = xcalloc(m->n, sizeof *ms), *end = xcalloc(m->n, sizeof *end);
	struct coll_aggr a = { 0 };
	for (size_t i = 0; i < nv[0]; i++) {
		const struct coll_rec *k = &v[0][i];
		if (k->step < 0 || (size_t)k->step >= r0->n || !r0->steps[k->step].active)
			continue;
		size_t r = 1;
		recs[0] = k;
		while (r < m->n && (recs[r] = find_rec(v[r], nv[r], k)))
			r++;
		if (r < m->n)
			continue;
		instance(&a, recs, m->n, ms, end);
		steps += !seen[k->step];
		seen[k->step] = 1;
	}
	coll_aggr_rows(&a, steps, out, n);
	for (size_t i = 0; i < *n; i++)
		(*out)[i].step_total = !m->ranks[0].ncoll;
	for (size_t r = 0; r < m->n; r++)
		free(v[r]);
	free(v);
	free(nv);
	free(seen);
	free(recs);
	free(ms);
	free(end);
}

int coll_blocking(int op)
{
	return op == COLL_ALL_REDUCE || op == COLL_ALL_GATHER || op == COLL_REDUCE_SCATTER ||
	       op == COLL_ALL_TO_ALL || op == COLL_BARRIER;
}

/* One number per instance: its step, operation, process group and order. */
static unsigned long long instance_id(const struct coll_rec *c)
{
	const int key[] = { c->step, c->op, (int)c->pg, c->seq };
	unsigned long long h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < sizeof key / sizeof *key; i++)
		for (int b = 0; b < 32; b += 8) {
			h ^= ((unsigned)key[i] >> b) & 0xffu;
			h *= 1099511628211ull;
		}
	return h;
}

size_t collective_clock_ends(const struct scenario_metrics *m, const int *node_of,
			     struct clock_end **out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	for (size_t r = 0; r < m->n; r++) {
		const struct rank_metrics *rk = &m->ranks[r];
		for (size_t i = 0; i < rk->ncoll; i++) {
			const struct coll_rec *c = &rk->coll[i];
			if (!coll_blocking(c->op) || !(c->end_us > 0))
				continue;
			XGROW(*out, n, cap, 256);
			(*out)[n++] = (struct clock_end){ instance_id(c), rk->rank, node_of[r],
							  c->end_us };
		}
	}
	return n;
}
