/* SPDX-License-Identifier: MIT */
#include "workers.h"

#include "ranklog.h"
#include "util/fsio.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds of one look: a launcher's tree is walked this deep and this wide at most. */
#define WORKERS_MAX_DEPTH 6
#define WORKERS_MAX_PROCS 4096
/* /proc/<pid>/environ read at most this much (the kernel's ARG_MAX is 2 MiB by default). */
#define WORKERS_MAX_ENV (4u << 20)

struct pids {
	pid_t *v;
	size_t n, cap;
};

static void pids_add(struct pids *p, pid_t pid)
{
	XGROW(p->v, p->n, p->cap, 16);
	p->v[p->n++] = pid;
}

void workers_init(struct workers *w, const char *job_dir, long per_node)
{
	memset(w, 0, sizeof *w);
	w->job_dir = job_dir;
	w->per_node = per_node;
}

void workers_add(struct workers *w, long index, pid_t launcher, const char *node)
{
	struct rank_proc p = { .rank = -1, .local_rank = -1, .node_rank = index,
			       .pid = launcher, .launcher_pid = -1 };
	char name[48];
	snprintf(name, sizeof name, "launcher_%ld", index);
	ranklog_record_proc(w->job_dir, name, node, &p);
	w->v = xrealloc(w->v, (w->n + 1) * sizeof *w->v);
	struct worker_watch *k = &w->v[w->n++];
	memset(k, 0, sizeof *k);
	k->launcher = launcher;
	k->index = index;
	snprintf(k->node, sizeof k->node, "%s", node ? node : "");
	k->seen = xcalloc(w->per_node > 0 ? (size_t)w->per_node : 1, sizeof *k->seen);
}

void workers_ended(struct workers *w, pid_t launcher)
{
	for (size_t i = 0; w && i < w->n; i++)
		if (w->v[i].launcher == launcher)
			w->v[i].done = 1;
}

void workers_free(struct workers *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].seen);
	free(w->v);
	memset(w, 0, sizeof *w);
}

/* A variable's value as a rank or size: 0..9,999,999, else -1. */
static long env_number(const char *v)
{
	char *end;
	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	long n = strtol(v, &end, 10);
	return *end || errno || n > 9999999 ? -1 : n;
}

void workers_parse_env(const char *text, size_t len, struct worker_env *e)
{
	static const char *const keys[] = { "RANK=", "LOCAL_RANK=", "WORLD_SIZE=",
					    "LOCAL_WORLD_SIZE=" };
	long *out[] = { &e->rank, &e->local_rank, &e->world_size, &e->local_world_size };
	*e = (struct worker_env){ -1, -1, -1, -1 };
	for (size_t at = 0; at < len;) {
		const char *var = text + at;
		size_t n = strnlen(var, len - at);
		for (size_t k = 0; k < 4 && n < len - at; k++) /* a variable cut off is no value */
			if (!strncmp(var, keys[k], strlen(keys[k])))
				*out[k] = env_number(var + strlen(keys[k]));
		at += n + 1;
	}
}

int workers_is_worker(const struct worker_env *e, const struct worker_env *l, long per_node)
{
	if (e->rank < 0)
		return 0;
	int inherited = e->rank == l->rank && e->local_rank == l->local_rank &&
		e->world_size == l->world_size && e->local_world_size == l->local_world_size;
	return !inherited || per_node == 1;
}

/* The launch variables of pid; all -1 when its environment cannot be read. */
static void env_of(pid_t pid, struct worker_env *e)
{
	char path[64], *text = NULL;
	size_t len = 0;
	snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
	if (fsio_read(path, WORKERS_MAX_ENV, &text, &len) < 0)
		len = 0;
	workers_parse_env(text ? text : "", len, e);
	free(text);
}

/* The pids of a space-separated list (a children file) into out. */
static void add_pid_list(const char *text, struct pids *out)
{
	for (const char *s = text; *s;) {
		char *end;
		long v = strtol(s, &end, 10);
		if (end == s)
			break;
		if (v > 0)
			pids_add(out, (pid_t)v);
		s = end;
	}
}

