/* cmd_paper: `campaign paper RUN [--out DIR] [--verify]` writes the run's
 * paper artefacts (regenerated whole, then swapped in), or with --verify
 * regenerates them into a temporary directory and reports every file that
 * differs from DIR.
 * SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "util/err.h"
#include "util/fsio.h"
#include "orchestrator/paper/paper.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int paper_exec(const struct cmd_entry *self, struct args *a)
{
	struct run *r = a->run;
	struct strbuf out = STRBUF_INIT;
	char *tmp = NULL;
	(void)self;
	if (args_has(a, 'o'))
		strbuf_adds(&out, args_get(a, 'o'));
	else
		strbuf_addf(&out, "%s/paper", r->dir);
	while (out.len > 1 && out.buf[out.len - 1] == '/')
		out.buf[--out.len] = '\0';
	int verify = args_has(a, 'v');
	int rc = verify ? 0 : paper_out_check(out.buf, r->dir);
	if (rc == 0 && !(tmp = paper_out_tmp(out.buf)))
		rc = ERR_IO;
	if (rc == 0)
		rc = paper_generate(r, tmp);
	int exit = rc;
	if (rc == 0 && verify) {
		if (!fsio_is_dir(out.buf)) {
			fprintf(stderr,
				"campaign paper: --verify: %s does not exist (run `campaign paper` first)\n",
				out.buf);
			exit = EXIT_NOTFOUND;
		} else {
			int d = paper_compare(out.buf, tmp);
			printf(d ? "%s: %d file%s differ from a fresh regeneration\n"
				 : "%s: identical to a fresh regeneration\n",
			       out.buf, d, d == 1 ? "" : "s");
			exit = d ? EXIT_JOBS_FAILED : EXIT_OK;
		}
	} else if (rc == 0) {
		/* checked again: nothing the user put there since is deleted */
		if ((rc = paper_out_check(out.buf, r->dir)) == 0 &&
		    (rc = paper_out_swap(tmp, out.buf)) == 0)
			printf("%s\n", out.buf);
		exit = rc;
	}
	if (tmp)
		fsio_remove_tree(tmp);
	free(tmp);
	strbuf_free(&out);
	return exit;
}

const struct cmd_entry cmd_paper_entry = {
	.name = "paper",
	.usage = "[--out DIR] [--verify] [--results DIR] RUN",
	.summary = "figures, tables, analysis, provenance, MANIFEST (a variant's checks too); byte-reproducible",
	.flags = CMD_RUN,
	.min_pos = 1,
	.max_pos = 1,
	.exec = paper_exec,
	.opts = (const struct optdef[]){
		{ 'o', "out", "DIR",
		  "where (default RUN_DIR/paper): a new or empty folder, or a previous paper output, which is replaced whole; any other folder is refused" },
		{ 'v', "verify", NULL,
		  "regenerate into a temporary directory and report any difference (exit 1)" },
		OPT_END },
};
