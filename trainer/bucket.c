/* SPDX-License-Identifier: MIT */
#include "bucket.h"
#include "clock.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *comm_thread(void *p)
{
	struct bucketer *b = p;
	pthread_mutex_lock(&b->mu);
	for (;;) {
		while (!b->stop && b->done == b->posted)
			pthread_cond_wait(&b->cv, &b->mu);
		if (b->stop)
			break;
		int k = (int)(b->done % b->plan.nb);
		pthread_mutex_unlock(&b->mu);
		double t0 = now_ms();
		char err[256] = "";
		size_t n = b->plan.end[k] - b->plan.begin[k];
		int rc = cgloo_allreduce(b->g, b->m->grads + b->plan.begin[k], n, b->algo, err,
					 sizeof err);
		double t1 = now_ms();
		trace_allreduce(b->tl, t0, t1, TRACE_BUCKET, k, (long)n);
		pthread_mutex_lock(&b->mu);
		b->comm_ms += t1 - t0;
		b->last_end_ms = t1;
		b->bytes += (double)n * sizeof(float);
		if (rc < 0 && !b->failed) {
			b->failed = 1;
			memcpy(b->err, err, sizeof b->err);
		}
		b->done++;
		pthread_cond_broadcast(&b->cv);
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

static void layer_done(void *ctx, int l)
{
	struct bucketer *b = ctx;
	if (!b->plan.closes[l])
		return;
	pthread_mutex_lock(&b->mu);
	if (b->step_posted++ == 0)
		b->first_post_ms = now_ms();
	b->posted++;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
}

int bucketer_start(struct bucketer *b, struct mlp *m, struct cgloo *g, int algo, double bucket_mb,
		   struct trace_lane *tl)
{
	memset(b, 0, sizeof *b);
	b->tl = tl;
	b->m = m;
	b->g = g;
	b->algo = algo;
	int L = m->nlayers;
	size_t *lb = calloc((size_t)L, sizeof *lb), *le = calloc((size_t)L, sizeof *le);
	int rc = lb && le ? 0 : -1;
	for (int l = 0; rc == 0 && l < L; l++) {
		lb[l] = mlp_layer_begin(m, l);
		le[l] = mlp_layer_end(m, l);
	}
	if (rc == 0)
		rc = bucket_plan_make(&b->plan, L, lb, le, m->nparams, bucket_mb * 1024 * 1024);
	free(lb);
	free(le);
	if (rc < 0)
		return -1;
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	if (pthread_create(&b->th, NULL, comm_thread, b) != 0)
		return -1;
	m->layer_done = layer_done;
	m->layer_ctx = b;
	return 0;
}

void bucketer_begin_step(struct bucketer *b)
{
	pthread_mutex_lock(&b->mu);
	b->comm_ms = 0;
	b->bytes = 0;
	b->step_posted = 0;
	b->first_post_ms = 0;
	b->last_end_ms = 0;
	pthread_mutex_unlock(&b->mu);
}

int bucketer_finish_step(struct bucketer *b, double backward_end_ms, double *comm_ms,
			 double *exposed_ms, double *bytes, double *last_end_ms)
{
	pthread_mutex_lock(&b->mu);
	while (b->done < b->posted)
		pthread_cond_wait(&b->cv, &b->mu);
	double end = now_ms();
	if (b->step_posted == 0) {
		*comm_ms = *exposed_ms = 0;
	} else {
		double start =
			b->first_post_ms < backward_end_ms ? b->first_post_ms : backward_end_ms;
		*comm_ms = end - start;
		*exposed_ms = end > backward_end_ms ? end - backward_end_ms : 0;
	}
	*bytes = b->bytes;
	*last_end_ms = b->step_posted ? b->last_end_ms : 0;
	int failed = b->failed;
	pthread_mutex_unlock(&b->mu);
	return failed ? -1 : 0;
}

void bucketer_stop(struct bucketer *b)
{
	pthread_mutex_lock(&b->mu);
	b->stop = 1;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
	pthread_join(b->th, NULL);
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->cv);
	bucket_plan_free(&b->plan);
	if (b->m)
		b->m->layer_done = NULL;
}