/* The parent of pid from /proc/<pid>/stat ("pid (comm) S ppid ..."; comm may
 * hold spaces and parentheses: the last ')' ends it); -1 when unknown. */
static long ppid_of(const char *pid)
{
	char path[300], buf[512];
	snprintf(path, sizeof path, "/proc/%s/stat", pid);
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	const char *close = strrchr(buf, ')');
	long ppid = -1;
	if (!close || sscanf(close + 1, " %*c %ld", &ppid) != 1)
		return -1;
	return ppid;
}

/* Where the kernel has no children files (CONFIG_PROC_CHILDREN unset): every
 * process of /proc whose parent is pid. */
static void children_by_scan(pid_t pid, struct pids *out)
{
	struct argv names;
	fsio_list("/proc", &names);
	for (size_t i = 0; i < names.n; i++)
		if (isdigit((unsigned char)names.v[i][0]) && ppid_of(names.v[i]) == (long)pid)
			pids_add(out, (pid_t)strtol(names.v[i], NULL, 10));
	argv_free(&names);
}

/* The children of pid, whichever of its threads started them. Returns -1
 * when pid is gone. */
static int children_of(pid_t pid, struct pids *out)
{
	char path[96];
	struct argv tasks;
	int have_files = 0;
	snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
	if (fsio_list(path, &tasks) < 0)
		return -1;
	for (size_t i = 0; i < tasks.n; i++) {
		char *text = NULL;
		snprintf(path, sizeof path, "/proc/%ld/task/%.20s/children", (long)pid, tasks.v[i]);
		if (fsio_read(path, 1u << 20, &text, NULL) == 0) {
			have_files = 1;
			add_pid_list(text, out);
		}
		free(text);
	}
	argv_free(&tasks);
	if (!have_files)
		children_by_scan(pid, out);
	return 0;
}

/* Records worker pid of watch k when it is new. */
static void record_worker(struct workers *w, struct worker_watch *k, pid_t pid,
			  const struct worker_env *e)
{
	for (long i = 0; i < k->found; i++)
		if (k->seen[i] == pid)
			return;
	if (k->found >= w->per_node)
		return;
	k->seen[k->found++] = pid;
	struct rank_proc p = { .rank = e->rank, .local_rank = e->local_rank,
			       .node_rank = k->index, .pid = pid, .launcher_pid = k->launcher };
	char name[48];
	snprintf(name, sizeof name, "rank_%ld", e->rank);
	ranklog_record_proc(w->job_dir, name, k->node[0] ? k->node : NULL, &p);
}

/* One look under watch k's launcher: breadth first, a worker's own
 * descendants (its data loader's processes) skipped. */
static void look_under(struct workers *w, struct worker_watch *k)
{
	struct pids level = { 0 }, next = { 0 };
	struct worker_env l, e;
	size_t visited = 0;
	if (children_of(k->launcher, &level) < 0)
		k->done = 1; /* gone */
	env_of(k->launcher, &l);
	for (int depth = 0; depth < WORKERS_MAX_DEPTH && level.n; depth++) {
		for (size_t i = 0; i < level.n && visited++ < WORKERS_MAX_PROCS; i++) {
			env_of(level.v[i], &e);
			if (workers_is_worker(&e, &l, w->per_node))
				record_worker(w, k, level.v[i], &e);
			else
				children_of(level.v[i], &next);
		}
		free(level.v);
		level = next;
		next = (struct pids){ 0 };
	}
	free(level.v);
	if (k->found >= w->per_node)
		k->done = 1;
}

size_t workers_poll(struct workers *w)
{
	struct timespec now;
	size_t watched = 0;
	if (!w)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int due = now.tv_sec > w->next.tv_sec ||
		(now.tv_sec == w->next.tv_sec && now.tv_nsec >= w->next.tv_nsec);
	for (size_t i = 0; i < w->n; i++) {
		if (due && !w->v[i].done)
			look_under(w, &w->v[i]);
		watched += !w->v[i].done;
	}
	if (due) {
		w->next = now;
		w->next.tv_nsec += WORKERS_POLL_MS * 1000000L;
		w->next.tv_sec += w->next.tv_nsec / 1000000000L;
		w->next.tv_nsec %= 1000000000L;
	}
	return watched;
}
