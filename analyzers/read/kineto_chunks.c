/* kineto_chunks: see kineto_chunks.h. The producer (the calling thread)
 * reads the stream straight into a slot, about a chunk at a time, cuts it
 * after the last event that ends in its second half ("[events]": the comma
 * of the cut becomes the ']') and keeps the rest for the next slot; any thread
 * parses a ready slot, with its own parser, into packed events (strings kept
 * once per slot, the events the sink wants only); the caller hands them on
 * in slot order. The last slot is the document's head up to the event array,
 * then the rest of the stream: the root's other keys (distributedInfo) are
 * read there, in place. In memory: the slots (threads + 2 of them, one on
 * one thread), each a chunk and its packed events, and a parser per thread
 * (simdjson's index of a chunk, about its size again).
 * SPDX-License-Identifier: MIT */
#include "analyzers/read/kineto_chunks.h"
#include "analyzers/read/kineto.h"

#include "util/strbuf.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { SLOT_FREE, SLOT_READY, SLOT_BUSY, SLOT_DONE };

/* A chunk's strings, each once: bytes in an arena, an open-addressed index. */
struct strtab {
	char *arena;
	size_t len, cap;
	/* s set once the chunk is parsed (the arena grows until then) */
	struct chunk_str *v;
	size_t n, vcap;
	int *slots;
	size_t nslots;
};

/* An event as a slot keeps it until handed on: a quarter of a chunk_event
 * (whose fields are mostly strings, kept apart, and rare args), since a
 * slot holds as many events as its chunk (the events' records would
 * otherwise take as much memory as the chunk's bytes). */
enum { PK_TS = 1, PK_DUR = 2, PK_STREAM = 4, PK_CORR = 8, PK_BAD_TIME = 16 };
struct packed_event {
	double ts, dur, stream, corr;
	int name, cat, tid; /* indices into the slot's strings, -1: absent */
	int more;           /* index into the slot's rare args, -1: none */
	unsigned char has;  /* PK_* */
	char ph;
};

/* A collective's args and flops: on a few events only. */
struct packed_more {
	double flops, in_nelems, out_nelems, group_size, grad_bytes, step_arg;
	int coll, pg, dtype, has_flops, has_grad_bytes, has_step_arg;
};

struct slot {
	char *buf;                   /* the document, then KINETO_SIMD_PADDING bytes */
	size_t len, cap;
	int (*wants)(const struct kineto_fields *f); /* while parsed: the sink's */
	struct packed_event *ev;
	size_t nev, evcap;
	struct packed_more *more;
	size_t nmore, morecap;
	struct strtab strs;
	double rank, base; /* the root's distributedInfo.rank and baseTimeNanoseconds */
	int has_rank, has_base, legacy, failed, state;
};

/* The slots in flight; mu guards the states, produced and consumed (the
 * producer fills a FREE slot and the consumer reads a DONE one without it:
 * no other thread touches a slot in those states). */
struct chunks {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct slot *slots;
	int nslots, stop;
	struct kineto_simd_parser *parser; /* the calling thread's */
	int (*wants)(const struct kineto_fields *f); /* the sink's */
	size_t doc_max;              /* a chunk's bytes, most often: the parsers' capacity */
	long produced, consumed;     /* slots filled and handed on, in file order */
};

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static size_t skip_space(const unsigned char *b, size_t n, size_t i)
{
	while (i < n && is_space(b[i]))
		i++;
	return i;
}

/* Past the string whose opening quote is at b[i], or n. */
static size_t skip_string(const unsigned char *b, size_t n, size_t i)
{
	for (size_t from = i + 1; from < n;) {
		const unsigned char *q = memchr(b + from, '"', n - from);
		if (!q)
			return n;
		size_t at = (size_t)(q - b), bs = 0;
		while (at - bs > i + 1 && b[at - bs - 1] == '\\')
			bs++;
		if (bs % 2 == 0)
			return at + 1;
		from = at + 1;
	}
	return n;
}

/* Past the value that starts at b[i] (a string, an object, an array or a
 * scalar), or n. */
