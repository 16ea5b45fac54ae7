#include "data.h"

#include "options.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void spin_us(long us)
{
	if (us <= 0)
		return;
	double end = now_us() + (double)us;
	volatile double sink = 0;
	while (now_us() < end)
		for (int i = 0; i < 64; i++)
			sink += i * 0.5;
}

void data_make_samples(const struct loader_cfg *cfg, const float *teacher, long first, int rows, float *x, float *t)
{
	const float a = sqrtf(3.0f);
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
				s += (double)xr[j] * (double)teacher[(size_t)j * (size_t)cfg->out + (size_t)k];
			tr[k] = (float)tanh(s);
		}
		spin_us(cfg->decode_us);
	}
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
		data_make_samples(c, l->teacher, first, c->rows, b->x, b->t);
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
	cfg->seed = o->seed;
}

int loader_start(struct loader *l, const struct loader_cfg *cfg)
{
	memset(l, 0, sizeof *l);
	l->cfg = *cfg;
	if (l->cfg.depth < 1)
		l->cfg.depth = 1;
	if (l->cfg.workers < 1)
		l->cfg.workers = 1;
	struct rng g;
	rng_seed(&g, cfg->seed, 0x7465616368ULL);
	l->teacher = malloc((size_t)cfg->in * (size_t)cfg->out * sizeof(float));
	l->slots = calloc((size_t)l->cfg.depth, sizeof *l->slots);
	l->threads = calloc((size_t)l->cfg.workers, sizeof *l->threads);
	if (!l->teacher || !l->slots || !l->threads)
		return -1;
	float sd = 1.0f / sqrtf((float)cfg->in);
	for (size_t i = 0; i < (size_t)cfg->in * (size_t)cfg->out; i++)
		l->teacher[i] = sd * (float)rng_normal(&g);
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
	double t0 = now_us();
	struct batch *b = &l->slots[step % l->cfg.depth];
	pthread_mutex_lock(&l->mu);
	while (b->step != step)
		pthread_cond_wait(&l->cv, &l->mu);
	pthread_mutex_unlock(&l->mu);
	*wait_ms = (now_us() - t0) / 1000.0;
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
	pthread_mutex_destroy(&l->mu);
	pthread_cond_destroy(&l->cv);
}
