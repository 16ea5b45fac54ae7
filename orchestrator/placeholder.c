#include "placeholder.h"

#include <stdio.h>
#include <string.h>

int placeholder_expand(const char *in, placeholder_fn fn, void *ctx,
		       struct strbuf *out, char *bad, size_t badlen)
{
	const char *p = in;
	for (;;) {
		const char *open = strstr(p, "{{");
		if (!open) {
			strbuf_adds(out, p);
			return 0;
		}
		strbuf_add(out, p, (size_t)(open - p));
		const char *close = strstr(open + 2, "}}");
		if (!close) {
			snprintf(bad, badlen, "{{");
			return -1;
		}
		const char *s = open + 2, *e = close;
		while (s < e && *s == ' ')
			s++;
		while (e > s && e[-1] == ' ')
			e--;
		char name[128];
		size_t n = (size_t)(e - s);
		if (n >= sizeof name)
			n = sizeof name - 1;
		memcpy(name, s, n);
		name[n] = '\0';
		if (fn(ctx, name, out) < 0) {
			snprintf(bad, badlen, "%s", name);
			return -1;
		}
		p = close + 2;
	}
}
