/* worktree: one commit checked out in a linked work tree of the workload's
 * repository (libgit2 worktrees), so that a bisection runs each commit in
 * its own tree and never touches the user's: made with a detached HEAD (no
 * branch is left behind), removed again with its administrative files.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_BISECT_WORKTREE_H
#define CAMPAIGN_BISECT_WORKTREE_H

/* Checks hash out at path (which must not exist, or be such a tree of the
 * same commit already: then 0 and nothing is done) as the worktree name of
 * the repository whose work tree is workdir. */
int worktree_checkout(const char *workdir, const char *name, const char *path, const char *hash);
/* Removes the worktree name: its folder and its entry in the repository. */
int worktree_remove(const char *workdir, const char *name);

#endif
