/* SPDX-License-Identifier: MIT */
#include "placeholder.h"

#include <stdio.h>
#include <string.h>

long placeholder_next(const char *s, const char **open, const char **end, char *name, size_t n)
{
	const char *o = strstr(s, "{{");
	if (!o)
		return -1;
	const char *c = strstr(o + 2, "}}");
	if (!c)
		return -2;
	const char *b = o + 2, *e = c;
	while (b < e && *b == ' ')
		b++;
	while (e > b && e[-1] == ' ')
		e--;
	size_t len = (size_t)(e - b), k = len < n ? len : n - 1;
	memcpy(name, b, k);
	name[k] = '\0';
	*open = o;
	*end = c + 2;
	return (long)len;
}

int placeholder_expand(const char *in, placeholder_fn fn, void *ctx,
		       struct strbuf *out, char *bad, size_t badlen)
{
	const char *p = in;
	for (;;) {
		const char *open, *end;
		char name[128];
		long len = placeholder_next(p, &open, &end, name, sizeof name);
		if (len == -1) {
			strbuf_adds(out, p);
			return 0;
		}
		if (len == -2) {
			snprintf(bad, badlen, "{{");
			return -1;
		}
		strbuf_add(out, p, (size_t)(open - p));
		if (fn(ctx, name, out) < 0) {
			snprintf(bad, badlen, "%s", name);
			return -1;
		}
		p = end;
	}
}
