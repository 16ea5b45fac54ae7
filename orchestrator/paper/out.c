/* paper/out: where `campaign paper` may write. A command that writes
 * artefacts never deletes what it did not create: the output folder must be
 * absent, empty, or a previous paper output whose files are exactly those its
 * MANIFEST.sha256 lists, unchanged; never a run or a folder holding one. The
 * new output is built beside it and swapped in with one rename.
 * SPDX-License-Identifier: MIT */
#include "paper.h"
#include "orchestrator/paper/prose.h"
#include "util/run_layout.h"

#include "util/err.h"
#include "util/fsio.h"
#include "util/sha256.h"
#include "util/strbuf.h"
#include "util/tempname.h"
#include "util/words.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MANIFEST "MANIFEST.sha256"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every entry under base/rel that is not a folder (links included, never
 * followed), relative to base. */
static void list_entries(const char *base, const char *rel, struct argv *out)
{
	struct strbuf dir = STRBUF_INIT;
	strbuf_addf(&dir, "%s%s%s", base, *rel ? "/" : "", rel);
	struct argv names;
	fsio_list_all(dir.buf, &names);
	for (size_t i = 0; i < names.n; i++) {
		struct strbuf r2 = STRBUF_INIT, full = STRBUF_INIT;
		struct stat st;
		strbuf_addf(&r2, "%s%s%s", rel, *rel ? "/" : "", names.v[i]);
		strbuf_addf(&full, "%s/%s", base, r2.buf);
		if (lstat(full.buf, &st) == 0 && S_ISDIR(st.st_mode))
			list_entries(base, r2.buf, out);
		else
			argv_push(out, r2.buf);
		strbuf_free(&r2);
		strbuf_free(&full);
	}
	argv_free(&names);
	strbuf_free(&dir);
}

/* 0 when out holds exactly the files its manifest lists, each unchanged;
 * else an error naming the first file that is not campaign's. */
void paper_files(const char *base, struct argv *out)
{
	list_entries(base, "", out);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof *out->v, cmp_str);
}

static int check_manifest(const char *out)
{
	struct strbuf mp = STRBUF_INIT, full = STRBUF_INIT;
	struct argv have = { 0 };
	char *text = NULL;
	strbuf_addf(&mp, "%s/" MANIFEST, out);
	int rc = fsio_read(mp.buf, 1 << 24, &text, NULL);
	if (rc < 0)
		rc = err_set(ERR_USAGE, PROSE_PAPER_OUT_NOT_OURS, out, MANIFEST);
	list_entries(out, "", &have);
	for (size_t i = 0; i < have.n && rc == 0; i++) {
		if (!strcmp(have.v[i], MANIFEST))
			continue;
		char sha[SHA256_HEX];
		struct strbuf line = STRBUF_INIT;
		struct stat st;
		strbuf_reset(&full);
		strbuf_addf(&full, "%s/%s", out, have.v[i]);
		int is_file = lstat(full.buf, &st) == 0 && S_ISREG(st.st_mode);
		if (is_file && sha256_file(full.buf, sha) == 0)
			strbuf_addf(&line, "%s  %s\n", sha, have.v[i]);
		const char *at = line.len ? strstr(text, line.buf) : NULL;
		if (!at || (at != text && at[-1] != '\n'))
			rc = err_set(
				ERR_USAGE,
				"--out %s: %s is not a file campaign paper wrote there (%s): campaign paper will not delete it; move it away or give another --out",
				out, have.v[i],
				!is_file                          ? "not a regular file"
					: strstr(text, have.v[i]) ? "changed since it was written"
								  : "not in its " MANIFEST);
		strbuf_free(&line);
	}
	free(text);
	argv_free(&have);
	strbuf_free(&mp);
	strbuf_free(&full);
	return rc;
}

/* The run itself, or any folder that holds it, is never an output. */
static int check_not_run(const char *real, const char *run_dir)
{
	size_t n = strlen(real);
	if (!strcmp(real, run_dir))
		return err_set(
			ERR_USAGE,
			"--out %s is the run's own directory: give a new folder (default: RUN/paper)",
			real);
	if (!strncmp(run_dir, real, n) && (n == 1 || run_dir[n] == '/'))
		return err_set(ERR_USAGE,
			       "--out %s holds the run %s: give a new folder (default: RUN/paper)",
			       real, run_dir);
	struct strbuf db = STRBUF_INIT;
	strbuf_addf(&db, "%s/" RUN_STATE_DB, real);
	int rc = fsio_exists(db.buf)
		? err_set(ERR_USAGE, "--out %s is a campaign run: give a new folder", real)
		: 0;
	strbuf_free(&db);
	return rc;
}

int paper_out_check(const char *out, const char *run_dir)
{
	struct stat st;
	if (lstat(out, &st) < 0)
		return errno == ENOENT ? 0 : err_sys(ERR_IO, "cannot inspect --out %s", out);
	if (S_ISLNK(st.st_mode))
		return err_set(ERR_USAGE, "--out %s is a symbolic link: give the folder itself",
			       out);
	if (!S_ISDIR(st.st_mode))
		return err_set(
			ERR_USAGE,
			"--out %s exists and is not a folder: campaign paper will not replace it",
			out);
	char *real = realpath(out, NULL);
	int rc = real ? check_not_run(real, run_dir)
		      : err_sys(ERR_IO, "cannot resolve --out %s", out);
	struct argv names = { 0 };
	if (rc == 0)
		fsio_list_all(out, &names);
	if (rc == 0 && names.n)
		rc = check_manifest(out);
	argv_free(&names);
	free(real);
	return rc;
}

char *paper_out_tmp(const char *out)
{
	char *copy = xstrdup(out), *parent = dirname(copy);
	struct strbuf t = STRBUF_INIT;
	if (fsio_mkdir_p(parent, 0755) < 0) {
		free(copy);
		return NULL;
	}
	tempname_make(&t, out, "XXXXXX");
	free(copy);
	if (!mkdtemp(t.buf)) {
		err_sys(ERR_IO, "cannot create a folder beside %s", out);
		strbuf_free(&t);
		return NULL;
	}
	chmod(t.buf, 0755);
	return strbuf_detach(&t);
}

/* Removes what killed runs of `paper` left beside out (their temporary folders). */
static void sweep_beside(const char *out)
{
	char *a = xstrdup(out), *b = xstrdup(out);
	const char *parent = dirname(a), *base = basename(b);
	int dfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsio_sweep_temps(dfd, parent, base);
		close(dfd);
	}
	free(a);
	free(b);
}

static int swap(const char *tmp, const char *out)
{
	if (rename(tmp, out) == 0) /* out was absent (or an empty folder) */
		return 0;
	if (errno != ENOTEMPTY && errno != EEXIST)
		return err_sys(ERR_IO, "cannot rename %s to %s", tmp, out);
	/* A previous output: exchanged in one step, then the old one (now at
	 * tmp) is removed; it was checked to hold only campaign's files. */
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, out, RENAME_EXCHANGE) == 0)
		return fsio_remove_tree(tmp);
	struct strbuf old = STRBUF_INIT;
	strbuf_addf(&old, "%s.old.%ld", out, (long)getpid());
	int rc = 0;
	if (rename(out, old.buf) < 0 || rename(tmp, out) < 0)
		rc = err_sys(ERR_IO, "cannot replace %s with %s", out, tmp);
	else
		rc = fsio_remove_tree(old.buf);
	strbuf_free(&old);
	return rc;
}

int paper_out_swap(const char *tmp, const char *out)
{
	int rc = swap(tmp, out);
	if (rc == 0)
		sweep_beside(out);
	return rc;
}
