/* SPDX-License-Identifier: MIT */
#include "knob_trainer.h"

#include "util/trainer_options.h"

#include <stdlib.h>
#include <string.h>

/* The value of option opt among w's words from `from` ("--opt N" or "--opt=N"); dflt when
 * it is not there, 0 when its value is no positive number. */
static int option_of(const struct argv *w, size_t from, const char *opt, int dflt)
{
	size_t n = strlen(opt);
	int v = dflt;
	for (size_t i = from; i < w->n; i++) {
		const char *a = w->v[i], *val = NULL;
		if (!strcmp(a, opt) && i + 1 < w->n)
			val = w->v[i + 1];
		else if (!strncmp(a, opt, n) && a[n] == '=')
			val = a + n + 1;
		if (!val)
			continue;
		char *end;
		long x = strtol(val, &end, 10);
		v = *end || x < 1 || x > 1 << 20 ? 0 : (int)x;
	}
	return v;
}

/* The word of w that runs the trainer (its name, or a path ending in it); w->n when none. */
static size_t trainer_word(const struct argv *w)
{
	size_t n = strlen(TRAINER_PROGRAM);
	for (size_t i = 0; i < w->n; i++) {
		size_t len = strlen(w->v[i]);
		if (len >= n && !strcmp(w->v[i] + len - n, TRAINER_PROGRAM) &&
		    (len == n || w->v[i][len - n - 1] == '/'))
			return i;
	}
	return w->n;
}

/* s's command rendered under ctx with c's knob of kind applied (its params set over s's),
 * into *w; the word that runs the reference trainer, w->n when none (or no such knob). */
static size_t knob_command(const struct campaign *c, const struct scenario *s,
			   const struct render_ctx *ctx, const char *kind, struct argv *w)
{
	const struct knob *k = campaign_knob(c, kind);
	*w = (struct argv){ 0 };
	if (!k)
		return 0;
	struct scenario with = *s;
	kvlist_copy(&with.params, &s->params); /* (it starts with.params afresh) */
	for (size_t j = 0; j < k->params.n; j++)
		kvlist_set(&with.params, k->params.items[j].key, k->params.items[j].value);
	if (render_command(c, &with, ctx, w) < 0) {
		argv_free(w);
		*w = (struct argv){ 0 }; /* not the trainer's, as far as can be told */
	}
	kvlist_free(&with.params);
	return trainer_word(w);
}

void knob_loader(const struct campaign *c, const struct scenario *s,
		 const struct render_ctx *ctx, int *workers, int *prefetch)
{
	struct argv w;
	size_t t = knob_command(c, s, ctx, "data_loading", &w);
	const struct knob *k = campaign_knob(c, "data_loading");
	*workers = *prefetch = 0;
	if (t < w.n) {
		*workers = option_of(&w, t + 1, TRAINER_WORKERS_OPT, TRAINER_DEFAULT_WORKERS);
		*prefetch = option_of(&w, t + 1, TRAINER_PREFETCH_OPT, TRAINER_DEFAULT_PREFETCH);
	} else if (k && k->loader_workers > 0) { /* a DataLoader of the user's own */
		int per = k->loader_prefetch > 0 ? k->loader_prefetch : KNOB_LOADER_PREFETCH;
		*workers = k->loader_workers;
		*prefetch = k->loader_workers * per;
	}
	argv_free(&w);
}

void knob_checkpoints(const struct campaign *c, const struct scenario *s,
		      const struct render_ctx *ctx, int *every, int *async)
{
	struct argv w;
	size_t t = knob_command(c, s, ctx, "io", &w);
	*every = *async = 0;
	if (t < w.n) {
		*every = option_of(&w, t + 1, TRAINER_CKPT_EVERY_OPT, 0);
		*async = option_of(&w, t + 1, TRAINER_CKPT_ASYNC_OPT, 0) == 1;
	}
	argv_free(&w);
}
