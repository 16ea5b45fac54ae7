/* trial: one commit of a bisection run as a child run: its worktree, its
 * campaign (the bisection's frozen campaign with `bisect:` naming the one
 * scenario and its active steps, {{campaign_dir}} in the tree), created with
 * provenance naming the bisection, submitted; then followed to its end and
 * read back as step times, judged against GOOD's.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_BISECT_TRIAL_H
#define CAMPAIGN_BISECT_TRIAL_H

#include "orchestrator/backend/backend.h"

#include <jansson.h>

/* What a trial needs of the bisection. */
struct trial_ctx {
	const char *dir;     /* the bisection's directory */
	const char *root;    /* the results root */
	const char *journal; /* the store journal asked for, or NULL */
	const struct backend_ops *be;
	json_t *state;       /* bisect.json */
};

/* Whether the campaign of a commit's run loads (its bisect: key added, twice the
 * active steps of a rerun), before anything runs: ERR_USAGE, said, if not. */
int trial_check(const struct trial_ctx *t);
/* Commit i of the state with active_steps: checked out and its run created
 * (not submitted); *run_id the run (malloc'ed). */
int trial_create(const struct trial_ctx *t, size_t i, int active_steps, char **run_id);
/* Submits the run (what it lacks: adopted jobs stay). */
int trial_submit(const struct trial_ctx *t, const char *run_id);
/* A commit measured fewer step times than this: skipped (a percentile bootstrap
 * of the median from fewer covers its 95 % too seldom to decide on). */
#define BISECT_MIN_STEPS 10

/* What a commit's run is judged against: GOOD's tested entry (NULL when GOOD did
 * not run: then skipped), whether this is GOOD's own first run (the reference),
 * and how far two runs of GOOD were apart (judge_steps' spread). */
struct trial_judge {
	json_t *good;
	int reference;
	double spread;
};

/* The run run_id of commit i (submitted where it was not) followed to its end:
 * its tested entry {commit, outcome, median_step_ms, ratio, ratio_interval,
 * run, active_steps, step_times_ms, step_estimator, node_hours, why}, judged
 * as j says. A run whose analysis fails is skipped, said why; a step time
 * measured otherwise than GOOD's is unclear. ERR_BACKEND when the run cannot
 * be followed (the scheduler is down): nothing is decided then. */
int trial_finish(const struct trial_ctx *t, size_t i, const char *run_id, int active_steps,
		 const struct trial_judge *j, json_t **entry);
/* The worktree of commit hash: its folder (malloc'ed) and name. */
char *trial_tree(const struct trial_ctx *t, const char *hash, char *name, size_t n);

#endif
