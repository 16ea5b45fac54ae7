/* Unit tests for a per-node launcher's workers as the ranks: the launch
 * variables read from an environment, which process is a worker, the watch
 * over a real process tree in /proc (orchestrator/job/workers.c), the
 * analysis taking each worker record's rank and node (analyzers/torchtrace.c),
 * and each line of a node's log taken as its worker's (analyzers/read/ranklines.c,
 * steplog.c).
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "analyzers/read/ranklines.h"
#include "analyzers/read/steplog.h"
#include "analyzers/torchtrace.h"
#include "orchestrator/job/workers.h"
#include "util/fsio.h"

#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void env_variables_parsed(void)
{
	static const char env[] =
		"MYRANK=9\0RANK=3\0LOCAL_RANK=1\0WORLD_SIZE=4\0LOCAL_WORLD_SIZE=2\0PATH=/bin";
	struct worker_env e;
	workers_parse_env(env, sizeof env - 1, &e); /* the last variable without its NUL */
	CHECK(e.rank == 3 && e.local_rank == 1 && e.world_size == 4 && e.local_world_size == 2);
	static const char bad[] =
		"RANK=x\0LOCAL_RANK=\0WORLD_SIZE=99999999999999999999\0LOCAL_WORLD_SIZE=2";
	workers_parse_env(bad, sizeof bad - 1, &e); /* LOCAL_WORLD_SIZE cut off: no value */
	CHECK(e.rank == -1 && e.local_rank == -1 && e.world_size == -1 &&
	      e.local_world_size == -1);
	workers_parse_env("", 0, &e);
	CHECK(e.rank == -1);
}

static void worker_or_inherited(void)
{
	struct worker_env launcher = { 1, 0, 2, 1 }, same = { 1, 0, 2, 1 }, own = { 2, 0, 4, 2 },
			  none = { -1, -1, -1, -1 };
	CHECK(workers_is_worker(&own, &launcher, 2));
	CHECK(!workers_is_worker(&same, &launcher, 2)); /* a helper, or not exec'd yet */
	CHECK(workers_is_worker(&same, &launcher, 1));  /* one worker a node: the same values */
	CHECK(!workers_is_worker(&none, &launcher, 2));
	CHECK(workers_is_worker(&own, &none, 2));
}

static long ppid_of(long pid)
{
	char path[64], buf[512];
	long ppid = -1;
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	char *close = strrchr(buf, ')');
	if (close)
		sscanf(close + 1, " %*c %ld", &ppid);
	return ppid;
}

static json_t *record(const char *dir, const char *name)
{
	char p[256];
	snprintf(p, sizeof p, "%s/ranks/%s", dir, name);
	return json_load_file(p, 0, NULL);
}

/* A launcher (sh, with a launcher's RANK 1 of 2) starting a helper with its
 * own environment, a worker (RANK 2) whose child has RANK 2 too, and a
 * worker (RANK 3): the two workers are recorded, with their pids, node and
 * launcher; the helper and the worker's child are not. */