static size_t skip_value(const unsigned char *b, size_t n, size_t i)
{
	if (i < n && b[i] == '"')
		return skip_string(b, n, i);
	long depth = 0;
	while (i < n) {
		unsigned char c = b[i];
		if (c == '"') {
			i = skip_string(b, n, i);
			continue;
		}
		if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']') {
			if (depth == 0)
				return i; /* a scalar ends at its container's end */
			if (--depth == 0)
				return i + 1;
		} else if (c == ',' && depth == 0)
			return i;
		i++;
	}
	return n;
}

size_t kineto_events_start(const unsigned char *b, size_t n, size_t limit)
{
	if (n > limit)
		n = limit;
	size_t i = skip_space(b, n, 0);
	if (i < n && b[i] == '[')
		return i + 1;
	if (i >= n || b[i] != '{')
		return 0;
	for (i++;;) {
		i = skip_space(b, n, i);
		if (i >= n || b[i] != '"')
			return 0;
		size_t key = i + 1, end = skip_string(b, n, i);
		i = skip_space(b, n, end);
		if (i >= n || b[i] != ':')
			return 0;
		i = skip_space(b, n, i + 1);
		if (end - key == 12 && !memcmp(b + key, "traceEvents", 11) && i < n && b[i] == '[')
			return i + 1;
		i = skip_space(b, n, skip_value(b, n, i));
		if (i >= n || b[i] != ',')
			return 0;
		i++;
	}
}

/* ---- long strings ------------------------------------------------------ */

size_t kineto_long_string_at(struct kineto_strscan *s, const unsigned char *b, size_t n,
			     size_t max)
{
	size_t i = 0;
	while (i < n) {
		if (!s->in) {
			const unsigned char *q = memchr(b + i, '"', n - i);
			if (!q)
				return n;
			i = (size_t)(q - b) + 1;
			s->in = 1, s->esc = 0, s->run = 0;
			continue;
		}
		if (s->esc) {
			s->esc = 0, s->run++, i++;
			continue;
		}
		size_t j = i;
		while (j < n && b[j] != '"' && b[j] != '\\')
			j++;
		if (s->run + (j - i) > max)
			return i + (max - s->run);
		s->run += j - i;
		if (j == n)
			return n;
		if (b[j] == '\\')
			s->esc = 1, s->run++;
		else
			s->in = 0;
		i = j + 1;
	}
	return n;
}

/* ---- a slot's events ----------------------------------------------------- */

static void strtab_reset(struct strtab *t)
{
	t->len = t->n = 0;
	for (size_t i = 0; i < t->nslots; i++)
		t->slots[i] = -1;
}

static void strtab_free(struct strtab *t)
{
	free(t->arena);
	free(t->v);
	free(t->slots);
}

static void strtab_index(struct strtab *t)
{
	size_t ns = t->nslots ? t->nslots * 2 : 1024;
	free(t->slots);
	t->slots = xmalloc(ns * sizeof *t->slots);
	t->nslots = ns;
	for (size_t i = 0; i < ns; i++)
		t->slots[i] = -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t k = t->v[i].hash & (ns - 1);
		while (t->slots[k] >= 0)
			k = (k + 1) & (ns - 1);
		t->slots[k] = (int)i;
	}
}

/* The chunk's index of the string s[0, n) cut at a NUL (str_hash's string). */
static int strtab_add(struct strtab *t, const char *s, size_t n)
{
	size_t len, h = str_hash_n(s, n, &len); /* the hash the trace's own index uses */
	if (t->n * 2 >= t->nslots)
		strtab_index(t);
	size_t k = h & (t->nslots - 1);
	for (int i; (i = t->slots[k]) >= 0; k = (k + 1) & (t->nslots - 1)) {
		const char *have = t->arena + t->v[i].off;
		if (t->v[i].hash == h && t->v[i].len == len && !memcmp(have, s, len))
			return i;
	}
	if (t->len + len + 1 > t->cap) {
		t->cap = (t->len + len + 1) * 2;
		t->arena = xrealloc(t->arena, t->cap);
	}
	memcpy(t->arena + t->len, s, len);
	t->arena[t->len + len] = '\0';
	XGROW(t->v, t->n, t->vcap, 256);
	t->v[t->n] = (struct chunk_str){ NULL, h, -1, -1, t->len, len };
	t->len += len + 1;
	t->slots[k] = (int)t->n;
	return (int)t->n++;
}

