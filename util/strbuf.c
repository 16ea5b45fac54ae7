/* SPDX-License-Identifier: MIT */
#include "strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("campaign: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) {
		fputs("campaign: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fputs("campaign: out of memory\n", stderr);
		abort();
	}
	return q;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

static void strbuf_grow(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap : 64;
	while (cap < sb->len + extra + 1)
		cap *= 2;
	sb->buf = xrealloc(sb->buf, cap);
	sb->cap = cap;
}

void strbuf_add(struct strbuf *sb, const char *data, size_t n)
{
	strbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_adds(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	strbuf_grow(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

const char *strbuf_str(struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

char *strbuf_detach(struct strbuf *sb)
{
	char *s = sb->buf ? sb->buf : xstrdup("");
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return s;
}

/* A 64-bit word at a time (a trace's kernel names run to hundreds of bytes, hashed once per
 * event), mixed at the end: the tables index by the low bits. */
static size_t hash_bytes(const char *s, size_t n)
{
	const uint64_t k = 0x9e3779b97f4a7c15u;
	uint64_t h = k ^ n, w;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		h = ((h << 5 | h >> 59) ^ w) * k;
	}
	w = 0;
	memcpy(&w, s + i, n - i);
	h = ((h << 5 | h >> 59) ^ w) * k;
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93u;
	return (size_t)(h ^ h >> 32);
}

size_t str_hash_n(const char *s, size_t n, size_t *len)
{
	size_t l = strnlen(s, n);
	if (len)
		*len = l;
	return hash_bytes(s, l);
}

size_t str_hash(const char *s)
{
	return hash_bytes(s, strlen(s));
}

void str_list_append(char **list, const char *sep, const char *item)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s%s%s", *list ? *list : "", *list ? sep : "", item);
	free(*list);
	*list = strbuf_detach(&sb);
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void strbuf_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

void *xgrow(void *v, size_t n, size_t *cap, size_t size, size_t first)
{
	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : first;
	return xrealloc(v, *cap * size);
}
