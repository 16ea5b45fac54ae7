/* worktree: a commit in a linked work tree, detached, with libgit2.
 * SPDX-License-Identifier: MIT */
#include "worktree.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* What a failed or interrupted checkout left: the worktree's entry and folder, the
 * branch that made it (by name: an interrupted process held no reference). */
static void undo(git_repository *repo, const char *name, const char *path)
{
	git_worktree *wt = NULL;
	git_reference *branch = NULL;
	if (git_worktree_lookup(&wt, repo, name) == 0) {
		git_worktree_prune_options o;
		git_worktree_prune_options_init(&o, GIT_WORKTREE_PRUNE_OPTIONS_VERSION);
		o.flags = GIT_WORKTREE_PRUNE_VALID | GIT_WORKTREE_PRUNE_WORKING_TREE;
		git_worktree_prune(wt, &o);
	}
	git_worktree_free(wt);
	if (git_branch_lookup(&branch, repo, name, GIT_BRANCH_LOCAL) == 0)
		git_branch_delete(branch);
	git_reference_free(branch);
	if (fsio_exists(path))
		fsio_remove_tree(path);
}

/* The marker written once a tree is whole: PATH.done beside it. */
static char *marker_of(const char *path)
{
	struct strbuf m = STRBUF_INIT;
	strbuf_addf(&m, "%s.done", path);
	return strbuf_detach(&m);
}

/* The commit checked out at path, detached, through a branch made and deleted for it. */
static int add(git_repository *repo, const char *name, const char *path, const git_oid *id)
{
	git_commit *c = NULL;
	git_reference *branch = NULL;
	git_worktree *wt = NULL;
	int rc = git_commit_lookup(&c, repo, id);
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
		rc = detach(wt, branch, id);
	git_worktree_free(wt);
	git_reference_free(branch);
	git_commit_free(c);
	return rc;
}

int worktree_checkout(const char *workdir, const char *name, const char *path, const char *hash)
{
	git_repository *repo = NULL;
	git_oid id;
	git_libgit2_init();
	if (git_oid_fromstr(&id, hash) < 0 || strlen(hash) != GIT_OID_HEXSZ)
		return err_set(ERR_USAGE, "%s is no full commit hash", hash);
	char *marker = marker_of(path);
	int whole = fsio_exists(marker) && already(path, &id);
	char *parent = xstrdup(path), *slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	int rc = whole || !slash ? 0 : fsio_mkdir_p(parent, 0755); /* git makes the tree alone */
	free(parent);
	if (!whole && rc == 0)
		rc = git_repository_open(&repo, workdir);
	if (!whole && rc == 0) {
		unlink(marker);
		undo(repo, name, path); /* what an interrupted checkout left, if anything */
		rc = add(repo, name, path, &id);
		if (rc < 0) {
			rc = err_set(ERR_IO,
				     "cannot check %.12s out in %s as worktree %s of %s: %s", hash,
				     path, name, workdir, git_why());
			undo(repo, name, path); /* the message above stays the last error */
		}
	}
	if (!whole && rc == 0)
		rc = fsio_write_atomic(marker, hash, strlen(hash), 0644);
	git_repository_free(repo);
	free(marker);
	return rc;
}

int worktree_remove(const char *workdir, const char *name, const char *path)
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
	if (rc == 0) {
		char *marker = marker_of(path);
		unlink(marker);
		free(marker);
	}
	return rc;
}
