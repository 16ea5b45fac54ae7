/* SPDX-License-Identifier: MIT */
#include "analyzers/timeline_fragment.h"

#include "analyzers/phases.h"
#include "analyzers/trace_names.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/sha256.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file: a header (magic, version, byte order, state, rank, origin),
 * then records, each a tag byte: 'S' a string (u32 length, its bytes; the
 * strings are numbered in order), 'T' a thread's name (i32 tid, u32
 * string), 'X' a slice (u8 category, i32 tid, u32 name, u32 range or
 * NO_STR, f64 start, f64 dur), and last 'E' (u64 records before it, u64 the
 * file's size). Native byte order: the map's nodes and the reduce are one
 * cluster; the header's check value refuses a file from another order. */
static const char MAGIC[8] = "CAMPTLF";
#define VERSION 1u
#define ORDER_CHECK 0x01020304u
#define HEAD_BYTES (8 + 4 + 4 + 4 + 4 + 8)
#define TAIL_BYTES (1 + 8 + 8)
#define SLICE_BYTES (1 + 4 + 4 + 4 + 8 + 8)
#define NO_STR UINT32_MAX
#define MAX_STR (1u << 16) /* names are cut at 200 bytes before escaping */

static const char *const CATS[] = { "step", "phase", "kernel" };
enum { CAT_STEP, CAT_PHASE, CAT_KERNEL };

void timeline_fragment_path(struct strbuf *out, const char *fdir, const char *dir, const char *name)
{
	struct strbuf key = STRBUF_INIT;
	char hex[SHA256_HEX];
	strbuf_addf(&key, "%s/%s", dir, name);
	sha256_hex(key.buf, key.len, hex);
	strbuf_reset(out);
	strbuf_addf(out, "%s/%.32s.tlf", fdir, hex);
	strbuf_free(&key);
}

/* ---- writing ---- */

struct frag_out {
	FILE *f;
	uint32_t nstr;
	uint64_t records, bytes;
	int failed;
};

static void put(struct frag_out *o, const void *p, size_t n)
{
	if (fwrite(p, 1, n, o->f) != n)
		o->failed = 1;
	o->bytes += n;
}

static void put_head(struct frag_out *o, enum timeline_fragment_state state, int rank,
		     double origin)
{
	unsigned char h[HEAD_BYTES];
	uint32_t v[2] = { VERSION, ORDER_CHECK };
	int32_t s[2] = { (int32_t)state, rank };
	memcpy(h, MAGIC, 8);
	memcpy(h + 8, v, 8);
	memcpy(h + 16, s, 8);
	memcpy(h + 24, &origin, 8);
	put(o, h, sizeof h);
}

static void put_tail(struct frag_out *o)
{
	unsigned char t[TAIL_BYTES] = { 'E' };
	uint64_t v[2] = { o->records, o->bytes + TAIL_BYTES };
	memcpy(t + 1, v, 16);
	put(o, t, sizeof t);
}

/* A JSON string (escaped by jansson) as a string record; its number. */
static uint32_t put_json(struct frag_out *o, const char *s)
{
	char cut[201];
	snprintf(cut, sizeof cut, "%s", s); /* at most 200 bytes of a name */
	json_t *j = json_string(cut);
	char *js = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	json_decref(j);
	const char *text = js ? js : "\"?\"";
	uint32_t len = (uint32_t)strlen(text);
	put(o, "S", 1);
	put(o, &len, 4);
	put(o, text, len);
	free(js);
	o->records++;
	return o->nstr++;
}

static void put_thread(struct frag_out *o, int tid, uint32_t name)
{
	unsigned char r[9] = { 'T' };
	int32_t t = tid;
	memcpy(r + 1, &t, 4);
	memcpy(r + 5, &name, 4);
	put(o, r, sizeof r);
	o->records++;
}

static void put_slice(struct frag_out *o, int cat, int tid, uint32_t name, uint32_t range,
		      double start, double dur)
{
	unsigned char r[1 + SLICE_BYTES] = { 'X', (unsigned char)cat };
	int32_t t = tid;
	memcpy(r + 2, &t, 4);
	memcpy(r + 6, &name, 4);
	memcpy(r + 10, &range, 4);
	memcpy(r + 14, &start, 8);
	memcpy(r + 22, &dur, 8);
	put(o, r, sizeof r);
	o->records++;
}

/* The timeline's zero when no rank set one yet: the first step range that
 * does not start at 0, else the first host range. */
static double origin_of(const struct gpu_trace *t, const int *ph)
{
	for (size_t i = 0; i < t->ncpu; i++)
		if (ph[t->cpu[i].name] == TRACE_NAME_STEP && t->cpu[i].start != 0)
			return t->cpu[i].start;
	return t->ncpu ? t->cpu[0].start : 0;
}

/* String numbers of t's names and of the phases, each written once, when first used. */
struct frag_names {
	uint32_t *name, phase[PH_N];
	unsigned char *named; /* threads whose name was written */
};

static uint32_t name_id(struct frag_out *o, struct frag_names *n, const struct gpu_trace *t, int i)
{
	if (n->name[i] == NO_STR)
		n->name[i] = put_json(o, t->names[i]);
	return n->name[i];
}

/* A host range: a step on thread 0, a classified range on thread 1 + its
 * thread (named at its first range), an operator or an unclassified range not at all. */
static void put_cpu(struct frag_out *o, struct frag_names *n, const struct gpu_trace *t,
		    const struct cpu_range *c, int ph)
{
	if (ph == TRACE_NAME_STEP) {
		put_slice(o, CAT_STEP, 0, name_id(o, n, t, c->name), NO_STR, c->start,
			  c->end - c->start);
		return;
	}
	if (ph < 0 || ph == PH_OPS) /* operators are no phase ranges */
		return;
	if (!n->named[c->tid]) {
		char buf[256];
		n->named[c->tid] = 1;
		snprintf(buf, sizeof buf, "thread %.100s", t->names[c->tid]);
		put_thread(o, 1 + c->tid, put_json(o, buf));
	}
	if (n->phase[ph] == NO_STR)
		n->phase[ph] = put_json(o, phase_name(ph));
	put_slice(o, CAT_PHASE, 1 + c->tid, n->phase[ph], name_id(o, n, t, c->name), c->start,
		  c->end - c->start);
}

static void put_events(struct frag_out *o, const struct gpu_trace *t, const struct rules *phases,
		       int loose_steps, int rank)
{
	int *ph = trace_name_phases(t, phases, loose_steps);
	struct frag_names n = { xmalloc((t->nnames + 1) * sizeof *n.name), { 0 },
				xcalloc(t->nnames + 1, 1) };
	for (size_t i = 0; i < t->nnames; i++)
		n.name[i] = NO_STR;
	for (int k = 0; k < PH_N; k++)
		n.phase[k] = NO_STR;
	put_head(o, TIMELINE_FRAGMENT_EVENTS, rank, origin_of(t, ph));
	for (size_t i = 0; i < t->ncpu; i++)
		put_cpu(o, &n, t, &t->cpu[i], ph[t->cpu[i].name]);
	for (size_t i = 0; i < t->n; i++) {
		const struct gpu_event *g = &t->ev[i];
		put_slice(o, CAT_KERNEL, 100000 + g->stream, name_id(o, &n, t, g->name), NO_STR,
			  g->start / t->unit_per_us, (g->end - g->start) / t->unit_per_us);
	}
	put_tail(o);
	free(n.named);
	free(n.name);
	free(ph);
}

/* Writes what fill writes to path atomically: a temporary file beside it,
 * renamed over it. Not fsynced: a fragment lives until the timeline is
 * written, and a lost one is read again from its trace. */
static int write_atomic(const char *path, void (*fill)(struct frag_out *, const void *),
			const void *ctx)
{
	struct strbuf tmp = STRBUF_INIT;
	strbuf_addf(&tmp, "%s.XXXXXX", path);
	int fd = mkstemp(tmp.buf), rc = 0;
	struct frag_out o = { .f = fd >= 0 ? fdopen(fd, "w") : NULL };
	if (!o.f) {
		rc = err_sys(ERR_IO, "cannot create %s", tmp.buf);
		if (fd >= 0)
			close(fd);
		strbuf_free(&tmp);
		return rc;
	}
	fchmod(fd, 0644);
	setvbuf(o.f, NULL, _IOFBF, 1 << 16);
	fill(&o, ctx);
	if (fclose(o.f) != 0 || o.failed)
		rc = err_sys(ERR_IO, "cannot write %s", tmp.buf);
	if (rc == 0)
		rc = fsio_replace(tmp.buf, path);
	if (rc < 0)
		unlink(tmp.buf);
	strbuf_free(&tmp);
	return rc;
}

struct events_ctx {
	const struct gpu_trace *t;
	const struct rules *phases;
	int loose_steps, rank;
};

static void fill_events(struct frag_out *o, const void *ctx)
{
	const struct events_ctx *e = ctx;
	put_events(o, e->t, e->phases, e->loose_steps, e->rank);
}

static void fill_state(struct frag_out *o, const void *ctx)
{
	put_head(o, *(const enum timeline_fragment_state *)ctx, -1, 0);
	put_tail(o);
}

int timeline_fragment_write(const char *path, const struct gpu_trace *t, const struct rules *phases,
		 int loose_steps, int rank)
{
	struct events_ctx e = { t, phases, loose_steps, rank };
	return write_atomic(path, fill_events, &e);
}

int timeline_fragment_write_state(const char *path, enum timeline_fragment_state state)
{
	return write_atomic(path, fill_state, &state);
}

void timeline_fragment_add_nsys(struct gpu_trace *host, const struct nsys_report *rep)
{
	for (size_t i = 0; i < rep->n; i++)
		for (size_t k = 0; k < rep->proc[i].n; k++) {
			const struct gpu_event *g = &rep->proc[i].ev[k];
			gpu_trace_add(host, g->start / 1000, g->end / 1000,
				      rep->proc[i].names[g->name], g->stream, g->corr);
		}
}

/* dir/name as the timeline shows it: a Kineto trace with its host ranges,
 * or an export's NVTX ranges with the GPU work of every process in it. */
static int load_for_timeline(const char *path, int nsys, struct gpu_trace *t)
{
	if (!nsys)
		return kineto_load(path, 1, t);
	struct nsys_report rep;
	if (nsys_load_host(path, t) < 0)
		return -1;
	if (nsys_load(path, 1, &rep) == 0) {
		timeline_fragment_add_nsys(t, &rep);
		nsys_report_free(&rep);
	}
	return 0;
}

int timeline_fragment_make(FILE *f, const char *dir, const char *name, int nsys, int hint,
		const struct rules *phases)
{
	struct strbuf p = STRBUF_INIT;
	struct gpu_trace t;
	struct frag_out o = { .f = f };
	strbuf_addf(&p, "%s/%s", dir, name);
	if (load_for_timeline(p.buf, nsys, &t) == 0) {
		put_events(&o, &t, phases, nsys,
			   trace_rank_for(nsys ? -1 : t.rank, name, hint));
		gpu_trace_free(&t);
	} else {
		put_head(&o, TIMELINE_FRAGMENT_UNREADABLE, -1, 0);
		put_tail(&o);
	}
	int rc = fflush(f) != 0 || o.failed ? err_sys(ERR_IO, "cannot write the timeline of %s",
						      p.buf)
					    : 0;
	strbuf_free(&p);
	return rc;
}

/* ---- reading ---- */

static int damaged(struct timeline_fragment *fr, const char *what)
{
	return err_set(ERR_IO, "%s: not a usable timeline fragment (%s)", fr->shown,
		       what);
}

/* The header and, from the end, the trailer: a fragment cut short is refused whole. */
static int check_ends(struct timeline_fragment *fr)
{
	unsigned char h[HEAD_BYTES], t[TAIL_BYTES];
	uint32_t v[2];
	int32_t s[2];
	struct stat st;
	uint64_t tail[2];
	if (fread(h, 1, sizeof h, fr->f) != sizeof h || memcmp(h, MAGIC, 8))
		return damaged(fr, "no header");
	memcpy(v, h + 8, 8);
	memcpy(s, h + 16, 8);
	memcpy(&fr->origin, h + 24, 8);
	if (v[0] != VERSION || v[1] != ORDER_CHECK || s[0] < 0 ||
	    s[0] > TIMELINE_FRAGMENT_NOT_ANALYSED)
		return damaged(fr, "another version or byte order");
	fr->state = (enum timeline_fragment_state)s[0];
	fr->rank = s[1];
	if (fstat(fileno(fr->f), &st) != 0 || st.st_size < HEAD_BYTES + TAIL_BYTES ||
	    fseeko(fr->f, st.st_size - TAIL_BYTES, SEEK_SET) != 0 ||
	    fread(t, 1, sizeof t, fr->f) != sizeof t || t[0] != 'E')
		return damaged(fr, "cut short");
	memcpy(tail, t + 1, 16);
	if (tail[1] != (uint64_t)st.st_size)
		return damaged(fr, "cut short");
	fr->total = tail[0];
	return fseeko(fr->f, HEAD_BYTES, SEEK_SET) == 0 ? 0 : damaged(fr, "cannot seek");
}

int timeline_fragment_open_stream(FILE *f, const char *shown, struct timeline_fragment *fr)
{
	memset(fr, 0, sizeof *fr);
	fr->f = f;
	fr->shown = xstrdup(shown);
	rewind(f);
	int rc = check_ends(fr);
	if (rc < 0)
		timeline_fragment_close(fr);
	return rc;
}

int timeline_fragment_open(const char *path, struct timeline_fragment *fr)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		memset(fr, 0, sizeof *fr);
		return err_sys(fsio_exists(path) ? ERR_IO : ERR_NOTFOUND, "cannot open %s", path);
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	return timeline_fragment_open_stream(f, path, fr);
}