static int str_of(struct slot *s, const char *p, size_t n)
{
	return p ? strtab_add(&s->strs, p, n) : -1;
}

static int has_more(const struct kineto_fields *f)
{
	return f->has_flops || f->has_grad_bytes || f->has_step_arg || f->in_nelems != -1 ||
		f->out_nelems != -1 || f->group_size != -1 ||
		f->coll || f->pg || f->dtype;
}

static void keep_event(void *ctx, const struct kineto_fields *f)
{
	struct slot *s = ctx;
	int more = -1;
	if (s->wants && !s->wants(f))
		return;
	if (has_more(f)) {
		XGROW(s->more, s->nmore, s->morecap, 64);
		s->more[s->nmore] = (struct packed_more){
			f->flops,
			f->in_nelems,
			f->out_nelems,
			f->group_size,
			f->grad_bytes,
			f->step_arg,
			str_of(s, f->coll, f->coll_len),
			str_of(s, f->pg, f->pg_len),
			str_of(s, f->dtype, f->dtype_len),
			f->has_flops,
			f->has_grad_bytes,
			f->has_step_arg,
		};
		more = (int)s->nmore++;
	}
	XGROW(s->ev, s->nev, s->evcap, 4096);
	s->ev[s->nev++] = (struct packed_event){
		f->ts,
		f->dur,
		f->stream,
		f->corr,
		str_of(s, f->name, f->name_len),
		str_of(s, f->cat, f->cat_len),
		str_of(s, f->tid, f->tid_len),
		more,
		(unsigned char)((f->has_ts ? PK_TS : 0) | (f->has_dur ? PK_DUR : 0) |
				(f->has_stream ? PK_STREAM : 0) | (f->has_corr ? PK_CORR : 0) |
				(f->bad_time ? PK_BAD_TIME : 0)),
		f->ph && f->ph_len ? f->ph[0] : 0,
	};
}

/* A kept event as the sink reads it (no string pointers: its strings are
 * the slot's, by index). */
static void unpack_event(const struct slot *s, const struct packed_event *p,
			 struct chunk_event *e)
{
	const struct packed_more *m = p->more >= 0 ? &s->more[p->more] : NULL;
	*e = (struct chunk_event){ .name = p->name, .cat = p->cat, .tid = p->tid, .ph = p->ph };
	e->coll = m ? m->coll : -1, e->pg = m ? m->pg : -1, e->dtype = m ? m->dtype : -1;
	struct kineto_fields *f = &e->f;
	f->ts = p->ts, f->has_ts = !!(p->has & PK_TS);
	f->dur = p->dur, f->has_dur = !!(p->has & PK_DUR);
	f->stream = p->stream, f->has_stream = !!(p->has & PK_STREAM);
	f->corr = p->corr, f->has_corr = !!(p->has & PK_CORR);
	f->bad_time = !!(p->has & PK_BAD_TIME);
	f->flops = m ? m->flops : 0, f->has_flops = m ? m->has_flops : 0;
	f->grad_bytes = m ? m->grad_bytes : 0, f->has_grad_bytes = m ? m->has_grad_bytes : 0;
	f->step_arg = m ? m->step_arg : 0, f->has_step_arg = m ? m->has_step_arg : 0;
	f->in_nelems = m ? m->in_nelems : -1;
	f->out_nelems = m ? m->out_nelems : -1;
	f->group_size = m ? m->group_size : -1;
}

static void keep_root(void *ctx, enum kineto_key key, double v)
{
	struct slot *s = ctx;
	if (key == KK_RANK)
		s->rank = v, s->has_rank = 1;
	else if (key == KK_BASE_TIME)
		s->base = v, s->has_base = 1;
}

/* Parses the slot with the parser of the thread that took it: the events
 * keep no pointer into the parser (their strings are copied into the
 * slot's), so a parser serves one slot after another. */
