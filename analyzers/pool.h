/* pool: runs n independent jobs on up to `workers` threads (the calling
 * thread is one of them). Each job writes only its own result slot, so a
 * reduction done afterwards in job order gives the same bytes whatever the
 * number of workers and whatever order the jobs finish in.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_POOL_H
#define ANALYZERS_POOL_H

#include <stddef.h>

/* The CPUs this process may run on (sched_getaffinity), at least 1. */
int pool_cpus(void);
/* fn(ctx, i) for every i in [0, n), on min(workers, n) threads; workers < 1
 * means pool_cpus(). */
void pool_run(size_t n, int workers, void (*fn)(void *ctx, size_t i), void *ctx);

#endif
