/* run: one campaign run on disk, results/<campaign>/<run-id>/: creating it
 * (frozen campaign.yaml, rendered job scripts, job_metadata.json, state.db)
 * only once every script has rendered, and finding it again by id or path.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_RUN_H
#define CAMPAIGN_RUN_H

#include "orchestrator/campaign/campaign.h"
#include "orchestrator/store/store.h"
#include "util/words.h"

struct run {
	char *id;
	char *dir;     /* absolute */
	char *bin_dir; /* where campaign and the trainers live */
	struct store *st;
	struct campaign c; /* loaded from the run's frozen campaign.yaml */
	struct run_row row;
	long rpcs; /* scheduler RPCs this process made for the run */
	double ctl_down_since; /* the scheduler's controller has not answered since (0: it does) */
	char ctl_addr[280];    /* where it was asked, "host:port" */
};

/* Validates nothing: c must be a loaded campaign. backend: "local"/"slurm".
 * journal: the store journal the command asked for ("auto", "wal",
 * "delete"), or NULL for the campaign's store_journal, else auto. */
int run_create(const struct campaign *c, const char *results_root, const char *backend,
	       const char *journal, struct run **out);
/* A new run id, "YYYYmmdd-HHMMSS-xxxx" (UTC, then random): ids sort by time. */
char *run_new_id(void);
/* Every run under root as "<campaign>/<run-id>" (a folder holding a
 * state.db), sorted by campaign, then run id (which sorts by time). */
void run_list(const char *root, struct argv *out);
/* The same for the folders two levels under root that hold file (a
 * bisection's bisect.json), appended to out. */
void run_list_holding(const char *root, const char *file, struct argv *out);
/* ref: NULL (latest run under results_root), a run directory, a run id, a
 * unique start of one, or a campaign's name (its newest run). */
int run_open(const char *results_root, const char *ref, const char *journal, struct run **out);
void run_free(struct run *r);
/* Re-reads r->row from the store (another process may have analysed the
 * run meanwhile); on failure r->row stays as it was. */
int run_reload_row(struct run *r);
/* At a point where a command working on r prints: after its terminal went
 * away (SIGHUP, caught with hangup_catch), its output goes on into
 * RUN/supervisor.log; after its reader went away, nowhere (util/hangup.h). */
void run_follow_output(const struct run *r);
/* <run dir>/<scenario>; malloc'ed. */
char *run_job_dir(const struct run *r, const char *scenario);
/* Where an attempt's outputs are: the scenario folder for the latest
 * attempt, <scenario>/attempts/<attempt> for an earlier one; malloc'ed. */
char *run_attempt_dir(const struct run *r, const char *scenario, int attempt, int latest);
/* Moves the outputs of a scenario's latest attempt into
 * <scenario>/attempts/<attempt>/ (its job.sbatch and job_metadata.json are
 * copied, the next attempt runs them again), so a new attempt starts clean
 * and nothing of the old one is lost. Safe to repeat after an interruption. */
int run_archive_attempt(const struct run *r, const char *scenario, int attempt);
/* The same for a job directory (dir/attempts/<attempt>/), as a requeued
 * job's script does before its next attempt writes: live_log (a name in
 * dir, or NULL) is the job log SLURM keeps open, copied and then emptied. */
int run_archive_job_dir(const char *dir, int attempt, const char *live_log);
/* Renders every scenario of c into dir/<scenario>/job.sbatch (used by
 * `campaign render` and by run_create). Writes nothing unless all render;
 * with dry set, writes nothing at all (a check). argvs (c->n_scenarios of
 * them, or NULL) receives each scenario's command words (render_command),
 * each argv_free's. */
int run_render_all(const struct campaign *c, const char *dir, const char *run_id,
		   const char *bin_dir, int dry, struct argv *argvs);

#endif
