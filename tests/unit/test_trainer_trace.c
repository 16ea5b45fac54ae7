/* The reference trainer's trace writer (trainer/trace.c) read back by the analysis' own Kineto
 * reader (analyzers/read/kineto.c) and by jansson: every event where it was recorded, each
 * thread under its own id, the all-reduces' sizes, the steps as steps, more events than a
 * lane holds, and nothing left behind by a run that did not complete.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "analyzers/read/kineto.h"
#include "analyzers/read/rules.h"
#include "analyzers/torchtrace.h"
#include "analyzers/trace_names.h"
#include "trainer/trace.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOADER_EVENTS 1300 /* more than two lanes' worth: written out twice before the end */

static void *loader_thread(void *p)
{
	struct trace_lane *l = trace_lane(p, 2);
	for (long i = 0; i < LOADER_EVENTS; i++) /* each starting where the last ended */
		trace_range(l, i % 2 ? TRACE_READ : TRACE_DECODE, 1000.0 + (double)i * 0.0123457,
			    1000.0 + (double)(i + 1) * 0.0123457, i / 2);
	return NULL;
}

static void *comm_thread(void *p)
{
	for (long s = 0; s < 2; s++) {
		double b = 1000.0 + 10.0 * (double)s;
		trace_allreduce(trace_lane(p, 1), b + 3.5, b + 7, TRACE_BUCKET, 0, 1000);
	}
	return NULL;
}

/* Two steps of rank 3 of 4: the step thread's ranges, a bucket's all-reduce on the
 * communication thread, and a loader thread's many small ranges. */
static void write_trace(const char *dir)
{
	struct trace t;
	CHECK(trace_open(&t, dir, 3, 4, 3) == 0);
	struct trace_lane *main_l = trace_lane(&t, 0);
	CHECK(trace_lane(&t, 3) == NULL && trace_lane(NULL, 0) == NULL);
	pthread_t th, th2;
	CHECK(pthread_create(&th, NULL, loader_thread, &t) == 0);
	CHECK(pthread_create(&th2, NULL, comm_thread, &t) == 0);
	for (long s = 0; s < 2; s++) {
		double b = 1000.0 + 10.0 * (double)s;
		trace_step(main_l, b, b + 10, s, s == 1);
		trace_range(main_l, TRACE_WAIT_BATCH, b, b + 1, s);
		trace_range(main_l, TRACE_FORWARD, b + 1, b + 3, s);
		trace_backward_layer(main_l, b + 3, b + 4, 1, 300);
		trace_backward_layer(main_l, b + 4, b + 6, 0, 1200);
		trace_allreduce(main_l, b + 7, b + 8, TRACE_ALL, -1, 250);
		trace_range(main_l, TRACE_OPTIMIZER, b + 8, b + 9, s);
		trace_range(main_l, TRACE_CKPT_FSYNC, b + 9, b + 10, s);
	}
	pthread_join(th, NULL);
	pthread_join(th2, NULL);
	CHECK(trace_close(&t) == 0);
}

static size_t count_named(const struct gpu_trace *t, const char *name, int *tid)
{
	size_t n = 0;
	for (size_t i = 0; i < t->ncpu; i++)
		if (!strcmp(t->names[t->cpu[i].name], name)) {
			n++;
			*tid = t->cpu[i].tid;
		}
	return n;
}

static const struct cpu_range *first_named(const struct gpu_trace *t, const char *name)
{
	for (size_t i = 0; i < t->ncpu; i++)
		if (!strcmp(t->names[t->cpu[i].name], name))
			return &t->cpu[i];
	return NULL;
}

