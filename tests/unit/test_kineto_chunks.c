/* Unit tests of the chunked Kineto reader: large files read in chunks on 1,
 * 2 and 3 threads keep exactly what one whole reading keeps (kineto_load_stream
 * reads whole), in every shape: Kineto object, legacy array, the rank after
 * the events, a second traceEvents, and the guesses that go wrong (a "},{"
 * inside a string or inside an event's own array) or a file that breaks
 * (then the same message as the whole reading).
 * SPDX-License-Identifier: MIT */
#include "harness.h"
#include "trace_same.h"

#include "analyzers/read/kineto.h"
#include "analyzers/read/kineto_chunks.h"
#include "util/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* Small chunks, so that a small trace is many of them (the reader's own size
 * is 256 KB; default_chunks reads one trace at that size). */
#define CHUNK 8192
#define N 1500 /* about 790 KB: some hundred chunks */

/* Events enough for several chunks: steps, runtime calls, kernels, flow
 * events, host ranges. odd: args added to the kernel in the middle; or with
 * every, fields put first in every event (where a chunk's last, cut-off
 * event nearly always holds them). */
static void events(FILE *f, int n, const char *odd, int every)
{
	const char *lead = every && odd ? odd : "", *arg = !every && odd ? odd : "";
	for (int i = 0; i < n; i++) {
		double ts = 1000.0 + i * 10.0;
		if (i % 500 == 0)
			fprintf(f,
				"{%s\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"ts\": %.1f, \"dur\": 5000, \"tid\": 1},\n",
				lead, i / 500, ts);
		fprintf(f,
			"{%s\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": %.3f, \"dur\": 2.5, \"tid\": %d, \"args\": {\"correlation\": %d}},\n",
			lead, ts, 1 + i % 3, i);
		fprintf(f,
			"{%s\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_%d\", \"ts\": %.3f, \"dur\": 4.25, \"tid\": 7, \"args\": {\"stream\": 7, \"correlation\": %d%s}},\n",
			lead, i % 17, ts + 3, i, i == n / 2 ? arg : "");
		/* flow events: no duration, dropped whole (a reader stops at their ph), a time
		 * that is no number included; in a host range such a time is malformed */
		if (i % 250 == 7)
			fprintf(f,
				"{%s\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::late\", \"ts\": \"late\", \"dur\": 8, \"tid\": 1},\n",
				lead);
		fprintf(f,
			"{%s\"ph\": \"s\", \"id\": %d, \"pid\": 1, \"tid\": %d, \"ts\": %.3f, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"
			"{%s\"ph\": \"f\", \"id\": %d, \"pid\": 0, \"tid\": 7, \"ts\": %s, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n",
			lead, i, 1 + i % 3, ts, lead, i, i % 250 == 7 ? "\"late\"" : "3.5");
		/* every 7th host range with the gradient bytes it makes final and its step (the
		 * trainer's) */
		char grad[64] = "";
		if (i % 7 == 0)
			snprintf(grad, sizeof grad,
				 ", \"args\": {\"grad_bytes\": %d, \"step\": %d}", 4 * i + 4,
				 i / 7);
		fprintf(f,
			"{%s\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d\", \"ts\": %.3f, \"dur\": 8, \"tid\": %d%s}%s\n",
			lead, i % 29, ts, 1 + i % 3, grad, i + 1 < n ? "," : "");
	}
}

static char *write_trace(const char *head, int n, const char *odd, int every, const char *tail)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/test_kineto_chunks.XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	fputs(head, f);
	events(f, n, odd, every);
	fputs(tail, f);
	fclose(f);
	return path;
}

static void count_event(void *ctx, const struct chunk_event *e, struct chunk_str *strs)
{
	(void)e, (void)strs;
	++*(long *)ctx;
}

static void no_root(void *ctx, enum kineto_key key, double v)
{
	(void)ctx, (void)key, (void)v;
}

