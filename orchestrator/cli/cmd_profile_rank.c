/* cmd_profile_rank: `campaign profile-rank --dir JOB_DIR [--nsys] [--perf]
 * [--nccl-inspector] -- CMD...`, the wrapper the job script puts around every rank when
 * the campaign asks for profilers. perf stat writes perf/rank_<r>.txt; nsys
 * writes nsys/rank_<r>.nsys-rep and exports nsys/rank_<r>.sqlite for the
 * analyzers; NCCL's Inspector plugin (its variables exported by the job script) gets its
 * library's path in NCCL_PROFILER_PLUGIN and its dump folder made. A profiler missing on
 * the node is said once per node and the rank runs without it, unless --required (then
 * every rank says it and stops).
 * SPDX-License-Identifier: MIT */
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

/* A profiler missing on this node, said once per node (by local rank 0); when
 * required, by every rank: the first rank to fail stops the others, maybe
 * before rank 0 has said it. without: what the ranks do without it. 1: run
 * without it; -1: required. */
static int say_missing(const char *what, int required, const char *without)
{
	if (required || !strcmp(env_or("LOCAL_RANK", "SLURM_LOCALID", "0"), "0"))
		fprintf(stderr, "campaign: %s not found on %s: %s\n", what,
			env_or("SLURMD_NODENAME", "HOSTNAME", "this node"),
			required ? "the campaign requires it, so the rank does not run" : without);
	return required ? -1 : 1;
}

/* 0: use it; 1: run without it; -1: required but missing (said). */
static int check_tool(const char *tool, int required)
{
	return on_path(tool) ? 0 : say_missing(tool, required, "ranks run without it");
}

/* The library's path: name itself when it holds a '/', else the first readable
 * dir/name of LD_LIBRARY_PATH, $NCCL_HOME's ext-profiler/inspector and lib, and the
 * system's library folders; NULL when none. malloc'ed. */
static char *find_library(const char *name)
{
	if (strchr(name, '/'))
		return access(name, R_OK) == 0 ? xstrdup(name) : NULL;
	const char *home = getenv("NCCL_HOME"), *ld = getenv("LD_LIBRARY_PATH");
	struct strbuf dirs = STRBUF_INIT;
	strbuf_addf(&dirs, "%s:", ld ? ld : "");
	if (home && *home)
		strbuf_addf(&dirs, "%s/ext-profiler/inspector:%s/lib:", home, home);
	strbuf_adds(&dirs, "/usr/local/lib:/usr/lib/x86_64-linux-gnu:/usr/lib64:/usr/lib");
	char *save = NULL, *found = NULL;
	for (char *d = strtok_r(dirs.buf, ":", &save); d && !found;
	     d = strtok_r(NULL, ":", &save)) {
		struct strbuf p = STRBUF_INIT;
		strbuf_addf(&p, "%s/%s", d, name);
		if (access(p.buf, R_OK) == 0)
			found = strbuf_detach(&p);
		strbuf_free(&p);
	}
	strbuf_free(&dirs);
	return found;
}

/* The Inspector plugin: the library NCCL_PROFILER_PLUGIN names (the campaign's plugin),
 * else libnccl-profiler-inspector.so found here, exported with its path; its dump folder
 * made (ranks racing to make it would lose their dumps). 0: use it; 1: run without it
 * (its variables unset, said once per node); -1: required but missing (said). */
static int check_inspector(const char *dir, int required)
{
	const char *named = getenv("NCCL_PROFILER_PLUGIN");
	const char *dump = getenv("NCCL_INSPECTOR_DUMP_DIR");
	const char *lib = named && *named ? named : "libnccl-profiler-inspector.so";
	struct strbuf d = STRBUF_INIT;
	strbuf_addf(&d, "%s/" JOB_NCCL_INSPECTOR, dir);
	fsio_mkdir_p(dump && *dump ? dump : d.buf, 0755);
	strbuf_free(&d);
	char *path = find_library(lib);
	if (path) {
		setenv("NCCL_PROFILER_PLUGIN", path, 1);
		free(path);
		return 0;
	}
	unsetenv("NCCL_PROFILER_PLUGIN");
	unsetenv("NCCL_INSPECTOR_ENABLE");
	struct strbuf what = STRBUF_INIT;
	strbuf_addf(&what, "NCCL Inspector plugin %s", lib);
	int rc = say_missing(what.buf, required,
			     "ranks run without it (name it in profile.nccl_inspector.plugin, or put it in LD_LIBRARY_PATH or $NCCL_HOME/ext-profiler/inspector)");
	strbuf_free(&what);
	return rc;
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
	int insp = args_has(a, 'i') ? check_inspector(dir, req) : 1;
	if (nsys < 0 || perf < 0 || insp < 0)
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
	if (nsys != 0 && perf != 0) {
		/* nothing to run around it or after it: the rank becomes the command, so the pid
		 * campaign launch recorded is the one the Inspector's dumps name */
		fflush(NULL);
		execvp(full.v[0], full.v);
		fprintf(stderr, "campaign: cannot run '%s': %s\n", full.v[0], strerror(errno));
		argv_free(&full);
		return 127; /* as proc_spawn's child says it */
	}
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
	.usage = "--dir JOB_DIR [--nsys] [--trace T] [--capture-range R] [--perf] [--nccl-inspector] [--required] -- CMD [ARG...]",
	.summary = "run one rank under nsys, perf stat and/or the NCCL Inspector; the job script adds it",
	.flags = CMD_NODE,
	.min_pos = 0,
	.max_pos = -1,
	.exec = profile_exec,
	.opts = (const struct optdef[]){
		OPT_DIR("the job directory (outputs go to nsys/, perf/ and nccl_inspector/)"),
		{ 'n', "nsys", NULL, "profile with Nsight Systems and export SQLite" },
		{ 't', "trace", "T", "nsys --trace (default cuda,nvtx,osrt)" },
		{ 'c', "capture-range", "R", "nsys --capture-range (nvtx, cudaProfilerApi)" },
		{ 'p', "perf", NULL, "count with perf stat" },
		{ 'i', "nccl-inspector", NULL, "load NCCL's Inspector plugin (NCCL_PROFILER_PLUGIN, found when not named)" },
		{ 'q', "required", NULL, "fail the rank when a profiler is missing" },
		OPT_END },
};
