/* builtins: the built-in placeholders ({{steps}}, {{campaign_dir}}, ...),
 * declared once: each name with its documentation and how a job script's
 * value is made. The loader asks whether a name is one (params cannot take
 * it), render.c expands them, and `campaign help --placeholders` writes the
 * table of docs/campaign-format.md from them.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_BUILTINS_H
#define CAMPAIGN_BUILTINS_H

#include "campaign.h"
#include "render.h"
#include "util/strbuf.h"

#include <stdio.h>

/* What a built-in's value is made from: the campaign, the scenario, the job. */
struct builtin_ctx {
	const struct campaign *c;
	const struct scenario *s;
	const struct render_ctx *ctx;
};

/* Appends built-in name's value for x to out: 0, or -1 when name is none. */
int builtin_expand(const struct builtin_ctx *x, const char *name, struct strbuf *out);
/* docs/campaign-format.md's placeholder table, between its generated-by and end lines. */
void builtins_doc(FILE *out);

#endif
