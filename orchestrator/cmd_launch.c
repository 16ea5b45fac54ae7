/* cmd_launch: `campaign launch --nodes N --tasks-per-node T -- CMD...`, the
 * project's rank launcher. Inside a SLURM allocation it runs srun; else it
 * starts N x T local processes with the variables srun and torchrun set,
 * and when one rank fails it stops the others (as --kill-on-bad-exit). */
#include "cmd.h"
#include "fsio.h"
#include "strbuf.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Set by SIGTERM/SIGINT/SIGHUP: stop every rank. */
static volatile sig_atomic_t launch_stop;

static void on_signal(int sig)
{
	launch_stop = sig;
}

static void setenv_int(const char *name, long v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%ld", v);
	setenv(name, buf, 1);
}

static void rank_env(long rank, long nodes, long tpn)
{
	long world = nodes * tpn;
	char node[32];
	snprintf(node, sizeof node, "local%ld", rank / tpn + 1);
	setenv_int("SLURM_PROCID", rank);
	setenv_int("SLURM_LOCALID", rank % tpn);
	setenv_int("SLURM_NODEID", rank / tpn);
	setenv_int("SLURM_NTASKS", world);
	setenv_int("SLURM_NNODES", nodes);
	setenv("SLURMD_NODENAME", node, 1);
	setenv("CAMPAIGN_NODE_NAME", node, 1);
	setenv_int("RANK", rank);
	setenv_int("WORLD_SIZE", world);
	setenv_int("LOCAL_RANK", rank % tpn);
	setenv_int("LOCAL_WORLD_SIZE", tpn);
	setenv_int("NODE_RANK", rank / tpn);
	if (!getenv("MASTER_ADDR"))
		setenv("MASTER_ADDR", "127.0.0.1", 1);
	if (!getenv("OPENBLAS_NUM_THREADS")) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		setenv_int("OPENBLAS_NUM_THREADS", cpus / world > 0 ? cpus / world : 1);
	}
}

