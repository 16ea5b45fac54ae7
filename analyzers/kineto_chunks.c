/* kineto_chunks: see kineto_chunks.h. The producer (the calling thread)
 * cuts the event array at event boundaries and copies each chunk into a
 * slot as "[events]"; any thread parses a ready slot into its events' fields
 * (strings left in the slot's own parser); the caller hands them on in slot
 * order. The last slot is the document without the chunks before it: the
 * root object's other keys (distributedInfo) are read there, in place. */
#include "kineto_chunks.h"

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

/* The producer's place in the file. */
struct cursor {
	const unsigned char *map;
	size_t n, start, pos, dropped;
	int done;
};

/* Fills the slot with the next chunk, or with the last document (the
 * root's head up to the array, then the rest of the file). */
static void produce(struct cursor *cur, struct slot *s)
{
	size_t split = cur->n - cur->pos > 2 * (size_t)KINETO_CHUNK_BYTES
		? kineto_event_split(cur->map, cur->n, cur->pos + KINETO_CHUNK_BYTES)
		: cur->n;
	if (split >= cur->n) {
		fill_slot(s, cur->map, cur->start, cur->map + cur->pos, cur->n - cur->pos, "");
		cur->done = 1;
	} else {
		fill_slot(s, "[", 1, cur->map + cur->pos, split - cur->pos, "]");
		cur->pos = split + 1;
	}
	/* the pages read are not needed again (the head is, for the last slot) */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t from = (cur->start + page - 1) / page * page, to = cur->pos / page * page;
	if (from < cur->dropped)
		from = cur->dropped;
	if (to > from) {
		madvise((void *)(cur->map + from), to - from, MADV_DONTNEED);
		cur->dropped = to;
	}
}

static int pipeline(struct chunks *c, struct cursor *cur, struct chunk_sink *sink)
{
	int rc = 0;
	while (rc == 0 && (!cur->done || c->consumed < c->produced)) {
		while (!cur->done && c->produced - c->consumed < c->nslots) {
			struct slot *s = &c->slots[c->produced % c->nslots];
			produce(cur, s);
			pthread_mutex_lock(&c->mu);
			s->state = SLOT_READY;
			c->produced++;
			pthread_cond_broadcast(&c->cv);
			pthread_mutex_unlock(&c->mu);
		}
		struct slot *s = oldest_parsed(c);
		rc = hand_on(s, sink, cur->done && c->consumed + 1 == c->produced);
		s->state = SLOT_FREE;
		c->consumed++;
	}
	return rc;
}

int kineto_chunks_read(const unsigned char *map, size_t n, int threads, struct chunk_sink *sink)
{
	size_t start = n > 2 * (size_t)KINETO_CHUNK_BYTES ? kineto_events_start(map, n, 64u << 20)
							: 0;
	if (!start || kineto_event_split(map, n, start + KINETO_CHUNK_BYTES) >= n)
		return 1;
	madvise((void *)map, n, MADV_SEQUENTIAL);
	if (threads < 1)
		threads = 1;
	struct chunks c = { .nslots = 4 * threads };
	pthread_mutex_init(&c.mu, NULL);
	pthread_cond_init(&c.cv, NULL);
	c.slots = xcalloc((size_t)c.nslots, sizeof *c.slots);
	pthread_t *tids = xcalloc((size_t)threads, sizeof *tids);
	int started = 0;
	for (int i = 1; i < threads; i++)
		if (pthread_create(&tids[started], NULL, worker, &c) == 0)
			started++;
	struct cursor cur = { map, n, start, start, 0, 0 };
	int rc = pipeline(&c, &cur, sink);
	pthread_mutex_lock(&c.mu);
	c.stop = 1;
	pthread_cond_broadcast(&c.cv);
	pthread_mutex_unlock(&c.mu);
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	/* a slot a worker still holds is done by now: every worker has ended */
	for (int i = 0; i < c.nslots; i++) {
		free(c.slots[i].buf);
		free(c.slots[i].ev);
		strtab_free(&c.slots[i].strs);
		if (c.slots[i].parser)
			kineto_simd_parser_free(c.slots[i].parser);
	}
	free(c.slots);
	free(tids);
	pthread_cond_destroy(&c.cv);
	pthread_mutex_destroy(&c.mu);
	return rc < 0 ? -1 : 0;
}
