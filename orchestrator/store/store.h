/* store: the run's state.db (SQLite): the run, its jobs (one row per
 * scenario and attempt) and every state transition with its time. Several
 * campaign processes may use one store at once; every write is a transaction.
 * It records what it is told; deciding states is the backends' business.
 * Journal: WAL on a local file system; a rollback journal (DELETE) with
 * POSIX locks where other hosts share the file (filesystem.h), as SQLite's WAL
 * needs every process on one host.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_STORE_H
#define CAMPAIGN_STORE_H

#include "jobstate.h"

#include <stddef.h>

struct store;

struct run_row {
	char *run_id, *campaign, *run_dir, *backend, *campaign_sha256;
	double created_at;
	double aggregated_at; /* 0 when no analysis of the current attempts has been written */
	char *aggregate_job_id; /* slurm: the job that runs the analysis */
	char *aggregate_key;    /* slurm: which aggregation job is meant (its comment's tail) */
};

struct job_row {
	long seq;            /* order of planning, unique in the run */
	char *scenario;
	int attempt;
	char *job_id;        /* backend id; NULL while PLANNED */
	enum job_state state;
	char *reason;        /* why it is in this state (may be NULL) */
	int exit_code;       /* -1 unknown */
	int nodes, ntasks;
	char *nodelist;
	double submitted_at, started_at, ended_at; /* 0 unknown */
	long pid;            /* local executor: process group of the job */
	int cancel_requested;
	int submit_tries;    /* submit calls begun for this attempt: > 0 while PLANNED
			      * means the controller may hold the job already */
	char *failed_nodes;  /* an attempt the scheduler requeued: its nodes that had
			      * failed (NULL: none known) */
};

enum store_journal { STORE_JOURNAL_AUTO, STORE_JOURNAL_WAL, STORE_JOURNAL_DELETE };

/* "auto", "wal" or "delete" into *j; ERR_USAGE otherwise. */
int store_journal_parse(const char *s, enum store_journal *j);
/* Opens (with create: creates) the store at path. AUTO keeps the journal an
 * existing store has (warning about WAL on a shared file system); a new
 * store gets WAL, DELETE on a shared file system. WAL or DELETE switches
 * (ERR_IO when other processes have the store open). Without
 * create, a missing file is ERR_NOTFOUND and a file that is not a campaign
 * store ERR_IO, both naming it: nothing is created in its place. */
int store_open(const char *path, int create, enum store_journal journal, struct store **out);
/* The journal in use ("wal" or "delete") and the file system ("ext4", "nfs"...). */
const char *store_journal_name(const struct store *st);
const char *store_fs_name(const struct store *st);
int store_fs_shared(const struct store *st);
void store_close(struct store *st);

int store_run_create(struct store *st, const struct run_row *r);
int store_run_get(struct store *st, struct run_row *out);
/* Records that the analysis of the run's attempts (all `attempts` rows of
 * jobs) was written at `at`; nothing when the jobs have changed since, so a
 * slow analysis of older attempts never passes for a current one. */
int store_run_set_aggregated(struct store *st, double at, long attempts);
int store_run_set_aggregate_job(struct store *st, const char *job_id);
/* Records the intent to submit the aggregation job named by key (clearing
 * the job id of an earlier one), before the submit call. */
int store_run_set_aggregate_intent(struct store *st, const char *key);
int store_run_set_sha256(struct store *st, const char *sha);
void run_row_free(struct run_row *r);

/* Records the intent to submit (state PLANNED); returns the attempt number. */
int store_job_plan(struct store *st, const char *scenario, int nodes, int ntasks, int *attempt);
/* Records that a submit call for this attempt begins (before the call). */
int store_job_submitting(struct store *st, const char *scenario, int attempt);
/* Records the backend's job id (state PENDING, no reason yet); detail goes in the
 * transition. */
int store_job_submitted(struct store *st, const char *scenario, int attempt, const char *job_id,
			const char *detail);
/* Moves a job to state (no-op if it is already there), recording the
 * transition. exit_code -1 and NULL strings leave the old values. */
int store_job_update(struct store *st, const char *scenario, int attempt, enum job_state state,
		     const char *reason, int exit_code, const char *nodelist, const char *detail);
/* store_job_update's change, made only while the job is still in state
 * from (from -1: whatever it is): a decision taken from what a reader saw
 * is not recorded over a state another process wrote since. */
struct job_change {
	const char *scenario;
	int attempt;
	int from; /* enum job_state, or -1 */
	enum job_state state;
	const char *reason;
	int exit_code;
	const char *nodelist, *detail;
	double start, end; /* the job's real times, > 0 when known: recorded with it */
};
int store_job_change(struct store *st, const struct job_change *c);
int store_job_set_pid(struct store *st, const char *scenario, int attempt, long pid);
/* What ended an attempt that the scheduler requeued (SLURM: the same job id
 * runs again, its restart count one higher). */
struct job_requeue {
	const char *scenario;
	int attempt;                 /* the attempt that ended */
	enum job_state state;        /* NODE_FAIL, PREEMPTED or REQUEUED */
	const char *reason, *nodelist, *failed_nodes; /* NULL: not known */
	int exit_code;               /* -1: not known */
	double started_at, ended_at; /* 0: not known (ended: when it was noticed) */
};
/* In one transaction: ends q->attempt as q says and adds attempt + 1 under
 * the same job id (PENDING), only while q->attempt is the scenario's latest:
 * *added is 1 when it wrote, 0 when another process already had. */
int store_job_requeued(struct store *st, const struct job_requeue *q, int *added);
int store_job_request_cancel(struct store *st, const char *scenario, int attempt);
/* Every attempt of every scenario: scenarios in submission order, attempts ascending
 * (snapshot.h's snapshot_load reads them with each scenario's latest attempt). */
int store_jobs_all(struct store *st, struct job_row **rows, size_t *n);
/* In store_jobs_all's rows, the index just past the attempts of rows[first]'s scenario. */
size_t job_rows_scenario_end(const struct job_row *rows, size_t n, size_t first);
void job_rows_free(struct job_row *rows, size_t n);

struct transition_row {
	char *scenario, *from, *to, *detail;
	int attempt;
	double at;
};
int store_transitions(struct store *st, struct transition_row **rows, size_t *n);
void transition_rows_free(struct transition_row *rows, size_t n);

double store_now(void);

#endif
