/* SPDX-License-Identifier: MIT */
#include "analyzers/read/kineto.h"
#include "analyzers/read/kineto_chunks.h"
#include "analyzers/read/kineto_simd.h"

#include "util/err.h"
#include "util/fsio.h"
#include "util/sort.h"
#include "util/strbuf.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#define MAX_STEPS 4096

struct parse {
	struct gpu_trace *t;
	int depth;
	int ev_depth;      /* depth of the event objects: 3 in {"traceEvents": [...]}, 2 in [...] */
	int seen_root;
	int in_events, in_dist, in_args;
	enum kineto_key key_id; /* the current key, classified once, in cb_key */
	/* the event being read; its strings in buffers reused from event to event */
	struct strbuf name, cat, tid, coll, pg, dtype;
	int has_name, has_cat, has_tid, has_coll, has_pg, has_dtype;
	double in_nelems, out_nelems, group_size; /* a collective's args; -1 absent */
	char ph;
	double ts, dur, flops, grad_bytes;
	long step_arg; /* args.step, -1: absent */
	int has_ts, has_dur, stream, has_stream, has_corr;
	int bad_time;      /* ts or dur given, but not as a number */
	long corr;
	/* ProfilerStep markers */
	char **step_names;
	double *step_ts;
	int nsteps;
};

/* The id of name s (hash: str_hash(s)), added when new. */
static int intern_hashed(struct gpu_trace *t, const char *s, size_t hash)
{
	if (t->nnames * 2 >= t->nslots) {
		size_t ns = t->nslots ? t->nslots * 2 : 1024;
		int *slots = malloc(ns * sizeof *slots);
		for (size_t i = 0; i < ns; i++)
			slots[i] = -1;
		for (size_t i = 0; i < t->nnames; i++) {
			size_t k = str_hash(t->names[i]) & (ns - 1);
			while (slots[k] >= 0)
				k = (k + 1) & (ns - 1);
			slots[k] = (int)i;
		}
		free(t->slots);
		t->slots = slots;
		t->nslots = ns;
	}
	size_t k = hash & (t->nslots - 1);
	while (t->slots[k] >= 0) {
		if (!strcmp(t->names[t->slots[k]], s))
			return t->slots[k];
		k = (k + 1) & (t->nslots - 1);
	}
	XGROW(t->names, t->nnames, t->names_cap, 256);
	t->names[t->nnames] = xstrdup(s);
	t->slots[k] = (int)t->nnames;
	return (int)t->nnames++;
}

static int intern(struct gpu_trace *t, const char *s)
{
	return intern_hashed(t, s, str_hash(s));
}

/* An event's string, and where its id is kept when the reader keeps one (a
 * chunk's string, the same in many events): then it is interned once. */
struct sref {
	const char *s; /* NULL: absent */
	size_t hash;   /* str_hash(s), when id is set */
	int *id;       /* the trace's id of s once known (-1 before), or NULL */
};

/* What a name or a category is, as end_event asks: found once per chunk's
 * string when read in chunks, else at each event. */
enum {
	STR_STEP = 1,      /* a name ProfilerStep#N */
	STR_LAUNCH = 2,    /* a name of a kernel launch, copy or memset call */
	STR_GPU_NOTE = 4,  /* the category gpu_user_annotation */
	STR_RUNTIME = 8,   /* the category cuda_runtime or cuda_driver */
	STR_TRACE = 16,    /* the category Trace (Kineto's whole-profile range) */
};

/* The strings of one event that end_event reads; kinds -1 when not known. */
struct ev_strs {
	struct sref name, tid, coll, pg;
	const char *cat, *dtype;
	int name_kind, cat_kind;
};

static int ref_id(struct gpu_trace *t, const struct sref *r)
{
	if (r->id && *r->id >= 0)
		return *r->id;
	int id = intern_hashed(t, r->s, r->id ? r->hash : str_hash(r->s));
	if (r->id)
		*r->id = id;
	return id;
}

static void reset_event(struct parse *p)
{
	p->has_name = p->has_cat = p->has_tid = 0;
	p->has_coll = p->has_pg = p->has_dtype = 0;
	p->in_nelems = p->out_nelems = p->group_size = -1;
	p->has_ts = p->has_dur = p->has_stream = p->has_corr = 0;
	p->bad_time = 0;
	p->stream = -1;
	p->corr = -1;
	p->ph = 0;
	p->flops = 0;
	p->grad_bytes = 0;
	p->step_arg = -1;
}

static void add_cpu_id(struct gpu_trace *t, double start, double end, int name, int tid,
		       double flops)
{
	XGROW(t->cpu, t->ncpu, t->cpucap, 1024);
	t->cpu[t->ncpu++] = (struct cpu_range){ start, end, name, tid, flops, 0, -1 };
}

void gpu_trace_add_cpu(struct gpu_trace *t, double start, double end, const char *name,
		       const char *tid, double flops)
{
	int n = intern(t, name);
	add_cpu_id(t, start, end, n, intern(t, tid ? tid : "?"), flops);
}

static void add_comm_id(struct gpu_trace *t, double start, double end, int coll, int pg,
			double bytes, int group_size, int gpu)
{
	XGROW(t->comm, t->ncomm, t->commcap, 256);
	t->comm[t->ncomm++] = (struct comm_event){ start, end, coll, pg, bytes, group_size, gpu };
}