static void parse_slot(struct slot *s, struct kineto_simd_parser *parser,
		       int (*wants)(const struct kineto_fields *f))
{
	struct kineto_simd_sink sink = { keep_event, keep_root, s, 0 };
	size_t where;
	const char *why;
	s->wants = wants;
	s->nev = s->nmore = 0;
	s->has_rank = s->has_base = 0;
	strtab_reset(&s->strs);
	s->failed = !parser ||
		kineto_simd_parse_with(parser, s->buf, s->len, &sink, &where, &why) < 0;
	s->legacy = sink.legacy;
	for (size_t i = 0; i < s->strs.n; i++) /* the arena stays put from here on */
		s->strs.v[i].s = s->strs.arena + s->strs.v[i].off;
}

/* ---- threads ----------------------------------------------------------- */

/* The oldest slot no thread has taken yet, taken; NULL when none (under mu). */
static struct slot *take_ready(struct chunks *c)
{
	for (long k = c->consumed; k < c->produced; k++) {
		struct slot *s = &c->slots[k % c->nslots];
		if (s->state == SLOT_READY) {
			s->state = SLOT_BUSY;
			return s;
		}
	}
	return NULL;
}

static void parse_taken(struct chunks *c, struct slot *s, struct kineto_simd_parser *parser)
{
	parse_slot(s, parser, c->wants);
	pthread_mutex_lock(&c->mu);
	s->state = SLOT_DONE;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
}

static void *worker(void *arg)
{
	struct chunks *c = arg;
	/* NULL (no memory): the slots it takes fail, and the file is read whole */
	struct kineto_simd_parser *parser = kineto_simd_parser_new(c->doc_max);
	pthread_mutex_lock(&c->mu);
	while (!c->stop) {
		struct slot *s = take_ready(c);
		if (!s) {
			pthread_cond_wait(&c->cv, &c->mu);
			continue;
		}
		pthread_mutex_unlock(&c->mu);
		parse_taken(c, s, parser);
		pthread_mutex_lock(&c->mu);
	}
	pthread_mutex_unlock(&c->mu);
	if (parser)
		kineto_simd_parser_free(parser);
	return NULL;
}

/* Waits for the oldest slot, parsing slots here meanwhile (the oldest first)
 * rather than waiting while others are ready. */
static struct slot *oldest_parsed(struct chunks *c)
{
	struct slot *s = &c->slots[c->consumed % c->nslots], *mine;
	pthread_mutex_lock(&c->mu);
	while (s->state != SLOT_DONE) {
		if ((mine = take_ready(c))) {
			pthread_mutex_unlock(&c->mu);
			parse_taken(c, mine, c->parser);
			pthread_mutex_lock(&c->mu);
		} else {
			pthread_cond_wait(&c->cv, &c->mu);
		}
	}
	pthread_mutex_unlock(&c->mu);
	return s;
}

/* Hands one parsed slot on; -1 when it did not parse. */
static int hand_on(struct slot *s, struct chunk_sink *sink, int last)
{
	if (s->failed)
		return -1;
	for (size_t i = 0; i < s->nev; i++) {
		struct chunk_event e;
		unpack_event(s, &s->ev[i], &e);
		sink->event(sink->ctx, &e, s->strs.v);
	}
	if (s->has_rank)
		sink->root(sink->ctx, KK_RANK, s->rank);
	if (s->has_base)
		sink->root(sink->ctx, KK_BASE_TIME, s->base);
	if (last)
		sink->legacy = s->legacy;
	return 0;
}

/* The most bytes one chunk may grow to while no cut is found in it (a longer
 * event or string: the file is read whole, which has its own limits). */
#define CHUNK_MAX (64u << 20)

/* The producer's place in the stream: what was read past the last cut (the
 * start of the next chunk), and the document's head up to the event array. */
struct cursor {
	const struct chunk_source *in;
	unsigned char *carry;
	size_t ncarry, carry_cap;
	unsigned char *head;         /* the document up to the array's first byte */
	size_t start;                /* its length */
	size_t read;                 /* bytes read from the stream */
	size_t chunk;                /* bytes per chunk */
	int eof, done;
};

