/* SPDX-License-Identifier: MIT */
#include "checkpoint.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER_BYTES (2 * sizeof(uint64_t)) /* the step, then n */

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The staged snapshot of step into <dir>/ckpt_rank<r>.bin: its writes (checkpoint:write),
 * then fsync, close and rename (checkpoint:fsync), on lane. 0, or -1 with errno set. */
static int write_stage(const struct ckpt *c, long step, struct trace_lane *lane)
{
	char path[4200], tmp[4300];
	snprintf(path, sizeof path, "%s/ckpt_rank%d.bin", c->dir, c->rank);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	double t0 = now_ms();
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	int rc = write_all(fd, c->stage, c->bytes), e = errno; /* (before the trace's writes) */
	double t1 = now_ms();
	trace_range(lane, TRACE_CKPT_WRITE, t0, t1, step);
	if (rc == 0 && (rc = fsync(fd)) < 0)
		e = errno;
	if (close(fd) < 0 && rc == 0)
		rc = -1, e = errno;
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -1, e = errno;
	if (rc < 0)
		unlink(tmp);
	trace_range(lane, TRACE_CKPT_FSYNC, t1, now_ms(), step);
	errno = e;
	return rc;
}

/* The writer thread: each snapshot handed to it written, until told to stop. */
static void *writer_main(void *arg)
{
	struct ckpt *c = arg;
	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (!c->pending && !c->stop)
			pthread_cond_wait(&c->cv, &c->mu);
		if (!c->pending)
			break;
		long step = c->step;
		pthread_mutex_unlock(&c->mu);
		int rc = write_stage(c, step, c->writer_lane), e = errno;
		pthread_mutex_lock(&c->mu);
		if (rc < 0 && !c->err)
			c->err = e ? e : EIO;
		c->pending = 0;
		pthread_cond_broadcast(&c->cv);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

int ckpt_open(struct ckpt *c, const char *dir, int rank, size_t n, size_t extra_bytes, int async,
	      struct trace_lane *step_lane, struct trace_lane *writer_lane)
{
	memset(c, 0, sizeof *c);
	snprintf(c->dir, sizeof c->dir, "%s", dir);
	c->rank = rank, c->async = async, c->n = n, c->extra_bytes = extra_bytes;
	c->step_lane = step_lane, c->writer_lane = writer_lane;
	c->bytes = HEADER_BYTES + 2 * n * sizeof(float) + extra_bytes;
	c->stage = malloc(c->bytes);
	c->extra = malloc(extra_bytes + 1);
	if (!c->stage || !c->extra || (mkdir(dir, 0755) < 0 && errno != EEXIST)) {
		int e = c->stage && c->extra ? errno : ENOMEM;
		ckpt_close(c);
		errno = e;
		return -1;
	}
	memset(c->extra, 0, extra_bytes); /* resident, as real state is */
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	if (async) {
		int e = pthread_create(&c->th, NULL, writer_main, c);
		if (e) {
			ckpt_close(c);
			errno = e;
			return -1;
		}
		c->started = 1;
	}
	return 0;
}

int ckpt_begin(struct ckpt *c, float **params, float **momentum, double *t0)
{
	*t0 = now_ms();
	if (c->async) {
		pthread_mutex_lock(&c->mu);
		while (c->pending)
			pthread_cond_wait(&c->cv, &c->mu);
		int e = c->err;
		pthread_mutex_unlock(&c->mu);
		double t1 = now_ms();
		trace_range(c->step_lane, TRACE_CKPT_WAIT, *t0, t1, -1);
		*t0 = t1;
		if (e) {
			errno = e;
			return -1;
		}
	}
	*params = (float *)(c->stage + HEADER_BYTES);
	*momentum = *params + c->n;
	return 0;
}

/* The staged snapshot's header: its step (-1: none), then n. */
static void stage_header(struct ckpt *c, long step)
{
	uint64_t hdr[2] = { (uint64_t)step, (uint64_t)c->n };
	memcpy(c->stage, hdr, sizeof hdr);
}

int ckpt_prewarm(struct ckpt *c, int times)
{
	memset(c->stage, 0, c->bytes);
	stage_header(c, -1);
	for (int i = 0; i < times; i++)
		if (write_stage(c, -1, NULL) < 0)
			return -1;
	return 0;
}

int ckpt_commit(struct ckpt *c, long step, double t0)
{
	stage_header(c, step);
	memcpy(c->stage + HEADER_BYTES + 2 * c->n * sizeof(float), c->extra, c->extra_bytes);
	trace_range(c->step_lane, TRACE_CKPT_SNAPSHOT, t0, now_ms(), step);
	if (!c->async)
		return write_stage(c, step, c->step_lane);
	pthread_mutex_lock(&c->mu);
	c->step = step;
	c->pending = 1;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	return 0;
}

int ckpt_close(struct ckpt *c)
{
	int e = 0;
	if (c->started) {
		pthread_mutex_lock(&c->mu);
		c->stop = 1;
		pthread_cond_broadcast(&c->cv);
		pthread_mutex_unlock(&c->mu);
		pthread_join(c->th, NULL);
		e = c->err;
		c->started = 0;
	}
	free(c->stage);
	free(c->extra);
	c->stage = c->extra = NULL;
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}