int kineto_dtype_size(const char *dtype)
{
	static const struct { const char *name; int size;
	} sizes[] = {
		{ "Float", 4 },          { "Double", 8 },      { "Half", 2 },
		{ "BFloat16", 2 },       { "Long", 8 },        { "Int", 4 },
		{ "Short", 2 },          { "Char", 1 },        { "Byte", 1 },
		{ "Bool", 1 },           { "ComplexHalf", 4 }, { "ComplexFloat", 8 },
		{ "ComplexDouble", 16 }, { "UInt16", 2 },      { "UInt32", 4 },
		{ "UInt64", 8 },
	};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
		if (!strcmp(dtype, sizes[i].name))
			return sizes[i].size;
	return !strncmp(dtype, "Float8", 6) ? 1 : 0;
}

/* The event's collective args as a comm_event: bytes from the larger
 * element count (what nccl-tests calls the size) and the dtype. */
static void add_comm_of(struct parse *p, const struct ev_strs *e, double start, double end,
			int gpu)
{
	double nelems = p->in_nelems > p->out_nelems ? p->in_nelems : p->out_nelems;
	int esize = e->dtype ? kineto_dtype_size(e->dtype) : 0;
	double bytes = nelems >= 0 && esize > 0 && isfinite(nelems) ? nelems * esize : -1;
	int gs = p->group_size >= 1 && p->group_size < 1e7 ? (int)p->group_size : -1;
	int coll = ref_id(p->t, &e->coll);
	add_comm_id(p->t, start, end, coll, e->pg.s ? ref_id(p->t, &e->pg) : intern(p->t, ""),
		    bytes, gs, gpu);
}

static void add_gpu_id(struct gpu_trace *t, double start, double end, int name, int stream,
		       long corr)
{
	XGROW(t->ev, t->n, t->cap, 1024);
	t->ev[t->n++] = (struct gpu_event){ start, end, name, -1, stream, corr };
}

void gpu_trace_add(struct gpu_trace *t, double start, double end, const char *name, int stream,
		   long corr)
{
	add_gpu_id(t, start, end, intern(t, name), stream, corr);
}

/* "cudaLaunchKernel_v7000" (Nsight Systems) names the same call as "cudaLaunchKernel". */
int kineto_is_call(const char *name, const char *const *calls, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (name[0] != calls[i][0]) /* most names: once per event of a trace */
			continue;
		size_t k = strlen(calls[i]);
		if (!strncmp(name, calls[i], k) && (!name[k] || !strncmp(name + k, "_v", 2)))
			return 1;
	}
	return 0;
}

int kineto_is_launch(const char *name)
{
	static const char *const calls[] = { "cudaLaunchKernel", "cudaMemcpyAsync",
					     "cudaMemsetAsync" };
	return kineto_is_call(name, calls, sizeof calls / sizeof *calls);
}

static void add_rt(struct gpu_trace *t, long corr, double start, double dur, int launch)
{
	XGROW(t->rt, t->nrt, t->rtcap, 1024);
	t->rt[t->nrt++] = (struct rt_event){ corr, start, dur, launch };
}

void gpu_trace_add_rt(struct gpu_trace *t, long corr, double start, double dur, const char *name)
{
	add_rt(t, corr, start, dur, kineto_is_launch(name));
}

