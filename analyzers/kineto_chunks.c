/* kineto_chunks: see kineto_chunks.h. The producer (the calling thread)
 * cuts the event array at event boundaries and copies each chunk into a
 * slot as "[events]"; any thread parses a ready slot into its events' fields
 * (strings left in the slot's own parser); the caller hands them on in slot
 * order. The last slot is the document without the chunks before it: the
 * root object's other keys (distributedInfo) are read there, in place. */
#include "kineto_chunks.h"
#include "kineto.h"

#include "util/strbuf.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

struct slot {
	char *buf;                   /* the document, then KINETO_SIMD_PADDING bytes */
	size_t len, cap;
	struct kineto_simd_parser *parser;
	struct chunk_event *ev;
	size_t nev, evcap;
	struct strtab strs;
	double rank;
	int has_rank, legacy, failed, state;
};

struct chunks {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct slot *slots;
	int nslots, stop;
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

size_t kineto_event_split(const unsigned char *b, size_t n, size_t from)
{
	while (from < n) {
		const unsigned char *q = memchr(b + from, '}', n - from);
		if (!q)
			return n;
		size_t j = skip_space(b, n, (size_t)(q - b) + 1);
		if (j < n && b[j] == ',') {
			size_t k = skip_space(b, n, j + 1);
			if (k < n && b[k] == '{')
				return j;
		}
		from = (size_t)(q - b) + 1;
	}
	return n;
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
	size_t h = 5381, len = 0; /* str_hash */
	for (; len < n && s[len]; len++)
		h = h * 33 + (unsigned char)s[len];
	if (t->n * 2 >= t->nslots)
		strtab_index(t);
	size_t k = h & (t->nslots - 1);
	for (int i; (i = t->slots[k]) >= 0; k = (k + 1) & (t->nslots - 1)) {
		const char *have = t->arena + t->v[i].off;
		if (t->v[i].hash == h && !strncmp(have, s, len) && !have[len])
			return i;
	}
	if (t->len + len + 1 > t->cap) {
		t->cap = (t->len + len + 1) * 2;
		t->arena = xrealloc(t->arena, t->cap);
	}
	memcpy(t->arena + t->len, s, len);
	t->arena[t->len + len] = '\0';
	XGROW(t->v, t->n, t->vcap, 256);
	t->v[t->n] = (struct chunk_str){ NULL, h, -1, t->len };
	t->len += len + 1;
	t->slots[k] = (int)t->n;
	return (int)t->n++;
}

static int str_of(struct slot *s, const char *p, size_t n)
{
	return p ? strtab_add(&s->strs, p, n) : -1;
}

static void keep_event(void *ctx, const struct kineto_fields *f)
{
	struct slot *s = ctx;
	XGROW(s->ev, s->nev, s->evcap, 4096);
	s->ev[s->nev++] = (struct chunk_event){
		*f,
		str_of(s, f->name, f->name_len),
		str_of(s, f->cat, f->cat_len),
		str_of(s, f->tid, f->tid_len),
		str_of(s, f->coll, f->coll_len),
		str_of(s, f->pg, f->pg_len),
		str_of(s, f->dtype, f->dtype_len),
		f->ph && f->ph_len ? f->ph[0] : 0,
	};
}

static void keep_rank(void *ctx, double rank)
{
	struct slot *s = ctx;
	s->rank = rank;
	s->has_rank = 1;
}

static void parse_slot(struct slot *s)
{
	struct kineto_simd_sink sink = { keep_event, keep_rank, s, 0 };
	size_t where;
	const char *why;
	s->nev = 0;
	s->has_rank = 0;
	strtab_reset(&s->strs);
	if (!s->parser)
		s->parser = kineto_simd_parser_new();
	s->failed = !s->parser ||
		kineto_simd_parse_with(s->parser, s->buf, s->len, &sink, &where, &why) < 0;
	s->legacy = sink.legacy;
	for (size_t i = 0; i < s->strs.n; i++) /* the arena stays put from here on */
		s->strs.v[i].s = s->strs.arena + s->strs.v[i].off;
}

/* Copies the pieces into the slot's buffer, zero padding after them. */
static void fill_slot(struct slot *s, const void *a, size_t na, const void *b, size_t nb,
		      const char *close)
{
	size_t nc = strlen(close), len = na + nb + nc;
	if (s->cap < len) {
		free(s->buf);
		s->cap = len + len / 4;
		s->buf = xmalloc(s->cap + KINETO_SIMD_PADDING);
	}
	memcpy(s->buf, a, na);
	memcpy(s->buf + na, b, nb);
	memcpy(s->buf + na + nb, close, nc);
	memset(s->buf + len, 0, KINETO_SIMD_PADDING);
	s->len = len;
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

static void parse_taken(struct chunks *c, struct slot *s)
{
	parse_slot(s);
	pthread_mutex_lock(&c->mu);
	s->state = SLOT_DONE;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
}

static void *worker(void *arg)
{
	struct chunks *c = arg;
	pthread_mutex_lock(&c->mu);
	while (!c->stop) {
		struct slot *s = take_ready(c);
		if (!s) {
			pthread_cond_wait(&c->cv, &c->mu);
			continue;
		}
		pthread_mutex_unlock(&c->mu);
		parse_taken(c, s);
		pthread_mutex_lock(&c->mu);
	}
	pthread_mutex_unlock(&c->mu);
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
			parse_taken(c, mine);
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
	for (size_t i = 0; i < s->nev; i++)
		sink->event(sink->ctx, &s->ev[i], s->strs.v);
	if (s->has_rank)
		sink->rank(sink->ctx, s->rank);
	if (last)
		sink->legacy = s->legacy;
	return 0;
}

/* The most bytes the window holds while looking for a cut (a longer event
 * or string: the file is read whole, which has its own limits). */
#define WINDOW_MAX (64u << 20)

/* The producer's place in the file: the window holds the bytes from file
 * offset base on (all of a mapped file; a sliding buffer of a stream). */
struct cursor {
	const struct chunk_source *in;
	const unsigned char *win;
	size_t wlen, base;
	unsigned char *own;          /* the window's buffer when streaming */
	size_t cap;
	int eof;
	const unsigned char *head;   /* the document up to the event array */
	unsigned char *head_copy;    /* (a stream's, kept: its window moves on) */
	size_t start, pos, dropped;  /* start: the array's first byte; pos: the next chunk's */
	int done;
};

/* Reads more of a stream into the window, first dropping what lies before
 * pos; 0, or -1 on a read error or past the limits. */
static int fill(struct cursor *cur)
{
	size_t keep = cur->base + cur->wlen - cur->pos;
	if (cur->pos > cur->base) {
		memmove(cur->own, cur->own + (cur->pos - cur->base), keep);
		cur->base = cur->pos;
		cur->wlen = keep;
	}
	/* room for a few chunks, so that most reads move only a chunk's tail */
	size_t want = cur->wlen + 8 * (size_t)KINETO_CHUNK_BYTES;
	if (want > WINDOW_MAX + 8 * (size_t)KINETO_CHUNK_BYTES)
		return -1;
	if (cur->cap < want) {
		cur->cap = want;
		cur->own = xrealloc(cur->own, cur->cap);
		cur->win = cur->own;
	}
	while (cur->wlen < cur->cap && !cur->eof) {
		long n = cur->in->read(cur->in->src, cur->own + cur->wlen, cur->cap - cur->wlen);
		if (n < 0)
			return -1;
		cur->eof = n == 0;
		cur->wlen += (size_t)n;
	}
	return cur->base + cur->wlen > cur->in->max_bytes ? -1 : 0;
}

/* The bytes of the next chunk: [pos, *split) of the file, or *split = 0
 * with the rest of the file for the last document; -1 when a stream fails. */
static int next_cut(struct cursor *cur, size_t *split)
{
	for (;;) {
		size_t rel = cur->pos - cur->base, avail = cur->wlen - rel;
		if (!cur->eof && avail < 3 * (size_t)KINETO_CHUNK_BYTES) {
			if (fill(cur) < 0)
				return -1;
			continue;
		}
		size_t at = avail > 2 * (size_t)KINETO_CHUNK_BYTES
			? kineto_event_split(cur->win + rel, avail, KINETO_CHUNK_BYTES)
			: avail;
		if (at < avail) {
			*split = cur->pos + at;
			return 0;
		}
		/* no cut in more than two chunks: a string too long for a trace?
		 * (then the whole reading names it) */
		struct kineto_strscan sc = { 0 };
		if (avail > 2 * (size_t)KINETO_CHUNK_BYTES &&
		    kineto_long_string_at(&sc, cur->win + rel, avail, TRACE_MAX_STRING) < avail)
			return -1;
		if (cur->eof) {
			*split = 0;
			return 0;
		}
		if (fill(cur) < 0) /* no cut yet: a longer window */
			return -1;
	}
}

/* The pages of a mapped file read are not needed again (the head is, for
 * the last slot). */
static void drop_read(struct cursor *cur)
{
	if (!cur->in->map)
		return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t from = (cur->start + page - 1) / page * page, to = cur->pos / page * page;
	if (from < cur->dropped)
		from = cur->dropped;
	if (to > from) {
		madvise((void *)(cur->win + from), to - from, MADV_DONTNEED);
		cur->dropped = to;
	}
}

/* Fills the slot with the next chunk, or with the last document (the
 * root's head up to the array, then the rest of the file); -1 when a
 * stream fails. */
static int produce(struct cursor *cur, struct slot *s)
{
	size_t split;
	if (next_cut(cur, &split) < 0)
		return -1;
	const unsigned char *at = cur->win + (cur->pos - cur->base);
	if (!split) {
		fill_slot(s, cur->head, cur->start, at, cur->base + cur->wlen - cur->pos, "");
		cur->done = 1;
	} else {
		fill_slot(s, "[", 1, at, split - cur->pos, "]");
		cur->pos = split + 1;
	}
	drop_read(cur);
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
		s->state = SLOT_FREE;
		c->consumed++;
	}
	return rc;
}

/* Where the event array starts: 0 when the file is not to be split (small,
 * or no array in its first bytes); -1 when a stream fails. */
static long find_start(struct cursor *cur)
{
	if (cur->in->map) {
		size_t n = cur->wlen, start = kineto_events_start(cur->win, n, WINDOW_MAX);
		return start && kineto_event_split(cur->win, n, start + KINETO_CHUNK_BYTES) < n
			? (long)start : 0;
	}
	size_t start = 0;
	while (!(start = kineto_events_start(cur->win, cur->wlen, WINDOW_MAX)) && !cur->eof &&
	       cur->wlen < WINDOW_MAX)
		if (fill(cur) < 0)
			return -1;
	if (!start || (cur->eof && cur->wlen - start < 2 * (size_t)KINETO_CHUNK_BYTES))
		return 0;
	cur->head_copy = xmalloc(start);
	memcpy(cur->head_copy, cur->win, start);
	cur->head = cur->head_copy;
	return (long)start;
}

static void slots_free(struct chunks *c)
{
	for (int i = 0; i < c->nslots; i++) {
		free(c->slots[i].buf);
		free(c->slots[i].ev);
		strtab_free(&c->slots[i].strs);
		if (c->slots[i].parser)
			kineto_simd_parser_free(c->slots[i].parser);
	}
	free(c->slots);
}

static int run_threads(struct cursor *cur, int threads, struct chunk_sink *sink)
{
	struct chunks c = { .nslots = 4 * threads };
	pthread_mutex_init(&c.mu, NULL);
	pthread_cond_init(&c.cv, NULL);
	c.slots = xcalloc((size_t)c.nslots, sizeof *c.slots);
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
	free(tids);
	pthread_cond_destroy(&c.cv);
	pthread_mutex_destroy(&c.mu);
	return rc;
}

int kineto_chunks_read(const struct chunk_source *in, int threads, struct chunk_sink *sink)
{
	struct cursor cur = { .in = in, .win = in->map, .wlen = in->map ? in->n : 0,
			      .eof = in->map != NULL, .head = in->map };
	if (in->map && in->n > in->max_bytes)
		return -1;
	long start = find_start(&cur);
	int rc = start < 0 ? -1 : start == 0 ? 1 : 0;
	if (rc == 0) {
		if (in->map)
			madvise((void *)in->map, in->n, MADV_SEQUENTIAL);
		cur.start = cur.pos = (size_t)start;
		rc = run_threads(&cur, threads < 1 ? 1 : threads, sink) < 0 ? -1 : 0;
	}
	free(cur.own);
	free(cur.head_copy);
	return rc;
}
