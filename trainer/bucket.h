/* bucket: bucketed gradient all-reduce on CPU. Layers are grouped, from the
 * last to the first, into buckets of at least --bucket-mb; a communication
 * thread all-reduces a bucket as soon as backward has finished its layers,
 * overlapping communication with the rest of backward. The thread is the
 * only user of the gloo context while it runs.
 * SPDX-License-Identifier: MIT */
#ifndef TRAINER_BUCKET_H
#define TRAINER_BUCKET_H

#include "bucket_plan.h"
#include "comm.h"
#include "model.h"
#include "trace.h"

#include <pthread.h>

struct bucketer {
	struct mlp *m;
	struct cgloo *g;
	int algo;
	struct trace_lane *tl; /* the communication thread's trace lane, or NULL */
	struct bucket_plan plan;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	long posted, done;    /* buckets posted and done, counted over the whole run */
	long step_posted;     /* buckets posted in the current step */
	double first_post_ms; /* when the step's first bucket was posted */
	double comm_ms;       /* time in all-reduce calls during the current step (busy time) */
	double last_end_ms;   /* when the step's last all-reduce ended (0: none yet) */
	double bytes;
	int stop, failed;
	char err[256];
};

/* tl: the trace lane the communication thread records its all-reduces in (NULL: none). */
int bucketer_start(struct bucketer *b, struct mlp *m, struct cgloo *g, int algo, double bucket_mb,
		   struct trace_lane *tl);
/* Call before backward: installs the layer hook and resets the step's sums. */
void bucketer_begin_step(struct bucketer *b);
/* Waits for every bucket of the step (backward ended at backward_end_ms).
 * Communication is the window from the first bucket posted to the moment the
 * last one is seen complete; exposed communication is the part of it after
 * backward ended. So exposed <= communication in every step, by construction.
 * *last_end_ms: when the step's last all-reduce ended (0: the step posted none).
 * Returns -1 when an all-reduce failed. */
int bucketer_finish_step(struct bucketer *b, double backward_end_ms, double *comm_ms,
			 double *exposed_ms, double *bytes, double *last_end_ms);
void bucketer_stop(struct bucketer *b);

#endif