static int cmp_rt(const void *a, const void *b)
{
	const struct rt_event *x = a, *y = b;
	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int by_tid_start(const void *x, const void *y)
{
	const struct range_ref *a = x, *c = y;
	if (a->tid != c->tid)
		return a->tid < c->tid ? -1 : 1;
	if (a->s != c->s)
		return a->s < c->s ? -1 : 1;
	if (a->e != c->e)
		return a->e > c->e ? -1 : 1;
	return a->i < c->i ? -1 : a->i > c->i;
}

struct range_ref *gpu_trace_by_thread(const struct gpu_trace *t, const unsigned char *skip,
				      size_t *n)
{
	size_t *at = xcalloc(t->nnames + 2, sizeof *at);
	struct range_ref *r = xcalloc(t->ncpu + 1, sizeof *r);
	for (size_t i = 0; i < t->ncpu; i++)
		at[t->cpu[i].tid + 1] += !skip || !skip[t->cpu[i].name];
	for (size_t k = 1; k <= t->nnames; k++)
		at[k] += at[k - 1];
	*n = at[t->nnames];
	for (size_t i = 0; i < t->ncpu; i++) {
		const struct cpu_range *c = &t->cpu[i];
		if (!skip || !skip[c->name])
			r[at[c->tid]++] = (struct range_ref){ c->start, c->end, c->tid, i };
	}
	/* at[k]: where thread k's ranges end */
	for (size_t k = 0, from = 0; k < t->nnames; from = at[k++])
		sort_runs(r + from, at[k] - from, sizeof *r, by_tid_start);
	free(at);
	return r;
}

/* Ids spread over more than this many per call, plus a margin, are found by bisection (the
 * direct index would cost more memory than it saves time). */
#define RT_DENSE 4

void gpu_trace_index_rt(struct gpu_trace *t)
{
	if (t->nrt)
		sort_runs(t->rt, t->nrt, sizeof *t->rt, cmp_rt);
	free(t->rt_at);
	t->rt_at = NULL;
	t->nrt_at = 0;
	if (!t->nrt || t->rt[0].corr < 0 || t->nrt >= UINT_MAX ||
	    (unsigned long)(t->rt[t->nrt - 1].corr - t->rt[0].corr) > RT_DENSE * t->nrt + 1024)
		return;
	t->rt_first_corr = t->rt[0].corr;
	t->nrt_at = (size_t)(t->rt[t->nrt - 1].corr - t->rt_first_corr) + 1;
	t->rt_at = xcalloc(t->nrt_at, sizeof *t->rt_at);
	for (size_t i = t->nrt; i-- > 0;) /* the first of an id's calls last */
		t->rt_at[t->rt[i].corr - t->rt_first_corr] = (unsigned)i + 1;
}

const struct rt_event *gpu_trace_rt(const struct gpu_trace *t, long corr)
{
	if (t->rt_at) {
		unsigned long k = (unsigned long)(corr - t->rt_first_corr);
		return corr >= t->rt_first_corr && k < t->nrt_at && t->rt_at[k]
			       ? &t->rt[t->rt_at[k] - 1]
			       : NULL;
	}
	size_t lo = 0, hi = t->nrt;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->rt[mid].corr < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nrt && t->rt[lo].corr == corr ? &t->rt[lo] : NULL;
}

static int is_runtime_cat(const char *cat)
{
	return cat && (!strcmp(cat, "cuda_runtime") || !strcmp(cat, "cuda_driver"));
}

/* What end_event asks of an event's name, and of its category. */
static int name_kind(const char *s)
{
	return !s ? 0
		  : (!strncmp(s, "ProfilerStep#", 13) ? STR_STEP : 0) |
			(kineto_is_launch(s) ? STR_LAUNCH : 0);
}

static int cat_kind(const char *s)
{
	return !s ? 0
		  : (!strcmp(s, "gpu_user_annotation") ? STR_GPU_NOTE : 0) |
			(is_runtime_cat(s) ? STR_RUNTIME : 0) |
			(!strcmp(s, "Trace") ? STR_TRACE : 0);
}

int trace_times_sane(double ts, double dur)
{
	return isfinite(ts) && isfinite(dur) && dur >= 0 && fabs(ts) < 9.0e15 &&
		dur < TRACE_MAX_EVENT_US;
}

static void end_event(struct parse *p, const struct ev_strs *e)
{
	struct gpu_trace *t = p->t;
	const char *name = e->name.s, *cat = e->cat;
	int nk = e->name_kind >= 0 ? e->name_kind : name_kind(name),
	    ck = e->cat_kind >= 0 ? e->cat_kind : cat_kind(cat);
	if (kineto_ph_is_flow(p->ph)) { /* as the simdjson reader, which stops at its ph */
		reset_event(p);
		return;
	}
	if (p->bad_time && name) { /* "ts": "123": counted as malformed, not guessed */
		t->malformed++;
		reset_event(p);
		return;
	}
	/* Every ProfilerStep#N with a duration and a category marks a step start
	 * for HTA's last-step cut, GPU-side annotations (ROCm traces carry both)
	 * included */
	if (name && p->has_ts && p->has_dur && cat && (nk & STR_STEP) && p->nsteps < MAX_STEPS) {
		p->step_names[p->nsteps] = xstrdup(name);
		p->step_ts[p->nsteps++] = p->ts;
	}
	/* GPU-side annotations (gpu_user_annotation: where a range's GPU work ran)
	 * are neither host ranges nor steps of their own */
	if (ck & STR_GPU_NOTE) {
		reset_event(p);
		return;
	}
	int gpu = name && p->has_ts && p->has_dur && p->has_stream && p->stream != -1;
	int rt = !gpu && name && p->has_ts && p->has_dur && p->has_corr && (ck & STR_RUNTIME);
	/* host ranges; Kineto's "Trace" event spans the whole profile and is none */
	int cpu = t->want_cpu && !gpu && name && p->has_ts && p->has_dur &&
		(p->ph == 'X' || !p->ph) && !(ck & STR_TRACE);
	if ((gpu || rt || cpu) && !trace_times_sane(p->ts, p->dur))
		t->malformed++;
	else if (gpu)
		add_gpu_id(t, ceil(p->ts), floor(p->ts + p->dur), ref_id(t, &e->name), p->stream,
			   p->has_corr ? p->corr : -1);
	if (e->coll.s && (gpu || cpu) && trace_times_sane(p->ts, p->dur))
		add_comm_of(p, e, gpu ? ceil(p->ts) : p->ts,
			    gpu ? floor(p->ts + p->dur) : p->ts + p->dur, gpu);
	else if (rt)
		add_rt(t, p->corr, ceil(p->ts), floor(p->ts + p->dur) - ceil(p->ts),
		       (nk & STR_LAUNCH) != 0);
	if (cpu && trace_times_sane(p->ts, p->dur)) {
		int n = ref_id(t, &e->name);
		add_cpu_id(t, p->ts, p->ts + p->dur, n,
			   e->tid.s ? ref_id(t, &e->tid) : intern(t, "?"), p->flops);
		t->cpu[t->ncpu - 1].grad_bytes = p->grad_bytes;
		t->cpu[t->ncpu - 1].step_arg = p->step_arg;
	}
	reset_event(p);
}

/* The event's strings as the streaming reader (and simdjson's whole
 * document) keep them: in the parse's buffers, interned at each use. */
static struct ev_strs strs_of(const struct parse *p)
{
	struct ev_strs e = {
		{ p->has_name ? p->name.buf : NULL, 0, NULL },
		{ p->has_tid ? p->tid.buf : NULL, 0, NULL },
		{ p->has_coll ? p->coll.buf : NULL, 0, NULL },
		{ p->has_pg ? p->pg.buf : NULL, 0, NULL },
		p->has_cat ? p->cat.buf : NULL,
		p->has_dtype ? p->dtype.buf : NULL,
		-1,
		-1,
	};
	return e;
}

/* ts or dur as anything but a number (null, true, an object, a list, a
 * string) makes the event malformed, counted, never guessed. */
static void time_not_number(struct parse *p)
{
	if (p->in_events && p->depth == p->ev_depth && (p->key_id == KK_TS || p->key_id == KK_DUR))
		p->bad_time = 1;
}

static int cb_null(void *ctx)
{
	time_not_number(ctx);
	return 1;
}

static int cb_boolean(void *ctx, int b)
{
	(void)b;
	time_not_number(ctx);
	return 1;
}

static int cb_start_map(void *ctx)
{
	struct parse *p = ctx;
	time_not_number(p);
	p->depth++;
	p->seen_root = 1;
	if (p->in_events && p->depth == p->ev_depth)
		reset_event(p);
	if (p->in_events && p->depth == p->ev_depth + 1 && p->key_id == KK_ARGS)
		p->in_args = 1;
	if (p->depth == 2 && p->key_id == KK_DIST)
		p->in_dist = 1;
	return 1;
}

static int cb_end_map(void *ctx)
{
	struct parse *p = ctx;
	if (p->in_events && p->depth == p->ev_depth) {
		struct ev_strs e = strs_of(p);
		end_event(p, &e);
	}
	if (p->depth == p->ev_depth + 1)
		p->in_args = 0;
	if (p->depth == 2)
		p->in_dist = 0;
	p->depth--;
	p->key_id = KK_OTHER;
	return 1;
}

static int cb_start_array(void *ctx)
{
	struct parse *p = ctx;
	time_not_number(p);
	p->depth++;
	if (p->depth == 1 && !p->seen_root) { /* the legacy form: the file is the event list */
		p->in_events = 1;
		p->ev_depth = 2;
		p->t->legacy = 1;
	} else if (p->depth == 2 && p->key_id == KK_EVENTS) {
		p->in_events = 1;
		p->ev_depth = 3;
	}
	p->seen_root = 1;
	return 1;
}

static int cb_end_array(void *ctx)
{
	struct parse *p = ctx;
	if (p->depth == p->ev_depth - 1)
		p->in_events = 0;
	p->depth--;
	return 1;
}

static int cb_key(void *ctx, const unsigned char *k, size_t n)
{
	struct parse *p = ctx;
	p->key_id = kineto_key_of((const char *)k, n);
	return 1;
}

static void set_str(struct strbuf *sb, int *has, const unsigned char *s, size_t n)
{
	strbuf_reset(sb);
	strbuf_add(sb, (const char *)s, n);
	*has = 1;
}

/* A collective's string args (PyTorch 2.x: record_param_comms, NCCL kernels). */
static void arg_string(struct parse *p, const unsigned char *s, size_t n)
{
	switch (p->key_id) {
	case KK_COLL: set_str(&p->coll, &p->has_coll, s, n); break;
	case KK_PG: set_str(&p->pg, &p->has_pg, s, n); break;
	case KK_DTYPE: set_str(&p->dtype, &p->has_dtype, s, n); break;
	default: break;
	}
}

static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
	struct parse *p = ctx;
	if (p->in_args && p->depth == p->ev_depth + 1) {
		arg_string(p, s, n);
		return 1;
	}
	if (!p->in_events || p->depth != p->ev_depth)
		return 1;
	switch (p->key_id) {
	case KK_NAME: set_str(&p->name, &p->has_name, s, n); break;
	case KK_CAT: set_str(&p->cat, &p->has_cat, s, n); break;
	case KK_TID: set_str(&p->tid, &p->has_tid, s, n); break;
	case KK_PH: p->ph = n > 0 ? (char)s[0] : 0; break;
	case KK_TS: case KK_DUR: p->bad_time = 1; break;
	default: break;
	}
	return 1;
}

