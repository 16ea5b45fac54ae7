/* bisection: the state of one `campaign bisect`, kept in its own run
 * directory as bisect.json (written atomically after every change, so that
 * --resume goes on where it stopped): the range, the commits tested and
 * their outcomes, the runs under way; which commits to test next (a K-ary
 * split of what is left), and the answer once nothing is left.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_BISECT_BISECTION_H
#define CAMPAIGN_BISECT_BISECTION_H

#include "commits.h"
#include "judge.h"
#include "util/words.h"

#include <jansson.h>

#define BISECT_STATE "bisect.json"
#define BISECT_REPORT "BISECT.md"
#define BISECT_TREES "trees" /* in the bisection's directory: one worktree per commit */

/* A new state: the range's commits, GOOD and BAD, and the settings. */
json_t *bisection_new(const char *id, const struct bisect_range *r, const char *campaign_file,
		      const char *campaign, const char *scenario, double threshold_pct,
		      int parallel, const char *backend);
/* dir/bisect.json, written atomically. */
int bisection_save(const char *dir, json_t *state);
/* dir/bisect.json read back (ERR_NOTFOUND when dir holds none, ERR_IO corrupt). */
int bisection_load(const char *dir, json_t **out);

/* Every bisection under the results root as "<campaign>/<id>" (a folder
 * holding bisect.json), sorted. */
void bisection_list(const char *root, struct argv *out);

/* The folder (malloc'ed, into *dir) of the bisection ref names under root: its
 * folder, its whole id, or with prefix a unique start of it; ERR_NOTFOUND, or
 * ERR_USAGE when a start names several, said so. */
int bisection_find(const char *root, const char *ref, int prefix, char **dir);

/* The commits' hashes in order (GOOD first), and their count. */
const char *bisection_commit(json_t *state, size_t i);
size_t bisection_ncommits(json_t *state);
/* How far GOOD's two runs were apart, |repeat's ratio - 1| (judge_steps' spread);
 * 0 before (or without) a second run. */
double bisection_spread(json_t *state);
/* Commit hash's last tested entry (its last run), or NULL when untested. */
json_t *bisection_last_test(json_t *state, const char *hash);
/* The index of commit hash among the state's commits, or -1. */
long bisection_index(json_t *state, const char *hash);
/* The outcome that stands for commit i: its last test's, an unclear one
 * rerun already counting as a skip; -1 when untested, BISECT_UNCLEAR when it
 * awaits its rerun. */
int bisection_outcome(json_t *state, size_t i);
/* How many runs commit i has had. */
int bisection_runs_of(json_t *state, size_t i);
/* Up to k commits to test next, as indices into out: the unclear ones
 * awaiting their rerun first, then a K-ary split of the untested ones
 * between the last good and the first bad. 0: nothing is left. */
size_t bisection_next(json_t *state, size_t k, long *out);
/* Once bisection_next gives nothing: first_bad (the commit after the last
 * good, when every commit between them is decided) or, with skipped ones
 * between, null and a reason naming the candidates. */
void bisection_answer(json_t *state);

#endif
