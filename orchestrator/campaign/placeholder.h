/* placeholder: {{name}} substitution in templates, commands and names.
 * The caller decides what a name means and how its value is escaped; this
 * module only finds placeholders, so every use shares one syntax.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_PLACEHOLDER_H
#define CAMPAIGN_PLACEHOLDER_H

#include "util/strbuf.h"

#include <stddef.h>

/* Appends the value of name to out and returns 0, or returns -1 when the
 * name is unknown. */
typedef int (*placeholder_fn)(void *ctx, const char *name, struct strbuf *out);

/* Finds the first {{ name }} in s: *open points at its "{{", *end just past
 * its "}}", and name (n bytes) receives the name without surrounding
 * spaces, cut to fit; returns the name's full length, -1 when s holds no
 * "{{", -2 when a "{{" is never closed. */
long placeholder_next(const char *s, const char **open, const char **end, char *name, size_t n);

/* Expands every {{ name }} of in into out. On an unknown name or an
 * unterminated "{{", returns -1 with the name (or "{{") in bad. */
int placeholder_expand(const char *in, placeholder_fn fn, void *ctx,
		       struct strbuf *out, char *bad, size_t badlen);

#endif