/* A JSON number as an id: -1 when it is not finite or out of range. */
static long to_id(double v)
{
	return isfinite(v) && fabs(v) < 9.0e15 ? (long)v : -1;
}

/* A number of the event (ts, dur), of its args (stream, correlation,
 * flops) or distributedInfo.rank, as both readers keep it. */
static void set_number(struct parse *p, enum kineto_key key, double v)
{
	switch (key) {
	case KK_TS: p->ts = v, p->has_ts = 1; break;
	case KK_DUR: p->dur = v, p->has_dur = 1; break;
	case KK_STREAM: p->stream = (int)to_id(v), p->has_stream = 1; break;
	case KK_CORR: p->corr = to_id(v), p->has_corr = 1; break;
	case KK_FLOPS: p->flops = isfinite(v) && v > 0 ? v : 0; break;
	case KK_GRAD_BYTES: p->grad_bytes = isfinite(v) && v > 0 ? v : 0; break;
	case KK_STEP_ARG: p->step_arg = v >= 0 ? to_id(v) : -1; break;
	case KK_IN_NELEMS: p->in_nelems = isfinite(v) && v >= 0 ? v : -1; break;
	case KK_OUT_NELEMS: p->out_nelems = isfinite(v) && v >= 0 ? v : -1; break;
	case KK_GROUP_SIZE: p->group_size = isfinite(v) ? v : -1; break;
	case KK_RANK: p->t->rank = (int)to_id(v); break;
	case KK_BASE_TIME: p->t->base_us = isfinite(v) && v > 0 && v < 1e20 ? v / 1000 : 0; break;
	default: break;
	}
}

