/* cmd_collect: `campaign collect --dir JOB_DIR PATTERN...`, run by the job
 * script after the workload: copies the files matching each glob (relative
 * patterns are taken from the job directory) into JOB_DIR/traces/. The
 * patterns are matched by glob(3), never by a shell. */
#include "cmd.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"

#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int collect_one(const char *dir, const char *pattern, int *copied)
{
	struct strbuf pat = STRBUF_INIT, dst = STRBUF_INIT;
	if (pattern[0] == '/')
		strbuf_adds(&pat, pattern);
	else
		strbuf_addf(&pat, "%s/%s", dir, pattern);
	glob_t g;
	int rc = glob(pat.buf, 0, NULL, &g);
	for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++) {
		struct stat st;
		if (stat(g.gl_pathv[i], &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		char *copy = xstrdup(g.gl_pathv[i]);
		strbuf_reset(&dst);
		strbuf_addf(&dst, "%s/traces/%s", dir, basename(copy));
		for (int k = 1; fsio_exists(dst.buf); k++) { /* same name from two places: keep both */
			strbuf_reset(&dst);
			strbuf_addf(&dst, "%s/traces/%d_%s", dir, k, basename(copy));
		}
		free(copy);
		if (fsio_copy(g.gl_pathv[i], dst.buf) == 0)
			(*copied)++;
		else
			fprintf(stderr, "campaign collect: %s\n", err_last());
	}
	if (rc == 0)
		globfree(&g);
	strbuf_free(&pat);
	strbuf_free(&dst);
	return rc == 0 || rc == GLOB_NOMATCH ? 0 : -1;
}

static int collect_exec(const struct cmd_entry *self, struct args *a)
{
	if (!args_has(a, 'd')) {
		fprintf(stderr, "campaign collect: --dir is required\n");
		return EXIT_USAGE;
	}
	const char *dir = args_get(a, 'd');
	struct strbuf t = STRBUF_INIT;
	strbuf_addf(&t, "%s/traces", dir);
	int rc = fsio_mkdir_p(t.buf, 0755), copied = 0;
	strbuf_free(&t);
	for (int i = 0; rc == 0 && i < a->npos; i++)
		if (collect_one(dir, a->pos[i], &copied) < 0)
			fprintf(stderr, "campaign collect: cannot read the matches of %s\n", a->pos[i]);
	printf("campaign: collected %d trace file%s into traces/\n", copied, copied == 1 ? "" : "s");
	(void)self;
	return rc;
}

const struct cmd_entry cmd_collect_entry = {
	"collect", "--dir JOB_DIR PATTERN...", "copy a workload's own profiler traces into JOB_DIR/traces/",
	CMD_NODE, 1, -1, collect_exec, (const struct optdef[]){ OPT_DIR("the job directory"), OPT_END },
};
