/* SPDX-License-Identifier: MIT */
#include "analyzers/read/nsys.h"
#include "analyzers/read/prose.h"
#include "util/fsio.h"

#include "util/err.h"
#include "util/sort.h"
#include "util/strbuf.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A serialized GlobalId holds the process id in bits 24..47. */
#define PID_OF(gid) ((long)(((unsigned long long)(gid) >> 24) & 0xFFFFFF))

int nsys_is_sqlite(const char *path)
{
	char head[16] = { 0 };
	FILE *f = fsio_fopen_input(path);
	if (!f)
		return 0;
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	return n == sizeof head && !memcmp(head, "SQLite format 3", 16);
}

/* file: URI of path, immutable: an export is never written, and no -wal or
 * -shm file is created next to it (which may be a read-only directory). */
static char *uri_of(const char *path)
{
	struct strbuf u = STRBUF_INIT;
	strbuf_adds(&u, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p == '?' || *p == '#' || *p == '%' || *p < 0x20 || *p >= 0x7f)
			strbuf_addf(&u, "%%%02X", *p);
		else
			strbuf_addch(&u, (char)*p);
	}
	strbuf_adds(&u, "?immutable=1");
	return strbuf_detach(&u);
}

static int has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	int yes = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1,
			       &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		yes = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return yes;
}

/* A file whose SQLite header is intact but whose pages are not (damaged, or
 * garbage behind the magic) is said to be unreadable, not to lack a table. */
static int readable(sqlite3 *db, const char *path)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st) == SQLITE_ROW ? SQLITE_OK : sqlite3_errcode(db);
	sqlite3_finalize(st);
	if (rc == SQLITE_OK)
		return 0;
	return err_set(
		ERR_IO,
		"%s: not a readable SQLite database (%s): damaged, or not written by SQLite; export the report again with 'nsys export --type sqlite'",
		path, sqlite3_errstr(rc));
}

/* The export at path opened read-only and immutable into *db, and found readable; else the
 * error (named after path), *db closed. */
static int open_export(const char *path, sqlite3 **db)
{
	char *uri = uri_of(path);
	*db = NULL;
	int rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	free(uri);
	if (rc != SQLITE_OK)
		rc = err_set(ERR_IO, "%s: cannot open as SQLite: %s", path,
			     *db ? sqlite3_errmsg(*db) : "out of memory");
	else
		rc = readable(*db, path);
	if (rc < 0) {
		sqlite3_close(*db);
		*db = NULL;
	}
	return rc;
}

static struct gpu_trace *trace_for(struct nsys_report *r, long pid, int dev)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->proc[i].pid == pid && r->proc[i].device == dev)
			return &r->proc[i];
	r->proc = xrealloc(r->proc, (r->n + 1) * sizeof *r->proc);
	struct gpu_trace *t = &r->proc[r->n++];
	memset(t, 0, sizeof *t);
	t->rank = -1;
	t->unit_per_us = 1000;
	t->last_step_ts = -1;
	t->pid = pid;
	t->device = dev;
	snprintf(t->label, sizeof t->label, "pid%ld_dev%d", pid, dev);
	return t;
}

/* Kineto's names for memory operations: "Memcpy DtoD", "Memset (Device)". */
static const char *copy_kind(int k)
{
	static const char *const kinds[] = { "Unknown", "HtoD", "DtoH", "HtoA", "AtoH",
					     "AtoA",    "AtoD", "DtoA", "DtoD", "HtoH",
					     "PtoP",    "HtoD", "DtoH", "DtoD" };
	return k >= 0 && k < (int)(sizeof kinds / sizeof *kinds) ? kinds[k] : "Unknown";
}

static const char *mem_kind(int k)
{
	static const char *const kinds[] = { "Pageable",       "Pinned",  "Device",
					     "Array",          "Managed", "Device Static",
					     "Managed Static", "Unknown" };
	return k >= 0 && k < (int)(sizeof kinds / sizeof *kinds) ? kinds[k] : "Unknown";
}

enum gpu_table { KERNEL, MEMCPY, MEMSET };