/* Numbers are converted only for the keys the reader uses. */
static int cb_number(void *ctx, const char *s, size_t n)
{
	struct parse *p = ctx;
	int event = p->in_events && p->depth == p->ev_depth,
	    arg = p->in_args && p->depth == p->ev_depth + 1;
	int wanted =
		(event && (p->key_id == KK_TS || p->key_id == KK_DUR || p->key_id == KK_TID)) ||
		(arg &&
		 (p->key_id == KK_STREAM || p->key_id == KK_CORR || p->key_id == KK_FLOPS ||
		  p->key_id == KK_GRAD_BYTES || p->key_id == KK_STEP_ARG ||
		  p->key_id == KK_IN_NELEMS || p->key_id == KK_OUT_NELEMS ||
		  p->key_id == KK_GROUP_SIZE || p->key_id == KK_PG)) ||
		(p->in_dist && p->depth == 2 && p->key_id == KK_RANK) ||
		(p->depth == 1 && p->key_id == KK_BASE_TIME);
	char buf[64];
	if (!wanted || n >= sizeof buf)
		return 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (event && p->key_id == KK_TID) {
		set_str(&p->tid, &p->has_tid, (const unsigned char *)buf, n);
		return 1;
	}
	if (arg && p->key_id == KK_PG) { /* a process group named by a number: its text */
		set_str(&p->pg, &p->has_pg, (const unsigned char *)buf, n);
		return 1;
	}
	set_number(p, p->key_id, strtod(buf, NULL));
	return 1;
}

static const yajl_callbacks callbacks = {
	cb_null,      cb_boolean, NULL,       NULL,           cb_number,    cb_string,
	cb_start_map, cb_key,     cb_end_map, cb_start_array, cb_end_array,
};

/* With two or more distinct ProfilerStep#N, HTA drops the last step. */
void gpu_trace_cut_steps(struct gpu_trace *t, char *const *names, const double *ts, int n)
{
	int distinct = 0, last = -1;
	for (int i = 0; i < n; i++) {
		int seen = 0;
		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(names[i], names[j]);
		distinct += !seen;
		if (last < 0 || ts[i] > ts[last])
			last = i;
	}
	t->steps = distinct;
	t->last_step_ts = -1;
	if (distinct < 2)
		return;
	t->last_step_ts = ts[last];
	/* HTA keeps the host events that start before the last step and the GPU
	 * events whose correlation id one of them has: an inner join, so a GPU
	 * event without its launch in the trace goes, and one whose id k kept
	 * runtime calls carry counts k times. */
	gpu_trace_index_rt(t);
	double cut = ceil(t->last_step_ts);
	struct gpu_event *kept = NULL;
	size_t k = 0, cap = 0, gone = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct rt_event *r =
			t->ev[i].corr >= 0 ? gpu_trace_rt(t, t->ev[i].corr) : NULL;
		size_t copies = 0;
		for (; r && r < t->rt + t->nrt && r->corr == t->ev[i].corr; r++)
			copies += r->start < cut;
		gone += copies == 0;
		for (size_t c = 0; c < copies; c++) {
			XGROW(kept, k, cap, 1024);
			kept[k++] = t->ev[i];
		}
	}
	free(t->ev);
	t->ev = kept;
	t->cap = cap;
	t->n = k;
	t->dropped = (long)gone;
	k = 0;
	for (size_t i = 0; i < t->nrt; i++)
		if (t->rt[i].start < cut)
			t->rt[k++] = t->rt[i];
	t->nrt = k;
	gpu_trace_index_rt(t);
}

static void drop_last_step(struct parse *p)
{
	gpu_trace_cut_steps(p->t, p->step_names, p->step_ts, p->nsteps);
}

typedef long (*read_fn)(void *src, unsigned char *buf, size_t n);

static long read_file(void *src, unsigned char *buf, size_t n)
{
	size_t r = fread(buf, 1, n, src);
	return r == 0 && ferror((FILE *)src) ? -1 : (long)r;
}

static long read_gz(void *src, unsigned char *buf, size_t n)
{
	return gzread(src, buf, (unsigned)n);
}

/* Documents up to this size are parsed whole with simdjson (about twice
 * their size in memory); larger ones stream through yajl in 64 KiB pieces.
 * CAMPAIGN_SIMDJSON_MAX_MB changes it (0: always stream). */
#define SIMD_MAX_MB 512

/* The CPU runs what the shim was compiled for (Makefile SIMD_FLAGS; every
 * x86-64 CPU with AVX2 also has LZCNT). */
static int simd_cpu(void)
{
#if defined(__x86_64__)
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
		__builtin_cpu_supports("pclmul");
#else
	return 1;
#endif
}

static size_t simd_limit(void)
{
	if (!simd_cpu())
		return 0;
	const char *v = getenv("CAMPAIGN_SIMDJSON_MAX_MB");
	long mb = v && *v ? strtol(v, NULL, 10) : SIMD_MAX_MB;
	return mb > 0 ? (size_t)mb << 20 : 0;
}

/* n bytes for a whole document: on 2 MB pages where the kernel gives them
 * (one page fault per 2 MB instead of per 4 KB). */
static void *big_alloc(size_t n)
{
	void *p = NULL;
	if (n < (8u << 20) || posix_memalign(&p, 2u << 20, n) != 0)
		return xmalloc(n);
	madvise(p, n & ~(size_t)((2u << 20) - 1), MADV_HUGEPAGE);
	return p;
}

/* Reads the start of the document, up to `limit` bytes (and the padding
 * simdjson needs): into this thread's kept buffer (*kept) when the size is
 * known, else a growing one; *eof when that was all of it. -1 on a read error.
 * A stream of unknown size (gzip) stops early at an overlong string, which
 * the streaming reader then names: a small file never fills the buffer. */
