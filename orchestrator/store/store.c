/* SPDX-License-Identifier: MIT */
#include "store.h"
#include "orchestrator/store/prose.h"

#include "filesystem.h"

#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/statvfs.h>
#include <unistd.h>

struct store {
	sqlite3 *db;
	char *path;
	char journal[8];     /* "wal" or "delete", as SQLite reports it */
	int readonly;        /* the store or its directory cannot be written: reads only */
	int full;            /* ... because its file system has no space left */
	struct filesystem fs;
};

/* one column a line */
static const char schema[] =
	"CREATE TABLE IF NOT EXISTS runs (\n"
	"  run_id TEXT PRIMARY KEY,\n"
	"  campaign TEXT NOT NULL,\n"
	"  run_dir TEXT NOT NULL,\n"
	"  backend TEXT NOT NULL,\n"
	"  campaign_sha256 TEXT,\n"
	"  created_at REAL NOT NULL,\n"
	"  aggregated_at REAL NOT NULL DEFAULT 0,\n"
	"  aggregate_job_id TEXT,\n"
	"  aggregate_key TEXT,\n"
	"  aggregated_attempts INTEGER NOT NULL DEFAULT 0\n"
	");\n"
	"CREATE TABLE IF NOT EXISTS jobs (\n"
	"  seq INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	"  scenario TEXT NOT NULL,\n"
	"  attempt INTEGER NOT NULL,\n"
	"  job_id TEXT,\n"
	"  state TEXT NOT NULL,\n"
	"  reason TEXT,\n"
	"  exit_code INTEGER NOT NULL DEFAULT -1,\n"
	"  nodes INTEGER NOT NULL,\n"
	"  ntasks INTEGER NOT NULL,\n"
	"  nodelist TEXT,\n"
	"  submitted_at REAL NOT NULL DEFAULT 0,\n"
	"  started_at REAL NOT NULL DEFAULT 0,\n"
	"  ended_at REAL NOT NULL DEFAULT 0,\n"
	"  pid INTEGER NOT NULL DEFAULT 0,\n"
	"  cancel_requested INTEGER NOT NULL DEFAULT 0,\n"
	"  submit_tries INTEGER NOT NULL DEFAULT 0,\n"
	"  failed_nodes TEXT,\n"
	"  UNIQUE (scenario, attempt)\n"
	");\n"
	"CREATE TABLE IF NOT EXISTS transitions (\n"
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	"  scenario TEXT NOT NULL,\n"
	"  attempt INTEGER NOT NULL,\n"
	"  from_state TEXT,\n"
	"  to_state TEXT NOT NULL,\n"
	"  at REAL NOT NULL,\n"
	"  detail TEXT\n"
	");\n";

double store_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A store that is not what campaign wrote: said, never replaced. */
static int damaged(const struct store *st, const char *why)
{
	return err_set(
		ERR_IO,
		PROSE_STORE_DAMAGED,
		st->path, why);
}

