/* trace: the trainer's Kineto-format trace, <metrics-dir>/rank_<r>.trace.json (docs/formats.md),
 * written beside the telemetry so that the analysis can replay the run's execution graph. It
 * owns the file and its events: complete ("X") events of each thread in whole µs on one clock
 * (the monotonic clock the phases are timed with, shifted once to Unix time). Each thread records
 * into a lane of its own, without a lock; a full lane is appended to a temporary file under
 * one lock; trace_close completes the file and renames it into place, so a rank that dies
 * leaves none. A trace that cannot be written is dropped with one message: it never stops the
 * training nor touches the telemetry.
 * SPDX-License-Identifier: MIT */
#ifndef TRAINER_TRACE_H
#define TRAINER_TRACE_H

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

/* What an event is; its name in the file (trace.c) says the rest. */
enum trace_kind {
	TRACE_STEP,        /* ProfilerStep#<step>, with the telemetry's phase */
	TRACE_WAIT_BATCH,  /* wait_for_batch: the step thread blocked on the loader */
	TRACE_FORWARD,     /* forward */
	TRACE_BACKWARD,    /* backward:layer<k>: one layer, up to its gradients being final */
	TRACE_OPTIMIZER,   /* optimizer */
	TRACE_CKPT_WAIT,     /* checkpoint:wait: the step thread waits for the write in flight */
	TRACE_CKPT_SNAPSHOT, /* checkpoint:snapshot: the state copied into the staging buffer */
	TRACE_CKPT_WRITE,    /* checkpoint:write: the snapshot's write calls */
	TRACE_CKPT_FSYNC,    /* checkpoint:fsync: fsync, close, rename (blocked on storage) */
	TRACE_READ,        /* loader:read: a loader thread sleeping on storage latency */
	TRACE_DECODE,      /* loader:decode: a loader thread's CPU work on a batch */
	TRACE_ALLREDUCE,   /* gloo:all_reduce, with its size */
};

/* Which part of the gradients an all-reduce carries (its args). */
enum trace_part {
	TRACE_ALL,    /* the whole buffer, loss included (--ddp sync) */
	TRACE_BUCKET, /* bucket <index> (--ddp bucketed) */
	TRACE_WEIGHT, /* layer <index>'s weights (--ddp per-param) */
	TRACE_BIAS,   /* layer <index>'s biases */
	TRACE_LOSS,   /* the loss slot */
};

struct trace_event {
	double t0, t1; /* ms, the monotonic clock of clock.h */
	long index;    /* the step, layer or bucket; -1: none */
	long nelems;   /* all-reduce: floats summed; backward: floats of gradients made final */
	unsigned char kind, part, active;
};

struct trace;

/* One thread's events; used by that thread alone. */
struct trace_lane {
	struct trace *tr;
	long tid; /* the thread's id, taken at its first event */
	int first_kind; /* that event's kind: a thread's name says what it does */
	struct trace_event *ev;
	size_t n;
};

#define TRACE_LANE_EVENTS 512 /* a lane's buffer, written out when full */

struct trace {
	FILE *f;
	char path[4096], tmp[4200];
	pthread_mutex_t mu;
	long pid;
	int rank, world;
	double unix_minus_mono_us; /* Unix time less the monotonic clock, µs */
	size_t written;            /* events in the file so far */
	int failed;                /* a write failed (its errno): the trace is dropped */
	int inited;                /* mu is initialised */
	struct trace_lane *lanes;
	int nlanes;
};

/* Opens <dir>/rank_<rank>.trace.json's temporary file with nlanes lanes (0: the step thread,
 * 1: the communication thread, 2 + i: loader thread i, then the checkpoint writer's). 0, or
 * -1 with errno set (t is then closed: every call below does nothing). */
int trace_open(struct trace *t, const char *dir, int rank, int world, int nlanes);
/* Lane i of t, or NULL when t is NULL or closed (recording into NULL does nothing). */
struct trace_lane *trace_lane(struct trace *t, int i);
/* A range [t0, t1) (ms, clock.h) of kind, with its step, layer or bucket (-1: none). */
void trace_range(struct trace_lane *l, enum trace_kind kind, double t0, double t1, long index);
/* backward:layer<layer> from t0 to t1, making nelems floats of gradients final
 * (args.grad_bytes: where a bucket change groups them). */
void trace_backward_layer(struct trace_lane *l, double t0, double t1, long layer, long nelems);
/* The step's ProfilerStep#<step> range, active or warm-up as the telemetry marks it. */
void trace_step(struct trace_lane *l, double t0, double t1, long step, int active);
/* One all-reduce of nelems floats carrying part (index: its bucket or layer). */
void trace_allreduce(struct trace_lane *l, double t0, double t1, enum trace_part part,
		     long index, long nelems);
/* Writes what the lanes hold, completes the file and renames it into place, and frees t; once
 * every thread that records has stopped. 0 (also for t NULL or closed), or -1 after saying
 * why on stderr (the file is then removed). */
int trace_close(struct trace *t);
/* Removes the temporary file (the run did not complete) and frees t; t may be NULL. */
void trace_abort(struct trace *t);

#endif