static long read_head(read_fn rd, void *src, size_t limit, size_t hint, unsigned char **doc,
		      int *kept, size_t *len, int *eof)
{
	/* a plain file: its size, read once */
	size_t cap = hint && hint < limit ? hint + (1 << 16) : 0;
	*doc = cap ? (unsigned char *)kineto_simd_buffer(cap) : NULL; /* this thread's, reused */
	*kept = *doc != NULL;
	if (cap && !*doc)
		*doc = big_alloc(cap + KINETO_SIMD_PADDING);
	*len = 0;
	*eof = 0;
	struct kineto_strscan sc = { 0 };
	int scan = !hint;
	for (;;) {
		if (cap - *len < (1 << 16)) { /* read more than the size said: the file grew */
			unsigned char *was = *doc;
			cap = cap ? cap * 2 : 1 << 20;
			*doc = xrealloc(*kept ? NULL : *doc, cap + KINETO_SIMD_PADDING);
			if (*kept)
				memcpy(*doc, was, *len);
			*kept = 0;
		}
		if (*len >= limit)
			break;
		long n = rd(src, *doc + *len, cap - *len);
		if (n < 0)
			return -1;
		if (n == 0) {
			*eof = 1;
			break;
		}
		*len += (size_t)n;
		if (scan &&
		    kineto_long_string_at(&sc, *doc + *len - (size_t) n, (size_t) n,
					  TRACE_MAX_STRING) < (size_t) n)
			break;
	}
	return (long)*len;
}

/* An event's numbers as simdjson gave them, through set_number as the
 * streaming reader's. */
static void set_numbers(struct parse *p, const struct kineto_fields *f)
{
	const struct { int has; enum kineto_key key; double v;
	} num[] = {
		{ f->has_ts, KK_TS, f->ts },
		{ f->has_dur, KK_DUR, f->dur },
		{ f->has_stream, KK_STREAM, f->stream },
		{ f->has_corr, KK_CORR, f->corr },
		{ f->has_flops, KK_FLOPS, f->flops },
		{ f->has_grad_bytes, KK_GRAD_BYTES, f->grad_bytes },
		{ f->has_step_arg, KK_STEP_ARG, f->step_arg },
		{ f->in_nelems >= 0, KK_IN_NELEMS, f->in_nelems },
		{ f->out_nelems >= 0, KK_OUT_NELEMS, f->out_nelems },
		{ f->group_size >= 0, KK_GROUP_SIZE, f->group_size },
	};
	for (size_t i = 0; i < sizeof num / sizeof *num; i++)
		if (num[i].has)
			set_number(p, num[i].key, num[i].v);
	p->bad_time = f->bad_time;
}

static void simd_event(void *ctx, const struct kineto_fields *f)
{
	struct parse *p = ctx;
	reset_event(p);
	if (f->name)
		set_str(&p->name, &p->has_name, (const unsigned char *)f->name, f->name_len);
	if (f->cat)
		set_str(&p->cat, &p->has_cat, (const unsigned char *)f->cat, f->cat_len);
	if (f->tid)
		set_str(&p->tid, &p->has_tid, (const unsigned char *)f->tid, f->tid_len);
	if (f->ph)
		p->ph = f->ph_len > 0 ? f->ph[0] : 0;
	if (f->coll)
		set_str(&p->coll, &p->has_coll, (const unsigned char *)f->coll, f->coll_len);
	if (f->pg)
		set_str(&p->pg, &p->has_pg, (const unsigned char *)f->pg, f->pg_len);
	if (f->dtype)
		set_str(&p->dtype, &p->has_dtype, (const unsigned char *)f->dtype, f->dtype_len);
	set_numbers(p, f);
	struct ev_strs e = strs_of(p);
	end_event(p, &e);
}

static struct sref chunk_ref(struct chunk_str *strs, int i)
{
	struct sref none = { NULL, 0, NULL };
	return i < 0 ? none : (struct sref){ strs[i].s, strs[i].hash, &strs[i].id };
}

/* What a chunk's string is, found on its first use in the chunk. */
static int chunk_kind(struct chunk_str *strs, int i)
{
	if (i < 0)
		return 0;
	if (strs[i].kind < 0)
		/* once, whatever role the string has in the chunk's events */
		strs[i].kind = name_kind(strs[i].s) | cat_kind(strs[i].s);
	return strs[i].kind;
}

/* What end_event needs of an event to do anything with it: a duration
 * (every kept kind has one), or a time that is no number (counted as
 * malformed). Flow events, metadata and instants are neither: read in
 * chunks, they are dropped on the parsing threads. */
static int chunk_wants(const struct kineto_fields *f)
{
	return f->has_dur || f->bad_time;
}

/* An event of a chunk: its strings interned once per chunk. */
static void chunk_event(void *ctx, const struct chunk_event *c, struct chunk_str *strs)
{
	struct parse *p = ctx;
	reset_event(p);
	p->ph = c->ph;
	set_numbers(p, &c->f);
	struct ev_strs e = {
		chunk_ref(strs, c->name),
		chunk_ref(strs, c->tid),
		chunk_ref(strs, c->coll),
		chunk_ref(strs, c->pg),
		c->cat >= 0 ? strs[c->cat].s : NULL,
		c->dtype >= 0 ? strs[c->dtype].s : NULL,
		chunk_kind(strs, c->name),
		chunk_kind(strs, c->cat),
	};
	end_event(p, &e);
}

static void simd_root(void *ctx, enum kineto_key key, double v)
{
	set_number(ctx, key, v);
}

static int parse_simd(struct parse *p, const unsigned char *doc, size_t len, const char *name)
{
	struct kineto_simd_sink sink = { simd_event, simd_root, p, 0 };
	size_t where = 0;
	const char *why = "";
	memset((char *)doc + len, 0, KINETO_SIMD_PADDING);
	if (kineto_simd_parse((const char *)doc, len, &sink, &where, &why) < 0)
		return where == (size_t) -1
			? err_set(ERR_IO, "%s: not a Chrome-trace JSON file: %s", name, why)
			: err_set(ERR_IO, "%s: not a Chrome-trace JSON file near byte %zu: %s",
				  name, where, why);
	p->t->legacy = sink.legacy;
	return 0;
}

