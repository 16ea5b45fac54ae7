/* The reference trainer's checkpoints (trainer/checkpoint.c): written on the step thread or
 * on a thread of their own, the same bytes either way (header, parameters, momentum, further
 * state), each part in the trace on the thread that ran it, one write in flight, and a write
 * that fails said at the next checkpoint and at the end.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "analyzers/read/kineto.h"
#include "trainer/checkpoint.h"
#include "trainer/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 1000        /* floats of parameters, and of momentum */
#define EXTRA 100000  /* bytes of further state */

/* Three checkpoints (steps 0, 1, 2) of params i + step and momentum -i, written by a ckpt of
 * async into dir, traced into dir/rank_0.trace.json (lanes: 0 the step thread, 1 the
 * writer). */
static void three_checkpoints(const char *dir, int async)
{
	struct trace t;
	struct ckpt c;
	CHECK(trace_open(&t, dir, 0, 1, 2) == 0);
	CHECK(ckpt_open(&c, dir, 0, N, EXTRA, async, trace_lane(&t, 0), trace_lane(&t, 1)) == 0);
	for (long step = 0; step < 3; step++) {
		float *p, *v;
		double t0;
		CHECK(ckpt_begin(&c, &p, &v, &t0) == 0);
		for (int i = 0; i < N; i++)
			p[i] = (float)(i + step), v[i] = (float)-i;
		CHECK(ckpt_commit(&c, step, t0) == 0);
	}
	CHECK(ckpt_close(&c) == 0);
	CHECK(trace_close(&t) == 0);
}

/* The file holds step 2's checkpoint, byte for byte. */
static void check_file(const char *dir)
{
	char path[256];
	snprintf(path, sizeof path, "%s/ckpt_rank0.bin", dir);
	FILE *f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	uint64_t hdr[2];
	float *x = calloc(2 * N, sizeof *x);
	unsigned char *extra = calloc(EXTRA + 1, 1);
	CHECK(fread(hdr, sizeof hdr, 1, f) == 1 && hdr[0] == 2 && hdr[1] == N);
	CHECK(fread(x, sizeof *x, 2 * N, f) == 2 * N);
	CHECK(fread(extra, 1, EXTRA + 1, f) == EXTRA); /* and nothing after it */
	int bad = 0;
	for (int i = 0; i < N; i++)
		bad += x[i] != (float)(i + 2) || x[N + i] != (float)-i;
	for (int i = 0; i < EXTRA; i++)
		bad += extra[i] != 0;
	CHECK(bad == 0);
	fclose(f);
	free(x);
	free(extra);
	snprintf(path, sizeof path, "%s/ckpt_rank0.bin.tmp", dir);
	CHECK(access(path, F_OK) < 0 && errno == ENOENT);
}

/* How many ranges named name the trace at dir has, and on which thread (*tid, the last's). */
static size_t ranges(const char *dir, const char *name, int *tid)
{
	char path[256];
	struct gpu_trace t;
	size_t n = 0;
	snprintf(path, sizeof path, "%s/rank_0.trace.json", dir);
	if (kineto_load(path, 1, &t) < 0)
		return 0;
	for (size_t i = 0; i < t.ncpu; i++)
		if (!strcmp(t.names[t.cpu[i].name], name))
			n++, *tid = t.cpu[i].tid;
	gpu_trace_free(&t);
	return n;
}

static void cleanup(const char *dir)
{
	char path[256];
	const char *files[] = { "ckpt_rank0.bin", "rank_0.trace.json" };
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		unlink(path);
	}
	CHECK(rmdir(dir) == 0);
}

/* On the step thread: snapshot, write and fsync there, no wait and no other thread. */
static void written_on_the_step_thread(void)
{
	char dir[] = "/tmp/trainer_ckpt.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	three_checkpoints(dir, 0);
	check_file(dir);
	int main_tid = -1, tid = -2;
	CHECK(ranges(dir, "checkpoint:snapshot", &main_tid) == 3);
	CHECK(ranges(dir, "checkpoint:write", &tid) == 3 && tid == main_tid);
	CHECK(ranges(dir, "checkpoint:fsync", &tid) == 3 && tid == main_tid);
	CHECK(ranges(dir, "checkpoint:wait", &tid) == 0);
	cleanup(dir);
}