static void watch_finds_workers(void)
{
	char tmp[] = "/tmp/test_workers.XXXXXX";
	CHECK(mkdtemp(tmp) != NULL);
	pid_t launcher = fork();
	if (launcher == 0) {
		char *envp[] = { "PATH=/usr/bin:/bin", "RANK=1", "LOCAL_RANK=0", "WORLD_SIZE=2",
				 "LOCAL_WORLD_SIZE=1", NULL };
		setpgid(0, 0);
		execle("/bin/sh", "sh", "-c",
		       "sleep 30 & env RANK=2 LOCAL_RANK=0 WORLD_SIZE=4 LOCAL_WORLD_SIZE=2 sh -c 'sleep 30 & wait' & env RANK=3 LOCAL_RANK=1 WORLD_SIZE=4 LOCAL_WORLD_SIZE=2 sleep 30 & wait",
		       (char *) NULL, envp);
		_exit(127);
	}
	CHECK(launcher > 0);
	struct workers w;
	workers_init(&w, tmp, 3); /* one more than there are: the watch goes on looking */
	workers_add(&w, 1, launcher, "nodeB");
	/* until both workers are seen (at most 20 s: a loaded machine starts processes late; the
	 * group sleeps 30 s and is killed below), then 25 looks more (0.5 s), in which the helper
	 * and the worker's child must not be recorded either */
	struct timespec tick = { 0, 20000000L };
	int more = 25;
	for (int i = 0; i < 1000 && more > 0; i++) {
		workers_poll(&w);
		more -= w.n == 1 && w.v[0].found == 2;
		nanosleep(&tick, NULL);
	}
	CHECK(w.n == 1 && w.v[0].found == 2 && !w.v[0].done);
	json_t *l = record(tmp, "launcher_1.json"), *a = record(tmp, "rank_2.json"),
	       *b = record(tmp, "rank_3.json"), *helper = record(tmp, "rank_1.json");
	CHECK(l && json_integer_value(json_object_get(l, "pid")) == launcher &&
	      json_integer_value(json_object_get(l, "node_rank")) == 1 &&
	      !strcmp(json_string_value(json_object_get(l, "node")), "nodeB") &&
	      !json_object_get(l, "rank"));
	CHECK(a && b && !helper);
	for (int k = 0; a && b && k < 2; k++) {
		json_t *r = k ? b : a;
		long pid = (long)json_integer_value(json_object_get(r, "pid"));
		CHECK(ppid_of(pid) == (long)launcher); /* the worker itself, not its child */
		CHECK(json_integer_value(json_object_get(r, "rank")) == 2 + k &&
		      json_integer_value(json_object_get(r, "local_rank")) == k &&
		      json_integer_value(json_object_get(r, "node_rank")) == 1 &&
		      json_integer_value(json_object_get(r, "launcher_pid")) == launcher &&
		      !strcmp(json_string_value(json_object_get(r, "node")), "nodeB"));
	}
	json_decref(l);
	json_decref(a);
	json_decref(b);
	json_decref(helper);
	kill(-launcher, SIGKILL); /* the launcher's group: the processes this test started */
	waitpid(launcher, NULL, 0);
	workers_ended(&w, launcher);
	CHECK(workers_poll(&w) == 0);
	workers_free(&w);
	fsio_remove_tree(tmp);
}

static void put(const char *dir, const char *name, const char *json)
{
	char rel[64];
	snprintf(rel, sizeof rel, "ranks/%s", name);
	CHECK(fsio_write_in(dir, rel, json, strlen(json), 0644) == 0);
}

static void four_ranks(struct scenario_metrics *m)
{
	m->n = 4;
	m->ranks = calloc(4, sizeof *m->ranks);
	for (int i = 0; i < 4; i++)
		m->ranks[i].rank = i;
}

/* Worker records name each trace's rank (by host and pid) and node; the
 * launchers' records are no ranks; a missing worker record costs only its
 * rank's node. Records of launchers alone (no local_rank), fewer than the
 * ranks, give no node. */
static void analysis_takes_worker_records(void)
{
	char tmp[] = "/tmp/test_workrec.XXXXXX", dir[160];
	CHECK(mkdtemp(tmp) != NULL);
	put(tmp, "launcher_0.json",
	    "{\"host\": \"h\", \"node\": \"local1\", \"node_rank\": 0, \"pid\": 100}");
	put(tmp, "launcher_1.json",
	    "{\"host\": \"h\", \"node\": \"local2\", \"node_rank\": 1, \"pid\": 101}");
	put(tmp, "rank_0.json",
	    "{\"host\": \"h\", \"local_rank\": 0, \"node\": \"local1\", \"pid\": 200, \"rank\": 0}");
	put(tmp, "rank_1.json",
	    "{\"host\": \"h\", \"local_rank\": 1, \"node\": \"local1\", \"pid\": 202, \"rank\": 1}");
	put(tmp, "rank_3.json",
	    "{\"host\": \"h\", \"local_rank\": 1, \"node\": \"local2\", \"pid\": 203, \"rank\": 3}");
	char *names[] = { "h_200.1.pt.trace.json", "h_201.1.pt.trace.json", "h_202.1.pt.trace.json",
			  "h_203.1.pt.trace.json", "h_203.2.pt.trace.json" };
	int hints[5];
	snprintf(dir, sizeof dir, "%s/traces", tmp);
	trace_files_rank_hints(dir, names, 5, hints);
	/* pid 201 has no record: the first rank after the recorded ones */
	CHECK(hints[0] == 0 && hints[1] == 4 && hints[2] == 1 && hints[3] == 3 && hints[4] == 3);
	struct scenario_metrics m;
	four_ranks(&m);
	trace_files_rank_nodes(tmp, &m);
	CHECK_STR(m.ranks[0].host, "local1");
	CHECK_STR(m.ranks[1].host, "local1");
	CHECK_STR(m.ranks[2].host, "");
	CHECK_STR(m.ranks[3].host, "local2");
	free(m.ranks);
	fsio_remove_tree(tmp);
	CHECK(mkdtemp(strcpy(tmp, "/tmp/test_workrec.XXXXXX")) != NULL);
	put(tmp, "rank_0.json",
	    "{\"host\": \"h\", \"node\": \"local1\", \"pid\": 100, \"rank\": 0}");
	put(tmp, "rank_1.json",
	    "{\"host\": \"h\", \"node\": \"local2\", \"pid\": 101, \"rank\": 1}");
	four_ranks(&m);
	trace_files_rank_nodes(tmp, &m);
	CHECK(!m.ranks[0].host[0] && !m.ranks[1].host[0]);
	free(m.ranks);
	fsio_remove_tree(tmp);
}