/* The file read in chunks on 1, 2 and 3 threads against one whole reading:
 * both succeed with the same trace, or both fail with the same message. */
static int chunks_agree_at(const char *path, int expect_ok, size_t chunk)
{
	struct gpu_trace whole, part;
	FILE *f = fopen(path, "rb");
	int rc = kineto_load_stream(f, path, 1, &whole);
	fclose(f);
	char msg[512];
	snprintf(msg, sizeof msg, "%s", rc < 0 ? err_last() : "");
	int ok = (rc == 0) == expect_ok;
	for (int threads = 1; ok && threads <= 3; threads++) {
		struct kineto_how how = { 1, threads, chunk };
		int rc2 = kineto_load_with(path, &how, &part);
		ok = rc2 == rc && (rc < 0 ? !strcmp(err_last(), msg) : trace_same(&whole, &part));
		if (!ok)
			printf("  %d threads: rc %d (whole %d) %s / %s\n", threads, rc2, rc,
			       rc2 < 0 ? err_last() : "", msg);
		if (rc2 == 0)
			gpu_trace_free(&part);
	}
	if (rc == 0)
		gpu_trace_free(&whole);
	return ok;
}

static int chunks_agree(const char *path, int expect_ok)
{
	return chunks_agree_at(path, expect_ok, CHUNK);
}

#define HEAD "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0}, {\"id\": 1}], " \
	     "\"distributedInfo\": {\"rank\": 3}, \"baseTimeNanoseconds\": 1743521598000000000, " \
	     "\"traceEvents\": [\n"

static void object_form(void)
{
	char *p = write_trace(HEAD, N, NULL, 0, "], \"traceName\": \"x\"}\n");
	CHECK(chunks_agree(p, 1));
	struct gpu_trace t;
	struct kineto_how how = { 1, 2, CHUNK };
	CHECK(kineto_load_with(p, &how, &t) == 0);
	/* the last step's 500 kernels go (HTA's cut); runtime calls are host ranges too */
	/* newer Kineto's times count from baseTimeNanoseconds: kept, in µs */
	CHECK(t.base_us == 1743521598000000.0);
	CHECK(t.rank == 3 && t.n == N - 500 && t.dropped == 500 && t.ncpu == 2 * N + N / 500 &&
	      t.steps == N / 500 && !t.legacy && t.malformed == N / 250);
	double grad = 0, want = 0;
	long steps = 0, want_steps = 0;
	size_t tagged = 0;
	for (size_t i = 0; i < t.ncpu; i++) {
		grad += t.cpu[i].grad_bytes;
		steps += t.cpu[i].step_arg >= 0 ? t.cpu[i].step_arg : 0;
		tagged += t.cpu[i].step_arg >= 0;
	}
	for (int i = 0; i < N; i += 7)
		want += 4 * i + 4, want_steps += i / 7;
	CHECK(grad == want && steps == want_steps && tagged == (size_t)(N + 6) / 7);
	gpu_trace_free(&t);
	unlink(p);
}

/* Chunks smaller than an event (each grows until a cut is found), about
 * one, and a few events long. */
static void any_chunk_size(void)
{
	char *p = write_trace(HEAD, N, NULL, 0, "], \"traceName\": \"x\"}\n");
	const size_t sizes[] = { 64, 150, 300, 4096 };
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
		CHECK(chunks_agree_at(p, 1, sizes[i]));
	unlink(p);
}

/* The reader's own chunk size, on a trace of about 12.5 MB. */
static void default_chunks(void)
{
	char *p = write_trace(HEAD, 24000, NULL, 0, "]}");
	struct gpu_trace whole, part;
	FILE *f = fopen(p, "rb");
	CHECK(kineto_load_stream(f, p, 1, &whole) == 0);
	fclose(f);
	struct kineto_how how = { 1, 2, 0 };
	CHECK(kineto_load_with(p, &how, &part) == 0);
	CHECK(trace_same(&whole, &part));
	gpu_trace_free(&part);
	gpu_trace_free(&whole);
	unlink(p);
}

