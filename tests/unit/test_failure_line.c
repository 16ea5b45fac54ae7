/* Unit tests of failure_line (why a failed job failed, from its logs) and of
 * display_clean, which makes the user's text of such a line plain: Python
 * tracebacks (plain, chained, SyntaxError), torchrun's node logs (prefixed
 * lines, its own ChildFailedError, its root cause), a log's last line
 * (carriage returns, escapes), and a job folder read whole: the launch's
 * record, a signal, an empty log, no record, a per-node launcher.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "orchestrator/backend/failure_line.h"
#include "util/fsio.h"
#include "util/quote.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static const char plain_tb[] =
	"rank 2 of 4 starting\n"
	"Traceback (most recent call last):\n"
	"  File \"/tmp/fail.py\", line 5, in <module>\n"
	"    exec(open('configurator.py').read())\n"
	"         ^^^^^^^^^^^^^^^^^^^^^^^\n"
	"FileNotFoundError: [Errno 2] No such file or directory: 'configurator.py'\n";

/* torchrun's node log: a worker's traceback (stderr, not teed), teed
 * stdout lines, then torchrun's own traceback and its summary. */
static const char node_log[] =
	"Traceback (most recent call last):\n"
	"  File \"/tmp/fail.py\", line 5, in <module>\n"
	"    exec(open('configurator.py').read())\n"
	"FileNotFoundError: [Errno 2] No such file or directory: 'configurator.py'\n"
	"[default0]:rank 2 of 4 starting\n"
	"[default1]:rank 3 of 4 starting\n"
	"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0\n"
	"Traceback (most recent call last):\n"
	"  File \"/usr/bin/torchrun\", line 33, in <module>\n"
	"  File \"/usr/lib/python3/dist-packages/torch/distributed/run.py\", line 762, in main\n"
	"    run(args)\n"
	"torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
	"============================================================\n"
	"/tmp/fail.py FAILED\n"
	"------------------------------------------------------------\n"
	"Failures:\n"
	"[1]:\n"
	"  rank      : 3 (local_rank: 1)\n"
	"  exitcode  : -15 (pid: 10585)\n"
	"------------------------------------------------------------\n"
	"Root Cause (first observed failure):\n"
	"[0]:\n"
	"  time      : 2026-11-26_12:48:02\n"
	"  host      : localhost\n"
	"  rank      : 2 (local_rank: 0)\n"
	"  exitcode  : 1 (pid: 10584)\n"
	"  error_file: <N/A>\n"
	"============================================================\n";

static char *exception_of(const char *text, long which)
{
	struct strbuf sb = STRBUF_INIT;
	if (!failure_line_exception(text, strlen(text), which, &sb))
		return NULL;
	return strbuf_detach(&sb);
}

static char *last_of(const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	if (!failure_line_last(text, strlen(text), &sb))
		return NULL;
	return strbuf_detach(&sb);
}

static void check_exception(const char *text, long which, const char *want)
{
	char *got = exception_of(text, which);
	if (want)
		CHECK_STR(got, want);
	else
		CHECK(got == NULL);
	free(got);
}

static void test_python_tracebacks(void)
{
	check_exception(plain_tb, FAILURE_ALL,
			"FileNotFoundError: [Errno 2] No such file or directory: 'configurator.py'");
	/* a chain: the exception raised last */
	check_exception("Traceback (most recent call last):\n  File \"a.py\", line 1\n"
			"KeyError: 'lr'\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n"
			"  File \"a.py\", line 3\nValueError: no learning rate\n",
			FAILURE_ALL, "ValueError: no learning rate");
	/* SyntaxError's frame has a caret line; a message over two lines: its first */
	check_exception("Traceback (most recent call last):\n  File \"t.py\", line 3\n"
			"    foo(\n       ^\nSyntaxError: '(' was never closed\nsecond line\n",
			FAILURE_ALL, "SyntaxError: '(' was never closed");
	/* a header without frames, or cut before its end, is no traceback */
	check_exception("Traceback (most recent call last):\nnot a frame\n", FAILURE_ALL, NULL);
	check_exception("Traceback (most recent call last):\n  File \"a.py\", line 1\n",
			FAILURE_ALL, NULL);
	check_exception("just a line\n", FAILURE_ALL, NULL);
	/* Windows line ends and trailing blanks do not hide it */
	check_exception("Traceback (most recent call last):\r\n  File \"a.py\", line 1\r\n"
			"OSError: disk full  \r\n",
			FAILURE_ALL, "OSError: disk full");
}

