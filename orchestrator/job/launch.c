/* launch: starting a job's ranks and deciding the job's status from them:
 * N x T local processes with the variables srun and torchrun set (stopping
 * the others when one fails, as --kill-on-bad-exit), or srun inside SLURM
 * with a per-task wrapper that records which rank failed first.
 * SPDX-License-Identifier: MIT */
#include "launch.h"
#include "orchestrator/job/prose.h"

#include "util/nodelist.h"
#include "ranklog.h"
#include "workers.h"
#include "util/env.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/proc.h"
#include "util/slurmconf.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Set by SIGTERM/SIGINT/SIGHUP: stop every rank. The one piece of state a
 * signal handler may touch, so it lives here and not in a context. */
static volatile sig_atomic_t launch_stop;

static void on_signal(int sig)
{
	launch_stop = sig;
}

void launch_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Sets name unless it is set already (keep: the campaign's env wins). */
static void setenv_long(const char *name, long v, int keep)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%ld", v);
	setenv(name, buf, !keep);
}

/* The variables of the launch contract (docs/formats.md) that are the same
 * for every rank, set once in the launcher before ranks start; values the
 * campaign's env already set win. */
static void job_env(long nodes, long tpn, long ranks_per_host, const char *master_addr,
		    long master_port)
{
	if (!getenv("MASTER_ADDR") || !*getenv("MASTER_ADDR"))
		setenv("MASTER_ADDR", master_addr, 1);
	setenv_long("MASTER_PORT", master_port, 1);
	setenv_long("WORLD_SIZE", nodes * tpn, 1);
	setenv_long("LOCAL_WORLD_SIZE", tpn, 1);
	setenv_long("GROUP_WORLD_SIZE", nodes, 1);
	struct strbuf jax = STRBUF_INIT;
	strbuf_addf(&jax, "%s:%s", getenv("MASTER_ADDR"), getenv("MASTER_PORT"));
	setenv("JAX_COORDINATOR_ADDRESS", jax.buf, 0);
	strbuf_free(&jax);
	setenv("JAX_NUM_PROCESSES", getenv("WORLD_SIZE"), 0);
	if (!getenv("OPENBLAS_NUM_THREADS")) { /* the ranks sharing a host share its CPUs */
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		setenv_long("OPENBLAS_NUM_THREADS",
			    cpus / ranks_per_host > 0 ? cpus / ranks_per_host : 1, 0);
	}
}

/* The job log says where the ranks meet, so that a rendezvous that times
 * out can be traced to the address and port it tried. With per-node
 * launchers (workers > 0) the ranks are their workers, not the tasks. */
static void say_rendezvous(long nodes, long tpn, long workers)
{
	long ranks = nodes * (workers > 0 ? workers : tpn);
	char how[96] = "";
	if (!getenv("CAMPAIGN_JOB_DIR")) /* a job's log only, not a launch by hand */
		return;
	if (workers > 0)
		snprintf(how, sizeof how, " (a launcher on each node starting %ld worker%s)",
			 workers, workers == 1 ? "" : "s");
	fprintf(stderr,
		"campaign launch: %ld rank%s on %ld node%s%s; rendezvous (env://) at %s:%s\n",
		ranks, ranks == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s", how,
		getenv("MASTER_ADDR"), getenv("MASTER_PORT"));
}

/* On each node (its first task): MASTER_ADDR must resolve there, or every
 * env:// rendezvous fails after its timeout; the job log says so at once. */
static void check_master_addr(void)
{
	const char *addr = getenv("MASTER_ADDR"), *node = getenv("SLURMD_NODENAME");
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res = NULL;
	if (!addr || !*addr || env_long("SLURM_LOCALID") != 0)
		return;
	int e = getaddrinfo(addr, NULL, &hints, &res);
	if (e == 0) {
		freeaddrinfo(res);
		return;
	}
	fprintf(stderr,
		PROSE_LAUNCH_MASTER_ADDR,
		node ? node : "?", addr, gai_strerror(e));
}