static int db_fail(struct store *st, const char *what)
{
	int code = sqlite3_errcode(st->db) & 0xff;
	if (st->full &&
	    (code == SQLITE_READONLY || code == SQLITE_CANTOPEN || code == SQLITE_FULL ||
	     code == SQLITE_IOERR))
		return err_set(
			ERR_IO,
			"%s: %s: the file system holding the run is full (no space left), so nothing can be recorded until space is freed; what is recorded is intact",
			st->path, what);
	if (code == SQLITE_READONLY || (st->readonly && code == SQLITE_CANTOPEN))
		return err_set(
			ERR_IO,
			"%s: %s: the results directory cannot be written (a read-only mount, or not yours), so nothing can be recorded; it can only be read",
			st->path, what);
	if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
		return damaged(st, sqlite3_errmsg(st->db));
	return err_set(ERR_IO, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

/* Columns added after the first release: stores written by it gain them
 * on open (a concurrent opener may win the race; its column is the same). */
static int migrate(sqlite3 *db, char **msg)
{
	static const char *const add[] = {
		"ALTER TABLE jobs ADD COLUMN submit_tries INTEGER NOT NULL DEFAULT 0",
		"ALTER TABLE runs ADD COLUMN aggregate_key TEXT",
		"ALTER TABLE runs ADD COLUMN aggregated_attempts INTEGER NOT NULL DEFAULT 0",
		"ALTER TABLE jobs ADD COLUMN failed_nodes TEXT",
	};
	for (size_t i = 0; i < sizeof add / sizeof *add; i++) {
		if (sqlite3_exec(db, add[i], NULL, NULL, msg) == SQLITE_OK)
			continue;
		if (!*msg || !strstr(*msg, "duplicate column name"))
			return -1;
		sqlite3_free(*msg);
		*msg = NULL;
	}
	return 0;
}

static long long file_size(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

int store_journal_parse(const char *s, enum store_journal *j)
{
	if (!strcmp(s, "auto"))
		*j = STORE_JOURNAL_AUTO;
	else if (!strcmp(s, "wal"))
		*j = STORE_JOURNAL_WAL;
	else if (!strcmp(s, "delete"))
		*j = STORE_JOURNAL_DELETE;
	else
		return err_set(ERR_USAGE, "store journal '%s': expected auto, wal or delete", s);
	return 0;
}

/* The journal mode SQLite reports after `PRAGMA journal_mode[=want]`. */
static int journal_mode(struct store *st, const char *want)
{
	char sql[64];
	sqlite3_stmt *q;
	snprintf(sql, sizeof sql, "PRAGMA journal_mode%s%s", want ? "=" : "", want ? want : "");
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return db_fail(st, "cannot read its journal mode");
	int rc = sqlite3_step(q);
	const unsigned char *m = rc == SQLITE_ROW ? sqlite3_column_text(q, 0) : NULL;
	if (m)
		snprintf(st->journal, sizeof st->journal, "%s", (const char *)m);
	sqlite3_finalize(q);
	if (!m && want && (rc == SQLITE_BUSY || rc == SQLITE_LOCKED))
		return 1; /* WAL cannot be left while another connection has the store */
	return m ? 0
		 : db_fail(st,
			   want ? "cannot set its journal mode" : "cannot read its journal mode");
}

/* The journal the store should use: the one asked for; else a new store's
 * by its file system; else (NULL) the one it has, which was chosen so. */
static const char *wanted_journal(const struct store *st, enum store_journal j, int is_new)
{
	if (j != STORE_JOURNAL_AUTO)
		return j == STORE_JOURNAL_WAL ? "wal" : "delete";
	return !is_new ? NULL : st->fs.shared ? "delete" : "wal";
}

static int set_journal(struct store *st, enum store_journal j, int is_new)
{
	const char *want = wanted_journal(st, j, is_new);
	int rc = journal_mode(st, want);
	if (rc == 1) /* busy: which mode it keeps */
		rc = journal_mode(st, NULL);
	if (rc == 0 && want && strcmp(st->journal, want))
		rc = err_set(
			ERR_IO, PROSE_STORE_MODE_BUSY, st->path, st->journal, want,
			st->fs.shared
				? " (the results are on a shared file system, where SQLite's WAL must not be used across hosts)"
				: "");
	if (rc == 0 && !want && st->fs.shared && !strcmp(st->journal, "wal"))
		fprintf(stderr,
			PROSE_STORE_WAL_SHARED,
			st->path, st->fs.name);
	return rc;
}

/* The journal a store that is only read was left in: bytes 18 and 19 of its
 * header are 2 for WAL, 1 for a rollback journal. */
static void header_journal(struct store *st)
{
	unsigned char h[20] = { 0 };
	FILE *f = fsio_fopen_input(st->path);
	if (f) {
		if (fread(h, 1, sizeof h, f) != sizeof h)
			h[18] = 0;
		fclose(f);
	}
	snprintf(st->journal, sizeof st->journal, "%s", h[18] == 2 ? "wal" : "delete");
}

/* An existing store must be one campaign wrote: an empty file (truncated to
 * nothing) or another program's database is named, never filled with a
 * fresh schema. */
static int check_is_store(struct store *st)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT 1 FROM sqlite_master WHERE type='table' AND name='runs'", -1,
			       &q, NULL) != SQLITE_OK)
		return db_fail(st, "cannot read its tables");
	int rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc != SQLITE_DONE)
		return db_fail(st, "cannot read its tables");
	return damaged(st, file_size(st->path) == 0 ? "no runs table: the file is empty" :
		       "no runs table: another program's database?");
}

