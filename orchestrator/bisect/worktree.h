/* worktree: one commit checked out in a linked work tree of the workload's
 * repository (libgit2 worktrees), so that a bisection runs each commit in
 * its own tree and never touches the user's: made with a detached HEAD (no
 * branch is left behind), removed again with its administrative files.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_BISECT_WORKTREE_H
#define CAMPAIGN_BISECT_WORKTREE_H

/* Checks hash (40 hex digits) out at path as the worktree name of the
 * repository whose work tree is workdir; PATH.done marks it whole. A whole
 * tree of that commit there already: 0, nothing done. What an interrupted
 * checkout left (the folder, the worktree's entry, its branch) is removed
 * first; so is what a failed one leaves. */
int worktree_checkout(const char *workdir, const char *name, const char *path, const char *hash);
/* Removes the worktree name: its folder (path), its entry in the repository
 * and its marker. */
int worktree_remove(const char *workdir, const char *name, const char *path);

#endif