static int read_gpu(sqlite3 *db, enum gpu_table which, struct nsys_report *r)
{
	static const char kernel_sql[] =
		"SELECT k.globalPid, k.deviceId, k.streamId, k.correlationId, k.start, k.end, s.value\n"
		"FROM CUPTI_ACTIVITY_KIND_KERNEL k\n"
		"JOIN StringIds s ON s.id = k.demangledName";
	static const char *const sql[] = {
		kernel_sql,
		"SELECT globalPid, deviceId, streamId, correlationId, start, end, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY",
		"SELECT globalPid, deviceId, streamId, correlationId, start, end, memKind FROM CUPTI_ACTIVITY_KIND_MEMSET",
	};
	static const char *const table[] = { "CUPTI_ACTIVITY_KIND_KERNEL",
					     "CUPTI_ACTIVITY_KIND_MEMCPY",
					     "CUPTI_ACTIVITY_KIND_MEMSET" };
	if (!has_table(db, table[which]))
		return 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql[which], -1, &st, NULL) != SQLITE_OK)
		return err_set(ERR_IO, "%s: unexpected layout: %s", table[which],
			       sqlite3_errmsg(db));
	int rc;
	char name[64];
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct gpu_trace *t = trace_for(r, PID_OF(sqlite3_column_int64(st, 0)),
						sqlite3_column_int(st, 1));
		double start_ns = (double) sqlite3_column_int64(st, 4),
		       end_ns = (double) sqlite3_column_int64(st, 5);
		if (sqlite3_column_type(st, 4) != SQLITE_INTEGER ||
		    sqlite3_column_type(st, 5) != SQLITE_INTEGER || start_ns < 0 ||
		    !trace_times_sane(start_ns / 1000, (end_ns - start_ns) / 1000)) {
			/* not integer nanoseconds since the session's start, ending before it
			 * starts, or longer than any kernel runs */
			t->malformed++;
			continue;
		}
		const char *nm = (const char *)sqlite3_column_text(st, 6);
		if (which == MEMCPY)
			snprintf(name, sizeof name, "Memcpy %s",
				 copy_kind(sqlite3_column_int(st, 6))),
				nm = name;
		else if (which == MEMSET)
			snprintf(name, sizeof name, "Memset (%s)",
				 mem_kind(sqlite3_column_int(st, 6))),
				nm = name;
		long corr = sqlite3_column_type(st, 3) == SQLITE_NULL
			? -1
			: (long) sqlite3_column_int64(st, 3);
		gpu_trace_add(t, (double) sqlite3_column_int64(st, 4),
			      (double) sqlite3_column_int64(st, 5), nm ? nm : "?",
			      sqlite3_column_int(st, 2), corr);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : err_set(ERR_IO, "%s: %s", table[which], sqlite3_errmsg(db));
}

/* CUDA runtime calls go to every device trace of their process. */
static int read_runtime(sqlite3 *db, struct nsys_report *r)
{
	if (!has_table(db, "CUPTI_ACTIVITY_KIND_RUNTIME"))
		return 0;
	sqlite3_stmt *st;
	const char *sql =
		"SELECT r.globalTid, r.correlationId, r.start, r.end, s.value\n"
		"FROM CUPTI_ACTIVITY_KIND_RUNTIME r\n"
		"JOIN StringIds s ON s.id = r.nameId\n"
		"WHERE r.correlationId IS NOT NULL";
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return err_set(ERR_IO, "CUPTI_ACTIVITY_KIND_RUNTIME: unexpected layout: %s",
			       sqlite3_errmsg(db));
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long pid = PID_OF(sqlite3_column_int64(st, 0));
		double start = (double) sqlite3_column_int64(st, 2),
		       end = (double) sqlite3_column_int64(st, 3);
		for (size_t i = 0; i < r->n; i++)
			if (r->proc[i].pid == pid)
				gpu_trace_add_rt(&r->proc[i], (long) sqlite3_column_int64(st, 1),
						 start, end - start,
						 (const char *) sqlite3_column_text(st, 4));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE
		? 0
		: err_set(ERR_IO, "CUPTI_ACTIVITY_KIND_RUNTIME: %s", sqlite3_errmsg(db));
}

/* HTA's step cut where an export has it: NVTX ranges named ProfilerStep#N
 * (PyTorch's profiler under nsys with NVTX on, or a script of one's own),
 * per process, cut that process's traces as a Kineto trace's would be. */
