/* cmd_logs: `campaign logs [--rank R] [--follow] [RUN] [SCENARIO]` prints a
 * scenario's job log (slurm-<id>.out of its latest attempt) or one rank's
 * log (logs/rank_<R>.out; under a per-node launcher, rank R's lines of its
 * node's log, analyzers/read/ranklines.h); without SCENARIO, the run's only scenario, else
 * every scenario's job log one after another. Without RUN, the newest run, as
 * `status`; a lone argument is the run when it names one, else a scenario of
 * the newest run. --follow keeps printing what is added until the job is
 * final (status is refreshed as `status` does).
 * SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "analyzers/read/ranklines.h"
#include "util/run_layout.h"
#include "orchestrator/backend/backend_pick.h"
#include "orchestrator/store/snapshot.h"
#include "orchestrator/store/jobstate.h"
#include "orchestrator/run.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Which log `logs` shows, and of it what: the job log, a rank's own log, or
 * under a per-node launcher the node's log of which only the rank's lines
 * (those torchrun prefixed with its local rank, the prefix taken off). */
struct view {
	char *path;
	long rank, node, local; /* rank -1: the job log; local -1: the whole file */
	struct strbuf partial;  /* of a node's log: the line not yet ended */
	long shown, unprefixed; /* of a node's log: the rank's lines shown; lines of no worker */
};

static const struct scenario *scenario_of(const struct run *r, const char *name)
{
	for (size_t i = 0; i < r->c.n_scenarios; i++)
		if (!strcmp(r->c.scenarios[i].name, name))
			return &r->c.scenarios[i];
	return NULL;
}

/* Where rank's lines are under a per-node launcher: the worker records, else
 * the numbering of torchrun's static rendezvous (no record yet). */
static int worker_place(const char *dir, const struct scenario *sc, struct view *v)
{
	struct ranklines rl;
	ranklines_load(dir, (long)sc->nodes * sc->tasks_per_node, &rl);
	if (!rl.per_node) /* no launcher has started yet */
		rl.workers = sc->tasks_per_node;
	int rc = ranklines_where(&rl, v->rank, &v->node, &v->local);
	if (rl.workers == 1) /* a node's log is its one worker's, prefixed or not */
		v->local = -1;
	ranklines_free(&rl);
	if (rc < 0)
		return err_set(ERR_NOTFOUND, "scenario '%s': no worker record names rank %ld",
			       sc->name, v->rank);
	return 0;
}

/* The log of the latest attempt of j that v shows. */
static int view_open(const struct run *r, const struct job_row *j, const char *rank,
		     struct view *v)
{
	struct strbuf p = STRBUF_INIT;
	char *dir = run_job_dir(r, j->scenario);
	int rc = 0;
	*v = (struct view){ .rank = rank ? strtol(rank, NULL, 10) : -1, .local = -1,
			    .partial = STRBUF_INIT };
	const struct scenario *sc = scenario_of(r, j->scenario);
	long world = sc ? (long)sc->nodes * sc->tasks_per_node : 0;
	v->node = v->rank; /* rank R's own log: logs/rank_<R>.out */
	if (rank && sc && v->rank >= world)
		rc = err_set(ERR_NOTFOUND, "scenario '%s' has %ld rank%s: no rank %ld", sc->name,
			     world, world == 1 ? "" : "s", v->rank);
	else if (rank && r->c.workload.per_node && sc)
		rc = worker_place(dir, sc, v);
	if (rank)
		strbuf_addf(&p, "%s/" JOB_LOGS "/rank_%ld.out", dir, v->node);
	else
		strbuf_addf(&p, "%s/slurm-%s.out", dir, j->job_id ? j->job_id : "none");
	free(dir);
	v->path = strbuf_detach(&p);
	return rc;
}

static void view_free(struct view *v)
{
	free(v->path);
	strbuf_free(&v->partial);
}

/* One line of a node's log: shown when it is the rank's. */
static void node_line(struct view *v, const char *line, size_t len)
{
	long local;
	size_t skip = ranklines_prefix(line, len, &local);
	v->unprefixed += !skip;
	if (skip && local == v->local) {
		fwrite(line + skip, 1, len - skip, stdout);
		v->shown++;
	}
}

/* Bytes of the file v shows; end: no more will come (a last line without
 * its newline is a line). */
static void view_bytes(struct view *v, const char *b, size_t n, int end)
{
	if (v->local < 0) {
		fwrite(b, 1, n, stdout);
		return;
	}
	strbuf_add(&v->partial, b, n);
	size_t at = 0;
	const char *nl;
	while ((nl = memchr(v->partial.buf + at, '\n', v->partial.len - at))) {
		node_line(v, v->partial.buf + at, (size_t)(nl - v->partial.buf - at) + 1);
		at = (size_t)(nl - v->partial.buf) + 1;
	}
	if (end && at < v->partial.len) {
		strbuf_addch(&v->partial, '\n');
		node_line(v, v->partial.buf + at, v->partial.len - at);
		at = v->partial.len;
	}
	memmove(v->partial.buf, v->partial.buf + at, v->partial.len - at);
	v->partial.len -= at;
	v->partial.buf[v->partial.len] = '\0';
}

