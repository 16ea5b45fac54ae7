/* cmd_profile_rank: `campaign profile-rank --dir JOB_DIR [--nsys] [--perf]
 * -- CMD...`, the wrapper the job script puts around every rank when the
 * campaign asks for profilers. perf stat writes perf/rank_<r>.txt; nsys
 * writes nsys/rank_<r>.nsys-rep and exports nsys/rank_<r>.sqlite for the
 * analyzers. A profiler missing on the node is said once per node and the
 * rank runs without it, unless --required (then every rank says it and stops). */
#include "cmd.h"
#include "util/run_layout.h"
#include "util/fsio.h"
#include "util/proc.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy = xstrdup(path ? path : "/usr/bin:/bin"), *save = NULL;
	int found = 0;
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		struct strbuf p = STRBUF_INIT;
		strbuf_addf(&p, "%s/%s", d, prog);
		found = access(p.buf, X_OK) == 0;
		strbuf_free(&p);
	}
	free(copy);
	return found;
}

static const char *env_or(const char *a, const char *b, const char *dflt)
{
	const char *v = getenv(a);
	if (!v)
		v = getenv(b);
	return v ? v : dflt;
}

/* 0: use it; 1: run without it; -1: required but missing (said). */
static int check_tool(const char *tool, int required)
{
	if (on_path(tool))
		return 0;
	/* Said once per node, by local rank 0; when required, by every rank: the
	 * first rank to fail stops the others, maybe before rank 0 has said it. */
	if (required || !strcmp(env_or("LOCAL_RANK", "SLURM_LOCALID", "0"), "0"))
		fprintf(stderr, "campaign: %s not found on %s: %s\n", tool,
			env_or("SLURMD_NODENAME", "HOSTNAME", "this node"),
			required ? "the campaign requires it, so the rank does not run"
				 : "ranks run without it");
	return required ? -1 : 1;
}

static int run_wait(char **argv)
{
	return proc_wait(proc_spawn(argv));
}

static int profile_exec(const struct cmd_entry *self, struct args *a)
{
	if (!args_has(a, 'd') || a->dashdash < 0 || a->dashdash >= a->npos) {
		fprintf(stderr,
			"campaign profile-rank: --dir and a command after -- are required\n");
		return EXIT_USAGE;
	}
	(void)self;
	const char *dir = args_get(a, 'd'), *rank = env_or("RANK", "SLURM_PROCID", "0");
	int req = args_has(a, 'q');
	int nsys = args_has(a, 'n') ? check_tool("nsys", req) : 1;
	int perf = args_has(a, 'p') ? check_tool("perf", req) : 1;
	if (nsys < 0 || perf < 0)
		return 127;
	char **cmd = a->pos + a->dashdash;
	int ncmd = a->npos - a->dashdash;
	struct argv full = { 0 };
	struct strbuf p = STRBUF_INIT, rep = STRBUF_INIT;
	if (nsys == 0) {
		strbuf_addf(&p, "%s/" JOB_NSYS, dir);
		fsio_mkdir_p(p.buf, 0755);
		strbuf_addf(&rep, "%s/rank_%s", p.buf, rank);
		argv_push(&full, "nsys");
		argv_push(&full, "profile");
		argv_push(&full, "--force-overwrite=true");
		struct strbuf t = STRBUF_INIT;
		strbuf_addf(&t, "--trace=%s",
			    args_has(a, 't') ? args_get(a, 't') : "cuda,nvtx,osrt");
		argv_push(&full, t.buf);
		strbuf_free(&t);
		if (args_has(a, 'c')) {
			strbuf_addf(&t, "--capture-range=%s", args_get(a, 'c'));
			argv_push(&full, t.buf);
			strbuf_free(&t);
		}
		argv_push(&full, "-o");
		argv_push(&full, rep.buf);
	}
	if (perf == 0) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/perf", dir);
		fsio_mkdir_p(p.buf, 0755);
		strbuf_addf(&p, "/rank_%s.txt", rank);
		argv_push(&full, "perf");
		argv_push(&full, "stat");
		argv_push(&full, "-x,");
		argv_push(&full, "-o");
		argv_push(&full, p.buf);
		argv_push(&full, "--");
	}
	for (int i = 0; i < ncmd; i++)
		argv_push(&full, cmd[i]);
	int rc = run_wait(full.v);
	if (nsys == 0) {
		struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
		strbuf_addf(&in, "%s.nsys-rep", rep.buf);
		strbuf_addf(&out, "%s.sqlite", rep.buf);
		char *ex[] = { "nsys", "export", "--type", "sqlite", "--force-overwrite",
			       "true", "-o",     out.buf,  in.buf,   NULL };
		if (run_wait(ex) != 0)
			fprintf(stderr, "campaign: rank %s: nsys export of %s failed\n", rank,
				in.buf);
		strbuf_free(&in);
		strbuf_free(&out);
	}
	argv_free(&full);
	strbuf_free(&p);
	strbuf_free(&rep);
	return rc;
}

const struct cmd_entry cmd_profile_rank_entry = {
	.name = "profile-rank",
	.usage = "--dir JOB_DIR [--nsys] [--trace T] [--capture-range R] [--perf] [--required] -- CMD [ARG...]",
	.summary = "run one rank under nsys and/or perf stat; the job script adds it",
	.flags = CMD_NODE,
	.min_pos = 0,
	.max_pos = -1,
	.exec = profile_exec,
	.opts = (const struct optdef[]){
		OPT_DIR("the job directory (outputs go to nsys/ and perf/)"),
		{ 'n', "nsys", NULL, "profile with Nsight Systems and export SQLite" },
		{ 't', "trace", "T", "nsys --trace (default cuda,nvtx,osrt)" },
		{ 'c', "capture-range", "R", "nsys --capture-range (nvtx, cudaProfilerApi)" },
		{ 'p', "perf", NULL, "count with perf stat" },
		{ 'q', "required", NULL, "fail the rank when a profiler is missing" },
		OPT_END },
};