/* file:PATH?immutable=1, PATH percent-encoded: a store that cannot be
 * written is read without locks or a WAL index (neither can be made there). */
static char *immutable_uri(const char *path)
{
	struct strbuf u = STRBUF_INIT;
	strbuf_adds(&u, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p))
			strbuf_addch(&u, (char)*p);
		else
			strbuf_addf(&u, "%%%02X", *p);
	strbuf_adds(&u, "?immutable=1");
	return strbuf_detach(&u);
}

/* Opens the database file (read-only and immutable when it cannot be written). */
static int open_db(struct store *st, int create)
{
	int flags =
		(st->readonly ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI : SQLITE_OPEN_READWRITE) |
		SQLITE_OPEN_FULLMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
	/* a full disk: read through the journal as it is (immutable would skip a WAL's newest
	 * pages) */
	char *uri = st->readonly && !st->full ? immutable_uri(st->path) : NULL;
	int ok = sqlite3_open_v2(uri ? uri : st->path, &st->db, flags, NULL) == SQLITE_OK;
	free(uri);
	if (!ok)
		return err_set(ERR_IO, "cannot open state store %s: %s", st->path,
			       st->db ? sqlite3_errmsg(st->db) : "out of memory");
	sqlite3_busy_timeout(st->db, 60000);
	return 0;
}

int store_open(const char *path, int create, enum store_journal journal, struct store **out)
{
	struct store *st = xcalloc(1, sizeof *st);
	st->path = xstrdup(path);
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	const char *where = slash ? dir : "."; /* the run directory */
	int is_new = !fsio_exists(path), rc = 0;
	char *msg = NULL;
	if (is_new && !create)
		rc = err_set(
			ERR_NOTFOUND,
			"state store %s is missing: the run's records are gone (nothing was created in their place)",
			path);
	if (rc == 0)
		rc = filesystem_of(where, &st->fs);
	/* A results directory that cannot be written (a read-only mount, someone
	 * else's results): the store is read, and any write says why it failed. */
	st->readonly = !create && !is_new && (access(path, W_OK) != 0 || access(where, W_OK) != 0);
	/* A full file system: the store is read as it is (a journal could not
	 * even be opened), and the run is shown with a word on why. */
	struct statvfs vfs;
	st->full = !create && !is_new && statvfs(where, &vfs) == 0 && vfs.f_bavail == 0;
	if (st->full && !st->readonly)
		fprintf(stderr,
			"campaign: warning: the file system holding %s is full: the run is shown as recorded, and nothing can be recorded until space is freed\n",
			where);
	st->readonly |= st->full;
	if (rc == 0 && st->fs.shared && !st->readonly)
		rc = filesystem_check_locks(where, &st->fs);
	if (rc == 0)
		rc = open_db(st, create);
	if (rc == 0 && st->readonly)
		header_journal(st);
	else if (rc == 0)
		rc = set_journal(st, journal, is_new);
	if (rc == 0 && !create)
		rc = check_is_store(st);
	if (rc == 0 && !st->readonly &&
	    (sqlite3_exec(st->db, "PRAGMA synchronous=FULL", NULL, NULL, &msg) != SQLITE_OK ||
	     sqlite3_exec(st->db, schema, NULL, NULL, &msg) != SQLITE_OK ||
	     migrate(st->db, &msg) < 0))
		rc = err_set(ERR_IO, "state store %s: %s", path, msg ? msg : "cannot initialise");
	sqlite3_free(msg);
	free(dir);
	if (rc < 0) {
		store_close(st);
		return rc;
	}
	*out = st;
	return 0;
}

const char *store_journal_name(const struct store *st)
{
	return st->journal;
}

const char *store_fs_name(const struct store *st)
{
	return st->fs.name;
}

