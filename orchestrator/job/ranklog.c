/* SPDX-License-Identifier: MIT */
#include "ranklog.h"
#include "util/run_layout.h"

#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int ranklog_open(const char *job_dir, long rank, struct ranklog *rl, int *child_fd)
{
	int p[2];
	rl->in = rl->file = -1;
	rl->partial = (struct strbuf)STRBUF_INIT;
	if (pipe2(p, O_CLOEXEC) < 0) {
		fprintf(stderr, "campaign launch: no per-rank log for rank %ld: %s\n", rank,
			strerror(errno));
		return -1;
	}
	rl->in = p[0];
	*child_fd = p[1];
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "%s/" JOB_LOGS, job_dir);
	fsio_mkdir_p(path.buf, 0755);
	strbuf_addf(&path, "/rank_%ld.out", rank);
	/* no planted link */
	rl->file = open(path.buf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (rl->file < 0)
		fprintf(stderr, "campaign launch: cannot write %s: %s\n", path.buf,
			strerror(errno));
	strbuf_free(&path);
	return 0;
}

void ranklog_child(int child_fd)
{
	dup2(child_fd, STDOUT_FILENO);
	dup2(child_fd, STDERR_FILENO);
	if (child_fd != STDOUT_FILENO && child_fd != STDERR_FILENO)
		close(child_fd);
}

static void write_all(int fd, const char *b, size_t n)
{
	while (fd >= 0 && n > 0) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* a full disk loses log lines, never the run */
		b += w;
		n -= (size_t)w;
	}
}

/* Reads once from a ready log; closes it at EOF. */
static void copy_once(struct ranklog *rl)
{
	char buf[65536];
	ssize_t r = read(rl->in, buf, sizeof buf);
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (r <= 0) { /* the rank's end: its last, unfinished line too */
		if (rl->partial.len) {
			strbuf_addch(&rl->partial, '\n');
			write_all(STDOUT_FILENO, rl->partial.buf, rl->partial.len);
		}
		strbuf_free(&rl->partial);
		close(rl->in);
		rl->in = -1;
		return;
	}
	write_all(rl->file, buf, (size_t)r);
	strbuf_add(&rl->partial, buf, (size_t)r);
	const char *nl = memrchr(rl->partial.buf, '\n', rl->partial.len);
	size_t whole = nl ? (size_t)(nl - rl->partial.buf) + 1 : 0;
	/* a line without end: passed on as it is */
	if (!whole && rl->partial.len >= RANKLOG_MAX_LINE)
		whole = rl->partial.len;
	if (!whole)
		return;
	write_all(STDOUT_FILENO, rl->partial.buf, whole);
	memmove(rl->partial.buf, rl->partial.buf + whole, rl->partial.len - whole);
	rl->partial.len -= whole;
	rl->partial.buf[rl->partial.len] = '\0';
}

size_t ranklog_pump(struct ranklog *rl, size_t n, int timeout_ms)
{
	struct pollfd *pf = xcalloc(n ? n : 1, sizeof *pf);
	size_t open_n = 0;
	for (size_t i = 0; i < n; i++) {
		pf[i].fd = rl[i].in; /* poll ignores negative fds */
		pf[i].events = POLLIN;
		open_n += rl[i].in >= 0;
	}
	if (open_n == 0) {
		free(pf);
		if (timeout_ms > 0) {
			struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };
			nanosleep(&ts, NULL);
		}
		return 0;
	}
	if (poll(pf, n, timeout_ms) > 0)
		for (size_t i = 0; i < n; i++)
			if (rl[i].in >= 0 && (pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				copy_once(&rl[i]);
	open_n = 0;
	for (size_t i = 0; i < n; i++)
		open_n += rl[i].in >= 0;
	free(pf);
	return open_n;
}

void ranklog_finish(struct ranklog *rl, size_t n, int linger_ms)
{
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (ranklog_pump(rl, n, 20) == 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 >
		    linger_ms)
			break;
	}
	for (size_t i = 0; i < n; i++) {
		if (rl[i].in >= 0)
			close(rl[i].in);
		/* a grandchild held the pipe past the linger: what came is kept */
		if (rl[i].partial.len) {
			strbuf_addch(&rl[i].partial, '\n');
			write_all(STDOUT_FILENO, rl[i].partial.buf, rl[i].partial.len);
		}
		strbuf_free(&rl[i].partial);
		if (rl[i].file >= 0)
			close(rl[i].file);
		rl[i].in = rl[i].file = -1;
	}
}

void ranklog_record_proc(const char *job_dir, const char *name, const char *node,
			 const struct rank_proc *p)
{
	char host[256] = "", rel[96];
	const char *env = getenv("SLURMD_NODENAME"); /* the scheduler's name of the node */
	gethostname(host, sizeof host - 1);
	if (!node)
		node = env && *env ? env : host;
	json_t *j = json_pack("{s:s, s:s, s:I}", "host", host, "node", node, "pid",
			      (json_int_t)p->pid);
	const struct { const char *key; long v; } opt[] = {
		{ "rank", p->rank }, { "local_rank", p->local_rank },
		{ "node_rank", p->node_rank }, { "launcher_pid", p->launcher_pid },
	};
	for (size_t i = 0; j && i < sizeof opt / sizeof *opt; i++)
		if (opt[i].v >= 0)
			json_object_set_new(j, opt[i].key, json_integer(opt[i].v));
	char *text = j ? json_dumps(j, JSON_SORT_KEYS) : NULL;
	snprintf(rel, sizeof rel, JOB_RANKS "/%s.json", name);
	if (text && fsio_write_in(job_dir, rel, text, strlen(text), 0644) < 0)
		fprintf(stderr, "campaign launch: cannot record %s's process: %s\n", name,
			err_last());
	free(text);
	json_decref(j);
}

void ranklog_record(const char *job_dir, long rank, long pid, const char *node)
{
	char name[48];
	struct rank_proc p = { .rank = rank, .local_rank = -1, .node_rank = -1, .pid = pid,
			       .launcher_pid = -1 };
	snprintf(name, sizeof name, "rank_%ld", rank);
	ranklog_record_proc(job_dir, name, node, &p);
}

void ranklog_record_failure(const char *job_dir, long task, int exit_code, int signal)
{
	char text[128];
	int n = snprintf(text, sizeof text, "{\"exit_code\": %d, \"signal\": %d, \"task\": %ld}\n",
			 exit_code, signal, task);
	if (job_dir &&
	    fsio_write_in(job_dir, JOB_RANKS "/" JOB_FAILED_RANK, text, (size_t)n, 0644) < 0)
		fprintf(stderr, "campaign launch: cannot record which rank failed first: %s\n",
			err_last());
}

void ranklog_forget_failure(const char *job_dir)
{
	struct strbuf p = STRBUF_INIT;
	if (!job_dir)
		return;
	strbuf_addf(&p, "%s/" JOB_RANKS "/" JOB_FAILED_RANK, job_dir);
	unlink(p.buf);
	strbuf_free(&p);
}