/* One id per launch, shared by its ranks (a unique rendezvous prefix). */
static void set_launch_id(void)
{
	unsigned char b[6];
	char id[16];
	if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
		memset(b, (int)getpid(), sizeof b);
	snprintf(id, sizeof id, "%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5]);
	setenv("CAMPAIGN_LAUNCH_ID", id, 1);
}

static int status_code(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Inside SLURM each task runs as `campaign launch --rank-exit DIR -- CMD`:
 * it runs CMD, records its exit status and end time in DIR/rank_<r>, and
 * exits with the same status. srun's own status is the highest of its
 * tasks', and with --kill-on-bad-exit a peer it stopped (143) outranks the
 * rank that failed first (say 5): these files tell them apart. */
static pid_t spawn(char **argv)
{
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "campaign launch: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

/* Waits for pid, passing on a SIGTERM/SIGINT/SIGHUP this process receives. */
static int wait_forwarding(pid_t pid)
{
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		if (launch_stop)
			kill(pid, launch_stop);
	return status_code(st);
}

static int rank_exit_mode(const char *dir, char **cmd)
{
	pid_t pid = spawn(cmd);
	if (pid < 0)
		return 127;
	int code = wait_forwarding(pid);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	const char *r = getenv("SLURM_PROCID");
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	strbuf_addf(&path, "%s/rank_%s", dir, r ? r : "0");
	strbuf_addf(&text, "%d %.6f\n", code, (double)now.tv_sec + now.tv_nsec / 1e9);
	fsio_write_atomic(path.buf, text.buf, text.len, 0644);
	strbuf_free(&path);
	strbuf_free(&text);
	return code;
}

/* The status of the rank that failed first (earliest end), -1 if none said. */
static int first_failed_rank(const char *dir, long ntasks, long *rank)
{
	int code = -1;
	double first = 0;
	for (long r = 0; r < ntasks; r++) {
		struct strbuf path = STRBUF_INIT;
		char *text = NULL;
		strbuf_addf(&path, "%s/rank_%ld", dir, r);
		int c;
		double end;
		if (fsio_read(path.buf, 256, &text, NULL) == 0 && sscanf(text, "%d %lf", &c, &end) == 2 && c != 0 &&
		    (code < 0 || end < first)) {
			code = c;
			first = end;
			*rank = r;
		}
		free(text);
		unlink(path.buf);
		strbuf_free(&path);
	}
	rmdir(dir);
	return code;
}

static int run_srun(long nodes, long tpn, int overlap, char **cmd, int ncmd)
{
	char **argv = calloc((size_t)ncmd + 10, sizeof *argv);
	char n[48], t[48], *self = realpath("/proc/self/exe", NULL);
	struct strbuf dir = STRBUF_INIT;
	const char *job_dir = getenv("CAMPAIGN_JOB_DIR"), *id = getenv("CAMPAIGN_LAUNCH_ID");
	int k = 0;
	snprintf(n, sizeof n, "--nodes=%ld", nodes);
	snprintf(t, sizeof t, "--ntasks-per-node=%ld", tpn);
	argv[k++] = "srun";
	argv[k++] = n;
	argv[k++] = t;
	argv[k++] = "--kill-on-bad-exit=1";
	if (overlap)
		argv[k++] = "--overlap"; /* a helper step beside the workload's */
	if (job_dir && self && !overlap) {
		strbuf_addf(&dir, "%s/.launch-%s", job_dir, id ? id : "0");
		if (fsio_mkdir_p(dir.buf, 0755) == 0) {
			argv[k++] = self;
			argv[k++] = "launch";
			argv[k++] = "--rank-exit";
			argv[k++] = dir.buf;
			argv[k++] = "--";
		} else {
			strbuf_reset(&dir);
		}
	}
	for (int i = 0; i < ncmd; i++)
		argv[k++] = cmd[i];
	pid_t pid = spawn(argv);
	int rc = pid > 0 ? wait_forwarding(pid) : 127; /* srun passes a signal on to every task */
	long rank = -1;
	int first = dir.len ? first_failed_rank(dir.buf, nodes * tpn, &rank) : -1;
	if (rc != 0 && first > 0) {
		fprintf(stderr, "campaign launch: rank %ld failed first, with status %d (srun's status was %d): the job's status\n",
			rank, first, rc);
		rc = first;
	}
	free(argv);
	free(self);
	strbuf_free(&dir);
	return rc;
}

static void signal_all(pid_t *pids, long n, int sig)
{
	for (long i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], sig);
}


/* Waits for every rank. Returns the status of the rank that failed first,
 * preferring one killed by a signal before the launcher stopped anyone: a
 * crashed rank makes its peers fail with communication errors right after,
 * and the crash is the cause worth reporting. */
static int wait_ranks(pid_t *pids, long n, double grace_s)
{
	long left = n, bad_rank = -1;
	int first_exit = 0, first_signal = 0, stopping = 0, killed = 0;
	struct timespec stop_at = { 0, 0 }, now;
	while (left > 0) {
		int st;
		pid_t w = waitpid(-1, &st, WNOHANG);
		if (w > 0) {
			for (long i = 0; i < n; i++) {
				if (pids[i] != w)
					continue;
				pids[i] = -1;
				left--;
				/* Once stopping, only a crash (a signal we did not send) counts. */
				int crash = WIFSIGNALED(st) && !killed && (!stopping || WTERMSIG(st) != SIGTERM);
				if (crash && !first_signal) {
					first_signal = status_code(st);
					bad_rank = i;
				} else if (!stopping && !WIFSIGNALED(st) && status_code(st) && !first_exit) {
					first_exit = status_code(st);
					if (!first_signal)
						bad_rank = i;
				}
			}
			continue;
		}
		if (w < 0 && errno != EINTR && errno != 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((first_exit || first_signal || launch_stop) && !stopping) {
			fprintf(stderr, "campaign launch: a rank failed; stopping the other ranks\n");
			signal_all(pids, n, SIGTERM);
			stopping = 1;
			stop_at = now;
			stop_at.tv_sec += (time_t)grace_s;
		} else if (stopping && !killed && now.tv_sec >= stop_at.tv_sec) {
			signal_all(pids, n, SIGKILL);
			killed = 1;
		}
		struct timespec nap = { 0, 20 * 1000000L };
		nanosleep(&nap, NULL);
	}
	int rc = first_signal ? first_signal : first_exit;
	if (bad_rank >= 0)
		fprintf(stderr, "campaign launch: rank %ld exited with status %d%s\n", bad_rank, rc,
			first_signal ? " (killed by a signal): the job's status" : ": the job's status");
	return rc ? rc : launch_stop ? 128 + launch_stop : 0;
}

static int launch_exec(const struct cmd_entry *self, struct args *a)
{
	long nodes, tpn, grace;
	if (args_int(self, a, 'n', 1, 4096, 1, &nodes) || args_int(self, a, 't', 1, 1024, 1, &tpn) ||
	    args_int(self, a, 'g', 0, 3600, 10, &grace))
		return EXIT_USAGE;
	if (a->dashdash < 0 || a->dashdash >= a->npos) {
		fprintf(stderr, "campaign launch: give the command after '--'\nTry 'campaign launch --help'.\n");
		return EXIT_USAGE;
	}
	char **cmd = a->pos + a->dashdash;
	int ncmd = a->npos - a->dashdash;
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (args_get(a, 'x'))
		return rank_exit_mode(args_get(a, 'x'), cmd);
	set_launch_id();
	const char *ex = getenv("CAMPAIGN_EXECUTOR");
	if (getenv("SLURM_JOB_ID") && !(ex && !strcmp(ex, "local")) && !args_has(a, 'l'))
		return run_srun(nodes, tpn, args_has(a, 'o'), cmd, ncmd);
	long n = nodes * tpn;
	pid_t *pids = calloc((size_t)n, sizeof *pids);
	for (long r = 0; r < n; r++) {
		pids[r] = fork();
		if (pids[r] == 0) {
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			rank_env(r, nodes, tpn);
			execvp(cmd[0], cmd);
			fprintf(stderr, "campaign launch: cannot run '%s': %s\n", cmd[0], strerror(errno));
			_exit(127);
		}
		if (pids[r] < 0) {
			fprintf(stderr, "campaign launch: fork failed: %s\n", strerror(errno));
			launch_stop = SIGTERM;
			break;
		}
	}
	int rc = wait_ranks(pids, n, (double)grace);
	free(pids);
	return rc;
}

const struct cmd_entry cmd_launch_entry = {
	.name = "launch",
	.usage = "--nodes N --tasks-per-node T [--grace S] [--local] [--overlap] -- CMD [ARG...]",
	.summary = "start N x T ranks of CMD (srun inside SLURM, local processes elsewhere)",
	.opts = (const struct optdef[]){
		{ 'n', "nodes", "N", "nodes to emulate or span (default 1)" },
		{ 't', "tasks-per-node", "T", "ranks per node (default 1)" },
		{ 'g', "grace", "S", "seconds between SIGTERM and SIGKILL when stopping ranks (default 10)" },
		{ 'l', "local", NULL, "start local processes even inside a SLURM allocation" },
		{ 'o', "overlap", NULL, "inside SLURM, let this step share the allocation with others (srun --overlap)" },
		{ 'x', "rank-exit", "DIR", "(used by launch itself inside srun) run CMD as one task, record its status in DIR" },
		{ 0 } },
	.min_pos = 0, .max_pos = -1,
	.exec = launch_exec,
};