static void cut_steps(sqlite3 *db, struct nsys_report *r)
{
	sqlite3_stmt *st;
	const char *sql =
		"SELECT n.globalTid, n.start, COALESCE(n.text, s.value) AS nm\n"
		"FROM NVTX_EVENTS n\n"
		"LEFT JOIN StringIds s ON s.id = n.textId\n"
		"WHERE n.end IS NOT NULL AND n.eventType IN (59, 60) AND nm LIKE 'ProfilerStep#%'\n"
		"ORDER BY n.globalTid, n.start";
	if (!has_table(db, "NVTX_EVENTS") ||
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	struct { long pid; double ts; char *name; } *v = NULL;
	size_t n = 0, cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW && n < 4096) {
		XGROW(v, n, cap, 64);
		v[n].pid = PID_OF(sqlite3_column_int64(st, 0));
		v[n].ts = (double)sqlite3_column_int64(st, 1);
		v[n++].name = xstrdup((const char *)sqlite3_column_text(st, 2));
	}
	sqlite3_finalize(st);
	char **names = xcalloc(n + 1, sizeof *names);
	double *ts = xcalloc(n + 1, sizeof *ts);
	for (size_t i = 0; i < r->n; i++) {
		int k = 0;
		for (size_t j = 0; j < n; j++)
			if (v[j].pid == r->proc[i].pid)
				names[k] = v[j].name, ts[k++] = v[j].ts;
		gpu_trace_cut_steps(&r->proc[i], names, ts, k);
	}
	for (size_t j = 0; j < n; j++)
		free(v[j].name);
	free(v);
	free(names);
	free(ts);
}

/* NVTX push/pop and start/end ranges summed per name, as nsys's nvtx_sum. */
static json_t *read_nvtx(sqlite3 *db, int top_n)
{
	json_t *a = json_array();
	sqlite3_stmt *st;
	const char *sql =
		"SELECT COALESCE(n.text, s.value) AS nm, SUM(n.end - n.start) AS t, COUNT(*)\n"
		"FROM NVTX_EVENTS n\n"
		"LEFT JOIN StringIds s ON s.id = n.textId\n"
		"WHERE n.end IS NOT NULL AND n.eventType IN (59, 60) AND nm IS NOT NULL\n"
		"GROUP BY nm\n"
		"ORDER BY t DESC, nm\n"
		"LIMIT ?";
	if (!has_table(db, "NVTX_EVENTS") ||
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return a;
	sqlite3_bind_int(st, 1, top_n);
	while (sqlite3_step(st) == SQLITE_ROW)
		json_array_append_new(
			a,
			json_pack("{s:s, s:I, s:I}", "range",
				  (const char *) sqlite3_column_text(st, 0), "total_ns",
				  (json_int_t) sqlite3_column_int64(st, 1), "instances",
				  (json_int_t) sqlite3_column_int64(st, 2)));
	sqlite3_finalize(st);
	return a;
}

static int cmp_process(const void *a, const void *b)
{
	const struct gpu_trace *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->device > y->device) - (x->device < y->device);
}

int nsys_load(const char *path, int nvtx_top_n, struct nsys_report *out)
{
	memset(out, 0, sizeof *out);
	sqlite3 *db;
	int rc = open_export(path, &db);
	if (rc < 0)
		return rc;
	if (!has_table(db, "StringIds") || !has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL")) {
		sqlite3_close(db);
		return err_set(
			ERR_IO,
			PROSE_NSYS_NOT_AN_EXPORT,
			path);
	}
	rc = read_gpu(db, KERNEL, out);
	if (rc == 0)
		rc = read_gpu(db, MEMCPY, out);
	if (rc == 0)
		rc = read_gpu(db, MEMSET, out);
	if (rc == 0)
		rc = read_runtime(db, out);
	if (rc == 0) {
		cut_steps(db, out);
		out->nvtx_top = read_nvtx(db, nvtx_top_n);
	}
	sqlite3_close(db);
	if (rc < 0) {
		char *why = xstrdup(err_last());
		nsys_report_free(out);
		rc = err_set(ERR_IO, "%s: %s", path, why);
		free(why);
		return rc;
	}
	if (out->n)
		sort_runs(out->proc, out->n, sizeof *out->proc, cmp_process);
	for (size_t i = 0; i < out->n; i++) {
		out->proc[i].rank = (int)i;
		gpu_trace_index_rt(&out->proc[i]);
	}
	return 0;
}

