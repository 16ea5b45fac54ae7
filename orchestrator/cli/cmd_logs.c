/* cmd_logs: `campaign logs [--rank R] [--follow] [RUN] [SCENARIO]` prints a
 * scenario's job log (slurm-<id>.out of its latest attempt) or one rank's
 * log (logs/rank_<R>.out); without SCENARIO, the run's only scenario, else
 * every scenario's job log one after another. Without RUN, the newest run, as
 * `status`; a lone argument is the run when it names one, else a scenario of
 * the newest run. --follow keeps printing what is added until the job is
 * final (status is refreshed as `status` does). */
#include "cmd.h"
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

/* The log file of the latest attempt of j: the job log, or a rank's. */
static char *log_path(const struct run *r, const struct job_row *j, const char *rank)
{
	struct strbuf p = STRBUF_INIT;
	char *dir = run_job_dir(r, j->scenario);
	if (rank)
		strbuf_addf(&p, "%s/" JOB_LOGS "/rank_%s.out", dir, rank);
	else
		strbuf_addf(&p, "%s/slurm-%s.out", dir, j->job_id ? j->job_id : "none");
	free(dir);
	return strbuf_detach(&p);
}

/* Copies path from *offset to stdout; the new offset. 0 when there is nothing (yet). */
static int copy_from(const char *path, long *offset)
{
	int fd = fsio_open_input(path);
	if (fd < 0)
		return 0;
	char buf[65536];
	ssize_t n;
	if (lseek(fd, *offset, SEEK_SET) == *offset)
		while ((n = read(fd, buf, sizeof buf)) > 0) {
			fwrite(buf, 1, (size_t)n, stdout);
			*offset += n;
		}
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

/* Prints what path holds, then (follow) what is added until the job is final. */
static int show(struct run *r, const char *scenario, const char *rank, int follow)
{
	struct snapshot js = SNAPSHOT_INIT;
	int rc = snapshot_load(r->st, &js);
	const struct job_row *j = rc == 0 ? job_of(&js, scenario) : NULL;
	if (rc == 0 && !j)
		rc = err_set(ERR_NOTFOUND, "run %s has no scenario '%s'", r->id, scenario);
	char *path = j ? log_path(r, j, rank) : NULL;
	long offset = 0;
	if (rc == 0 && !copy_from(path, &offset) && !follow)
		rc = err_set(ERR_NOTFOUND, "%s: no such log (yet)%s", path,
			     rank ? ": ranks' logs are written while the job runs" : "");
	while (rc == 0 && follow && !job_state_is_final(j->state)) {
		struct timespec ts = { 1, 0 };
		nanosleep(&ts, NULL);
		copy_from(path, &offset);
		snapshot_free(&js);
		if ((rc = backend_refresh(backend_for_run(r), r, &js)) == 0 &&
		    !(j = job_of(&js, scenario)))
			rc = err_set(ERR_NOTFOUND, "scenario '%s' is gone from the run's store",
				     scenario);
	}
	if (rc == 0 && follow)
		copy_from(path, &offset); /* what came with the end */
	free(path);
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
		  "that rank's own log (logs/rank_<R>.out) instead of the job log" },
		{ 'f', "follow", NULL, "keep printing what is added until the job is final" },
		OPT_END },
};
