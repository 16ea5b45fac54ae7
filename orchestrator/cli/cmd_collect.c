/* cmd_collect: `campaign collect --dir JOB_DIR PATTERN...`, run by the job
 * script after the workload: copies the files matching each glob (relative
 * patterns are taken from the job directory) into JOB_DIR/traces/. The
 * patterns are matched by glob(3), never by a shell. A file is collected
 * once: one already in traces/ (same inode) or with the same bytes as one
 * collected is skipped; traces/ that is a link, and FIFOs, are refused. A copy
 * keeps its source's modification time (when the workload wrote it).
 * SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "util/run_layout.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/sha256.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <fcntl.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct collect {
	const char *dir;
	int tfd;            /* JOB_DIR/traces, opened without following links */
	struct argv hashes; /* contents collected or found there */
	int copied, skipped;
};

static int seen(struct collect *c, const char *sha)
{
	for (size_t i = 0; i < c->hashes.n; i++)
		if (!strcmp(c->hashes.v[i], sha))
			return 1;
	argv_push(&c->hashes, sha);
	return 0;
}

/* The contents of files already in traces/ (written there by the workload,
 * or collected by an earlier attempt) count as collected. */
static void hash_present(struct collect *c)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" JOB_TRACES, c->dir);
	struct argv names;
	fsio_list(p.buf, &names);
	char sha[SHA256_HEX];
	for (size_t i = 0; i < names.n; i++) {
		struct stat st;
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/" JOB_TRACES "/%s", c->dir, names.v[i]);
		if (lstat(p.buf, &st) == 0 && S_ISREG(st.st_mode) && sha256_file(p.buf, sha) == 0)
			seen(c, sha);
	}
	argv_free(&names);
	strbuf_free(&p);
}

static void collect_file(struct collect *c, const char *src)
{
	struct stat st, in;
	char *data = NULL, *copy = xstrdup(src), sha[SHA256_HEX];
	const char *base = basename(copy);
	size_t len;
	struct strbuf name = STRBUF_INIT, shown = STRBUF_INIT;
	if (fstatat(c->tfd, base, &in, AT_SYMLINK_NOFOLLOW) == 0 && stat(src, &st) == 0 &&
	    in.st_dev == st.st_dev && in.st_ino == st.st_ino)
		goto out; /* already in traces/: never copied onto itself */
	if (fsio_read(src, (size_t)1 << 32, &data, &len) < 0) {
		fprintf(stderr, "campaign collect: %s\n", err_last());
		goto out;
	}
	sha256_hex(data, len, sha);
	if (seen(c, sha)) {
		c->skipped++;
		goto out;
	}
	strbuf_adds(&name, base);
	/* same name from two places */
	for (int k = 1; fstatat(c->tfd, name.buf, &in, AT_SYMLINK_NOFOLLOW) == 0; k++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "%d_%s", k, base);
	}
	strbuf_addf(&shown, "%s/" JOB_TRACES "/%s", c->dir, name.buf);
	if (fsio_write_at(c->tfd, name.buf, shown.buf, data, len, 0644) == 0) {
		/* the time it was written: the analysis bounds its steps' end by it */
		if (stat(src, &st) == 0)
			utimensat(c->tfd, name.buf, (struct timespec[2]){ st.st_atim, st.st_mtim },
				  AT_SYMLINK_NOFOLLOW);
		c->copied++;
	} else
		fprintf(stderr, "campaign collect: %s\n", err_last());
out:
	free(data);
	free(copy);
	strbuf_free(&name);
	strbuf_free(&shown);
}

static int collect_one(struct collect *c, const char *pattern)
{
	struct strbuf pat = STRBUF_INIT;
	if (pattern[0] == '/')
		strbuf_adds(&pat, pattern);
	else
		strbuf_addf(&pat, "%s/%s", c->dir, pattern);
	glob_t g;
	int rc = glob(pat.buf, 0, NULL, &g);
	for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++) {
		struct stat st;
		if (stat(g.gl_pathv[i], &st) == 0 && S_ISREG(st.st_mode))
			collect_file(c, g.gl_pathv[i]);
		else if (!S_ISDIR(st.st_mode))
			fprintf(stderr,
				"campaign collect: %s is not a regular file: not collected\n",
				g.gl_pathv[i]);
	}
	if (rc == 0)
		globfree(&g);
	strbuf_free(&pat);
	return rc == 0 || rc == GLOB_NOMATCH ? 0 : -1;
}

static int collect_exec(const struct cmd_entry *self, struct args *a)
{
	(void)self;
	if (!args_has(a, 'd')) {
		fprintf(stderr, "campaign collect: --dir is required\n");
		return EXIT_USAGE;
	}
	struct collect c = { .dir = args_get(a, 'd') };
	if ((c.tfd = fsio_open_dir_in(c.dir, JOB_TRACES, 1)) < 0) {
		fprintf(stderr, "campaign collect: %s\n", err_last());
		return c.tfd;
	}
	hash_present(&c);
	for (int i = 0; i < a->npos; i++)
		if (collect_one(&c, a->pos[i]) < 0)
			fprintf(stderr, "campaign collect: cannot read the matches of %s\n",
				a->pos[i]);
	printf("campaign: collected %d trace file%s into traces/", c.copied,
	       c.copied == 1 ? "" : "s");
	if (c.skipped)
		printf(" (%d more with the same bytes as one collected: skipped)", c.skipped);
	printf("\n");
	close(c.tfd);
	argv_free(&c.hashes);
	return 0;
}

const struct cmd_entry cmd_collect_entry = {
	.name = "collect",
	.usage = "--dir JOB_DIR PATTERN...",
	.summary = "copy a workload's own profiler traces into JOB_DIR/traces/",
	.flags = CMD_NODE,
	.min_pos = 1,
	.max_pos = -1,
	.exec = collect_exec,
	.opts = (const struct optdef[]){ OPT_DIR("the job directory"), OPT_END },
};