static void test_torchrun_node_log(void)
{
	/* unprefixed: the worker's traceback, not torchrun's ChildFailedError */
	check_exception(node_log, FAILURE_UNPREFIXED,
			"FileNotFoundError: [Errno 2] No such file or directory: 'configurator.py'");
	/* every line: the last traceback is torchrun's own */
	check_exception(node_log, FAILURE_ALL,
			"torch.distributed.elastic.multiprocessing.errors.ChildFailedError:");
	/* teed stderr (--tee 3): each worker's lines under its prefix */
	const char *teed = "[default0]:Traceback (most recent call last):\n"
			   "[default1]:Traceback (most recent call last):\n"
			   "[default0]:  File \"x.py\", line 2, in <module>\n"
			   "[default1]:  File \"x.py\", line 9, in <module>\n"
			   "[default1]:RuntimeError: Connection closed by peer\n"
			   "[default0]:ZeroDivisionError: division by zero\n";
	check_exception(teed, 0, "ZeroDivisionError: division by zero");
	check_exception(teed, 1, "RuntimeError: Connection closed by peer");
	check_exception(teed, 2, NULL);
	check_exception(teed, FAILURE_UNPREFIXED, NULL);
	long rank = -1, local = -1;
	int code = 0;
	CHECK(failure_line_root_cause(node_log, strlen(node_log), &rank, &local, &code));
	CHECK(rank == 2 && local == 0 && code == 1);
	CHECK(!failure_line_root_cause(plain_tb, strlen(plain_tb), &rank, &local, &code));
	const char *killed = "Root Cause (first observed failure):\n[0]:\n"
			     "  rank      : 5 (local_rank: 1)\n  exitcode  : -9 (pid: 77)\n====\n";
	CHECK(failure_line_root_cause(killed, strlen(killed), &rank, &local, &code));
	CHECK(rank == 5 && local == 1 && code == -9);
}

static void test_last_line(void)
{
	char *s = last_of("step 1\nstep 2 loss 0.5\n\n   \n");
	CHECK_STR(s, "step 2 loss 0.5");
	free(s);
	/* a progress bar rewritten in place: what stood last */
	s = last_of("epoch 1\n 10%|#  | 1/10\r 20%|## | 2/10\r\n");
	CHECK_STR(s, "20%|## | 2/10");
	free(s);
	/* colours off; a line of escapes alone is no line */
	s = last_of("\033[31mCUDA error: out of memory\033[0m\n\033[0m\n");
	CHECK_STR(s, "CUDA error: out of memory");
	free(s);
	CHECK(last_of("\n \n\t\n") == NULL);
	CHECK(last_of("") == NULL);
}

static char *clean(const char *s, size_t n, size_t max)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_adds(&sb, "> ");
	display_clean(&sb, s, n, max);
	return strbuf_detach(&sb);
}

/* A literal's bytes, a NUL in it included. */
#define CLEAN(lit, max) clean(lit, sizeof lit - 1, max)

static void test_display_clean(void)
{
	char *s = CLEAN("a\033[2J\033[1;31mb\033]0;title\007c\033]8;;http://x\033\\d\te", 100);
	CHECK_STR(s, "> abcd e");
	free(s);
	/* C0 and DEL dropped; C1 (U+009B, a CSI on some terminals) and bidi overrides too */
	s = CLEAN("x\001\177y\302\233z\342\200\256w", 100);
	CHECK_STR(s, "> xyzw");
	free(s);
	/* bytes that are not UTF-8: '?'; UTF-8 kept */
	s = CLEAN("caf\303\251 \377\300\200 \355\240\200", 100);
	CHECK_STR(s, "> caf\303\251 ??? ???");
	free(s);
	/* bounded: cut at a character's end, "..." in the bound */
	s = CLEAN("abcdefghij", 10);
	CHECK_STR(s, "> abcdefghij");
	free(s);
	s = CLEAN("abcdefghijk", 10);
	CHECK_STR(s, "> abcdefg...");
	free(s);
	s = CLEAN("abcde\303\251\303\251\303\251", 10);
	CHECK_STR(s, "> abcde\303\251...");
	free(s);
	/* a NUL in the bytes is a control: dropped */
	s = CLEAN("a\0b", 10);
	CHECK_STR(s, "> ab");
	free(s);
}

/* ---- a job folder ----------------------------------------------------- */

static void put(const char *dir, const char *rel, const char *text)
{
	CHECK(fsio_write_in(dir, rel, text, strlen(text), 0644) == 0);
}

static char *read_job(const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	if (!failure_line_read(dir, &sb))
		return NULL;
	return strbuf_detach(&sb);
}