/* The document through yajl: its head (already read), then the rest. */
/* The most bytes of JSON one trace file may hold, decompressed
 * (CAMPAIGN_TRACE_MAX_MB, default TRACE_MAX_GB GiB). */
static size_t max_trace_bytes(void)
{
	const char *v = getenv("CAMPAIGN_TRACE_MAX_MB");
	long mb = v && *v ? strtol(v, NULL, 10) : 0;
	return mb > 0 ? (size_t)mb << 20 : (size_t)TRACE_MAX_GB << 30;
}

static int too_big(const char *name)
{
	return err_set(
		ERR_IO,
		"%s: more than %zu MiB of JSON (decompressed): not read further (the most a trace may hold; CAMPAIGN_TRACE_MAX_MB raises it)",
		name, max_trace_bytes() >> 20);
}

/* Feeds one chunk to yajl unless it holds an overlong string or passes the
 * byte limit: then ERR_IO naming where. */
static int feed(yajl_handle h, struct kineto_strscan *sc, const unsigned char *b, size_t n,
		size_t offset, const char *name)
{
	size_t at = kineto_long_string_at(sc, b, n, TRACE_MAX_STRING);
	if (at < n)
		return err_set(
			ERR_IO,
			"%s: a string longer than %d MiB near byte %zu: not a trace this tool reads (the longest string a trace may hold)",
			name, TRACE_MAX_STRING >> 20, offset + at);
	if (offset + n > max_trace_bytes())
		return too_big(name);
	return yajl_parse(h, b, n) == yajl_status_ok ? 0 : -1;
}

static int parse_yajl(struct parse *p, read_fn rd, void *src, const unsigned char *head,
		      size_t head_len, const char *name)
{
	yajl_handle h = yajl_alloc(&callbacks, NULL, p);
	unsigned char buf[1 << 16];
	struct kineto_strscan sc = { 0 };
	size_t offset = head_len;
	long n = 0;
	int rc = head_len ? feed(h, &sc, head, head_len, 0, name) : 0;
	if (rc == -1)
		n = (long)head_len;
	while (rc == 0 && (n = rd(src, buf, sizeof buf)) > 0) {
		rc = feed(h, &sc, buf, (size_t)n, offset, name);
		offset += (size_t)n;
	}
	if (rc >= -1 && n < 0) /* (rc < -1: a limit, already said) */
		rc = err_set(ERR_IO, "%s: cannot read it (a damaged gzip file?) after %zu bytes",
			     name, offset);
	else if (rc == 0 && yajl_complete_parse(h) != yajl_status_ok) {
		rc = -1;
		n = 0;
	}
	if (rc == -1) {
		unsigned char *msg = yajl_get_error(h, 0, NULL, 0);
		rc = err_set(ERR_IO, "%s: not a Chrome-trace JSON file near byte %zu: %s", name,
			     offset - (size_t)n + yajl_get_bytes_consumed(h), (char *)msg);
		yajl_free_error(h, msg);
	}
	yajl_free(h);
	return rc;
}

/* An empty trace, before reading. */
static void trace_init(struct gpu_trace *t, int want_cpu)
{
	memset(t, 0, sizeof *t);
	t->rank = -1;
	t->unit_per_us = 1;
	t->want_cpu = want_cpu;
}

/* Forgets what a reading kept, for another reading from the start. */
static void forget(struct parse *p)
{
	int want_cpu = p->t->want_cpu;
	gpu_trace_free(p->t);
	trace_init(p->t, want_cpu);
	for (int i = 0; i < p->nsteps; i++)
		free(p->step_names[i]);
	p->nsteps = 0;
	reset_event(p);
}

/* After simdjson refused a document: forget what it kept, read it again
 * with yajl (which has no depth limit and says where a document breaks). */
static int reparse_yajl(struct parse *p, read_fn rd, void *src, const unsigned char *doc,
			size_t len, const char *name)
{
	forget(p);
	return parse_yajl(p, rd, src, doc, len, name);
}

/* Where the file is. */
struct source {
	read_fn rd;
	void *src;
	size_t hint;                /* its size when known */
	long long gz_bytes;         /* the compressed file's size when src is gzip, else 0 */
	int (*rewind)(void *src);   /* back to the stream's start (0), or NULL: no chunks */
	int threads;                /* for reading in chunks */
	size_t chunk;               /* bytes per chunk */
};

static int rewind_file(void *src)
{
	return fseek(src, 0, SEEK_SET);
}

static int rewind_gz(void *src)
{
	return gzrewind(src);
}

/* A large file (a stream that can be read again) in chunks on several
 * threads: 0, 1 when it is to be read whole (also after a chunk
 * did not parse: the whole reading then says where and why), or ERR_IO
 * when a stream cannot be read again. */
static int read_chunked(struct parse *p, const struct source *in, const char *name)
{
	if (!in->rewind || !simd_limit())
		return 1;
	struct chunk_source cs = { in->rd, in->src, max_trace_bytes(), in->chunk };
	struct chunk_sink sink = { chunk_event, simd_root, p, 0, chunk_wants };
	int rc = kineto_chunks_read(&cs, in->threads, &sink);
	if (rc < 0)
		forget(p);
	if (rc == 0)
		p->t->legacy = sink.legacy;
	else if (in->rewind(in->src) != 0)
		return err_set(ERR_IO,
			       "%s: cannot read it again from its start (a damaged gzip file?)",
			       name);
	return rc == 0 ? 0 : 1;
}