int nsys_load_host(const char *path, struct gpu_trace *host)
{
	memset(host, 0, sizeof *host);
	host->rank = -1;
	host->unit_per_us = 1;
	host->want_cpu = 1;
	sqlite3 *db;
	int rc = open_export(path, &db);
	if (rc < 0)
		return rc;
	if (!has_table(db, "StringIds")) {
		sqlite3_close(db);
		return err_set(ERR_IO, "%s: not an Nsight Systems export (no StringIds table)",
			       path);
	}
	rc = 0;
	sqlite3_stmt *st;
	const char *sql =
		"SELECT COALESCE(n.text, s.value), n.start, n.end, n.globalTid\n"
		"FROM NVTX_EVENTS n\n"
		"LEFT JOIN StringIds s ON s.id = n.textId\n"
		"WHERE n.end IS NOT NULL AND n.eventType IN (59, 60)\n"
		"ORDER BY n.start";
	if (has_table(db, "NVTX_EVENTS")) {
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
			rc = err_set(ERR_IO, "%s: NVTX_EVENTS: unexpected layout: %s", path,
				     sqlite3_errmsg(db));
		} else {
			char tid[32];
			while (sqlite3_step(st) == SQLITE_ROW) {
				const char *name = (const char *)sqlite3_column_text(st, 0);
				double start = (double) sqlite3_column_int64(st, 1),
				       end = (double) sqlite3_column_int64(st, 2);
				if (!name || end < start)
					continue;
				snprintf(tid, sizeof tid, "%lld",
					 (long long) sqlite3_column_int64(st, 3));
				gpu_trace_add_cpu(host, start / 1000, end / 1000, name, tid, 0);
			}
			sqlite3_finalize(st);
		}
	}
	sqlite3_close(db);
	if (rc < 0)
		gpu_trace_free(host);
	return rc;
}

/* The rows (name, start ns, end ns, globalTid) of sql as host ranges (µs) of each process's
 * traces, on the row's thread. */
static int host_rows(sqlite3 *db, const char *sql, const char *table, struct nsys_report *r)
{
	sqlite3_stmt *st;
	if (!has_table(db, table))
		return 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return err_set(ERR_IO, "%s: unexpected layout: %s", table, sqlite3_errmsg(db));
	char tid[32];
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		double start = (double) sqlite3_column_int64(st, 1),
		       end = (double) sqlite3_column_int64(st, 2);
		long long gtid = (long long) sqlite3_column_int64(st, 3);
		if (!name || end < start || !trace_times_sane(start / 1000, (end - start) / 1000))
			continue;
		snprintf(tid, sizeof tid, "%lld", gtid);
		for (size_t i = 0; i < r->n; i++)
			if (r->proc[i].pid == PID_OF(gtid))
				gpu_trace_add_cpu(&r->proc[i], start / 1000, end / 1000, name, tid,
						  0);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : err_set(ERR_IO, "%s: %s", table, sqlite3_errmsg(db));
}

int nsys_add_host(const char *path, struct nsys_report *r)
{
	sqlite3 *db;
	int rc = open_export(path, &db);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < r->n; i++)
		r->proc[i].want_cpu = 1;
	rc = host_rows(db,
		       "SELECT COALESCE(n.text, s.value), n.start, n.end, n.globalTid\n"
		       "FROM NVTX_EVENTS n\n"
		       "LEFT JOIN StringIds s ON s.id = n.textId\n"
		       "WHERE n.end IS NOT NULL AND n.eventType IN (59, 60)",
		       "NVTX_EVENTS", r);
	if (rc == 0)
		rc = host_rows(db,
			       "SELECT s.value, r.start, r.end, r.globalTid\n"
			       "FROM CUPTI_ACTIVITY_KIND_RUNTIME r\n"
			       "JOIN StringIds s ON s.id = r.nameId",
			       "CUPTI_ACTIVITY_KIND_RUNTIME", r);
	sqlite3_close(db);
	if (rc < 0) {
		char *why = xstrdup(err_last());
		rc = err_set(ERR_IO, "%s: %s", path, why);
		free(why);
	}
	return rc;
}

size_t nsys_busiest(const struct nsys_report *r)
{
	size_t busiest = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->proc[i].n > r->proc[busiest].n)
			busiest = i;
	return busiest;
}

void nsys_report_free(struct nsys_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		gpu_trace_free(&r->proc[i]);
	free(r->proc);
	json_decref(r->nvtx_top);
	memset(r, 0, sizeof *r);
}