static void legacy_and_rank_after(void)
{
	char *p = write_trace("[\n", N, NULL, 0, "]\n");
	CHECK(chunks_agree(p, 1));
	unlink(p);
	p = write_trace(
		"{\"traceEvents\": [", N, NULL, 0,
		"], \"distributedInfo\": {\"rank\": 5}, \"traceEvents\": [{\"ph\": \"X\", \"name\": \"late\", \"ts\": 1, \"dur\": 1}]}");
	CHECK(chunks_agree(p, 1));
	unlink(p);
}

static long read_stdio(void *src, unsigned char *buf, size_t n)
{
	size_t r = fread(buf, 1, n, src);
	return r == 0 && ferror((FILE *)src) ? -1 : (long)r;
}

/* The chunks alone: 0 read, 1 not split, -1 a chunk did not parse. */
static int chunks_alone(const char *path)
{
	FILE *f = fopen(path, "rb");
	long events = 0;
	struct chunk_sink sink = { count_event, no_root, &events, 0, NULL };
	struct chunk_source in = { read_stdio, f, (size_t)1 << 40, CHUNK };
	int rc = kineto_chunks_read(&in, 2, &sink);
	fclose(f);
	return rc;
}

/* Guesses that go wrong (a "},{" inside a string first in every event, or
 * inside an array of objects first in every event): the chunks fail, and
 * the whole reading decides. */
static void wrong_guesses(void)
{
	char *p = write_trace(HEAD, N,
			      "\"note\": \"a}, {b}, {c}, {d}, {e}, {f}, {g}, {h}, {i}, {j}\", ", 1,
			      "]}");
	CHECK(chunks_alone(p) == -1);
	CHECK(chunks_agree(p, 1));
	unlink(p);
	p = write_trace(
		HEAD, N,
		"\"list\": [{\"a\": 1}, {\"b\": 2}, {\"c\": 3}, {\"d\": 4}, {\"e\": 5}, {\"f\": 6}], ",
		1, "]}");
	CHECK(chunks_alone(p) == -1);
	CHECK(chunks_agree(p, 1));
	unlink(p);
	p = write_trace(HEAD, N, NULL, 0, "]}");
	CHECK(chunks_alone(p) == 0);
	unlink(p);
}

static void broken_files(void)
{
	/* (a broken value in args the reader skips is not looked at, whole or in chunks) */
	char *p = write_trace(HEAD, N, ", \"bad\" 1", 0, "]}");
	CHECK(chunks_agree(p, 0));
	unlink(p);
	p = write_trace(HEAD, N, NULL, 0, "]} trailing");
	CHECK(chunks_agree(p, 0));
	unlink(p);
	p = write_trace(HEAD, N, NULL, 0, ""); /* cut short */
	CHECK(chunks_agree(p, 0));
	unlink(p);
}

/* path gzipped beside it (level 1), its name returned. */
static char *gzip_copy(const char *path)
{
	static char gz[96];
	snprintf(gz, sizeof gz, "%s.gz", path);
	FILE *in = fopen(path, "rb");
	gzFile out = gzopen(gz, "wb1");
	char buf[1 << 16];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		gzwrite(out, buf, (unsigned)n);
	gzclose(out);
	fclose(in);
	return gz;
}

/* A gzip trace streams through the same chunks (read again from its start
 * when they fail); a damaged one gives one message at every thread count. */