/* The whole document: simdjson when it fits, else (or when simdjson refuses
 * it) yajl. */
static int read_whole(struct parse *p, const struct source *in, const char *name)
{
	unsigned char *head;
	size_t len;
	int eof, rc, kept;
	if (read_head(in->rd, in->src, simd_limit(), in->hint, &head, &kept, &len, &eof) < 0)
		rc = err_set(ERR_IO, "%s: cannot read it (a damaged gzip file?) after %zu bytes",
			     name, len);
	else if (len > max_trace_bytes())
		rc = too_big(name);
	else if (eof && len == 0 && in->gz_bytes > 0)
		rc = err_set(ERR_IO,
			     "%s: a gzip file of %lld bytes that holds nothing: not a trace", name,
			     in->gz_bytes);
	else if (eof && len == 0)
		rc = err_set(ERR_IO, "%s: the file is empty (0 bytes): not a trace", name);
	else if (eof && (rc = parse_simd(p, head, len, name)) < 0)
		/* its message; and deep nesting simdjson refuses */
		rc = reparse_yajl(p, in->rd, in->src, head, len, name);
	else if (!eof)
		rc = parse_yajl(p, in->rd, in->src, head, len, name);
	if (!kept)
		free(head);
	return rc;
}

static int load(const struct source *in, const char *name, int want_cpu, struct gpu_trace *t)
{
	trace_init(t, want_cpu);
	struct parse p = { .t = t, .stream = -1 };
	p.step_names = xcalloc(MAX_STEPS, sizeof *p.step_names);
	p.step_ts = xcalloc(MAX_STEPS, sizeof *p.step_ts);
	int rc = read_chunked(&p, in, name);
	if (rc > 0)
		rc = read_whole(&p, in, name);
	strbuf_free(&p.name);
	strbuf_free(&p.cat);
	strbuf_free(&p.tid);
	strbuf_free(&p.coll);
	strbuf_free(&p.pg);
	strbuf_free(&p.dtype);
	if (rc == 0) {
		drop_last_step(&p);
		gpu_trace_index_rt(t);
	}
	for (int i = 0; i < p.nsteps; i++)
		free(p.step_names[i]);
	free(p.step_names);
	free(p.step_ts);
	if (rc < 0)
		gpu_trace_free(t);
	return rc;
}

int kineto_load_stream(FILE *f, const char *name, int want_cpu, struct gpu_trace *t)
{
	struct source in = { read_file, f, 0, 0, NULL, 1, 0 };
	return load(&in, name, want_cpu, t);
}

int kineto_load_stream_with(FILE *f, const char *name, const struct kineto_how *how,
			    struct gpu_trace *t)
{
	struct source in = { read_file, f, 0, 0, how->chunk_bytes ? rewind_file : NULL,
			     how->threads, how->chunk_bytes };
	return load(&in, name, how->want_cpu, t);
}

/* A plain file: read into place (no stdio copy); a large one in chunks. */
static int load_plain(int fd, const char *path, const struct kineto_how *how,
		      struct gpu_trace *t)
{
	struct stat st;
	FILE *f;
	if (fstat(fd, &st) < 0 || lseek(fd, 0, SEEK_SET) != 0 || !(f = fdopen(fd, "rb"))) {
		close(fd);
		return err_sys(ERR_IO, "cannot read %s", path);
	}
	setvbuf(f, NULL, _IONBF, 0);
	size_t size = st.st_size > 0 ? (size_t)st.st_size : 0, chunk = how->chunk_bytes;
	struct source in = { read_file, f, size, 0, size > 2 * chunk ? rewind_file : NULL,
			     how->threads, chunk };
	int rc = load(&in, path, how->want_cpu, t);
	fclose(f);
	return rc;
}

int kineto_load(const char *path, int want_cpu, struct gpu_trace *t)
{
	struct kineto_how how = { want_cpu, 1, 0 };
	return kineto_load_with(path, &how, t);
}

int kineto_load_with(const char *path, const struct kineto_how *asked, struct gpu_trace *t)
{
	struct kineto_how how = *asked;
	if (!how.chunk_bytes)
		how.chunk_bytes = KINETO_CHUNK_BYTES;
	memset(t, 0, sizeof *t);
	int fd = fsio_open_input(path); /* a FIFO or a device is refused, never waited on */
	if (fd < 0)
		return fd;
	int fd2 = dup(fd);
	gzFile gz = fd2 >= 0 ? gzdopen(fd2, "rb") : NULL; /* reads plain files as they are */
	if (!gz) {
		if (fd2 >= 0)
			close(fd2);
		close(fd);
		return err_sys(ERR_IO, "cannot open %s", path);
	}
	gzbuffer(gz, 1 << 17);
	if (gzdirect(gz)) {
		gzclose(gz);
		return load_plain(fd, path, &how, t);
	}
	struct stat st;
	long long gz_bytes = fstat(fd, &st) == 0 ? (long long)st.st_size : 1;
	close(fd);
	struct source in = { read_gz, gz, 0, gz_bytes, rewind_gz, how.threads, how.chunk_bytes };
	int rc = load(&in, path, how.want_cpu, t);
	gzclose(gz);
	return rc;
}

void gpu_trace_free(struct gpu_trace *t)
{
	for (size_t i = 0; i < t->nnames; i++)
		free(t->names[i]);
	free(t->names);
	free(t->slots);
	free(t->ev);
	free(t->rt);
	free(t->rt_at);
	free(t->cpu);
	free(t->comm);
	memset(t, 0, sizeof *t);
}
