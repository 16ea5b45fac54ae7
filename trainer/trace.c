/* SPDX-License-Identifier: MIT */
#include "trace.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double clock_us(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int trace_open(struct trace *t, const char *dir, int rank, int world, int nlanes)
{
	memset(t, 0, sizeof *t);
	pthread_mutex_init(&t->mu, NULL);
	t->inited = 1;
	t->rank = rank;
	t->world = world;
	t->pid = (long)getpid();
	snprintf(t->path, sizeof t->path, "%s/rank_%d.trace.json", dir, rank);
	snprintf(t->tmp, sizeof t->tmp, "%s.tmp.%ld", t->path, t->pid);
	t->unix_minus_mono_us = clock_us(CLOCK_REALTIME) - clock_us(CLOCK_MONOTONIC);
	t->lanes = calloc((size_t)nlanes, sizeof *t->lanes);
	for (int i = 0; t->lanes && i < nlanes; i++) {
		t->lanes[i].tr = t;
		t->lanes[i].ev = calloc(TRACE_LANE_EVENTS, sizeof *t->lanes[i].ev);
		t->nlanes += t->lanes[i].ev != NULL;
		if (!t->lanes[i].ev)
			break;
	}
	if (!t->lanes || t->nlanes < nlanes || !(t->f = fopen(t->tmp, "wx"))) {
		int e = t->lanes && t->nlanes == nlanes ? errno : ENOMEM;
		trace_abort(t);
		errno = e;
		return -1;
	}
	fputs("{\"schemaVersion\": 1, \"traceName\": \"campaign-trainer\", ", t->f);
	fprintf(t->f,
		"\"distributedInfo\": {\"backend\": \"gloo\", \"rank\": %d, \"world_size\": %d}, ",
		rank, world);
	fputs("\"traceEvents\": [\n", t->f);
	return 0;
}

struct trace_lane *trace_lane(struct trace *t, int i)
{
	return t && t->f && i >= 0 && i < t->nlanes ? &t->lanes[i] : NULL;
}

static const char *part_name(enum trace_part p)
{
	static const char *const names[] = { "all", "bucket", "weight", "bias", "loss" };
	return names[p];
}

/* An all-reduce's args: its size as PyTorch 2.x records a collective's (the analysis reads the
 * bytes from them), and which part of the gradients it carries. */
static void allreduce_args(const struct trace *t, const struct trace_event *e, char *args,
			   size_t na)
{
	int k = snprintf(
		args, na,
		"\"Collective name\": \"allreduce\", \"dtype\": \"Float\", \"In msg nelems\": %ld, \"Out msg nelems\": %ld, \"Group size\": %d, \"part\": \"%s\"",
		e->nelems, e->nelems, t->world, part_name(e->part));
	if (e->index >= 0 && k > 0 && (size_t)k < na)
		snprintf(args + k, na - (size_t)k, ", \"%s\": %ld",
			 e->part == TRACE_BUCKET ? "bucket" : "layer", e->index);
}

/* The event's name, and its args' members (a JSON object's inside). */
static void name_args(const struct trace *t, const struct trace_event *e, char *name,
		      size_t nn, char *args, size_t na)
{
	static const char *const names[] = {
		[TRACE_WAIT_BATCH] = "wait_for_batch",
		[TRACE_FORWARD] = "forward",
		[TRACE_OPTIMIZER] = "optimizer",
		[TRACE_CKPT_WAIT] = "checkpoint:wait",
		[TRACE_CKPT_SNAPSHOT] = "checkpoint:snapshot",
		[TRACE_CKPT_WRITE] = "checkpoint:write",
		[TRACE_CKPT_FSYNC] = "checkpoint:fsync",
		[TRACE_READ] = "loader:read",
		[TRACE_DECODE] = "loader:decode",
		[TRACE_ALLREDUCE] = "gloo:all_reduce",
	};
	if (e->kind == TRACE_STEP)
		snprintf(name, nn, "ProfilerStep#%ld", e->index);
	else if (e->kind == TRACE_BACKWARD)
		snprintf(name, nn, "backward:layer%ld", e->index);
	else
		snprintf(name, nn, "%s", names[e->kind]);
	if (e->kind == TRACE_STEP)
		snprintf(args, na, "\"step\": %ld, \"phase\": \"%s\"", e->index,
			 e->active ? "active" : "warmup");
	else if (e->kind == TRACE_BACKWARD)
		snprintf(args, na, "\"layer\": %ld, \"grad_bytes\": %ld", e->index,
			 e->nelems * (long)sizeof(float));
	else if (e->kind == TRACE_ALLREDUCE)
		allreduce_args(t, e, args, na);
	else
		snprintf(args, na, "\"step\": %ld", e->index);
}