int store_fs_shared(const struct store *st)
{
	return st->fs.shared;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

static char *col_str(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return t ? xstrdup((const char *)t) : NULL;
}

static void bind_str(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

static int exec_sql(struct store *st, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int rc = err_set(ERR_IO, "%s: %s", st->path, msg ? msg : sql);
		sqlite3_free(msg);
		return rc;
	}
	return 0;
}

/* fn(st, ctx) in one IMMEDIATE transaction: committed when it returns 0,
 * rolled back (its error returned) otherwise. With a rollback journal
 * (shared file systems), an autocommit write that finds another writer may
 * be refused at once (SQLite's deadlock rule: it holds a read lock while
 * asking for the write lock) instead of waiting its turn; BEGIN IMMEDIATE
 * takes the write lock first, and waits (busy timeout) for it. */
static int store_tx(struct store *st, int (*fn)(struct store *st, void *ctx), void *ctx)
{
	int rc = exec_sql(st, "BEGIN IMMEDIATE");
	if (rc < 0)
		return rc;
	rc = fn(st, ctx);
	if (rc == 0)
		return exec_sql(st, "COMMIT");
	exec_sql(st, "ROLLBACK");
	return rc;
}

struct one_write {
	sqlite3_stmt *s;
	const char *what;
};

static int step_one(struct store *st, void *ctx)
{
	struct one_write *w = ctx;
	int rc = sqlite3_step(w->s) == SQLITE_DONE ? 0 : db_fail(st, w->what);
	sqlite3_reset(w->s);
	return rc;
}

/* One write statement in its own transaction (store_tx). */
static int step_write(struct store *st, sqlite3_stmt *s, const char *what)
{
	struct one_write w = { s, what };
	return store_tx(st, step_one, &w);
}

/* Binds ap's values to s's parameters 1, 2, ... by types: 's' a string (NULL: SQL NULL), 'i'
 * an int, 'l' a long long, 'd' a double. */
static void bind_all(sqlite3_stmt *s, const char *types, va_list ap)
{
	for (int i = 0; types[i]; i++)
		if (types[i] == 's')
			bind_str(s, i + 1, va_arg(ap, const char *));
		else if (types[i] == 'i')
			sqlite3_bind_int(s, i + 1, va_arg(ap, int));
		else if (types[i] == 'l')
			sqlite3_bind_int64(s, i + 1, va_arg(ap, long long));
		else
			sqlite3_bind_double(s, i + 1, va_arg(ap, double));
}

/* sql prepared, its parameters bound (bind_all), written in a transaction of its own, and
 * finalized: the whole of a one-statement write; what names it in the error. */
static int write_one(struct store *st, const char *what, const char *sql, const char *types,
		     ...)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return db_fail(st, "prepare");
	va_list ap;
	va_start(ap, types);
	bind_all(s, types, ap);
	va_end(ap);
	int rc = step_write(st, s, what);
	sqlite3_finalize(s);
	return rc;
}

int store_run_create(struct store *st, const struct run_row *r)
{
	return write_one(
		st, "cannot record run",
		"INSERT INTO runs (run_id, campaign, run_dir, backend, campaign_sha256, created_at)\n"
		"VALUES (?,?,?,?,?,?)",
		"sssssd", r->run_id, r->campaign, r->run_dir, r->backend, r->campaign_sha256,
		r->created_at);
}

int store_run_get(struct store *st, struct run_row *out)
{
	sqlite3_stmt *s;
	memset(out, 0, sizeof *out);
	if (sqlite3_prepare_v2(
		    st->db,
		    "SELECT run_id, campaign, run_dir, backend, campaign_sha256, created_at,\n"
		    "CASE WHEN aggregated_attempts = (SELECT COUNT(*) FROM jobs) THEN aggregated_at ELSE 0 END,\n"
		    "aggregate_job_id, aggregate_key\n"
		    "FROM runs\n"
		    "LIMIT 1",
		    -1, &s, NULL) != SQLITE_OK)
		return db_fail(st, "prepare");
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		out->run_id = col_str(s, 0);
		out->campaign = col_str(s, 1);
		out->run_dir = col_str(s, 2);
		out->backend = col_str(s, 3);
		out->campaign_sha256 = col_str(s, 4);
		out->created_at = sqlite3_column_double(s, 5);
		out->aggregated_at = sqlite3_column_double(s, 6);
		out->aggregate_job_id = col_str(s, 7);
		out->aggregate_key = col_str(s, 8);
		rc = 0;
	} else {
		rc = rc == SQLITE_DONE ? err_set(ERR_NOTFOUND, "%s holds no run", st->path)
				       : db_fail(st, "cannot read run");
	}
	sqlite3_finalize(s);
	return rc;
}