/* On a thread of its own: the same bytes; the step thread takes the snapshot after waiting
 * for the write before it; the writes and fsyncs on the writer's thread. */
static void written_behind(void)
{
	char dir[] = "/tmp/trainer_ckpt.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	three_checkpoints(dir, 1);
	check_file(dir);
	int main_tid = -1, tid = -2, writer = -3;
	CHECK(ranges(dir, "checkpoint:snapshot", &main_tid) == 3);
	CHECK(ranges(dir, "checkpoint:wait", &tid) == 3 && tid == main_tid);
	CHECK(ranges(dir, "checkpoint:write", &writer) == 3 && writer != main_tid);
	CHECK(ranges(dir, "checkpoint:fsync", &tid) == 3 && tid == writer);
	cleanup(dir);
}

/* A write that fails on the writer's thread (its directory gone) is said at the next
 * checkpoint and at the end, with its errno. */
static void failed_write_said(void)
{
	char dir[] = "/tmp/trainer_ckpt.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct ckpt c;
	float *p, *v;
	double t0;
	CHECK(ckpt_open(&c, dir, 0, N, 0, 1, NULL, NULL) == 0);
	CHECK(rmdir(dir) == 0);
	CHECK(ckpt_begin(&c, &p, &v, &t0) == 0);
	CHECK(ckpt_commit(&c, 0, t0) == 0); /* handed over: its failure comes later */
	errno = 0;
	CHECK(ckpt_begin(&c, &p, &v, &t0) < 0 && errno == ENOENT);
	errno = 0;
	CHECK(ckpt_close(&c) < 0 && errno == ENOENT);
	CHECK(ckpt_close(&c) == 0); /* closed: nothing more */
	struct ckpt z = { 0 };
	CHECK(ckpt_close(&z) == 0); /* never opened: nothing */
	/* on the step thread, said at once */
	char dir2[] = "/tmp/trainer_ckpt.XXXXXX";
	CHECK(mkdtemp(dir2) != NULL);
	CHECK(ckpt_open(&c, dir2, 0, N, 0, 0, NULL, NULL) == 0);
	CHECK(rmdir(dir2) == 0);
	CHECK(ckpt_begin(&c, &p, &v, &t0) == 0);
	errno = 0;
	CHECK(ckpt_commit(&c, 0, t0) < 0 && errno == ENOENT);
	CHECK(ckpt_close(&c) == 0);
}

/* Written before the first step: the file holds the staged state with step -1, the trace
 * no range of it (the steps' checkpoints alone are traced). */
static void prewarmed(void)
{
	char dir[] = "/tmp/campaign-test-ckpt-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct trace t;
	struct ckpt c;
	CHECK(trace_open(&t, dir, 0, 1, 2) == 0);
	CHECK(ckpt_open(&c, dir, 0, N, EXTRA, 0, trace_lane(&t, 0), trace_lane(&t, 1)) == 0);
	CHECK(ckpt_prewarm(&c, 2) == 0);
	CHECK(ckpt_close(&c) == 0);
	CHECK(trace_close(&t) == 0);
	char path[4200];
	snprintf(path, sizeof path, "%s/ckpt_rank0.bin", dir);
	FILE *f = fopen(path, "rb");
	uint64_t hdr[2] = { 0, 0 };
	CHECK(f && fread(hdr, sizeof hdr, 1, f) == 1);
	CHECK(hdr[0] == (uint64_t)-1 && hdr[1] == N);
	struct stat st;
	CHECK(stat(path, &st) == 0 &&
	      (size_t) st.st_size == 2 * sizeof(uint64_t) + 2 * N * sizeof(float) + EXTRA);
	if (f)
		fclose(f);
	snprintf(path, sizeof path, "%s/rank_0.trace.json", dir);
	f = fopen(path, "r");
	char buf[65536];
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = 0;
	CHECK(n > 0 && !strstr(buf, "checkpoint:"));
	if (f)
		fclose(f);
	cleanup(dir);
}

int main(void)
{
	RUN(written_on_the_step_thread);
	RUN(written_behind);
	RUN(failed_write_said);
	RUN(prewarmed);
	HARNESS_END();
}