static void gzip_streams(void)
{
	const char *odd[] = { NULL, "\"note\": \"a}, {b\", " };
	for (int k = 0; k < 2; k++) {
		char *p = write_trace(HEAD, N, odd[k], 1, "]}"), *gz = gzip_copy(p);
		struct gpu_trace whole, part;
		FILE *f = fopen(p, "rb");
		CHECK(kineto_load_stream(f, p, 1, &whole) == 0);
		fclose(f);
		for (int threads = 1; threads <= 3; threads++) {
			struct kineto_how how = { 1, threads, CHUNK };
			CHECK(kineto_load_with(gz, &how, &part) == 0);
			CHECK(trace_same(&whole, &part));
			gpu_trace_free(&part);
		}
		gpu_trace_free(&whole);
		if (k == 0) { /* cut in the middle: the end comes early, as read whole */
			FILE *g = fopen(gz, "r+b");
			fseek(g, 0, SEEK_END);
			CHECK(ftruncate(fileno(g), ftell(g) / 2) == 0);
			fclose(g);
			char msg[512] = "";
			for (int threads = 1; threads <= 3; threads++) {
				struct kineto_how how = { 1, threads, CHUNK };
				CHECK(kineto_load_with(gz, &how, &part) < 0);
				CHECK(threads == 1 || !strcmp(msg, err_last()));
				snprintf(msg, sizeof msg, "%s", err_last());
			}
			CHECK(strstr(msg, "not a Chrome-trace JSON file near byte") != NULL);
		}
		unlink(gz);
		unlink(p);
	}
}

static void scanner(void)
{
	const char *a =
		" {\"a\\\"traceEvents\": \"[\", \"x\": {\"traceEvents\": 1}, \"traceEvents\" : [ {";
	CHECK(kineto_events_start((const unsigned char *)a, strlen(a), 1 << 20) ==
	      strlen(a) - 2);
	CHECK(kineto_events_start((const unsigned char *)"  [{", 4, 1 << 20) == 3);
	CHECK(kineto_events_start((const unsigned char *)"{\"a\": 1}", 8, 1 << 20) == 0);
	const char *s = "{\"n\": \"},{\"}, \n {\"m\": 1}";
	const unsigned char *u = (const unsigned char *)s;
	CHECK(kineto_event_cut(u, strlen(s), 0) == 12);
	CHECK(kineto_event_cut(u, 11, 0) == 8); /* a guess, inside the string */
	CHECK(kineto_event_cut(u, strlen(s), 13) == 0);
	CHECK(kineto_event_cut((const unsigned char *)"{}]", 3, 0) == 0);
}

/* A runtime call by correlation id, where the ids are dense (a direct index) and where they
 * are far apart (bisection): the first call of an id, none for an absent id. */
static void runtime_calls_by_id(void)
{
	for (long spread = 1; spread <= 1000000; spread *= 1000) {
		struct gpu_trace t;
		memset(&t, 0, sizeof t);
		for (long i = 40; i >= 0; i--)
			gpu_trace_add_rt(&t, 7 + i * spread, 100.0 + (double) i, 1,
					 "cudaLaunchKernel");
		gpu_trace_add_rt(&t, 7 + 3 * spread, 50.0, 1, "cudaMemcpyAsync");
		gpu_trace_index_rt(&t);
		CHECK((t.rt_at != NULL) == (spread == 1));
		const struct rt_event *r = gpu_trace_rt(&t, 7 + 3 * spread);
		CHECK(r && r->start == 50.0 && r[1].corr == 7 + 3 * spread && r[1].start == 103.0);
		CHECK(gpu_trace_rt(&t, 7 + 40 * spread)->start == 140.0);
		CHECK(!gpu_trace_rt(&t, 6) && !gpu_trace_rt(&t, 8 + 40 * spread) &&
		      !gpu_trace_rt(&t, -1) && (spread == 1 || !gpu_trace_rt(&t, 8)));
		gpu_trace_free(&t);
	}
}

int main(void)
{
	RUN(object_form);
	RUN(runtime_calls_by_id);
	RUN(default_chunks);
	RUN(any_chunk_size);
	RUN(legacy_and_rank_after);
	RUN(wrong_guesses);
	RUN(broken_files);
	RUN(gzip_streams);
	RUN(scanner);
	HARNESS_END();
}