/* Appends l's events to the file; under t->mu. */
static void write_lane(struct trace *t, struct trace_lane *l)
{
	char name[64], args[320];
	for (size_t i = 0; i < l->n && !t->failed; i++) {
		const struct trace_event *e = &l->ev[i];
		/* whole µs: Unix time in µs is beyond a double's precision for fractions, and a
		 * range that starts where another ended must do so exactly once read back */
		long long ts = llround(e->t0 * 1000 + t->unix_minus_mono_us),
			  te = llround(e->t1 * 1000 + t->unix_minus_mono_us);
		name_args(t, e, name, sizeof name, args, sizeof args);
		if (fprintf(t->f,
			    "%s{\"ph\": \"X\", \"cat\": \"trainer\", \"name\": \"%s\", \"pid\": %ld, \"tid\": %ld, \"ts\": %lld, \"dur\": %lld, \"args\": {%s}}",
			    t->written++ ? ",\n" : "", name, t->pid, l->tid, ts, te - ts, args) < 0)
			t->failed = errno ? errno : EIO;
	}
	l->n = 0;
}

static void record(struct trace_lane *l, const struct trace_event *e)
{
	if (!l)
		return;
	if (!l->tid)
		l->tid = (long)syscall(SYS_gettid), l->first_kind = e->kind;
	l->ev[l->n++] = *e;
	if (l->n == TRACE_LANE_EVENTS) {
		pthread_mutex_lock(&l->tr->mu);
		write_lane(l->tr, l);
		pthread_mutex_unlock(&l->tr->mu);
	}
}

void trace_range(struct trace_lane *l, enum trace_kind kind, double t0, double t1, long index)
{
	struct trace_event e = { t0, t1 > t0 ? t1 : t0, index, 0, (unsigned char)kind, 0, 0 };
	record(l, &e);
}

void trace_backward_layer(struct trace_lane *l, double t0, double t1, long layer, long nelems)
{
	struct trace_event e = { t0, t1 > t0 ? t1 : t0, layer, nelems, TRACE_BACKWARD, 0, 0 };
	record(l, &e);
}

void trace_step(struct trace_lane *l, double t0, double t1, long step, int active)
{
	struct trace_event e = { t0, t1 > t0 ? t1 : t0, step, 0, TRACE_STEP, 0, active != 0 };
	record(l, &e);
}

void trace_allreduce(struct trace_lane *l, double t0, double t1, enum trace_part part,
		     long index, long nelems)
{
	struct trace_event e = { t0,     t1 > t0 ? t1 : t0, index, nelems, TRACE_ALLREDUCE,
				 (unsigned char)part, 0 };
	record(l, &e);
}

/* The threads' names, for a trace viewer (Perfetto, chrome://tracing). */
static void thread_names(struct trace *t)
{
	for (int i = 0; i < t->nlanes && !t->failed; i++) {
		char name[32];
		if (!t->lanes[i].tid)
			continue;
		if (i < 2)
			snprintf(name, sizeof name, "%s", i ? "communication" : "step");
		else if (t->lanes[i].first_kind >= TRACE_CKPT_WAIT &&
			 t->lanes[i].first_kind <= TRACE_CKPT_FSYNC)
			snprintf(name, sizeof name, "checkpoint writer");
		else
			snprintf(name, sizeof name, "loader %d", i - 2);
		if (fprintf(t->f,
			    "%s{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %ld, \"tid\": %ld, \"args\": {\"name\": \"%s\"}}",
			    t->written++ ? ",\n" : "", t->pid, t->lanes[i].tid, name) < 0)
			t->failed = errno ? errno : EIO;
	}
}

int trace_close(struct trace *t)
{
	if (!t || !t->f) {
		trace_abort(t);
		return 0;
	}
	for (int i = 0; i < t->nlanes; i++)
		write_lane(t, &t->lanes[i]);
	thread_names(t);
	if (!t->failed && (fprintf(t->f, "\n]}\n") < 0 || fflush(t->f) != 0 ||
			   fsync(fileno(t->f)) != 0))
		t->failed = errno ? errno : EIO;
	if (fclose(t->f) != 0 && !t->failed)
		t->failed = errno ? errno : EIO;
	t->f = NULL;
	if (!t->failed && rename(t->tmp, t->path) != 0)
		t->failed = errno ? errno : EIO;
	int failed = t->failed;
	if (failed)
		fprintf(stderr,
			"campaign-trainer: rank %d: cannot write the trace %s: %s; the telemetry is complete without it, but the analysis cannot replay this run\n",
			t->rank, t->path, strerror(failed));
	trace_abort(t);
	return failed ? -1 : 0;
}

void trace_abort(struct trace *t)
{
	if (!t)
		return;
	if (t->f) {
		fclose(t->f);
		t->f = NULL;
		unlink(t->tmp);
	} else if (t->failed) {
		unlink(t->tmp);
	}
	if (t->inited)
		pthread_mutex_destroy(&t->mu);
	t->inited = 0;
	for (int i = 0; t->lanes && i < t->nlanes; i++)
		free(t->lanes[i].ev);
	free(t->lanes);
	t->lanes = NULL;
	t->nlanes = 0;
}
