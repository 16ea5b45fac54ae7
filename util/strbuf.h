/* strbuf: a growable NUL-terminated byte buffer.
 * Allocation failure aborts (there is nothing sensible to do on a login node
 * that is out of memory); everything else is the caller's.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_STRBUF_H
#define CAMPAIGN_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len, cap;
};

#define STRBUF_INIT { NULL, 0, 0 }

void strbuf_add(struct strbuf *sb, const char *data, size_t n);
void strbuf_adds(struct strbuf *sb, const char *s);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_addch(struct strbuf *sb, char c);
/* Returns the contents ("" when empty); the buffer keeps ownership. */
const char *strbuf_str(struct strbuf *sb);
/* Hands the contents to the caller (malloc'ed) and resets the buffer. */
char *strbuf_detach(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
/* A hash of a string, for the open-addressed name indexes (names of a trace, operator tables):
 * the same in every run and on every machine (tables are in insertion order, never in
 * hash order). */
size_t str_hash(const char *s);
/* The same of s[0, n) up to a NUL in it; *len (when not NULL): the bytes hashed. */
size_t str_hash_n(const char *s, size_t n, size_t *len);
/* *list (malloc'd or NULL) with item appended, sep between items. */
void str_list_append(char **list, const char *sep, const char *item);
void strbuf_free(struct strbuf *sb);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Room for one more element in a growing array of n elements: doubles the
 * capacity *cap (from `first`) when full; returns the array. */
void *xgrow(void *v, size_t n, size_t *cap, size_t size, size_t first);
#define XGROW(v, n, cap, first) ((v) = xgrow((v), (n), &(cap), sizeof *(v), (first)))

#endif
