/* commits: the commits a bisection walks, read with libgit2 from the
 * workload's repository: GOOD, then BAD's first-parent line down to it, each
 * with its subject, author and date.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_BISECT_COMMITS_H
#define CAMPAIGN_BISECT_COMMITS_H

#include <stddef.h>

struct bisect_commit {
	char hash[41];
	char *subject, *author, *date; /* date: "YYYY-MM-DD hh:mm:ss +hhmm" */
};

struct bisect_range {
	char *workdir;            /* the repository's work tree, without a trailing slash */
	struct bisect_commit *v;  /* v[0] is GOOD, v[n - 1] BAD, oldest first */
	size_t n;
};

/* The repository holding path (a file or folder in its work tree) and the
 * commits from good to bad (any revision git understands). ERR_USAGE, said
 * so, when either does not name a commit, they are the same, or good is not
 * on bad's first-parent line. */
int commits_load(const char *path, const char *good, const char *bad, struct bisect_range *out);
/* The index of hash (a full or abbreviated hash) in r, or -1. */
long commits_find(const struct bisect_range *r, const char *hash);
void commits_free(struct bisect_range *r);

#endif
