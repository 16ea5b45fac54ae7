/* SPDX-License-Identifier: MIT */
#include "data.h"
#include "clock.h"

#include "options.h"
#include "rng.h"
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void sleep_us(long us)
{
	if (us <= 0)
		return;
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void spin_us(long us)
{
	if (us <= 0)
		return;
	double end = (now_ms() * 1000.0) + (double)us;
	volatile double sink = 0;
	while ((now_ms() * 1000.0) < end)
		for (int i = 0; i < 64; i++)
			sink += i * 0.5;
}

/* A sample's read latency: a sleep, traced as loader:read between two stretches of CPU work
 * (loader:decode; the one before it ends here, the next starts at *cpu0). */
static void read_latency(struct trace_lane *tl, long us, long step, double *cpu0)
{
	if (us <= 0)
		return;
	double s = tl ? now_ms() : 0;
	trace_range(tl, TRACE_DECODE, *cpu0, s, step);
	sleep_us(us);
	if (!tl)
		return;
	*cpu0 = now_ms();
	trace_range(tl, TRACE_READ, s, *cpu0, step);
}

/* Samples first..first+rows-1 of step's batch, traced in tl (NULL: not traced). */
static void make_samples(const struct loader_cfg *cfg, const float *teacher, long first,
			 int rows, float *x, float *t, struct trace_lane *tl, long step)
{
	const float a = sqrtf(3.0f);
	double cpu0 = tl ? now_ms() : 0;
	for (int r = 0; r < rows; r++) {
		struct rng g;
		rng_seed(&g, cfg->seed, (uint64_t)(first + r) + 1);
		float *xr = x + (size_t)r * (size_t)cfg->in;
		for (int j = 0; j < cfg->in; j++)
			xr[j] = (float)(rng_uniform(&g) * 2.0 - 1.0) * a;
		float *tr = t + (size_t)r * (size_t)cfg->out;
		for (int k = 0; k < cfg->out; k++) {
			double s = 0;
			for (int j = 0; j < cfg->in; j++)
				s += (double) xr[j] *
					(double) teacher[(size_t) j * (size_t) cfg->out +
							 (size_t) k];
			tr[k] = (float)tanh(s);
		}
		read_latency(tl, cfg->read_us, step, &cpu0);
		spin_us(cfg->decode_us);
	}
	if (tl)
		trace_range(tl, TRACE_DECODE, cpu0, now_ms(), step);
}

/* Fills x (rows x in) and t (rows x out) with samples first..first+rows-1. */
static void data_make_samples(const struct loader_cfg *cfg, const float *teacher, long first,
			      int rows, float *x, float *t)
{
	make_samples(cfg, teacher, first, rows, x, t, NULL, -1);
}

#define DS_MAGIC "CMPDS1\0\0"
#define DS_HEADER 32 /* magic[8], u32 in, u32 out, u64 n, u64 reserved */

static void make_teacher(struct loader_cfg const *cfg, float *teacher)
{
	struct rng g;
	rng_seed(&g, cfg->seed, 0x7465616368ULL);
	float sd = 1.0f / sqrtf((float)cfg->in);
	for (size_t i = 0; i < (size_t)cfg->in * (size_t)cfg->out; i++)
		teacher[i] = sd * (float)rng_normal(&g);
}

int data_write_dataset(const struct loader_cfg *cfg, const char *path, long n)
{
	float *teacher = malloc((size_t)cfg->in * (size_t)cfg->out * sizeof(float));
	float *x = malloc((size_t) cfg->in * sizeof(float)),
	      *t = malloc((size_t) cfg->out * sizeof(float));
	FILE *f = fopen(path, "wb");
	int rc = teacher && x && t && f ? 0 : -1;
	if (rc == 0) {
		unsigned char hdr[DS_HEADER] = { 0 };
		uint32_t dims[2] = { (uint32_t)cfg->in, (uint32_t)cfg->out };
		uint64_t cnt = (uint64_t)n;
		memcpy(hdr, DS_MAGIC, 8);
		memcpy(hdr + 8, dims, sizeof dims);
		memcpy(hdr + 16, &cnt, sizeof cnt);
		make_teacher(cfg, teacher);
		struct loader_cfg one = *cfg;
		one.decode_us = one.read_us = 0;
		rc = fwrite(hdr, 1, sizeof hdr, f) == sizeof hdr ? 0 : -1;
		for (long i = 0; rc == 0 && i < n; i++) {
			data_make_samples(&one, teacher, i, 1, x, t);
			rc = fwrite(x, sizeof(float), (size_t) cfg->in, f) == (size_t) cfg->in &&
					fwrite(t, sizeof(float), (size_t) cfg->out, f) ==
						(size_t) cfg->out
				? 0
				: -1;
		}
	}
	if (f && (fflush(f) != 0 || fsync(fileno(f)) != 0))
		rc = -1;
	if (f && fclose(f) != 0)
		rc = -1;
	free(teacher);
	free(x);
	free(t);
	return rc;
}

/* Reads samples first.. (modulo the file's count) into x and t, traced in tl. */
static void read_samples(struct loader *l, long first, int rows, float *x, float *t,
			 struct trace_lane *tl, long step)
{
	const struct loader_cfg *c = &l->cfg;
	double cpu0 = tl ? now_ms() : 0;
	size_t rec = (size_t)(c->in + c->out) * sizeof(float);
	float *buf = malloc(rec);
	for (int r = 0; r < rows && buf; r++) {
		long i = (first + r) % l->records;
		off_t off = DS_HEADER + (off_t)i * (off_t)rec;
		ssize_t got = pread(l->fd, buf, rec, off);
		if (got != (ssize_t)rec)
			memset(buf, 0, rec);
		memcpy(x + (size_t)r * (size_t)c->in, buf, (size_t)c->in * sizeof(float));
		memcpy(t + (size_t)r * (size_t)c->out, buf + c->in, (size_t)c->out * sizeof(float));
		read_latency(tl, c->read_us, step, &cpu0);
		spin_us(c->decode_us);
	}
	if (tl)
		trace_range(tl, TRACE_DECODE, cpu0, now_ms(), step);
	free(buf);
}

static int open_dataset(struct loader *l)
{
	unsigned char hdr[DS_HEADER];
	uint32_t dims[2];
	uint64_t n;
	l->fd = open(l->cfg.dataset, O_RDONLY | O_CLOEXEC);
	if (l->fd < 0)
		return -1;
	if (pread(l->fd, hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr || memcmp(hdr, DS_MAGIC, 8)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(dims, hdr + 8, sizeof dims);
	memcpy(&n, hdr + 16, sizeof n);
	if (dims[0] != (uint32_t)l->cfg.in || dims[1] != (uint32_t)l->cfg.out || n == 0) {
		errno = EINVAL; /* shape differs from --input/--output */
		return -1;
	}
	l->records = (long)n;
	return 0;
}

struct worker_arg {
	struct loader *l;
	int id;
};

static void *worker(void *p)
{
	struct worker_arg *wa = p;
	struct loader *l = wa->l;
	const struct loader_cfg *c = &l->cfg;
	struct trace_lane *tl = trace_lane(c->trace, 2 + wa->id);
	for (long step = wa->id; step < c->steps; step += c->workers) {
		pthread_mutex_lock(&l->mu);
		while (!l->stop && step >= l->consumed + c->depth)
			pthread_cond_wait(&l->cv, &l->mu);
		int stop = l->stop;
		pthread_mutex_unlock(&l->mu);
		if (stop)
			break;
		struct batch *b = &l->slots[step % c->depth];
		long first = step * c->global_batch + (long)c->rank * c->rows;
		if (l->fd >= 0)
			read_samples(l, first, c->rows, b->x, b->t, tl, step);
		else
			make_samples(c, l->teacher, first, c->rows, b->x, b->t, tl, step);
		pthread_mutex_lock(&l->mu);
		b->step = step;
		pthread_cond_broadcast(&l->cv);
		pthread_mutex_unlock(&l->mu);
	}
	free(wa);
	return NULL;
}

void loader_cfg_from_opts(struct loader_cfg *cfg, const struct trainer_opts *o)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->in = o->input;
	cfg->out = o->output;
	cfg->rows = (int)(o->batch / o->world);
	cfg->rank = o->rank;
	cfg->global_batch = o->batch;
	cfg->steps = o->steps;
	cfg->workers = o->workers;
	cfg->depth = o->prefetch;
	cfg->decode_us = o->decode_us;
	cfg->read_us = o->read_us;
	cfg->seed = o->seed;
	cfg->dataset = o->dataset;
}

int loader_start(struct loader *l, const struct loader_cfg *cfg)
{
	memset(l, 0, sizeof *l);
	l->cfg = *cfg;
	l->fd = -1;
	if (cfg->dataset && open_dataset(l) < 0)
		return -1;
	if (l->cfg.depth < 1)
		l->cfg.depth = 1;
	if (l->cfg.workers < 1)
		l->cfg.workers = 1;
	l->teacher = malloc((size_t)cfg->in * (size_t)cfg->out * sizeof(float));
	l->slots = calloc((size_t)l->cfg.depth, sizeof *l->slots);
	l->threads = calloc((size_t)l->cfg.workers, sizeof *l->threads);
	if (!l->teacher || !l->slots || !l->threads)
		return -1;
	make_teacher(cfg, l->teacher);
	for (int i = 0; i < l->cfg.depth; i++) {
		l->slots[i].step = -1;
		l->slots[i].x = malloc((size_t)cfg->rows * (size_t)cfg->in * sizeof(float));
		l->slots[i].t = malloc((size_t)cfg->rows * (size_t)cfg->out * sizeof(float));
		if (!l->slots[i].x || !l->slots[i].t)
			return -1;
	}
	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->cv, NULL);
	for (int i = 0; i < l->cfg.workers; i++) {
		struct worker_arg *wa = malloc(sizeof *wa);
		wa->l = l;
		wa->id = i;
		if (pthread_create(&l->threads[i], NULL, worker, wa) != 0) {
			free(wa);
			loader_stop(l); /* a missing worker would leave its steps unfilled */
			return -1;
		}
		l->nthreads++;
	}
	return 0;
}

const struct batch *loader_get(struct loader *l, long step, double *wait_ms)
{
	double t0 = (now_ms() * 1000.0);
	struct batch *b = &l->slots[step % l->cfg.depth];
	pthread_mutex_lock(&l->mu);
	while (b->step != step)
		pthread_cond_wait(&l->cv, &l->mu);
	pthread_mutex_unlock(&l->mu);
	*wait_ms = ((now_ms() * 1000.0) - t0) / 1000.0;
	return b;
}

void loader_release(struct loader *l, long step)
{
	pthread_mutex_lock(&l->mu);
	l->slots[step % l->cfg.depth].step = -1;
	l->consumed = step + 1;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
}

void loader_stop(struct loader *l)
{
	pthread_mutex_lock(&l->mu);
	l->stop = 1;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
	for (int i = 0; i < l->nthreads; i++)
		pthread_join(l->threads[i], NULL);
	for (int i = 0; l->slots && i < l->cfg.depth; i++) {
		free(l->slots[i].x);
		free(l->slots[i].t);
	}
	free(l->slots);
	free(l->threads);
	free(l->teacher);
	if (l->fd >= 0)
		close(l->fd);
	pthread_mutex_destroy(&l->mu);
	pthread_cond_destroy(&l->cv);
}