/* Copies v's file from *offset to stdout; the new offset. 0 when there is nothing (yet). */
static int copy_from(struct view *v, long *offset, int end)
{
	int fd = fsio_open_input(v->path);
	if (fd < 0)
		return 0;
	char buf[65536];
	ssize_t n;
	if (lseek(fd, *offset, SEEK_SET) == *offset)
		while ((n = read(fd, buf, sizeof buf)) > 0) {
			view_bytes(v, buf, (size_t)n, 0);
			*offset += n;
		}
	if (end)
		view_bytes(v, "", 0, 1);
	fflush(stdout);
	close(fd);
	return 1;
}

static const struct job_row *job_of(const struct snapshot *js, const char *scenario)
{
	for (size_t i = 0; i < js->n; i++)
		if (!strcmp(js->latest[i]->scenario, scenario))
			return js->latest[i];
	return NULL;
}

/* Why there is no log at path: a rank's is written while the job runs. */
static int no_log(const struct view *v, const struct job_row *j)
{
	if (v->rank < 0 || !job_state_is_final(j->state))
		return err_set(ERR_NOTFOUND, "%s: no such log (yet)%s", v->path,
			       v->rank >= 0 ? ": ranks' logs are written while the job runs" : "");
	return err_set(ERR_NOTFOUND, "%s: no such log: the job ended (%s) without one", v->path,
		       job_state_name(j->state));
}

/* After a node's log was shown whole: a rank none of whose lines had its prefix. */
static void say_unprefixed(const struct view *v)
{
	if (v->local >= 0 && !v->shown && v->unprefixed)
		fprintf(stderr,
			"campaign logs: no line of %s carries rank %ld's prefix (torchrun's [default%ld]: with --tee); its node's lines without one are in that file\n",
			v->path, v->rank, v->local);
}

/* Prints what v's log holds, then (follow) what is added until the job is final. */
static int show(struct run *r, const char *scenario, const char *rank, int follow)
{
	struct snapshot js = SNAPSHOT_INIT;
	struct view v = { .path = NULL, .partial = STRBUF_INIT };
	int rc = snapshot_load(r->st, &js);
	const struct job_row *j = rc == 0 ? job_of(&js, scenario) : NULL;
	if (rc == 0 && !j)
		rc = err_set(ERR_NOTFOUND, "run %s has no scenario '%s'", r->id, scenario);
	if (j)
		rc = view_open(r, j, rank, &v);
	long offset = 0;
	int final = j && job_state_is_final(j->state);
	if (rc == 0 && !copy_from(&v, &offset, final || !follow) && !follow)
		rc = no_log(&v, j);
	while (rc == 0 && follow && !job_state_is_final(j->state)) {
		struct timespec ts = { 1, 0 };
		nanosleep(&ts, NULL);
		copy_from(&v, &offset, 0);
		snapshot_free(&js);
		if ((rc = backend_refresh(backend_for_run(r), r, &js)) == 0 &&
		    !(j = job_of(&js, scenario)))
			rc = err_set(ERR_NOTFOUND, "scenario '%s' is gone from the run's store",
				     scenario);
	}
	if (rc == 0 && follow)
		copy_from(&v, &offset, 1); /* what came with the end */
	if (rc == 0)
		say_unprefixed(&v);
	view_free(&v);
	snapshot_free(&js);
	return rc;
}

static int logs_exec(const struct cmd_entry *self, struct args *a)
{
	struct run *r = a->run;
	const char *rank = args_get(a, 'r');
	long rv;
	(void)self;
	if (rank && args_int(self, a, 'r', 0, 1 << 20, 0, &rv))
		return EXIT_USAGE;
	if (a->npos > a->nrun)
		return show(r, a->pos[a->nrun], rank, args_has(a, 'f'));
	if (r->c.n_scenarios == 1)
		return show(r, r->c.scenarios[0].name, rank, args_has(a, 'f'));
	if (rank || args_has(a, 'f'))
		return err_set(ERR_USAGE,
			       "run %s has %zu scenarios: name one for --rank or --follow", r->id,
			       r->c.n_scenarios);
	int rc = 0;
	for (size_t i = 0; i < r->c.n_scenarios && rc == 0; i++) {
		printf("==> %s <==\n", r->c.scenarios[i].name);
		rc = show(r, r->c.scenarios[i].name, NULL, 0);
		if (rc == ERR_NOTFOUND) { /* a scenario not run yet: said, the others shown */
			printf("(no job log yet)\n");
			rc = 0;
		}
	}
	return rc;
}

const struct cmd_entry cmd_logs_entry = {
	.name = "logs",
	.usage = "[--rank R] [--follow] [--results DIR] [RUN] [SCENARIO]",
	.summary = "print a scenario's job log or one rank's (default: the newest run); --follow to the end",
	.flags = CMD_RUN | CMD_RUN_NEWEST | CMD_RUN_SCENARIO,
	.min_pos = 0,
	.max_pos = 2,
	.exec = logs_exec,
	.opts = (const struct optdef[]){
		{ 'r', "rank", "R",
		  "that rank's own log (logs/rank_<R>.out; under a per-node launcher its lines of its node's log) instead of the job log" },
		{ 'f', "follow", NULL, "keep printing what is added until the job is final" },
		OPT_END },
};