/* torchrun's prefix "[<role><LOCAL_RANK>]:": a role, then digits, then "]:". */
static void prefixes_parsed(void)
{
	static const struct { const char *line; size_t len; long local; } t[] = {
		{ "[default0]:step 1 time 2 ms\n", 11, 0 },
		{ "[default12]:x", 12, 12 },
		{ "[trainer_2.b3]:x", 15, 3 },
		{ "[default0]:", 11, 0 },
		{ "[0]:x", 0, -1 },           /* no role */
		{ "[default]:x", 0, -1 },     /* no local rank */
		{ "[default0] x", 0, -1 },
		{ "[rank 0]:x", 0, -1 },
		{ "default0]:x", 0, -1 },
		{ "[default12345678]:x", 0, -1 },
		{ "[", 0, -1 },
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		long local = -1;
		size_t n = ranklines_prefix(t[i].line, strlen(t[i].line), &local);
		CHECK(n == t[i].len);
		CHECK(!n || local == t[i].local);
	}
}

static void put_log(const char *dir, int node, const char *text)
{
	char rel[64];
	snprintf(rel, sizeof rel, "logs/rank_%d.out", node);
	CHECK(fsio_write_in(dir, rel, text, strlen(text), 0644) == 0);
}

#define STEP_RE "step (?<step>\\d+) time (?<step_ms>[0-9.]+) ms"

/* Two nodes of two workers, numbered by the records (node 0's local rank 0
 * is rank 1); rank 3 has no record: node 1 x 2 + local 1, as torchrun's
 * static rendezvous numbers it. The workers' lines interleave in their
 * node's log; the launcher's own line, step-like, is no worker's. */