/* Reads into b[*n, want) until it is full or the stream ends; -1 on a read
 * error or past the most a trace may hold. */
static int read_into(struct cursor *cur, unsigned char *b, size_t *n, size_t want)
{
	while (*n < want && !cur->eof) {
		long r = cur->in->read(cur->in->src, b + *n, want - *n);
		if (r < 0)
			return -1;
		cur->eof = r == 0;
		*n += (size_t)r;
		cur->read += (size_t)r;
	}
	return cur->read > cur->in->max_bytes ? -1 : 0;
}

static void slot_room(struct slot *s, size_t n)
{
	if (s->cap >= n)
		return;
	s->cap = n + n / 4;
	s->buf = xrealloc(s->buf, s->cap + KINETO_SIMD_PADDING);
}

size_t kineto_event_cut(const unsigned char *b, size_t n, size_t from)
{
	for (size_t k = n; k > from;) {
		const unsigned char *q = memrchr(b + from, '{', k - from);
		if (!q)
			return 0;
		size_t open = (size_t)(q - b), j = open;
		while (j > from && is_space(b[j - 1]))
			j--;
		if (j > from && b[j - 1] == ',') {
			size_t comma = j - 1, i = comma;
			while (i > from && is_space(b[i - 1]))
				i--;
			if (i > from && b[i - 1] == '}')
				return comma;
		}
		k = open;
	}
	return 0;
}

/* The last document: the head, then the rest of the stream, already read
 * into s->buf from offset 1 (n bytes in all). */
static void last_document(struct cursor *cur, struct slot *s, size_t n)
{
	slot_room(s, cur->start + n - 1);
	memmove(s->buf + cur->start, s->buf + 1, n - 1);
	memcpy(s->buf, cur->head, cur->start);
	s->len = cur->start + n - 1;
	memset(s->buf + s->len, 0, KINETO_SIMD_PADDING);
	cur->done = 1;
}

/* Fills the slot with the next chunk, read straight into it as "[events]"
 * (the comma of the cut becomes the ']'), or with the last document; -1
 * when the stream fails, a limit is passed, or no cut is found across a
 * string longer than a trace may hold. */
static int produce(struct cursor *cur, struct slot *s)
{
	size_t want = cur->chunk, n = 1 + cur->ncarry, cut;
	slot_room(s, n > 1 + want ? n : 1 + want);
	s->buf[0] = '[';
	memcpy(s->buf + 1, cur->carry, cur->ncarry);
	for (;;) {
		if (n < 1 + want && read_into(cur, (unsigned char *)s->buf, &n, 1 + want) < 0)
			return -1;
		if (cur->eof && n - 1 <= want) {
			last_document(cur, s, n);
			return 0;
		}
		/* cut in the chunk's second half; none there: a longer chunk */
		if ((cut = kineto_event_cut((unsigned char *)s->buf, n, n / 2)))
			break;
		if (cur->eof) {
			last_document(cur, s, n);
			return 0;
		}
		struct kineto_strscan sc = { 0 };
		if (want >= CHUNK_MAX ||
		    kineto_long_string_at(&sc, (unsigned char *)s->buf + 1, n - 1,
					  TRACE_MAX_STRING) < n - 1)
			return -1;
		want = 2 * (n - 1);
		slot_room(s, 1 + want);
	}
	cur->ncarry = n - cut - 1;
	if (cur->carry_cap < cur->ncarry) {
		cur->carry_cap = cur->ncarry * 2;
		cur->carry = xrealloc(cur->carry, cur->carry_cap);
	}
	memcpy(cur->carry, s->buf + cut + 1, cur->ncarry);
	s->buf[cut] = ']';
	s->len = cut + 1;
	memset(s->buf + s->len, 0, KINETO_SIMD_PADDING);
	return 0;
}