/* The per-rank variables: torch.distributed / torchrun names and JAX's. */
static void rank_env(long rank, long local_rank, long node_rank)
{
	setenv_long("RANK", rank, 1);
	setenv_long("LOCAL_RANK", local_rank, 1);
	setenv_long("NODE_RANK", node_rank, 1);
	setenv_long("GROUP_RANK", node_rank, 1);
	setenv_long("JAX_PROCESS_ID", rank, 1);
}

/* What srun sets for a task, emulated for a local rank. */
static void local_rank_env(long rank, long nodes, long tpn)
{
	char node[32];
	snprintf(node, sizeof node, "local%ld", rank / tpn + 1);
	setenv_long("SLURM_PROCID", rank, 0);
	setenv_long("SLURM_LOCALID", rank % tpn, 0);
	setenv_long("SLURM_NODEID", rank / tpn, 0);
	setenv_long("SLURM_NTASKS", nodes * tpn, 0);
	setenv_long("SLURM_NNODES", nodes, 0);
	setenv("SLURMD_NODENAME", node, 1);
	setenv("CAMPAIGN_NODE_NAME", node, 1);
	rank_env(rank, rank % tpn, rank / tpn);
}

/* A TCP port free on this host now (the kernel's pick), for local ranks:
 * concurrent local jobs never share one. 29500 when none can be had. */
/* A port for local ranks to meet on: a free one in 10000..19999, below both
 * the kernel's ephemeral range (an outgoing connection elsewhere on the
 * machine could take an ephemeral port between this check and rank 0's
 * bind) and the SLURM jobs' range; the kernel's pick when none is found. */