static void node_logs_split(void)
{
	char tmp[] = "/tmp/test_nodelog.XXXXXX";
	CHECK(mkdtemp(tmp) != NULL);
	put(tmp, "launcher_0.json",
	    "{\"host\": \"h\", \"node\": \"local1\", \"node_rank\": 0, \"pid\": 100}");
	put(tmp, "launcher_1.json",
	    "{\"host\": \"h\", \"node\": \"local2\", \"node_rank\": 1, \"pid\": 101}");
	put(tmp, "rank_1.json",
	    "{\"host\": \"h\", \"local_rank\": 0, \"node\": \"local1\", \"node_rank\": 0, \"pid\": 200, \"rank\": 1}");
	put(tmp, "rank_0.json",
	    "{\"host\": \"h\", \"local_rank\": 1, \"node\": \"local1\", \"node_rank\": 0, \"pid\": 201, \"rank\": 0}");
	put(tmp, "rank_2.json",
	    "{\"host\": \"h\", \"local_rank\": 0, \"node\": \"local2\", \"node_rank\": 1, \"pid\": 202, \"rank\": 2}");
	put_log(tmp, 0, "WARNING: step 9 time 999 ms (the launcher's own)\n"
			"[default0]:step 0 time 10 ms\n[default1]:step 0 time 20 ms\n"
			"[default1]:step 1 time 21 ms\n[default0]:step 1 time 11 ms\n"
			"[default0]:step 2 time 12 ms\n[default1]:step 2 time 22 ms");
	put_log(tmp, 1, "[default1]:step 0 time 40 ms\n[default0]:step 0 time 30 ms\n"
			"[default0]:step 1 time 31 ms\n[default1]:step 1 time 41 ms\n"
			"[default7]:step 1 time 77 ms\n"); /* a local rank no worker has */
	struct ranklines rl;
	ranklines_load(tmp, 4, &rl);
	CHECK(rl.per_node && rl.launchers == 2 && rl.workers == 2 && rl.n == 3);
	long node = -1, local = -1;
	CHECK(ranklines_where(&rl, 0, &node, &local) == 0 && node == 0 && local == 1);
	CHECK(ranklines_where(&rl, 3, &node, &local) == 0 && node == 1 && local == 1);
	CHECK(ranklines_where(&rl, 4, &node, &local) < 0);
	size_t skip;
	CHECK(ranklines_of(&rl, 1, "[default0]:x", 12, &skip) == 2 && skip == 11);
	CHECK(ranklines_of(&rl, 1, "x", 1, &skip) == -1 && skip == 0);
	struct scenario_metrics m;
	CHECK(steplog_load(tmp, &rl, STEP_RE, 1, &m) == 0);
	static const double want[4][3] = { { 20, 21, 22 }, { 10, 11, 12 }, { 30, 31 }, { 40, 41 } };
	CHECK(m.n == 4);
	for (size_t r = 0; r < m.n && r < 4; r++) {
		CHECK(m.ranks[r].rank == (int)r && m.ranks[r].n == (r < 2 ? 3u : 2u));
		for (size_t i = 0; i < m.ranks[r].n; i++) {
			const struct step_rec *st = &m.ranks[r].steps[i];
			CHECK(st->step_ms == want[r][i]);
			CHECK(st->step == (long)i && st->active == (i > 0));
		}
	}
	metrics_free(&m);
	ranklines_free(&rl);
	fsio_remove_tree(tmp);
}

/* Without torchrun's prefixes (workers writing straight to the node's log)
 * a node's step lines are its first worker's; without launcher records a
 * log is its rank's, a prefix and all. */
static void node_logs_unprefixed(void)
{
	char tmp[] = "/tmp/test_nodelog.XXXXXX";
	CHECK(mkdtemp(tmp) != NULL);
	put(tmp, "launcher_0.json",
	    "{\"host\": \"h\", \"node\": \"local1\", \"node_rank\": 0, \"pid\": 100}");
	put(tmp, "launcher_1.json",
	    "{\"host\": \"h\", \"node\": \"local2\", \"node_rank\": 1, \"pid\": 101}");
	put_log(tmp, 0, "step 0 time 10 ms\nstep 1 time 11 ms\n");
	put_log(tmp, 1, "hello\n");
	struct ranklines rl;
	struct scenario_metrics m;
	ranklines_load(tmp, 4, &rl); /* no worker record: numbered as the static rendezvous */
	CHECK(steplog_load(tmp, &rl, STEP_RE, 0, &m) == 0);
	CHECK(m.n == 1 && m.ranks[0].rank == 0 && m.ranks[0].n == 2);
	metrics_free(&m);
	ranklines_free(&rl);
	fsio_remove_tree(tmp);
	CHECK(mkdtemp(strcpy(tmp, "/tmp/test_nodelog.XXXXXX")) != NULL);
	put_log(tmp, 0, "[default0]:step 0 time 10 ms\n");
	put_log(tmp, 3, "[default1]:step 0 time 13 ms\n");
	ranklines_load(tmp, 4, &rl);
	CHECK(!rl.per_node);
	CHECK(steplog_load(tmp, &rl, STEP_RE, 0, &m) == 0);
	CHECK(m.n == 2 && m.ranks[0].rank == 0 && m.ranks[1].rank == 3 &&
	      m.ranks[1].steps[0].step_ms == 13);
	metrics_free(&m);
	ranklines_free(&rl);
	fsio_remove_tree(tmp);
}

int main(void)
{
	RUN(env_variables_parsed);
	RUN(worker_or_inherited);
	RUN(watch_finds_workers);
	RUN(analysis_takes_worker_records);
	RUN(prefixes_parsed);
	RUN(node_logs_split);
	RUN(node_logs_unprefixed);
	HARNESS_END();
}
