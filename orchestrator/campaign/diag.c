/* SPDX-License-Identifier: MIT */
#include "diag.h"

#include "util/quote.h"
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void diags_init(struct diags *d, const char *file)
{
	memset(d, 0, sizeof *d);
	d->file = xstrdup(file);
}

void diags_add(struct diags *d, int line, int col, const char *path, const char *fmt, ...)
{
	XGROW(d->items, d->n, d->cap, 8);
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	char tmp[1024];
	vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	/* a value with a newline or a bidi override stays one visible line */
	display_quote(&sb, tmp);
	struct diag *g = &d->items[d->n++];
	struct strbuf p = STRBUF_INIT;
	display_quote(&p, path ? path : "");
	g->line = line;
	g->col = col;
	g->path = strbuf_detach(&p);
	g->msg = strbuf_detach(&sb);
}

static int diag_cmp(const void *a, const void *b)
{
	const struct diag *x = a, *y = b;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return strcmp(x->msg, y->msg);
}

void diags_print(struct diags *d, FILE *out)
{
	if (d->n > 1)
		qsort(d->items, d->n, sizeof *d->items, diag_cmp);
	for (size_t i = 0; i < d->n; i++) {
		struct diag *g = &d->items[i];
		if (g->line > 0)
			fprintf(out, "%s:%d:%d: ", d->file, g->line, g->col);
		else
			fprintf(out, "%s: ", d->file); /* the file as a whole */
		if (g->path[0])
			fprintf(out, "%s: ", g->path);
		fprintf(out, "%s\n", g->msg);
	}
}

void diags_free(struct diags *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->items[i].path);
		free(d->items[i].msg);
	}
	free(d->items);
	free(d->file);
	memset(d, 0, sizeof *d);
}