static long free_port(void)
{
	unsigned int r = 0;
	if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
		r = (unsigned int)getpid() * 2654435761u;
	for (int k = 0; k < 64; k++) {
		long port = 10000 + (long)((r + (unsigned int)k * 7919u) % 10000u);
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
					 .sin_port = htons((uint16_t) port) };
		int ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
		if (fd >= 0)
			close(fd);
		if (ok)
			return port;
	}
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	long port = 29500;
	if (fd >= 0 && bind(fd, (struct sockaddr *) &a, sizeof a) == 0 &&
	    getsockname(fd, (struct sockaddr *) &a, &len) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Under SLURM every node must agree without talking: derived from the job
 * id, in 20000..32767 (below Linux's ephemeral range), so two jobs sharing a
 * node differ unless their ids are equal modulo 12768. */
static long job_port(void)
{
	const char *id = getenv("SLURM_JOB_ID");
	return 20000 + (id ? strtol(id, NULL, 10) % 12768 : 9500);
}

/* The program of cmd cannot run: one line naming it and where it was looked for. */
static void say_cannot_run(const char *prog, int err)
{
	char cwd[4096];
	if (!getcwd(cwd, sizeof cwd))
		snprintf(cwd, sizeof cwd, "?");
	fprintf(stderr, "campaign launch: cannot run '%s' (working directory %s): %s%s\n", prog,
		cwd, strerror(err),
		err == ENOENT && !strchr(prog, '/') ? " (not on PATH)"
			: err == ENOENT && prog[0] != '/'
			? " (relative paths start from the job directory; {{campaign_dir}} names the campaign file's folder)"
			: "");
}

void launch_set_id(void)
{
	unsigned char b[6];
	char id[16];
	if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
		memset(b, (int)getpid(), sizeof b);
	snprintf(id, sizeof id, "%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5]);
	setenv("CAMPAIGN_LAUNCH_ID", id, 1);
}


/* Inside SLURM each task runs as `campaign launch --rank-exit DIR -- CMD`:
 * it runs CMD, records its exit status and end time in DIR/rank_<r>, and
 * exits with the same status. srun's own status is the highest of its
 * tasks', and with --kill-on-bad-exit a peer it stopped (143) outranks the
 * rank that failed first (say 5): these files tell them apart. */
/* In a forked child: becomes argv, with stdout and stderr to log_fd if >= 0. */
/* The words of a per-node launcher's command ({{master_addr}}, {{master_port}},
 * {{node_rank}} render as %{MASTER_ADDR} ...) with this task's values, once
 * its environment has them; unset ones are left for the task's own wrapper. */
static char **with_task_values(char **argv)
{
	static const char *const marks[] = { "MASTER_ADDR", "MASTER_PORT", "NODE_RANK", NULL };
	size_t n = 0;
	while (argv[n])
		n++;
	char **out = xcalloc(n + 1, sizeof *out);
	for (size_t i = 0; i < n; i++) {
		struct strbuf w = STRBUF_INIT;
		strbuf_adds(&w, argv[i]);
		for (int k = 0; marks[k]; k++) {
			char mark[32];
			const char *v = getenv(marks[k]), *at;
			snprintf(mark, sizeof mark, "%%{%s}", marks[k]);
			while (v && (at = strstr(w.buf, mark))) {
				struct strbuf r = STRBUF_INIT;
				strbuf_add(&r, w.buf, (size_t)(at - w.buf));
				strbuf_addf(&r, "%s%s", v, at + strlen(mark));
				strbuf_free(&w);
				w = r;
			}
		}
		out[i] = strbuf_detach(&w);
	}
	return out;
}

static void exec_child(char **argv, int log_fd)
{
	argv = with_task_values(argv); /* in the child, which execs: nothing to free */
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (log_fd >= 0)
		ranklog_child(log_fd);
	execvp(argv[0], argv);
	say_cannot_run(argv[0], errno);
	_exit(127);
}

/* Starts argv; with log_fd >= 0 its stdout and stderr go there. */
static pid_t spawn(char **argv, int log_fd)
{
	pid_t pid = fork();
	if (pid == 0)
		exec_child(argv, log_fd);
	if (log_fd >= 0)
		close(log_fd);
	return pid;
}

/* Waits for pid, copying its log (if any), recording the workers it starts
 * (wk, if any) and passing on a SIGTERM/SIGINT/SIGHUP this process receives.
 * *sig (if not NULL): the signal that ended it, 0 when it exited. */
static int wait_forwarding(pid_t pid, struct ranklog *log, struct workers *wk, int *sig)
{
	int st = 0, forwarded = 0;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (launch_stop && !forwarded)
			forwarded = kill(pid, launch_stop) == 0;
		workers_poll(wk);
		ranklog_pump(log, log ? 1 : 0, 50);
	}
	if (log)
		ranklog_finish(log, 1, 500);
	if (sig)
		*sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	return proc_status_code(st);
}

/* A task's process: the rank it is, or with workers > 0 a per-node
 * launcher whose workers are watched for (wk). */
static void record_task(const char *job_dir, long rank, pid_t pid, long workers,
			struct workers *wk)
{
	if (workers > 0) {
		workers_init(wk, job_dir, workers);
		workers_add(wk, rank, pid, NULL);
	} else {
		ranklog_record(job_dir, rank, (long)pid, NULL);
	}
}

int launch_rank_exit(const char *dir, char **cmd, long workers)
{
	long rank = env_long("SLURM_PROCID");
	check_master_addr();
	rank_env(rank, env_long("SLURM_LOCALID"), env_long("SLURM_NODEID"));
	const char *job_dir = getenv("CAMPAIGN_JOB_DIR");
	struct ranklog log;
	int log_fd = -1, have_log = job_dir && ranklog_open(job_dir, rank, &log, &log_fd) == 0;
	pid_t pid = spawn(cmd, log_fd);
	struct workers wk = { 0 };
	if (pid > 0 && job_dir)
		record_task(job_dir, rank, pid, workers, &wk);
	if (pid < 0) {
		if (have_log)
			ranklog_finish(&log, 1, 0);
		return 127;
	}
	int sig = 0, code = wait_forwarding(pid, have_log ? &log : NULL, wk.n ? &wk : NULL, &sig);
	workers_free(&wk);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	strbuf_addf(&path, "%s/rank_%ld", dir, rank);
	strbuf_addf(&text, "%d %.6f %d\n", code, (double)now.tv_sec + now.tv_nsec / 1e9, sig);
	/* the job's status then is srun's */
	if (fsio_write_atomic(path.buf, text.buf, text.len, 0644) < 0)
		fprintf(stderr, "campaign launch: cannot record rank %ld's exit status: %s\n", rank,
			err_last());
	strbuf_free(&path);
	strbuf_free(&text);
	return code;
}

/* The status of the rank that failed first (earliest end), -1 if none said;
 * *sig: the signal that ended it (0: it exited). */
static int first_failed_rank(const char *dir, long ntasks, long *rank, int *sig)
{
	int code = -1;
	double first = 0;
	for (long r = 0; r < ntasks; r++) {
		struct strbuf path = STRBUF_INIT;
		char *text = NULL;
		strbuf_addf(&path, "%s/rank_%ld", dir, r);
		int c, s = 0;
		double end;
		if (fsio_read(path.buf, 256, &text, NULL) == 0 &&
		    sscanf(text, "%d %lf %d", &c, &end, &s) >= 2 && c != 0 &&
		    (code < 0 || end < first)) {
			code = c;
			first = end;
			*rank = r;
			*sig = s;
		}
		free(text);
		unlink(path.buf);
		strbuf_free(&path);
	}
	rmdir(dir);
	return code;
}

/* Whether dir (NULL: no wrapper) holds no task's exit record: none of the
 * step's tasks ran to its end. */
static int no_task_recorded(const char *dir)
{
	struct argv names = { 0 };
	int none = 1;
	if (dir)
		fsio_list(dir, &names);
	for (size_t i = 0; i < names.n && none; i++)
		none = strncmp(names.v[i], "rank_", 5) != 0;
	argv_free(&names);
	return none;
}

static int controller_answers(void)
{
	return slurm_ready() == 0 && slurm_ping(0) == SLURM_SUCCESS;
}

/* Waits until slurmctld answers again, at most CAMPAIGN_CTLD_WAIT_S seconds
 * (default 600), or until the launcher is told to stop; 1 when it answers. */
static int wait_for_controller(void)
{
	long limit = env_long("CAMPAIGN_CTLD_WAIT_S");
	time_t until = time(NULL) + (limit > 0 ? limit : 600);
	while (!launch_stop && time(NULL) < until) {
		if (controller_answers())
			return 1;
		sleep(5);
	}
	return 0;
}

#define SRUN_ATTEMPTS 5

/* Runs srun (argv) and returns its status. srun needs slurmctld to start a
 * step: when it fails with no task run and the controller does not answer
 * (its restart, a failover), the job would end for nothing, so the launcher
 * waits for the controller and starts the step again (SRUN_ATTEMPTS in all). */
static int srun_step(char **argv, const char *dir)
{
	for (int attempt = 1;; attempt++) {
		pid_t pid = spawn(argv, -1);
		/* srun passes a signal on to every task */
		int rc = pid > 0 ? wait_forwarding(pid, NULL, NULL, NULL) : 127;
		if (rc == 0 || launch_stop || attempt == SRUN_ATTEMPTS || !no_task_recorded(dir) ||
		    controller_answers())
			return rc;
		fprintf(stderr,
			"campaign launch: srun could not start the step (status %d) and slurmctld does not answer; waiting for it to start the step again (attempt %d of %d)\n",
			rc, attempt + 1, SRUN_ATTEMPTS);
		if (!wait_for_controller()) {
			fprintf(stderr,
				"campaign launch: slurmctld did not answer in time; the step is not started\n");
			return rc;
		}
	}
}

int launch_srun(long nodes, long tpn, int overlap, char **cmd, int ncmd, long workers)
{
	char **argv = xcalloc((size_t)ncmd + 18, sizeof *argv);
	char n[48], t[48], w[24], *self = realpath("/proc/self/exe", NULL);
	struct strbuf dir = STRBUF_INIT;
	const char *job_dir = getenv("CAMPAIGN_JOB_DIR"), *id = getenv("CAMPAIGN_LAUNCH_ID");
	int k = 0;
	char nt[48];
	snprintf(n, sizeof n, "--nodes=%ld", nodes);
	snprintf(t, sizeof t, "--ntasks-per-node=%ld", tpn);
	/* not the allocation's SLURM_NTASKS: one launcher per node, or one monitor, is fewer */
	snprintf(nt, sizeof nt, "--ntasks=%ld", nodes * tpn);
	argv[k++] = "srun";
	argv[k++] = n;
	argv[k++] = t;
	argv[k++] = nt;
	argv[k++] = "--kill-on-bad-exit=1";
	if (overlap)
		argv[k++] = "--overlap"; /* a helper step beside the workload's */
	if (!overlap) {
		char *addr = nodelist_first_addr(getenv("SLURM_JOB_NODELIST"));
		job_env(nodes, tpn, tpn, addr ? addr : "127.0.0.1", job_port());
		if (!addr && nodes > 1)
			fprintf(stderr,
				PROSE_LAUNCH_FIRST_NODE_UNKNOWN,
				getenv("SLURM_JOB_NODELIST") ? getenv("SLURM_JOB_NODELIST")
							     : "unset");
		say_rendezvous(nodes, tpn, workers);
		ranklog_forget_failure(job_dir);
		free(addr);
	}
	if (self && !overlap) { /* each task wrapped: rank variables, rank log, exit record */
		strbuf_addf(&dir, "%s/.launch-%s", job_dir ? job_dir : ".", id ? id : "0");
		if (fsio_mkdir_p(dir.buf, 0755) == 0) {
			argv[k++] = self;
			argv[k++] = "launch";
			argv[k++] = "--rank-exit";
			argv[k++] = dir.buf;
			if (workers > 0) { /* each task a per-node launcher */
				snprintf(w, sizeof w, "%ld", workers);
				argv[k++] = "--workers-per-node";
				argv[k++] = w;
			}
			argv[k++] = "--";
		} else {
			strbuf_reset(&dir);
		}
	}
	for (int i = 0; i < ncmd; i++)
		argv[k++] = cmd[i];
	int rc = srun_step(argv, dir.len ? dir.buf : NULL), sig = 0;
	long rank = -1;
	int first = dir.len ? first_failed_rank(dir.buf, nodes * tpn, &rank, &sig) : -1;
	if (rc != 0 && first > 0) {
		fprintf(stderr,
			"campaign launch: rank %ld failed first, with status %d (srun's status was %d): the job's status\n",
			rank, first, rc);
		rc = first;
		ranklog_record_failure(job_dir, rank, first, sig);
	}
	if (rc == 0 && launch_stop) /* stopped by a signal: not a success, whatever srun says */
		rc = 128 + launch_stop;
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


/* The rank whose status is the job's: which, its status, and the signal
 * that ended it (0: it exited); rank -1: none failed. */
struct first_failure {
	long rank;
	int status, signal;
};

/* Waits for every rank. Returns the status of the rank that failed first,
 * preferring one killed by a signal before the launcher stopped anyone: a
 * crashed rank makes its peers fail with communication errors right after
 * (or die of SIGPIPE, writing to its closed socket: any other signal wins
 * over that one), and the crash is the cause worth reporting. *ff: that rank. */
static int wait_ranks(pid_t *pids, long n, double grace_s, struct ranklog *logs, size_t nlogs,
		      int helper, struct workers *wk, struct first_failure *ff)
{
	long left = n, bad_rank = -1;
	int first_exit = 0, first_signal = 0, stopping = 0, killed = 0;
	struct timespec stop_at = { 0, 0 }, now;
	while (left > 0) {
		int st;
		pid_t w = waitpid(-1, &st, WNOHANG);
		if (w > 0) {
			workers_ended(wk, w);
			for (long i = 0; i < n; i++) {
				if (pids[i] != w)
					continue;
				pids[i] = -1;
				left--;
				/* Once stopping, only a crash (a signal we did not send) counts. */
				int crash = WIFSIGNALED(st) && !killed &&
					(!stopping || WTERMSIG(st) != SIGTERM);
				/* a rank killed by SIGPIPE wrote to a peer that was gone: the
				 * peer's own crash, reaped after it, is the cause */
				int after_pipe = first_signal == 128 + SIGPIPE &&
					WIFSIGNALED(st) && WTERMSIG(st) != SIGPIPE;
				if (crash && (!first_signal || after_pipe)) {
					first_signal = proc_status_code(st);
					bad_rank = i;
				} else if (!stopping && !WIFSIGNALED(st) && proc_status_code(st) &&
					   !first_exit) {
					first_exit = proc_status_code(st);
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
			if (first_exit || first_signal)
				fprintf(stderr,
					"campaign launch: a rank failed; stopping the other ranks\n");
			/* a helper step (node monitors) is stopped so when the workload ends */
			else if (!helper)
				fprintf(stderr,
					"campaign launch: %s received; stopping the ranks\n",
					strsignal(launch_stop));
			signal_all(pids, n, SIGTERM);
			stopping = 1;
			stop_at = now;
			stop_at.tv_sec += (time_t)grace_s;
		} else if (stopping && !killed && now.tv_sec >= stop_at.tv_sec) {
			signal_all(pids, n, SIGKILL);
			killed = 1;
		}
		workers_poll(wk);
		ranklog_pump(logs, nlogs, 20);
	}
	int rc = first_signal ? first_signal : first_exit;
	if (bad_rank >= 0)
		fprintf(stderr, "campaign launch: rank %ld exited with status %d%s\n", bad_rank, rc,
			first_signal ? " (killed by a signal): the job's status"
				     : ": the job's status");
	*ff = (struct first_failure){ bad_rank, rc, first_signal ? first_signal - 128 : 0 };
	return rc ? rc : launch_stop ? 128 + launch_stop : 0;
}

/* The open files n local ranks need here: each rank's log pipe (both ends
 * while it starts) and log file, and a margin for this process. The soft
 * limit is raised to the hard one first; what still cannot fit is refused,
 * saying why, rather than run with logs lost. */
static int fds_for_ranks(long n)
{
	struct rlimit rl;
	long need = 3 * n + 32;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY && (rlim_t)need > rl.rlim_cur) {
		fprintf(stderr,
			PROSE_LAUNCH_OPEN_FILES,
			n, need, (unsigned long long) rl.rlim_cur);
		return -1;
	}
	return 0;
}

/* The process of local rank r: the rank it is, or with workers > 0 a
 * per-node launcher whose workers wk watches for. */
static void record_local(const char *job_dir, long r, long tpn, pid_t pid, long workers,
			 struct workers *wk)
{
	char node[32];
	snprintf(node, sizeof node, "local%ld", r / tpn + 1); /* as local_rank_env names it */
	if (workers > 0)
		workers_add(wk, r, pid, node);
	else
		ranklog_record(job_dir, r, (long)pid, node);
}

int launch_local(long nodes, long tpn, double grace_s, char **cmd, int helper, long workers)
{
	long n = nodes * tpn;
	if (fds_for_ranks(n) < 0)
		return 1;
	pid_t *pids = xcalloc((size_t)n, sizeof *pids);
	const char *job_dir = getenv("CAMPAIGN_JOB_DIR");
	struct ranklog *logs = xcalloc((size_t)n, sizeof *logs);
	size_t nlogs = 0;
	struct workers wk;
	workers_init(&wk, job_dir, workers);
	job_env(nodes, tpn, n, "127.0.0.1", free_port()); /* every rank on this host */
	if (!helper) {
		say_rendezvous(nodes, tpn, workers);
		ranklog_forget_failure(job_dir);
	}
	for (long r = 0; r < n; r++) {
		int log_fd = -1;
		if (job_dir && ranklog_open(job_dir, r, &logs[nlogs], &log_fd) == 0)
			nlogs++;
		pids[r] = fork();
		if (pids[r] == 0) {
			local_rank_env(r, nodes, tpn);
			exec_child(cmd, log_fd);
		}
		if (log_fd >= 0)
			close(log_fd);
		if (pids[r] > 0 && job_dir && !helper)
			record_local(job_dir, r, tpn, pids[r], workers, &wk);
		if (pids[r] < 0) {
			fprintf(stderr, "campaign launch: fork failed: %s\n", strerror(errno));
			launch_stop = SIGTERM;
			break;
		}
	}
	struct first_failure ff;
	int rc = wait_ranks(pids, n, grace_s, logs, nlogs, helper, wk.n ? &wk : NULL, &ff);
	if (!helper && ff.rank >= 0)
		ranklog_record_failure(job_dir, ff.rank, ff.status, ff.signal);
	workers_free(&wk);
	ranklog_finish(logs, nlogs, 500);
	free(logs);
	free(pids);
	return rc;
}
