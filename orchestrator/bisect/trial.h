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

/* Commit i of the state with active_steps: checked out and its run created
 * (not submitted); *run_id the run (malloc'ed). */
int trial_create(const struct trial_ctx *t, size_t i, int active_steps, char **run_id);
/* Submits the run (what it lacks: adopted jobs stay). */
int trial_submit(const struct trial_ctx *t, const char *run_id);
/* The run run_id of commit i (submitted where it was not) followed to its end: its tested entry
 * {commit, outcome, median_step_ms, ratio, ratio_interval, run,
 * active_steps, step_times_ms, node_hours, why} (good_steps: GOOD's step
 * times, NULL when this is GOOD). ERR_* when the run cannot be followed
 * (the scheduler is down): nothing is decided then. */
int trial_finish(const struct trial_ctx *t, size_t i, const char *run_id, int active_steps,
		 json_t *good_steps, json_t **entry);
/* The worktree of commit hash: its folder (malloc'ed) and name. */
char *trial_tree(const struct trial_ctx *t, const char *hash, char *name, size_t n);

#endif