void run_row_free(struct run_row *r)
{
	free(r->run_id);
	free(r->campaign);
	free(r->run_dir);
	free(r->backend);
	free(r->campaign_sha256);
	free(r->aggregate_job_id);
	free(r->aggregate_key);
	memset(r, 0, sizeof *r);
}

int store_run_set_sha256(struct store *st, const char *sha)
{
	return write_one(st, "cannot update run", "UPDATE runs SET campaign_sha256 = ?", "s", sha);
}

int store_run_set_aggregate_job(struct store *st, const char *job_id)
{
	return write_one(st, "cannot update run", "UPDATE runs SET aggregate_job_id = ?", "s",
			 job_id);
}

int store_run_set_aggregate_intent(struct store *st, const char *key)
{
	return write_one(st, "cannot update run",
			 "UPDATE runs SET aggregate_key = ?, aggregate_job_id = NULL", "s", key);
}

int store_run_set_aggregated(struct store *st, double at, long attempts)
{
	return write_one(st, "cannot update run",
			 "UPDATE runs\n"
			 "SET aggregated_at = ?1, aggregated_attempts = ?2\n"
			 "WHERE ?2 = (SELECT COUNT(*) FROM jobs)",
			 "dl", at, (long long)attempts);
}

struct plan_ctx {
	const char *scenario;
	int nodes, ntasks, *attempt;
};

static int plan_rows(struct store *st, void *ctx)
{
	struct plan_ctx *p = ctx;
	sqlite3_stmt *s = NULL, *t = NULL;
	int rc = 0;
	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO jobs (scenario, attempt, state, nodes, ntasks)\n"
			       "SELECT ?1, COALESCE(MAX(attempt), 0) + 1, 'PLANNED', ?2, ?3\n"
			       "FROM jobs\n"
			       "WHERE scenario = ?1\n"
			       "RETURNING attempt",
			       -1, &s, NULL) != SQLITE_OK)
		return db_fail(st, "prepare");
	bind_str(s, 1, p->scenario);
	sqlite3_bind_int(s, 2, p->nodes);
	sqlite3_bind_int(s, 3, p->ntasks);
	if (sqlite3_step(s) != SQLITE_ROW)
		rc = db_fail(st, "cannot record submit intent");
	else
		*p->attempt = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	if (rc == 0 &&
	    sqlite3_prepare_v2(
		    st->db,
		    "INSERT INTO transitions (scenario, attempt, from_state, to_state, at, detail)\n"
		    "VALUES (?, ?, NULL, 'PLANNED', ?, 'submit intent recorded')",
		    -1, &t, NULL) != SQLITE_OK)
		rc = db_fail(st, "prepare");
	if (rc == 0) {
		bind_str(t, 1, p->scenario);
		sqlite3_bind_int(t, 2, *p->attempt);
		sqlite3_bind_double(t, 3, store_now());
		rc = sqlite3_step(t) == SQLITE_DONE ? 0 : db_fail(st, "cannot record transition");
	}
	sqlite3_finalize(t);
	return rc;
}

int store_job_plan(struct store *st, const char *scenario, int nodes, int ntasks, int *attempt)
{
	struct plan_ctx p = { scenario, nodes, ntasks, attempt };
	return store_tx(st, plan_rows, &p);
}

int store_job_submitting(struct store *st, const char *scenario, int attempt)
{
	return write_one(st, "cannot update job",
			 "UPDATE jobs\n"
			 "SET submit_tries = submit_tries + 1\n"
			 "WHERE scenario = ?1 AND attempt = ?2",
			 "si", scenario, attempt);
}

