/* commits: GOOD..BAD on BAD's first-parent line, with libgit2.
 * SPDX-License-Identifier: MIT */
#include "commits.h"
#include "util/err.h"
#include "util/strbuf.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *git_why(void)
{
	const git_error *e = git_error_last();
	return e && e->message ? e->message : "unknown libgit2 error";
}

/* rev as a commit's id; ERR_USAGE, said so, when it names none. */
static int resolve(git_repository *repo, const char *rev, const char *role, git_oid *out)
{
	git_object *o = NULL, *c = NULL;
	int rc = git_revparse_single(&o, repo, rev);
	if (rc == 0)
		rc = git_object_peel(&c, o, GIT_OBJECT_COMMIT);
	if (rc == 0)
		git_oid_cpy(out, git_object_id(c));
	else
		rc = err_set(ERR_USAGE, "%s %s names no commit of %s (%s)", role, rev,
			     git_repository_workdir(repo), git_why());
	git_object_free(c);
	git_object_free(o);
	return rc;
}

/* The length of the UTF-8 sequence at s, or 0 when it is none (overlong and surrogate
 * forms included, as jansson refuses them). */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
		 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	unsigned cp = n == 1 ? s[0] : n == 2 ? (s[0] & 0x1fu) << 6 | (s[1] & 0x3fu)
		    : n == 3 ? (s[0] & 0x0fu) << 12 | (s[1] & 0x3fu) << 6 | (s[2] & 0x3fu)
		    : n == 4 ? (s[0] & 0x07u) << 18 | (s[1] & 0x3fu) << 12 | (s[2] & 0x3fu) << 6 |
				       (s[3] & 0x3fu)
			     : 0;
	static const unsigned least[] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (!n || cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* s as valid UTF-8 (JSON holds nothing else): a byte that starts no sequence becomes
 * U+FFFD (a commit message in Latin-1, say); malloc'ed. */
static char *utf8_clean(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		size_t n = utf8_len(p);
		if (n)
			strbuf_add(&sb, (const char *)p, n);
		else
			strbuf_adds(&sb, "\xef\xbf\xbd");
		p += n ? n : 1;
	}
	return strbuf_detach(&sb);
}

static void commit_facts(git_repository *repo, const git_oid *id, struct bisect_commit *out)
{
	git_commit *c = NULL;
	git_oid_tostr(out->hash, sizeof out->hash, id);
	if (git_commit_lookup(&c, repo, id) < 0) {
		out->subject = xstrdup("");
		out->author = xstrdup("");
		out->date = xstrdup("");
		return;
	}
	const git_signature *a = git_commit_author(c);
	const char *s = git_commit_summary(c);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s <%s>", a->name, a->email);
	out->author = utf8_clean(sb.buf);
	strbuf_reset(&sb);
	out->subject = utf8_clean(s);
	time_t t = (time_t)a->when.time + 60 * a->when.offset;
	struct tm tm;
	char buf[40];
	gmtime_r(&t, &tm);
	strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
	int off = a->when.offset < 0 ? -a->when.offset : a->when.offset;
	strbuf_addf(&sb, "%s %c%02d%02d", buf, a->when.offset < 0 ? '-' : '+', off / 60, off % 60);
	out->date = strbuf_detach(&sb);
	git_commit_free(c);
}

/* BAD's first-parent line back to GOOD, oldest first, into ids (GOOD first). */
static int first_parent_line(git_repository *repo, const git_oid *good, const git_oid *bad,
			     git_oid **ids, size_t *n)
{
	git_revwalk *w = NULL;
	git_oid id;
	size_t cap = 16;
	*ids = xcalloc(cap, sizeof **ids);
	*n = 0;
	int rc = git_revwalk_new(&w, repo);
	if (rc == 0) {
		git_revwalk_simplify_first_parent(w);
		rc = git_revwalk_push(w, bad);
	}
	while (rc == 0 && git_revwalk_next(&id, w) == 0) {
		if (*n + 1 >= cap)
			*ids = xrealloc(*ids, (cap *= 2) * sizeof **ids);
		git_oid_cpy(&(*ids)[(*n)++], &id);
		if (git_oid_equal(&id, good))
			break;
	}
	git_revwalk_free(w);
	if (rc < 0)
		return err_set(ERR_IO, "cannot walk the history of %s: %s",
			       git_repository_workdir(repo), git_why());
	if (!*n || !git_oid_equal(&(*ids)[*n - 1], good))
		return err_set(
			ERR_USAGE,
			"GOOD is not on BAD's first-parent line (an ancestor of BAD, reached through first parents): give a GOOD that is");
	for (size_t i = 0; i < *n / 2; i++) { /* oldest first */
		git_oid t = (*ids)[i];
		(*ids)[i] = (*ids)[*n - 1 - i];
		(*ids)[*n - 1 - i] = t;
	}
	return 0;
}

int commits_load(const char *path, const char *good, const char *bad, struct bisect_range *out)
{
	git_repository *repo = NULL;
	git_oid g, b, *ids = NULL;
	size_t n = 0;
	memset(out, 0, sizeof *out);
	git_libgit2_init();
	int rc = git_repository_open_ext(&repo, path, 0, NULL);
	if (rc < 0 || git_repository_is_bare(repo))
		rc = err_set(
			ERR_USAGE,
			"%s is in no git repository with a work tree: campaign bisect needs the workload's repository (--repo DIR names it)",
			path);
	if (rc == 0 && (rc = resolve(repo, good, "GOOD", &g)) == 0)
		rc = resolve(repo, bad, "BAD", &b);
	if (rc == 0 && git_oid_equal(&g, &b))
		rc = err_set(ERR_USAGE, "GOOD %s and BAD %s are the same commit: nothing to bisect",
			     good, bad);
	if (rc == 0)
		rc = first_parent_line(repo, &g, &b, &ids, &n);
	if (rc == 0) {
		char *wd = xstrdup(git_repository_workdir(repo));
		size_t len = strlen(wd);
		if (len > 1 && wd[len - 1] == '/')
			wd[len - 1] = '\0';
		out->workdir = wd;
		out->v = xcalloc(n, sizeof *out->v);
		out->n = n;
		for (size_t i = 0; i < n; i++)
			commit_facts(repo, &ids[i], &out->v[i]);
	}
	free(ids);
	git_repository_free(repo);
	return rc;
}

long commits_find(const struct bisect_range *r, const char *hash)
{
	size_t len = strlen(hash);
	for (size_t i = 0; len >= 4 && i < r->n; i++)
		if (!strncmp(r->v[i].hash, hash, len))
			return (long)i;
	return -1;
}

void commits_free(struct bisect_range *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].subject);
		free(r->v[i].author);
		free(r->v[i].date);
	}
	free(r->v);
	free(r->workdir);
	memset(r, 0, sizeof *r);
}
