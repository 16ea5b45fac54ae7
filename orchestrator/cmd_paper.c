/* cmd_paper: `campaign paper RUN [--out DIR] [--verify]` writes the run's
 * paper artefacts (regenerated whole, then swapped in), or with --verify
 * regenerates them into a temporary directory and reports every file that
 * differs from DIR. */
#include "cmd.h"
#include "err.h"
#include "fsio.h"
#include "paper.h"
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int paper_exec(const struct cmd_entry *self, struct args *a)
{
	struct run *r;
	int rc = run_open(cmd_results_root(a), a->pos[0], &r);
	if (rc < 0)
		return cmd_fail(self, rc);
	struct strbuf out = STRBUF_INIT, tmp = STRBUF_INIT;
	if (args_has(a, 'o'))
		strbuf_adds(&out, args_get(a, 'o'));
	else
		strbuf_addf(&out, "%s/paper", r->dir);
	strbuf_addf(&tmp, "%s.tmp.%ld", out.buf, (long)getpid());
	fsio_remove_tree(tmp.buf);
	if ((rc = fsio_mkdir_p(tmp.buf, 0755)) == 0)
		rc = paper_generate(r, tmp.buf);
	int exit = EXIT_OK;
	if (rc < 0) {
		exit = cmd_fail(self, rc);
	} else if (args_has(a, 'v')) {
		if (!fsio_is_dir(out.buf)) {
			fprintf(stderr, "campaign paper: --verify: %s does not exist (run `campaign paper` first)\n", out.buf);
			exit = EXIT_NOTFOUND;
		} else {
			int d = paper_compare(out.buf, tmp.buf);
			printf(d ? "%s: %d file%s differ from a fresh regeneration\n" : "%s: identical to a fresh regeneration\n",
			       out.buf, d, d == 1 ? "" : "s");
			exit = d ? EXIT_JOBS_FAILED : EXIT_OK;
		}
	} else {
		if ((rc = fsio_remove_tree(out.buf)) == 0 && rename(tmp.buf, out.buf) < 0)
			rc = err_sys(ERR_IO, "cannot rename %s to %s", tmp.buf, out.buf);
		if (rc < 0)
			exit = cmd_fail(self, rc);
		else
			printf("%s\n", out.buf);
	}
	fsio_remove_tree(tmp.buf);
	strbuf_free(&out);
	strbuf_free(&tmp);
	run_free(r);
	return exit;
}

const struct cmd_entry cmd_paper_entry = {
	.name = "paper",
	.usage = "[--out DIR] [--verify] [--results DIR] RUN",
	.summary = "figures, tables, analysis, provenance and MANIFEST for a paper; byte-reproducible",
	.opts = (const struct optdef[]){
		{ 'o', "out", "DIR", "where (default RUN_DIR/paper)" },
		{ 'v', "verify", NULL, "regenerate into a temporary directory and report any difference (exit 1)" },
		{ 'R', "results", "DIR", "results root (default ./results)" },
		{ 0 } },
	.min_pos = 1, .max_pos = 1,
	.exec = paper_exec,
};
