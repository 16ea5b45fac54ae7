/* SPDX-License-Identifier: MIT */
#include "analyzers/pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

int pool_cpus(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return 1;
}

struct pool {
	atomic_size_t next;
	size_t n;
	void (*fn)(void *ctx, size_t i);
	void *ctx;
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (size_t i; (i = atomic_fetch_add(&p->next, 1)) < p->n;)
		p->fn(p->ctx, i);
	return NULL;
}

void pool_run(size_t n, int workers, void (*fn)(void *ctx, size_t i), void *ctx)
{
	struct pool p = { .n = n, .fn = fn, .ctx = ctx };
	atomic_init(&p.next, 0);
	if (workers < 1)
		workers = pool_cpus();
	size_t extra = (size_t)workers > n ? (n ? n - 1 : 0) : (size_t)workers - 1;
	pthread_t *t = calloc(extra + 1, sizeof *t);
	size_t started = 0;
	/* a thread that cannot start leaves its share to the others */
	for (size_t k = 0; t && k < extra; k++)
		if (pthread_create(&t[started], NULL, worker, &p) == 0)
			started++;
	worker(&p);
	for (size_t k = 0; k < started; k++)
		pthread_join(t[k], NULL);
	free(t);
}