int store_job_submitted(struct store *st, const char *scenario, int attempt, const char *job_id,
			const char *detail)
{
	int rc = write_one(st, "cannot update job",
			   "UPDATE jobs\n"
			   "SET job_id = ?3, submitted_at = ?4\n"
			   "WHERE scenario = ?1 AND attempt = ?2",
			   "sisd", scenario, attempt, job_id, store_now());
	return rc < 0 ? rc
		      : store_job_update(st, scenario, attempt, JS_PENDING, "", -1, NULL,
					 detail ? detail : "submitted");
}

int store_job_set_pid(struct store *st, const char *scenario, int attempt, long pid)
{
	return write_one(st, "cannot update job",
			 "UPDATE jobs SET pid = ?3 WHERE scenario = ?1 AND attempt = ?2", "sil",
			 scenario, attempt, (long long)pid);
}

int store_job_request_cancel(struct store *st, const char *scenario, int attempt)
{
	return write_one(
		st, "cannot update job",
		"UPDATE jobs SET cancel_requested = 1 WHERE scenario = ?1 AND attempt = ?2", "si",
		scenario, attempt);
}

/* A job's move to a state, as store_job_update takes it. */
static int update_rows(struct store *st, void *ctx)
{
	const struct job_change *c = ctx;
	sqlite3_stmt *s = NULL;
	const char *sn = job_state_name(c->state);
	const char *from = c->from >= 0 ? job_state_name(c->from) : NULL;
	double now = store_now();
	/* The transition row is written only when the state really changes. */
	if (sqlite3_prepare_v2(
		    st->db,
		    "INSERT INTO transitions (scenario, attempt, from_state, to_state, at, detail)\n"
		    "SELECT scenario, attempt, state, ?3, ?4, ?5\n"
		    "FROM jobs\n"
		    "WHERE scenario = ?1 AND attempt = ?2 AND state <> ?3\n"
		    "AND (?6 IS NULL OR state = ?6)",
		    -1, &s, NULL) != SQLITE_OK)
		return db_fail(st, "prepare");
	bind_str(s, 1, c->scenario);
	sqlite3_bind_int(s, 2, c->attempt);
	bind_str(s, 3, sn);
	sqlite3_bind_double(s, 4, now);
	bind_str(s, 5, c->detail);
	bind_str(s, 6, from);
	int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : db_fail(st, "cannot record transition");
	sqlite3_finalize(s);
	if (rc < 0)
		return rc;
	if (sqlite3_prepare_v2(
		    st->db,
		    "UPDATE jobs\n"
		    "SET state = ?3, reason = COALESCE(?4, reason),\n"
		    "exit_code = CASE WHEN ?5 >= 0 THEN ?5 ELSE exit_code END,\n"
		    "nodelist = COALESCE(?6, nodelist),\n"
		    "started_at = CASE WHEN ?10 > 0 THEN ?10\n"
		    "  WHEN ?3 = 'RUNNING' AND started_at = 0 THEN ?7 ELSE started_at END,\n"
		    "ended_at = CASE WHEN ?11 > 0 THEN ?11\n"
		    "  WHEN ?8 AND ended_at = 0 THEN ?7 ELSE ended_at END\n"
		    "WHERE scenario = ?1 AND attempt = ?2 AND (?9 IS NULL OR state = ?9)",
		    -1, &s, NULL) != SQLITE_OK)
		return db_fail(st, "prepare");
	bind_str(s, 1, c->scenario);
	sqlite3_bind_int(s, 2, c->attempt);
	bind_str(s, 3, sn);
	bind_str(s, 4, c->reason);
	sqlite3_bind_int(s, 5, c->exit_code);
	bind_str(s, 6, c->nodelist);
	sqlite3_bind_double(s, 7, now);
	sqlite3_bind_int(s, 8, job_state_is_final(c->state));
	bind_str(s, 9, from);
	sqlite3_bind_double(s, 10, c->start);
	sqlite3_bind_double(s, 11, c->end);
	rc = sqlite3_step(s) == SQLITE_DONE ? 0 : db_fail(st, "cannot update job");
	sqlite3_finalize(s);
	return rc;
}

