/* cmd_paper: `campaign paper RUN [--out DIR] [--verify]` writes the run's
 * paper artefacts (regenerated whole, then swapped in), or with --verify
 * regenerates them into a temporary directory and reports every file that
 * differs from DIR. */
#include "cmd.h"
#include "util/err.h"
#include "util/fsio.h"
#include "orchestrator/paper.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int paper_exec(const struct cmd_entry *self, struct args *a)
{
	struct run *r = a->run;
	int rc;
	struct strbuf out = STRBUF_INIT, tmp = STRBUF_INIT;
	if (args_has(a, 'o'))
		strbuf_adds(&out, args_get(a, 'o'));
	else
		strbuf_addf(&out, "%s/paper", r->dir);
	strbuf_addf(&tmp, "%s.tmp.%ld", out.buf, (long)getpid());
	fsio_remove_tree(tmp.buf);
	if ((rc = fsio_mkdir_p(tmp.buf, 0755)) == 0)
		rc = paper_generate(r, tmp.buf);
	int exit = rc;
	(void)self;
	if (rc == 0 && args_has(a, 'v')) {
		if (!fsio_is_dir(out.buf)) {
			fprintf(stderr, "campaign paper: --verify: %s does not exist (run `campaign paper` first)\n", out.buf);
			exit = EXIT_NOTFOUND;
		} else {
			int d = paper_compare(out.buf, tmp.buf);
			printf(d ? "%s: %d file%s differ from a fresh regeneration\n" : "%s: identical to a fresh regeneration\n",
			       out.buf, d, d == 1 ? "" : "s");
			exit = d ? EXIT_JOBS_FAILED : EXIT_OK;
		}
	} else if (rc == 0) {
		if ((rc = fsio_remove_tree(out.buf)) == 0 && rename(tmp.buf, out.buf) < 0)
			rc = err_sys(ERR_IO, "cannot rename %s to %s", tmp.buf, out.buf);
		if ((exit = rc) == 0)
			printf("%s\n", out.buf);
	}
	fsio_remove_tree(tmp.buf);
	strbuf_free(&out);
	strbuf_free(&tmp);
	return exit;
}

const struct cmd_entry cmd_paper_entry = {
	"paper", "[--out DIR] [--verify] [--results DIR] RUN",
	"figures, tables, analysis, provenance and MANIFEST for a paper; byte-reproducible",
	CMD_RUN, 1, 1, paper_exec, (const struct optdef[]){
		{ 'o', "out", "DIR", "where (default RUN_DIR/paper)" },
		{ 'v', "verify", NULL, "regenerate into a temporary directory and report any difference (exit 1)" },
		OPT_END },
};
