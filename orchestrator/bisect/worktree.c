/* worktree: a commit in a linked work tree, detached, with libgit2.
 * SPDX-License-Identifier: MIT */
#include "worktree.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

static const char *git_why(void)
{
	const git_error *e = git_error_last();
	return e && e->message ? e->message : "unknown libgit2 error";
}

/* path is already a work tree of hash: 1; of something else, or no tree: 0. */
static int already(const char *path, const git_oid *id)
{
	git_repository *r = NULL;
	git_oid head;
	int same = git_repository_open(&r, path) == 0 &&
		   git_reference_name_to_id(&head, r, "HEAD") == 0 && git_oid_equal(&head, id);
	git_repository_free(r);
	return same;
}

/* The new tree's HEAD detached at id, and the branch that made it deleted. */
static int detach(git_worktree *wt, git_reference *branch, const git_oid *id)
{
	git_repository *w = NULL;
	int rc = git_repository_open_from_worktree(&w, wt);
	if (rc == 0)
		rc = git_repository_set_head_detached(w, id);
	git_repository_free(w);
	if (rc == 0)
		rc = git_branch_delete(branch);
	return rc;
}

/* What a failed checkout left: the worktree's entry and folder, the branch. */
static void undo(git_repository *repo, const char *name, git_reference *branch)
{
	git_worktree *wt = NULL;
	if (repo && git_worktree_lookup(&wt, repo, name) == 0) {
		git_worktree_prune_options o;
		git_worktree_prune_options_init(&o, GIT_WORKTREE_PRUNE_OPTIONS_VERSION);
		o.flags = GIT_WORKTREE_PRUNE_VALID | GIT_WORKTREE_PRUNE_WORKING_TREE;
		git_worktree_prune(wt, &o);
	}
	git_worktree_free(wt);
	if (branch)
		git_branch_delete(branch);
}

int worktree_checkout(const char *workdir, const char *name, const char *path, const char *hash)
{
	git_repository *repo = NULL;
	git_commit *c = NULL;
	git_reference *branch = NULL;
	git_worktree *wt = NULL;
	git_oid id;
	git_libgit2_init();
	if (git_oid_fromstr(&id, hash) < 0)
		return err_set(ERR_USAGE, "%s is no full commit hash", hash);
	if (fsio_exists(path))
		return already(path, &id)
			? 0
			: err_set(ERR_IO, "%s exists and is no work tree of %.12s: move it away",
				  path, hash);
	char *parent = xstrdup(path), *slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	int rc = slash ? fsio_mkdir_p(parent, 0755) : 0; /* git makes the tree's folder alone */
	free(parent);
	if (rc < 0)
		return rc;
	rc = git_repository_open(&repo, workdir);
	if (rc == 0)
		rc = git_commit_lookup(&c, repo, &id);
	/* a worktree checks out a branch: one made for it, at the commit, deleted once the
	 * tree's HEAD is detached there */
	if (rc == 0)
		rc = git_branch_create(&branch, repo, name, c, 1);
	if (rc == 0) {
		git_worktree_add_options o;
		git_worktree_add_options_init(&o, GIT_WORKTREE_ADD_OPTIONS_VERSION);
		o.ref = branch;
		o.checkout_options.checkout_strategy = GIT_CHECKOUT_FORCE;
		rc = git_worktree_add(&wt, repo, name, path, &o);
	}
	if (rc == 0)
		rc = detach(wt, branch, &id);
	if (rc < 0) {
		rc = err_set(ERR_IO, "cannot check %.12s out in %s as worktree %s of %s: %s", hash,
			     path, name, workdir, git_why());
		undo(repo, name, branch); /* the message above stays the last error */
	}
	git_worktree_free(wt);
	git_reference_free(branch);
	git_commit_free(c);
	git_repository_free(repo);
	return rc;
}

int worktree_remove(const char *workdir, const char *name)
{
	git_repository *repo = NULL;
	git_worktree *wt = NULL;
	git_libgit2_init();
	int rc = git_repository_open(&repo, workdir);
	if (rc == 0)
		rc = git_worktree_lookup(&wt, repo, name);
	if (rc == 0) {
		git_worktree_prune_options o;
		git_worktree_prune_options_init(&o, GIT_WORKTREE_PRUNE_OPTIONS_VERSION);
		o.flags = GIT_WORKTREE_PRUNE_VALID | GIT_WORKTREE_PRUNE_WORKING_TREE;
		rc = git_worktree_prune(wt, &o);
	}
	if (rc < 0)
		rc = err_set(ERR_IO, "cannot remove worktree %s of %s: %s", name, workdir,
			     git_why());
	git_worktree_free(wt);
	git_repository_free(repo);
	return rc;
}