int store_job_update(struct store *st, const char *scenario, int attempt, enum job_state state,
		     const char *reason, int exit_code, const char *nodelist, const char *detail)
{
	struct job_change c = { .scenario = scenario,
				.attempt = attempt,
				.from = -1,
				.state = state,
				.reason = reason,
				.exit_code = exit_code,
				.nodelist = nodelist,
				.detail = detail };
	return store_job_change(st, &c);
}

int store_job_change(struct store *st, const struct job_change *c)
{
	return store_tx(st, update_rows, (void *)c);
}

/* One statement on (scenario, attempt) with ?3.. bound by the caller's binder. */
static int requeue_step(struct store *st, const char *sql, const struct job_requeue *q,
			double now, const char *what)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return db_fail(st, "prepare");
	bind_str(s, 1, q->scenario);
	sqlite3_bind_int(s, 2, q->attempt);
	sqlite3_bind_double(s, 3, now);
	if (sqlite3_bind_parameter_count(s) >= 6) {
		sqlite3_bind_double(s, 4, q->started_at);
		sqlite3_bind_double(s, 5, q->ended_at);
		bind_str(s, 6, q->failed_nodes);
	}
	int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : db_fail(st, what);
	sqlite3_finalize(s);
	return rc;
}

/* The scenario's latest attempt number (0: none). */
static int latest_attempt(struct store *st, const char *scenario, int *attempt)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT COALESCE(MAX(attempt), 0) FROM jobs WHERE scenario = ?", -1,
			       &s, NULL) != SQLITE_OK)
		return db_fail(st, "prepare");
	bind_str(s, 1, scenario);
	int rc = sqlite3_step(s) == SQLITE_ROW ? 0 : db_fail(st, "cannot read jobs");
	*attempt = rc == 0 ? sqlite3_column_int(s, 0) : 0;
	sqlite3_finalize(s);
	return rc;
}

struct requeue_ctx {
	const struct job_requeue *q;
	int *added;
};

static int requeue_rows(struct store *st, void *ctx)
{
	struct requeue_ctx *x = ctx;
	const struct job_requeue *q = x->q;
	struct job_change c = { .scenario = q->scenario,
				.attempt = q->attempt,
				.from = -1,
				.state = q->state,
				.reason = q->reason,
				.exit_code = q->exit_code,
				.nodelist = q->nodelist,
				.detail = "the controller requeued the job under the same id" };
	double now = store_now();
	int latest, rc = latest_attempt(st, q->scenario, &latest);
	*x->added = 0;
	if (rc < 0 || latest != q->attempt)
		return rc; /* another process recorded it first */
	if ((rc = update_rows(st, &c)) < 0 ||
	    (rc = requeue_step(
		     st,
		     "UPDATE jobs\n"
		     "SET started_at = CASE WHEN ?4 > 0 THEN ?4 ELSE started_at END,\n"
		     "ended_at = CASE WHEN ?5 > 0 THEN ?5 WHEN ended_at = 0 THEN ?3 ELSE ended_at END,\n"
		     "failed_nodes = ?6\n"
		     "WHERE scenario = ?1 AND attempt = ?2",
		     q, now, "cannot update job")) < 0 ||
	    (rc = requeue_step(
		     st,
		     "INSERT INTO jobs (scenario, attempt, job_id, state, nodes, ntasks, submitted_at, submit_tries)\n"
		     "SELECT scenario, attempt + 1, job_id, 'PENDING', nodes, ntasks, ?3,\n"
		     "submit_tries\n"
		     "FROM jobs\n"
		     "WHERE scenario = ?1 AND attempt = ?2",
		     q, now, "cannot record the requeued attempt")) < 0)
		return rc;
	rc = requeue_step(
		st,
		"INSERT INTO transitions (scenario, attempt, from_state, to_state, at, detail)\n"
		"VALUES (?1, ?2 + 1, NULL, 'PENDING', ?3, 'requeued by the controller under the same job id')",
		q, now, "cannot record transition");
	*x->added = rc == 0;
	return rc;
}