/* The Kineto reader sees every event with its thread, time and size. */
static void read_back_by_kineto(const char *path)
{
	struct gpu_trace t;
	CHECK(kineto_load(path, 1, &t) == 0);
	CHECK(t.rank == 3 && t.n == 0 && !t.malformed);
	CHECK(t.ncpu == 2 * 9 + LOADER_EVENTS);
	int tid_main = -1, tid_comm = -2, tid_loader = -3, tid;
	CHECK(count_named(&t, "ProfilerStep#1", &tid_main) == 1);
	CHECK(count_named(&t, "wait_for_batch", &tid) == 2 && tid == tid_main);
	CHECK(count_named(&t, "backward:layer1", &tid) == 2 && tid == tid_main);
	CHECK(count_named(&t, "backward:layer0", &tid) == 2 && tid == tid_main);
	CHECK(count_named(&t, "gloo:all_reduce", &tid) == 4);
	CHECK(count_named(&t, "checkpoint:fsync", &tid) == 2 && tid == tid_main);
	CHECK(count_named(&t, "loader:read", &tid_loader) == LOADER_EVENTS / 2);
	CHECK(count_named(&t, "loader:decode", &tid) == LOADER_EVENTS / 2 && tid == tid_loader);
	for (size_t i = 0; i < t.ncpu; i++)
		if (!strcmp(t.names[t.cpu[i].name], "gloo:all_reduce") &&
		    t.cpu[i].end - t.cpu[i].start > 3000)
			tid_comm = t.cpu[i].tid;
	CHECK(tid_main != tid_loader && tid_comm != tid_main && tid_comm != tid_loader);
	/* one clock: the step's ranges where they were recorded, to the µs's rounding */
	const struct cpu_range *st = first_named(&t, "ProfilerStep#0"),
			       *fw = first_named(&t, "forward"),
			       *ck = first_named(&t, "checkpoint:fsync");
	CHECK(st && fw && ck);
	CHECK_NEAR(st->end - st->start, 10000, 0.5);
	CHECK_NEAR(fw->start - st->start, 1000, 0.5);
	CHECK_NEAR(fw->end - fw->start, 2000, 0.5);
	CHECK_NEAR(ck->end, st->end, 0.5);
	/* ranges that follow each other do so exactly: neither is read as inside the other */
	const struct cpu_range *l1 = first_named(&t, "backward:layer1"),
			       *l0 = first_named(&t, "backward:layer0");
	CHECK(l1 && l0 && l1->end == l0->start && fw->end == l1->start);
	/* each layer's gradient bytes, as the replay's bucket change reads them */
	CHECK(l1->grad_bytes == 300 * 4 && l0->grad_bytes == 1200 * 4 && fw->grad_bytes == 0);
	/* each range's step (args.step), as the replay's loader change reads a batch's */
	CHECK(fw->step_arg == 0 && ck->step_arg == 0 && l1->step_arg == -1); /* layers: none */
	double last_end = -1;
	size_t apart = 0, batch_off = 0;
	long k = 0;
	for (size_t i = 0; i < t.ncpu; i++)
		if (t.cpu[i].tid == tid_loader) {
			apart += last_end >= 0 && t.cpu[i].start != last_end;
			last_end = t.cpu[i].end;
			batch_off += t.cpu[i].step_arg != k++ / 2; /* the batch each range makes */
		}
	CHECK(apart == 0 && batch_off == 0);
	/* the all-reduces' bytes as PyTorch 2.x's collectives give them */
	CHECK(t.ncomm == 4);
	for (size_t i = 0; i < t.ncomm; i++) {
		CHECK(t.comm[i].group_size == 4 && !t.comm[i].gpu);
		CHECK(t.comm[i].bytes == 4000 || t.comm[i].bytes == 1000);
		CHECK_STR(t.names[t.comm[i].coll], "allreduce");
	}
	/* the step ranges are steps to the phase rules */
	struct rules ph;
	CHECK(rules_load("analyzers/phase_rules.txt", &ph) == 0);
	int *phase = trace_name_phases(&t, &ph, 0);
	size_t steps = 0;
	for (size_t i = 0; i < t.ncpu; i++)
		steps += phase[t.cpu[i].name] == TRACE_NAME_STEP;
	CHECK(steps == 2);
	free(phase);
	rules_free(&ph);
	gpu_trace_free(&t);
}

static json_t *event_named(json_t *ev, const char *name)
{
	size_t i;
	json_t *e;
	json_array_foreach(ev, i, e) {
		const char *n = json_string_value(json_object_get(e, "name"));
		if (n && !strcmp(n, name))
			return e;
	}
	return NULL;
}

/* Strict JSON, and the args a reader without campaign's code needs: the telemetry's phase of
 * each step, each all-reduce's part and bucket or layer, the threads' names. */
static void read_back_by_jansson(const char *path)
{
	json_error_t err;
	json_t *d = json_load_file(path, 0, &err);
	CHECK(d != NULL);
	if (!d) {
		printf("    %s:%d: %s\n", path, err.line, err.text);
		return;
	}
	json_t *ev = json_object_get(d, "traceEvents");
	CHECK(json_array_size(ev) == 2 * 9 + LOADER_EVENTS + 3); /* + the threads' names */
	json_t *s0 = event_named(ev, "ProfilerStep#0"), *s1 = event_named(ev, "ProfilerStep#1");
	CHECK_STR(json_string_value(json_object_get(json_object_get(s0, "args"), "phase")),
		  "warmup");
	CHECK_STR(json_string_value(json_object_get(json_object_get(s1, "args"), "phase")),
		  "active");
	CHECK(json_integer_value(json_object_get(json_object_get(
		      event_named(ev, "backward:layer1"), "args"), "layer")) == 1);
	size_t i, buckets = 0;
	json_t *e;
	json_array_foreach(ev, i, e) {
		json_t *a = json_object_get(e, "args");
		if (json_object_get(a, "bucket"))
			buckets +=
				json_integer_value(json_object_get(a, "In msg nelems")) == 1000 &&
				!strcmp(json_string_value(json_object_get(a, "part")), "bucket");
	}
	CHECK(buckets == 2);
	json_t *tn = event_named(ev, "thread_name");
	CHECK(tn && !strcmp(json_string_value(json_object_get(tn, "ph")), "M"));
	CHECK_STR(json_string_value(json_object_get(json_object_get(d, "distributedInfo"),
						    "backend")),
		  "gloo");
	json_decref(d);
}

static void written_and_read_back(void)
{
	char dir[] = "/tmp/trainer_trace.XXXXXX", path[256];
	CHECK(mkdtemp(dir) != NULL);
	write_trace(dir);
	snprintf(path, sizeof path, "%s/rank_3.trace.json", dir);
	read_back_by_kineto(path);
	read_back_by_jansson(path);
	unlink(path);
	CHECK(rmdir(dir) == 0); /* nothing else: no temporary file left */
}

/* A run that did not complete leaves no trace; a folder it cannot write in is said. */
static void aborted_and_unopenable(void)
{
	char dir[] = "/tmp/trainer_trace.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct trace t;
	CHECK(trace_open(&t, dir, 0, 1, 2) == 0);
	trace_range(trace_lane(&t, 0), TRACE_FORWARD, 1, 2, 0);
	trace_abort(&t);
	CHECK(rmdir(dir) == 0);
	CHECK(trace_open(&t, dir, 0, 1, 2) < 0 && errno == ENOENT);
	CHECK(trace_lane(&t, 0) == NULL);
	trace_range(trace_lane(&t, 0), TRACE_FORWARD, 1, 2, 0); /* records nothing, safely */
	CHECK(trace_close(&t) == 0);
	trace_abort(NULL);
}

int main(void)
{
	RUN(written_and_read_back);
	RUN(aborted_and_unopenable);
	HARNESS_END();
}
