/* cmd_render: `campaign render FILE --out DIR` writes every scenario's job
 * script as it would be submitted, and submits nothing; it prints each
 * script's path and the words its ranks' command gets.
 * SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "util/run_layout.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "orchestrator/run.h"

#include <stdio.h>
#include <stdlib.h>

/* "  argv: 'w1' 'w2'": each word shell-quoted, so its bounds show ('' an
 * empty one), then made safe for a terminal (a newline as \n). */
static void print_argv(const struct argv *w)
{
	struct strbuf q = STRBUF_INIT, line = STRBUF_INIT;
	for (size_t k = 0; k < w->n; k++) {
		if (k)
			strbuf_addch(&q, ' ');
		shell_quote(&q, w->v[k]);
	}
	display_quote(&line, strbuf_str(&q));
	printf("  argv: %s\n", strbuf_str(&line));
	strbuf_free(&q);
	strbuf_free(&line);
}

static int render_exec(const struct cmd_entry *self, struct args *a)
{
	struct campaign c;
	if (!args_has(a, 'o')) {
		fprintf(stderr, "campaign render: --out DIR is required\n");
		return EXIT_USAGE;
	}
	int rc = cmd_load_campaign(a->pos[0], &c);
	if (rc)
		return rc;
	char *out = fsio_abspath(args_get(a, 'o'));
	char *bin = fsio_self_dir();
	struct argv *argvs = xcalloc(c.n_scenarios ? c.n_scenarios : 1, sizeof *argvs);
	rc = run_render_all(&c, out, "render", bin, 0, argvs);
	for (size_t i = 0; i < c.n_scenarios; i++) {
		if (rc == 0) {
			printf("%s/%s/" JOB_SCRIPT "\n", out, c.scenarios[i].name);
			print_argv(&argvs[i]);
		}
		argv_free(&argvs[i]);
	}
	free(argvs);
	free(out);
	free(bin);
	campaign_free(&c);
	(void)self;
	return rc;
}

const struct cmd_entry cmd_render_entry = {
	.name = "render",
	.usage = "--out DIR FILE",
	.summary = "write each scenario's job script into DIR/<scenario>/ and print its ranks' argv; submits nothing",
	.flags = 0,
	.min_pos = 1,
	.max_pos = 1,
	.exec = render_exec,
	.opts = (const struct optdef[]){
		{ 'o', "out", "DIR", "where to write the scripts (required)" },
		OPT_END },
};