int store_job_requeued(struct store *st, const struct job_requeue *q, int *added)
{
	struct requeue_ctx x = { q, added };
	return store_tx(st, requeue_rows, &x);
}

static int read_jobs(struct store *st, const char *where, struct job_row **rows, size_t *n)
{
	sqlite3_stmt *s;
	struct strbuf sql = STRBUF_INIT;
	*rows = NULL;
	*n = 0;
	strbuf_addf(
		&sql,
		"SELECT scenario, attempt, job_id, state, reason, exit_code, nodes,\n"
		"ntasks, nodelist, submitted_at, started_at, ended_at, pid,\n"
		"cancel_requested, submit_tries, seq, failed_nodes\n"
		"FROM jobs j %s ORDER BY (SELECT MIN(seq) FROM jobs k WHERE k.scenario = j.scenario),\n"
		"attempt",
		where);
	int rc = sqlite3_prepare_v2(st->db, sql.buf, -1, &s, NULL);
	strbuf_free(&sql);
	if (rc != SQLITE_OK)
		return db_fail(st, "prepare");
	size_t cap = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		XGROW(*rows, *n, cap, 16);
		struct job_row *r = &(*rows)[(*n)++];
		r->scenario = col_str(s, 0);
		r->attempt = sqlite3_column_int(s, 1);
		r->job_id = col_str(s, 2);
		const char *state = (const char *)sqlite3_column_text(s, 3);
		int parsed = state ? job_state_parse(state) : -1;
		r->state = parsed < 0 ? JS_LOST : (enum job_state)parsed;
		r->reason = col_str(s, 4);
		r->exit_code = sqlite3_column_int(s, 5);
		r->nodes = sqlite3_column_int(s, 6);
		r->ntasks = sqlite3_column_int(s, 7);
		r->nodelist = col_str(s, 8);
		r->submitted_at = sqlite3_column_double(s, 9);
		r->started_at = sqlite3_column_double(s, 10);
		r->ended_at = sqlite3_column_double(s, 11);
		r->pid = (long)sqlite3_column_int64(s, 12);
		r->cancel_requested = sqlite3_column_int(s, 13);
		r->submit_tries = sqlite3_column_int(s, 14);
		r->seq = (long)sqlite3_column_int64(s, 15);
		r->failed_nodes = col_str(s, 16);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		job_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return db_fail(st, "cannot read jobs");
	}
	return 0;
}

int store_jobs_all(struct store *st, struct job_row **rows, size_t *n)
{
	return read_jobs(st, "", rows, n);
}

size_t job_rows_scenario_end(const struct job_row *rows, size_t n, size_t first)
{
	size_t end = first + 1;
	while (end < n && !strcmp(rows[end].scenario, rows[first].scenario))
		end++;
	return end;
}

void job_rows_free(struct job_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].scenario);
		free(rows[i].job_id);
		free(rows[i].reason);
		free(rows[i].nodelist);
		free(rows[i].failed_nodes);
	}
	free(rows);
}

int store_transitions(struct store *st, struct transition_row **rows, size_t *n)
{
	sqlite3_stmt *s;
	*rows = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(
		    st->db,
		    "SELECT scenario, attempt, from_state, to_state, at, detail FROM transitions ORDER BY id",
		    -1, &s, NULL) != SQLITE_OK)
		return db_fail(st, "prepare");
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		XGROW(*rows, *n, cap, 16);
		struct transition_row *r = &(*rows)[(*n)++];
		r->scenario = col_str(s, 0);
		r->attempt = sqlite3_column_int(s, 1);
		r->from = col_str(s, 2);
		r->to = col_str(s, 3);
		r->at = sqlite3_column_double(s, 4);
		r->detail = col_str(s, 5);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_fail(st, "cannot read transitions");
}

void transition_rows_free(struct transition_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].scenario);
		free(rows[i].from);
		free(rows[i].to);
		free(rows[i].detail);
	}
	free(rows);
}