static int read_str(struct timeline_fragment *fr)
{
	uint32_t len;
	if (fread(&len, 4, 1, fr->f) != 1 || len > MAX_STR)
		return damaged(fr, "a string");
	char *s = xmalloc(len + 1);
	if (fread(s, 1, len, fr->f) != len) {
		free(s);
		return damaged(fr, "a string");
	}
	s[len] = '\0';
	XGROW(fr->str, fr->nstr, fr->strcap, 64);
	fr->str[fr->nstr++] = s;
	return 0;
}

/* A string number of a record: one read before it (or NO_STR where allowed). */
static const char *str_at(const struct timeline_fragment *fr, uint32_t i)
{
	return i < fr->nstr ? fr->str[i] : NULL;
}

static int read_thread(struct timeline_fragment *fr, struct timeline_fragment_event *ev)
{
	unsigned char r[8];
	int32_t tid;
	uint32_t name;
	if (fread(r, 1, sizeof r, fr->f) != sizeof r)
		return damaged(fr, "a thread");
	memcpy(&tid, r, 4);
	memcpy(&name, r + 4, 4);
	*ev = (struct timeline_fragment_event){ .tid = tid, .name = str_at(fr, name) };
	return ev->name ? 1 : damaged(fr, "a thread");
}

static int read_slice(struct timeline_fragment *fr, struct timeline_fragment_event *ev)
{
	unsigned char r[SLICE_BYTES];
	int32_t tid;
	uint32_t name, range;
	if (fread(r, 1, sizeof r, fr->f) != sizeof r || r[0] > CAT_KERNEL)
		return damaged(fr, "a slice");
	memcpy(&tid, r + 1, 4);
	memcpy(&name, r + 5, 4);
	memcpy(&range, r + 9, 4);
	*ev = (struct timeline_fragment_event){ 1, tid, CATS[r[0]], str_at(fr, name),
				     range == NO_STR ? NULL : str_at(fr, range), 0, 0 };
	memcpy(&ev->start, r + 13, 8);
	memcpy(&ev->dur, r + 21, 8);
	return ev->name && (range == NO_STR || ev->range) ? 1 : damaged(fr, "a slice");
}

int timeline_fragment_next(struct timeline_fragment *fr, struct timeline_fragment_event *ev)
{
	for (;;) {
		int tag = getc(fr->f), rc;
		if (tag == 'E')
			return fr->records == fr->total ? 0 : damaged(fr, "records missing");
		fr->records++;
		if (tag == 'S')
			rc = read_str(fr);
		else if (tag == 'T')
			return read_thread(fr, ev);
		else if (tag == 'X')
			return read_slice(fr, ev);
		else
			return damaged(fr, "an unknown record");
		if (rc < 0)
			return rc;
	}
}

void timeline_fragment_close(struct timeline_fragment *fr)
{
	if (fr->f)
		fclose(fr->f);
	for (size_t i = 0; i < fr->nstr; i++)
		free(fr->str[i]);
	free(fr->str);
	free(fr->shown);
	memset(fr, 0, sizeof *fr);
}
