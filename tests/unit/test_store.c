/* Unit tests of the SQLite state store: intents, transitions, attempts, and
 * several processes writing one store at once.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "orchestrator/store/snapshot.h"
#include "orchestrator/store/store.h"
#include "util/err.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/campaign-store-XXXXXX";

static struct store *fresh(const char *name)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	struct store *st = NULL;
	CHECK(store_open(path, 1, STORE_JOURNAL_AUTO, &st) == 0);
	return st;
}

static void test_lifecycle(void)
{
	struct store *st = fresh("a.db");
	struct run_row row = { .run_id = "r1",
			       .campaign = "c",
			       .run_dir = "/x",
			       .backend = "local",
			       .created_at = 1 };
	CHECK(store_run_create(st, &row) == 0);
	int att = 0;
	CHECK(store_job_plan(st, "s1", 2, 4, &att) == 0 && att == 1);
	CHECK(store_job_plan(st, "s2", 1, 2, &att) == 0 && att == 1);
	CHECK(store_job_submitted(st, "s1", 1, "42", NULL) == 0);
	CHECK(store_job_update(st, "s1", 1, JS_RUNNING, NULL, -1, "n[1-2]", "x") == 0);
	/* no new transition */
	CHECK(store_job_update(st, "s1", 1, JS_RUNNING, NULL, -1, NULL, "again") == 0);
	CHECK(store_job_update(st, "s1", 1, JS_FAILED, "exit status 3", 3, NULL, "end") == 0);
	CHECK(store_job_plan(st, "s1", 2, 4, &att) == 0 && att == 2);
	struct snapshot js = SNAPSHOT_INIT;
	size_t n;
	CHECK(snapshot_load(st, &js) == 0 && js.n == 2 && js.n_all == 3);
	if (js.n == 2) {
		CHECK_STR(js.latest[0]->scenario, "s1");
		CHECK(js.latest[0]->attempt == 2 && js.latest[0]->state == JS_PLANNED);
		CHECK_STR(js.latest[1]->scenario, "s2");
	}
	snapshot_free(&js);
	struct transition_row *tr;
	CHECK(store_transitions(st, &tr, &n) == 0);
	CHECK(n == 6);
	if (n == 6) {
		CHECK_STR(tr[2].to, "PENDING");
		CHECK_STR(tr[3].from, "PENDING");
		CHECK_STR(tr[3].to, "RUNNING");
		CHECK_STR(tr[4].to, "FAILED");
		CHECK(tr[5].attempt == 2);
	}
	transition_rows_free(tr, n);
	store_close(st);
}

/* Four processes each move 50 jobs through three states at once: every
 * transition must land and none may fail with "database is locked". */
/* Four processes write (and read between writes) one store at once: no
 * write is refused, none is lost, in WAL and with a rollback journal (where
 * an autocommit write beside a reader would be refused, not delayed). */
