/* data: the data loader. Worker threads fill a bounded ring of prefetched
 * batches in step order; sample i of the synthetic task is a pure function
 * of (seed, i), so any split of a global batch over ranks sees the same data.
 * A per-sample decode cost makes the loader a bottleneck on purpose.
 * SPDX-License-Identifier: MIT */
#ifndef TRAINER_DATA_H
#define TRAINER_DATA_H

#include <pthread.h>
#include <stdint.h>

struct loader_cfg {
	int in, out;        /* sample and target sizes */
	int rows;           /* samples per rank per step */
	int rank;
	long global_batch;
	long steps;
	int workers, depth; /* threads and prefetch slots */
	long decode_us;     /* busy work per sample */
	long read_us;       /* sleep per sample: storage latency */
	uint64_t seed;
	const char *dataset; /* a file written by data_write_dataset, or NULL: synthetic */
	struct trace *trace; /* worker i records in its lane 2 + i (trace.h); NULL: none */
};

struct batch {
	float *x, *t;
	long step;          /* -1 while empty */
};

struct loader {
	struct loader_cfg cfg;
	float *teacher;     /* in x out */
	int fd;             /* the dataset file, or -1 */
	long records;       /* samples in it */
	struct batch *slots;
	pthread_t *threads;
	int nthreads;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	long consumed;      /* steps fully consumed */
	int stop;
};

struct trainer_opts;
/* The loader configuration of this rank under the trainer's options. */
void loader_cfg_from_opts(struct loader_cfg *cfg, const struct trainer_opts *o);
int loader_start(struct loader *l, const struct loader_cfg *cfg);
/* Blocks until the batch of step is ready; *wait_ms is how long it blocked. */
const struct batch *loader_get(struct loader *l, long step, double *wait_ms);
void loader_release(struct loader *l, long step);
void loader_stop(struct loader *l);

/* Writes n samples of the synthetic task to path (header "CMPDS1", in, out,
 * n, then n records of in + out floats); 0 or -1 with errno set. */
int data_write_dataset(const struct loader_cfg *cfg, const char *path, long n);

#endif
