/* checkpoint: the I/O-bound knob. Every --checkpoint-every steps each rank takes a snapshot
 * of its parameters, optimizer state (momentum) and --checkpoint-extra-mb of further state
 * into a staging buffer, then writes it to <dir>/ckpt_rank<r>.bin (temp file, fsync,
 * rename), as sharded checkpointing does. With --checkpoint-async 1 a thread of its own writes
 * it while training goes on, one write in flight (the next snapshot waits for it), as
 * asynchronous checkpointing does. The time of each part goes to the trace (trace.h).
 * SPDX-License-Identifier: MIT */
#ifndef TRAINER_CHECKPOINT_H
#define TRAINER_CHECKPOINT_H

#include "trace.h"

#include <pthread.h>
#include <stddef.h>

struct ckpt {
	char dir[4096];
	int rank, async;
	size_t n;          /* floats of parameters, and of momentum */
	char *stage;       /* the snapshot: header, parameters, momentum, further state */
	size_t bytes;      /* of stage */
	char *extra;       /* the further state (resident: its copy is a real one) */
	size_t extra_bytes;
	struct trace_lane *step_lane, *writer_lane;
	/* async: the writer thread, and what it shares with the step thread under mu */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started, pending, stop;
	long step;       /* the snapshot's step */
	int err;         /* the errno of a write that failed, 0: none */
};

/* Sets c up for n floats of parameters and of momentum and extra_bytes of further state,
 * written by rank into dir (made when missing), on a thread of its own when async. Lanes may
 * be NULL. 0, or -1 with errno set (c is then closed). */
int ckpt_open(struct ckpt *c, const char *dir, int rank, size_t n, size_t extra_bytes, int async,
	      struct trace_lane *step_lane, struct trace_lane *writer_lane);
/* Before the first step: the staging buffer touched and `times` checkpoints written on this
 * thread, untraced (their header's step -1), as a long run's are past its first few (a
 * process's first checkpoints are slower: the buffer's first touch, the page cache, the file
 * system's first allocations), so that a few measured steps hold steady ones however rarely
 * they write. 0, or -1 with errno set. */
int ckpt_prewarm(struct ckpt *c, int times);
/* The checkpoints both trainers write before their first step: a run's steps then hold steady
 * ones, as the every-step parent of an every-4th variant does after its warm-up steps. */
#define CKPT_PREWARM 3
/* Waits for the write in flight (checkpoint:wait), then gives the staging buffer's
 * parameters and momentum (n floats each) to fill: the snapshot, taken from *t0 (ms, clock.h).
 * 0, or -1 with errno set (an asynchronous write failed). */
int ckpt_begin(struct ckpt *c, float **params, float **momentum, double *t0);
/* The snapshot of step taken (its further state copied here, checkpoint:snapshot from t0):
 * written now (checkpoint:write, checkpoint:fsync), or handed to the writer thread. 0, or -1
 * with errno set. */
int ckpt_commit(struct ckpt *c, long step, double t0);
/* Waits for the write in flight and frees c (a zeroed or closed c: nothing). 0, or -1 with
 * errno set when a write failed. */
int ckpt_close(struct ckpt *c);

#endif