static void concurrent_writers(const char *name_db, enum store_journal journal)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name_db);
	struct store *st = NULL;
	CHECK(store_open(path, 1, journal, &st) == 0);
	for (int i = 0; i < 200; i++) {
		char name[32];
		int att;
		snprintf(name, sizeof name, "s%03d", i);
		store_job_plan(st, name, 1, 1, &att);
	}
	store_close(st);
	pid_t kids[4];
	for (int k = 0; k < 4; k++) {
		kids[k] = fork();
		if (kids[k] == 0) {
			struct store *s2;
			if (store_open(path, 0, journal, &s2) < 0)
				_exit(1);
			int bad = 0;
			for (int i = k; i < 200; i += 4) {
				char name[32];
				struct snapshot js = SNAPSHOT_INIT;
				snprintf(name, sizeof name, "s%03d", i);
				bad |= store_job_submitting(s2, name, 1) < 0;
				bad |= store_job_submitted(s2, name, 1, "1", NULL) < 0;
				bad |= snapshot_load(s2, &js) < 0;
				snapshot_free(&js);
				struct job_change started = { .scenario = name, .attempt = 1,
							      .from = -1, .state = JS_RUNNING,
							      .exit_code = -1, .start = 1 };
				bad |= store_job_change(s2, &started) < 0;
				bad |= store_job_update(s2, name, 1, JS_RUNNING, NULL, -1, NULL,
							NULL) < 0;
				bad |= store_job_update(s2, name, 1, JS_COMPLETED, NULL, 0, NULL,
							NULL) < 0;
			}
			store_close(s2);
			_exit(bad);
		}
	}
	for (int k = 0; k < 4; k++) {
		int status;
		waitpid(kids[k], &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	CHECK(store_open(path, 0, STORE_JOURNAL_AUTO, &st) == 0);
	CHECK_STR(store_journal_name(st), journal == STORE_JOURNAL_DELETE ? "delete" : "wal");
	struct transition_row *tr;
	size_t n;
	CHECK(store_transitions(st, &tr, &n) == 0 && n == 800);
	transition_rows_free(tr, n);
	store_close(st);
}

static void test_concurrent_writers(void)
{
	concurrent_writers("b.db", STORE_JOURNAL_AUTO);
}

static void test_concurrent_writers_rollback_journal(void)
{
	concurrent_writers("rollback.db", STORE_JOURNAL_DELETE);
}

/* The intent of each submit call and of the aggregation job survive a
 * reopen; every attempt is listed, scenarios in planning order. */
static void test_intents_and_attempts(void)
{
	struct store *st = fresh("c.db");
	struct run_row row = { .run_id = "r2",
			       .campaign = "c",
			       .run_dir = "/x",
			       .backend = "slurm",
			       .created_at = 1 };
	int att;
	CHECK(store_run_create(st, &row) == 0);
	CHECK(store_job_plan(st, "b", 1, 1, &att) == 0 && store_job_plan(st, "a", 1, 1, &att) == 0);
	CHECK(store_job_submitting(st, "b", 1) == 0 && store_job_submitting(st, "b", 1) == 0);
	CHECK(store_job_update(st, "b", 1, JS_FAILED, "x", 3, NULL, NULL) == 0);
	CHECK(store_job_plan(st, "b", 1, 1, &att) == 0 && att == 2);
	CHECK(store_run_set_aggregate_intent(st, "aggregate/of-3") == 0);
	store_close(st);
	st = fresh("c.db");
	struct job_row *rows;
	size_t n;
	CHECK(store_jobs_all(st, &rows, &n) == 0 && n == 3);
	if (n == 3) {
		CHECK(!strcmp(rows[0].scenario, "b") && rows[0].attempt == 1 &&
		      rows[0].submit_tries == 2);
		CHECK(!strcmp(rows[1].scenario, "b") && rows[1].attempt == 2 &&
		      rows[1].submit_tries == 0);
		CHECK(!strcmp(rows[2].scenario, "a") && rows[2].seq == 2);
	}
	job_rows_free(rows, n);
	struct run_row got;
	CHECK(store_run_get(st, &got) == 0);
	CHECK_STR(got.aggregate_key, "aggregate/of-3");
	CHECK(got.aggregate_job_id == NULL);
	CHECK(store_run_set_aggregate_job(st, "77") == 0);
	run_row_free(&got);
	CHECK(store_run_get(st, &got) == 0);
	CHECK_STR(got.aggregate_job_id, "77");
	run_row_free(&got);
	/* An analysis of 2 attempts finishing when there are 3 does not count;
	 * one of all 3 does, until a 4th attempt is planned. */
	CHECK(store_run_set_aggregated(st, 5, 2) == 0);
	CHECK(store_run_get(st, &got) == 0 && got.aggregated_at == 0);
	run_row_free(&got);
	CHECK(store_run_set_aggregated(st, 6, 3) == 0);
	CHECK(store_run_get(st, &got) == 0 && got.aggregated_at == 6);
	run_row_free(&got);
	CHECK(store_job_plan(st, "a", 1, 1, &att) == 0 && att == 2);
	CHECK(store_run_get(st, &got) == 0 && got.aggregated_at == 0);
	run_row_free(&got);
	store_close(st);
}

/* A store written before submit_tries and aggregate_key existed gains them. */
/* A requeue is recorded once, however often (and by however many processes)
 * the same controller answer is seen: the ended attempt keeps its row, the
 * next one runs under the same job id. */
static void test_requeue_once(void)
{
	struct store *st = fresh("rq.db");
	struct run_row row = { .run_id = "r3", .campaign = "c", .run_dir = "/x",
			       .backend = "slurm", .created_at = 1 };
	int att, added = -1;
	CHECK(store_run_create(st, &row) == 0 && store_job_plan(st, "s", 2, 4, &att) == 0);
	CHECK(store_job_submitted(st, "s", 1, "42", NULL) == 0);
	CHECK(store_job_update(st, "s", 1, JS_RUNNING, "", -1, "n[1-2]", NULL) == 0);
	struct job_requeue q = { "s", 1, JS_NODE_FAIL, "node failure on n2", NULL, "n2", 143,
				 100, 160 };
	CHECK(store_job_requeued(st, &q, &added) == 0 && added == 1);
	CHECK(store_job_requeued(st, &q, &added) == 0 && added == 0);
	struct job_row *rows;
	size_t n;
	CHECK(store_jobs_all(st, &rows, &n) == 0 && n == 2);
	CHECK(rows[0].state == JS_NODE_FAIL && rows[0].exit_code == 143 &&
	      rows[0].started_at == 100 && rows[0].ended_at == 160);
	CHECK_STR(rows[0].nodelist, "n[1-2]");
	CHECK_STR(rows[0].failed_nodes, "n2");
	CHECK(rows[1].attempt == 2 && rows[1].state == JS_PENDING && !rows[1].failed_nodes &&
	      rows[1].nodes == 2 && rows[1].ntasks == 4);
	CHECK_STR(rows[1].job_id, "42");
	job_rows_free(rows, n);
	store_close(st);
}

/* A decision from a stale read (the job was PLANNED when a status read it,
 * a submit queued it since) is not recorded over the newer state; one from
 * the current state is, with the job's real times. */
static void test_change_from_seen_state(void)
{
	struct store *st = fresh("seen.db");
	struct run_row row = {
		.run_id = "r", .campaign = "c", .run_dir = "/x", .backend = "local"
	};
	CHECK(store_run_create(st, &row) == 0);
	int att = 0;
	CHECK(store_job_plan(st, "a", 1, 1, &att) == 0 && att == 1);
	CHECK(store_job_submitted(st, "a", 1, "1", "queued") == 0);
	struct job_change stale = { .scenario = "a",
				    .attempt = 1,
				    .from = JS_PLANNED,
				    .state = JS_PLANNED,
				    .reason = "no supervisor",
				    .exit_code = -1 };
	CHECK(store_job_change(st, &stale) == 0);
	struct snapshot js = SNAPSHOT_INIT;
	CHECK(snapshot_load(st, &js) == 0 && js.n == 1);
	if (js.n == 1) {
		CHECK(js.latest[0]->state == JS_PENDING);
		CHECK(!js.latest[0]->reason || !strcmp(js.latest[0]->reason, ""));
	}
	/* a refused change leaves the times alone too; words alone, from the state seen, go in */
	struct job_change timed = { .scenario = "a", .attempt = 1, .from = JS_RUNNING,
				    .state = JS_FAILED, .exit_code = 1, .start = 50, .end = 60 };
	CHECK(store_job_change(st, &timed) == 0);
	struct job_change words = { .scenario = "a", .attempt = 1, .from = JS_PENDING,
				    .state = JS_PENDING, .reason = "waits", .exit_code = -1 };
	CHECK(store_job_change(st, &words) == 0);
	CHECK(snapshot_load(st, &js) == 0 && js.n == 1);
	if (js.n == 1) {
		CHECK(js.latest[0]->state == JS_PENDING && js.latest[0]->started_at == 0);
		CHECK(js.latest[0]->reason && !strcmp(js.latest[0]->reason, "waits"));
	}
	struct job_change now = { .scenario = "a", .attempt = 1, .from = JS_PENDING,
				  .state = JS_COMPLETED, .exit_code = 0, .start = 100, .end = 160 };
	CHECK(store_job_change(st, &now) == 0);
	CHECK(snapshot_load(st, &js) == 0 && js.n == 1);
	if (js.n == 1) {
		CHECK(js.latest[0]->state == JS_COMPLETED && js.latest[0]->exit_code == 0);
		CHECK(js.latest[0]->started_at == 100 && js.latest[0]->ended_at == 160);
	}
	snapshot_free(&js);
	struct transition_row *tr;
	size_t n;
	CHECK(store_transitions(st, &tr, &n) == 0);
	CHECK(n == 3); /* planned, queued, completed: none back to PLANNED */
	if (n == 3)
		CHECK_STR(tr[2].to, "COMPLETED");
	transition_rows_free(tr, n);
	store_close(st);
}

static void test_migration(void)
{
	char path[256];
	sqlite3 *db;
	snprintf(path, sizeof path, "%s/old.db", dir);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(
		      db,
		      "CREATE TABLE runs (run_id TEXT PRIMARY KEY, campaign TEXT NOT NULL, run_dir TEXT NOT NULL, backend TEXT NOT NULL, campaign_sha256 TEXT, created_at REAL NOT NULL, aggregated_at REAL NOT NULL DEFAULT 0, aggregate_job_id TEXT); INSERT INTO runs (run_id, campaign, run_dir, backend, created_at) VALUES ('old', 'c', '/x', 'local', 1);",
		      NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	struct store *st = fresh("old.db");
	struct run_row got;
	CHECK(store_run_get(st, &got) == 0);
	CHECK_STR(got.run_id, "old");
	CHECK(got.aggregate_key == NULL);
	run_row_free(&got);
	CHECK(store_run_set_aggregate_intent(st, "k") == 0);
	store_close(st);
	st = fresh("old.db"); /* a second open finds the columns there */
	CHECK(store_run_get(st, &got) == 0);
	CHECK_STR(got.aggregate_key, "k");
	run_row_free(&got);
	store_close(st);
}

static void path_of(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

/* WAL on a local disk, a rollback journal where other hosts share the
 * files, an explicit mode sticking, and no store made up in place of a
 * missing or damaged one. */
static void test_journal_modes(void)
{
	char p[256];
	struct store *st = NULL, *other = NULL;
	path_of(p, sizeof p, "j1.db");
	CHECK(store_open(p, 1, STORE_JOURNAL_AUTO, &st) == 0);
	CHECK_STR(store_journal_name(st), "wal");
	CHECK(!store_fs_shared(st));
	store_close(st);
	setenv("CAMPAIGN_FS_TYPE", "nfs", 1);
	path_of(p, sizeof p, "j2.db");
	CHECK(store_open(p, 1, STORE_JOURNAL_AUTO, &st) == 0);
	CHECK_STR(store_journal_name(st), "delete");
	CHECK_STR(store_fs_name(st), "nfs");
	CHECK(store_fs_shared(st) == 1);
	store_close(st);
	path_of(p, sizeof p, "j1.db"); /* an existing WAL store keeps its mode (with a warning) */
	CHECK(store_open(p, 0, STORE_JOURNAL_AUTO, &st) == 0);
	CHECK_STR(store_journal_name(st), "wal");
	CHECK(store_open(p, 0, STORE_JOURNAL_DELETE, &other) == ERR_IO); /* st has it open */
	CHECK(strstr(err_last(), "is in wal mode and another process has it open") != NULL);
	store_close(st);
	CHECK(store_open(p, 0, STORE_JOURNAL_DELETE, &st) == 0);
	CHECK_STR(store_journal_name(st), "delete");
	store_close(st);
	unsetenv("CAMPAIGN_FS_TYPE");
	CHECK(store_open(p, 0, STORE_JOURNAL_AUTO, &st) == 0); /* sticky */
	CHECK_STR(store_journal_name(st), "delete");
	store_close(st);
	path_of(p, sizeof p, "missing.db");
	CHECK(store_open(p, 0, STORE_JOURNAL_AUTO, &st) == ERR_NOTFOUND);
	CHECK(strstr(err_last(), "missing.db is missing") != NULL && access(p, F_OK) != 0);
	path_of(p, sizeof p, "garbage.db");
	FILE *f = fopen(p, "w");
	if (f) {
		fputs("this is not a database, and it is long enough to look like a header to nobody at all\n",
		      f);
		fclose(f);
	}
	CHECK(store_open(p, 0, STORE_JOURNAL_AUTO, &st) == ERR_IO);
	CHECK(strstr(err_last(), "garbage.db") != NULL &&
	      strstr(err_last(), "not a database") != NULL);
	path_of(p, sizeof p, "emptied.db");
	f = fopen(p, "w");
	if (f)
		fclose(f);
	CHECK(store_open(p, 0, STORE_JOURNAL_AUTO, &st) == ERR_IO);
	CHECK(strstr(err_last(), "is damaged (no runs table: the file is empty)") != NULL);
	struct stat sb;
	CHECK(stat(p, &sb) == 0 && sb.st_size == 0); /* no schema written into it */
	enum store_journal j;
	CHECK(store_journal_parse("delete", &j) == 0 && j == STORE_JOURNAL_DELETE);
	CHECK(store_journal_parse("truncate", &j) == ERR_USAGE);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(test_lifecycle);
	RUN(test_concurrent_writers);
	RUN(test_concurrent_writers_rollback_journal);
	RUN(test_intents_and_attempts);
	RUN(test_requeue_once);
	RUN(test_change_from_seen_state);
	RUN(test_migration);
	RUN(test_journal_modes);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	HARNESS_END();
}
