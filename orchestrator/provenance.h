/* provenance: what code and which machine a run came from, recorded at
 * submit time with libgit2: for the workload's repository (the one holding
 * the campaign file) and campaign's own, the commit, branch, describe,
 * remotes, author, dirty files and the uncommitted diff as a patch that
 * rebuilds the exact tree; plus hashes, host and library versions.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_PROVENANCE_H
#define CAMPAIGN_PROVENANCE_H

#include "run.h"
#include "util/words.h"

#include <jansson.h>

/* An untracked file: always listed by name, size and modification time; its
 * contents go in the patch only when small and not secret-looking (left_out
 * says why not). A plain SHA-256 identifies it, except a secret-looking one,
 * whose plain hash would let a guessed secret be confirmed offline: that one
 * gets an HMAC-SHA256 under the per-user key (util/userkey.h) instead. */
struct untracked_file {
	char *path;
	char sha256[65];   /* "" when it could not be read, or it looks secret */
	char hmac[65];     /* a secret-looking file's keyed hash; "" otherwise */
	int secret;        /* its name or contents look secret */
	long long bytes;
	char mtime[24];    /* "YYYY-MM-DDThh:mm:ssZ"; "" when not a regular file */
	const char *left_out; /* NULL: in the patch */
	char why[96];         /* left_out's text */
};

struct repo_info {
	char *role;        /* "workload" or "campaign" */
	char *name;        /* basename of the work tree: the patch's file name */
	char *workdir, *commit, *branch, *describe, *commit_time, *author;
	struct argv remotes;   /* "name url" */
	struct argv modified, untracked;
	struct untracked_file *files; /* one per untracked path, in its order */
	int dirty;
	char *patch;           /* the uncommitted diff (untracked files it may hold included) */
	size_t patch_len;
	char *note;            /* e.g. why untracked contents were left out */
};

struct provenance {
	char *campaign_file; /* absolute path of the file as submitted */
	int nrepos;
	struct repo_info repo[2];
	char *not_git;     /* set when the workload is not in a git repository */
	json_t *variant;   /* a variant run's parent, kind, knob, prediction (owned); else NULL */
	json_t *bisect;    /* a bisection's run: {of, commit, good, bad} (owned); else NULL */
};

/* Looks at the repository holding campaign_file and the one holding bin_dir;
 * results_root (where runs are written) is left out of both. */
int provenance_collect(const char *campaign_file, const char *bin_dir, const char *results_root,
		       struct provenance *p);
/* Writes provenance.json and provenance/<repo>.patch into the run, and the
 * provenance of every job into its job_metadata.json and job_metadata.txt. */
int provenance_write(struct run *r, const struct provenance *p);
/* "path, path, ..." of what makes the repositories dirty (NULL when clean). */
char *provenance_dirty_list(const struct provenance *p);
void provenance_free(struct provenance *p);

#endif
