/* SPDX-License-Identifier: MIT */
#include "words.h"

#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

void argv_push_quoted(struct argv *a, const char *s, int quoted)
{
	a->v = xrealloc(a->v, (a->n + 2) * sizeof *a->v);
	a->quoted = xrealloc(a->quoted, a->n + 1);
	a->quoted[a->n] = (unsigned char)(quoted != 0);
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

void argv_push(struct argv *a, const char *s)
{
	argv_push_quoted(a, s, 0);
}

void argv_free(struct argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	free(a->quoted);
	a->v = NULL;
	a->quoted = NULL;
	a->n = 0;
}

void argv_copy(struct argv *dst, const struct argv *src)
{
	memset(dst, 0, sizeof *dst);
	for (size_t i = 0; i < src->n; i++)
		argv_push_quoted(dst, src->v[i], src->quoted[i]);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int words_split(const char *s, struct argv *out, const char **why)
{
	struct strbuf w = STRBUF_INIT;
	int in_word = 0, quoted = 0;
	memset(out, 0, sizeof *out);
	for (const char *p = s; *p; p++) {
		if (is_blank(*p)) {
			if (in_word)
				argv_push_quoted(out, strbuf_str(&w), quoted);
			strbuf_reset(&w);
			in_word = quoted = 0;
			continue;
		}
		in_word = 1;
		if (*p == '\'' || *p == '"' || *p == '\\')
			quoted = 1;
		if (*p == '\'') {
			const char *e = strchr(p + 1, '\'');
			if (!e)
				goto unterminated;
			strbuf_add(&w, p + 1, (size_t)(e - p - 1));
			p = e;
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
					p++;
				strbuf_addch(&w, *p);
			}
			if (!*p)
				goto unterminated;
		} else if (*p == '\\' && p[1]) {
			strbuf_addch(&w, *++p);
		} else {
			strbuf_addch(&w, *p);
		}
	}
	if (in_word)
		argv_push_quoted(out, strbuf_str(&w), quoted);
	strbuf_free(&w);
	return 0;
unterminated:
	*why = "unterminated quote";
	strbuf_free(&w);
	argv_free(out);
	return -1;
}

int argv_has(const struct argv *a, const char *s)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->v[i], s))
			return 1;
	return 0;
}