static void check_job(const char *dir, const char *want)
{
	char *got = read_job(dir);
	if (want)
		CHECK_STR(got, want);
	else
		CHECK(got == NULL);
	free(got);
}

static void test_job_folder(void)
{
	char dir[] = "/tmp/failure-line-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	check_job(dir, NULL); /* nothing ran */
	put(dir, "logs/rank_0.out", "rank 0 of 4 starting\n");
	put(dir, "logs/rank_1.out", "rank 1\nTraceback (most recent call last):\n  File \"a\"\n"
				    "RuntimeError: Connection closed by peer\n");
	put(dir, "logs/rank_2.out", plain_tb);
	put(dir, "logs/rank_10.out", "Traceback (most recent call last):\n  File \"a\"\nE: x\n");
	/* no record of the launch: the lowest rank with a traceback */
	check_job(dir, "rank 1: RuntimeError: Connection closed by peer");
	/* the launch's record decides */
	put(dir, "ranks/failed.json", "{\"exit_code\": 1, \"signal\": 0, \"task\": 2}");
	check_job(dir, "rank 2: FileNotFoundError: [Errno 2] No such file or directory: 'configurator.py'");
	put(dir, "ranks/failed.json", "{\"exit_code\": 137, \"signal\": 9, \"task\": 0}");
	check_job(dir, "rank 0: killed by signal 9 (Killed); last line: rank 0 of 4 starting");
	put(dir, "ranks/failed.json", "{\"exit_code\": 5, \"signal\": 0, \"task\": 3}");
	check_job(dir, "rank 3: exit status 5, no output"); /* no log at all */
	put(dir, "logs/rank_3.out", "\n\n");
	check_job(dir, "rank 3: exit status 5, no output");
	put(dir, "logs/rank_3.out", "loss 0.1\n\033[1mbad config\033[0m\n");
	check_job(dir, "rank 3: bad config");
	/* a per-node launcher: the worker torchrun names, from its node's log */
	put(dir, "ranks/launcher_0.json", "{\"host\": \"h\", \"node\": \"local1\", \"pid\": 1}");
	put(dir, "logs/rank_1.out", node_log);
	put(dir, "ranks/failed.json", "{\"exit_code\": 1, \"signal\": 0, \"task\": 1}");
	check_job(dir, "rank 2: FileNotFoundError: [Errno 2] No such file or directory: 'configurator.py'");
	/* the launcher failed by itself (no root cause): named as its node's */
	put(dir, "logs/rank_0.out", "Traceback (most recent call last):\n  File \"/usr/bin/torchrun\"\n"
				    "AttributeError: 'NoneType' object has no attribute 'get'\n");
	put(dir, "ranks/failed.json", "{\"exit_code\": 1, \"signal\": 0, \"task\": 0}");
	check_job(dir, "launcher on node 0: AttributeError: 'NoneType' object has no attribute 'get'");
	/* no record: the lowest node whose log names a root cause */
	put(dir, "ranks/failed.json", "not json");
	check_job(dir, "rank 2: FileNotFoundError: [Errno 2] No such file or directory: 'configurator.py'");
	fsio_remove_tree(dir);
}

/* A log longer than the tail read: its end decides, and the line is bounded. */
static void test_long_log(void)
{
	char dir[] = "/tmp/failure-line-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct strbuf log = STRBUF_INIT;
	while (log.len < 2 * FAILURE_TAIL)
		strbuf_adds(&log, "Traceback (most recent call last):\n  File \"old\"\nOldError: x\n");
	strbuf_adds(&log, "Traceback (most recent call last):\n  File \"a\"\nValueError: ");
	for (int i = 0; i < 300; i++)
		strbuf_addch(&log, 'v');
	strbuf_addch(&log, '\n');
	put(dir, "logs/rank_0.out", log.buf);
	put(dir, "ranks/failed.json", "{\"exit_code\": 1, \"signal\": 0, \"task\": 0}");
	char *got = read_job(dir);
	CHECK(got && strlen(got) == strlen("rank 0: ") + FAILURE_LINE_MAX);
	CHECK(got && !strncmp(got, "rank 0: ValueError: vvv", 23));
	CHECK(got && !strcmp(got + strlen(got) - 6, "vvv..."));
	free(got);
	strbuf_free(&log);
	fsio_remove_tree(dir);
}

int main(void)
{
	RUN(test_python_tracebacks);
	RUN(test_torchrun_node_log);
	RUN(test_last_line);
	RUN(test_display_clean);
	RUN(test_job_folder);
	RUN(test_long_log);
	HARNESS_END();
}