static int pipeline(struct chunks *c, struct cursor *cur, struct chunk_sink *sink)
{
	int rc = 0;
	while (rc == 0 && (!cur->done || c->consumed < c->produced)) {
		while (rc == 0 && !cur->done && c->produced - c->consumed < c->nslots) {
			struct slot *s = &c->slots[c->produced % c->nslots];
			if ((rc = produce(cur, s)) < 0)
				break;
			pthread_mutex_lock(&c->mu);
			s->state = SLOT_READY;
			c->produced++;
			pthread_cond_broadcast(&c->cv);
			pthread_mutex_unlock(&c->mu);
		}
		if (rc < 0 || c->consumed == c->produced)
			break;
		struct slot *s = oldest_parsed(c);
		rc = hand_on(s, sink, cur->done && c->consumed + 1 == c->produced);
		pthread_mutex_lock(&c->mu); /* the workers look at consumed and the states */
		s->state = SLOT_FREE;
		c->consumed++;
		pthread_mutex_unlock(&c->mu);
	}
	return rc;
}

/* Reads the head: where the event array starts (the bytes read past it
 * become the first carry); 0 when the stream is not to be split (small, or
 * no array in its first 64 MB); -1 when it fails. */
static long find_start(struct cursor *cur)
{
	size_t n = 0, cap = 0, start = 0;
	unsigned char *b = NULL;
	do {
		cap = cap ? cap * 2 : cur->chunk / 2 + 64;
		b = xrealloc(b, cap);
		if (read_into(cur, b, &n, cap) < 0) {
			free(b);
			return -1;
		}
		start = kineto_events_start(b, n, CHUNK_MAX);
	} while (!start && !cur->eof && cap < CHUNK_MAX);
	if (!start || (cur->eof && n - start < 2 * cur->chunk)) {
		free(b);
		return 0;
	}
	cur->head = b;
	cur->start = start;
	cur->carry = xmalloc(n - start);
	cur->carry_cap = cur->ncarry = n - start;
	memcpy(cur->carry, b + start, n - start);
	return (long)start;
}

static void slots_free(struct chunks *c)
{
	for (int i = 0; i < c->nslots; i++) {
		free(c->slots[i].buf);
		free(c->slots[i].ev);
		free(c->slots[i].more);
		strtab_free(&c->slots[i].strs);
	}
	free(c->slots);
}

/* The chunks in flight, and so the bytes: on one thread one (parsed, then
 * handed on, before the next is read); on more, one per thread parsing, one
 * being handed on and one read ahead. More read ahead only holds memory:
 * parsing is the slower step, and every thread takes part in it. */
static int slots_for(int threads)
{
	return threads == 1 ? 1 : threads + 2;
}

static int run_threads(struct cursor *cur, int threads, struct chunk_sink *sink)
{
	struct chunks c = { .nslots = slots_for(threads),
			    .doc_max = 1 + cur->chunk,
			    .wants = sink->wants };
	pthread_mutex_init(&c.mu, NULL);
	pthread_cond_init(&c.cv, NULL);
	c.slots = xcalloc((size_t)c.nslots, sizeof *c.slots);
	c.parser = kineto_simd_parser_new(c.doc_max);
	pthread_t *tids = xcalloc((size_t)threads, sizeof *tids);
	int started = 0;
	for (int i = 1; i < threads; i++)
		if (pthread_create(&tids[started], NULL, worker, &c) == 0)
			started++;
	int rc = pipeline(&c, cur, sink);
	pthread_mutex_lock(&c.mu);
	c.stop = 1;
	pthread_cond_broadcast(&c.cv);
	pthread_mutex_unlock(&c.mu);
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	/* a slot a worker still held is done by now: every worker has ended */
	slots_free(&c);
	if (c.parser)
		kineto_simd_parser_free(c.parser);
	free(tids);
	pthread_cond_destroy(&c.cv);
	pthread_mutex_destroy(&c.mu);
	return rc;
}

int kineto_chunks_read(const struct chunk_source *in, int threads, struct chunk_sink *sink)
{
	struct cursor cur = { .in = in, .chunk = in->chunk ? in->chunk : KINETO_CHUNK_BYTES };
	long start = find_start(&cur);
	int rc = start < 0 ? -1 : start == 0 ? 1 : 0;
	if (rc == 0)
		rc = run_threads(&cur, threads < 1 ? 1 : threads, sink) < 0 ? -1 : 0;
	free(cur.carry);
	free(cur.head);
	return rc;
}
