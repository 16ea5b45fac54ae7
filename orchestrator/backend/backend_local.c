/* backend_local: the embedded executor for machines without a controller.
 * A supervisor process (detached, or in the foreground for --wait) runs the
 * run's rendered job scripts one at a time as process groups, with the
 * variables SLURM would set, enforces time limits and cancels, records every
 * state, and aggregates when the last job ends. While it lives it holds an
 * flock on <run>/.supervisor.lock; without one, status decides from files.
 * Around each job it holds the machine's lock (hostlock.h): the jobs of other
 * runs wait, PENDING, and say whose job they wait for.
 * SPDX-License-Identifier: MIT */
#include "backend.h"
#include "backend_local.h"
#include "hostlock.h"
#include "util/clock.h"
#include "util/run_layout.h"

#include "util/err.h"
#include "util/fault.h"
#include "orchestrator/store/snapshot.h"
#include "util/fsio.h"
#include "util/hangup.h"
#include "util/proc.h"
#include "statusfile.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KILL_GRACE_S 10.0
/* How often a job that waits for the machine asks for it again. */
#define WAIT_POLL_MS 200

/* Set by SIGINT/SIGTERM in the supervisor: cancel everything and stop. */
static volatile sig_atomic_t supervisor_stop;

static void on_stop_signal(int sig)
{
	(void)sig;
	supervisor_stop = 1;
}

/* Processes the job started that are still alive after its process group
 * was killed (a setsid daemon): found by the job's token in their
 * environment, killed, and counted. */
static int reap_escapees(const char *token)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int killed = 0;
	size_t tl = strlen(token);
	while (d && (e = readdir(d))) {
		char path[300], *env = NULL;
		size_t len = 0;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/environ", e->d_name);
		if (fsio_read(path, 1 << 20, &env, &len) == 0)
			for (size_t i = 0; i + tl <= len; i += strlen(env + i) + 1)
				if (!memcmp(env + i, token, tl) && env[i + tl] == '\0') {
					killed += kill((pid_t)atol(e->d_name), SIGKILL) == 0;
					break;
				}
		free(env);
	}
	if (d)
		closedir(d);
	return killed;
}

/* The job's marker in its processes' environment. */
static void job_token(const struct run *r, const struct job_row *j, char *buf, size_t n)
{
	snprintf(buf, n, "CAMPAIGN_JOB_TOKEN=%s/%s/%d", r->id, j->scenario, j->attempt);
}

/* Whether the job script the supervisor started (the leader of the job's
 * process group) is still alive: not gone, not a zombie, and started when
 * the job did (a reused pid is not taken for it). */
static int job_alive(const struct job_row *j)
{
	if (j->pid <= 0 || (kill((pid_t)j->pid, 0) < 0 && errno != EPERM))
		return 0;
	char path[64], *stat = NULL, *boot = NULL;
	snprintf(path, sizeof path, "/proc/%ld/stat", j->pid);
	int alive = 1;
	if (fsio_read(path, 4096, &stat, NULL) == 0 &&
	    fsio_read("/proc/stat", 1 << 20, &boot, NULL) == 0) {
		const char *rp = strrchr(stat, ')'), *bt = strstr(boot, "\nbtime ");
		unsigned long long start_ticks = 0;
		char state = 0;
		if (rp && bt &&
		    sscanf(rp + 2,
			   "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
			   &state, &start_ticks) == 2) {
			double started =
				atof(bt + 7) + (double) start_ticks / (double) sysconf(_SC_CLK_TCK);
			alive = state != 'Z' && state != 'X' &&
				(j->started_at <= 0 || fabs(started - j->started_at) < 5);
		}
	}
	free(stat);
	free(boot);
	return alive;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* The supervisor holds <run>/.supervisor.lock exclusively for its life; a `status` takes it
 * shared for a moment to see whether one is alive (and decides the jobs meanwhile). */
#define SUPERVISOR_LOCK ".supervisor.lock"
#define SUPERVISOR_START_S 60 /* a supervisor waits this long for statuses to let go */

/* Whether another process holds r's lock file `name` exclusively (those holding it shared,
 * as statuses do, are none). */
static int held_exclusively(const struct run *r, const char *name)
{
	int fd = fsio_lock_shared(r->dir, name);
	if (fd >= 0)
		close(fd);
	return fd < 0;
}

/* Whether a supervisor of r holds its lock. */
static int supervisor_alive(const struct run *r)
{
	return held_exclusively(r, SUPERVISOR_LOCK);
}

/* The supervisor's lock: an fd, or -1 when another supervisor holds it. A status
 * holding it a moment (or long, on a slow store) is waited for, up to
 * SUPERVISOR_START_S: once a status kept a starting supervisor out, its jobs waited
 * for none. */
static int supervisor_lock(const struct run *r)
{
	for (int i = 0; i < SUPERVISOR_START_S * 20; i++) {
		int fd = fsio_lock(r->dir, SUPERVISOR_LOCK, 1);
		if (fd >= 0 || supervisor_alive(r))
			return fd;
		sleep_ms(50);
	}
	return -1;
}

static void nodelist_of(int nodes, char *buf, size_t n)
{
	if (nodes == 1)
		snprintf(buf, n, "local1");
	else
		snprintf(buf, n, "local[1-%d]", nodes);
}

static void set_job_env(const struct run *r, const struct job_row *j, const struct scenario *s)
{
	char buf[64], nl[64];
	nodelist_of(j->nodes, nl, sizeof nl);
	setenv("SLURM_JOB_ID", j->job_id, 1);
	setenv("SLURM_JOBID", j->job_id, 1);
	struct strbuf name = STRBUF_INIT;
	strbuf_addf(&name, "campaign-%s-%s", r->id, j->scenario);
	setenv("SLURM_JOB_NAME", name.buf, 1);
	strbuf_free(&name);
	snprintf(buf, sizeof buf, "%d", j->nodes);
	setenv("SLURM_NNODES", buf, 1);
	setenv("SLURM_JOB_NUM_NODES", buf, 1);
	snprintf(buf, sizeof buf, "%d", j->ntasks);
	setenv("SLURM_NTASKS", buf, 1);
	setenv("SLURM_NPROCS", buf, 1);
	snprintf(buf, sizeof buf, "%d", s ? s->tasks_per_node : 1);
	setenv("SLURM_NTASKS_PER_NODE", buf, 1);
	snprintf(buf, sizeof buf, "%d(x%d)", s ? s->tasks_per_node : 1, j->nodes);
	setenv("SLURM_TASKS_PER_NODE", buf, 1);
	if (s && s->gpus_per_node) {
		snprintf(buf, sizeof buf, "%d", s->gpus_per_node);
		setenv("SLURM_GPUS_PER_NODE", buf, 1);
	}
	setenv("SLURM_JOB_NODELIST", nl, 1);
	setenv("SLURM_NODELIST", nl, 1);
	setenv("SLURM_SUBMIT_DIR", r->dir, 1);
	setenv("SLURMD_NODENAME", "local1", 1);
	setenv("CAMPAIGN_EXECUTOR", "local", 1);
	char token[512];
	job_token(r, j, token, sizeof token);
	putenv(xstrdup(token)); /* in the forked child only: it execs at once */
}

static pid_t spawn_job(const struct run *r, const struct job_row *j, const char *job_dir)
{
	struct strbuf script = STRBUF_INIT, out = STRBUF_INIT;
	strbuf_addf(&script, "%s/" JOB_SCRIPT, job_dir);
	strbuf_addf(&out, "%s/slurm-%s.out", job_dir, j->job_id);
	const struct scenario *s = campaign_find(&r->c, j->scenario);
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		int fd = open(out.buf, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0644);
		int nul = open("/dev/null", O_RDONLY);
		if (fd < 0 || nul < 0 || chdir(job_dir) < 0)
			_exit(126);
		dup2(nul, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		set_job_env(r, j, s);
		execl("/bin/bash", "bash", script.buf, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		setpgid(pid, pid);
	strbuf_free(&script);
	strbuf_free(&out);
	return pid;
}

static int cancel_requested(struct run *r, const char *scenario)
{
	struct snapshot js = SNAPSHOT_INIT;
	int yes = 0;
	if (snapshot_load(r->st, &js) < 0)
		return 0;
	for (size_t i = 0; i < js.n; i++)
		if (!strcmp(js.latest[i]->scenario, scenario))
			yes = js.latest[i]->cancel_requested;
	snapshot_free(&js);
	return yes;
}

/* Appends a line to the job's log (slurm-<id>.out in its directory). */
static void job_log(const struct run *r, const struct job_row *j, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void job_log(const struct run *r, const struct job_row *j, const char *fmt, ...)
{
	struct strbuf p = STRBUF_INIT;
	char *dir = run_job_dir(r, j->scenario);
	strbuf_addf(&p, "%s/slurm-%s.out", dir, j->job_id);
	int fd = open(p.buf, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0) {
		va_list ap;
		va_start(ap, fmt);
		vdprintf(fd, fmt, ap);
		va_end(ap);
		close(fd);
	}
	free(dir);
	strbuf_free(&p);
}

/* Waits for the job, enforcing its limit and cancels; returns wait status. */
static int wait_job(struct run *r, const struct job_row *j, pid_t pid, long limit_s, int *timed_out,
		    int *cancelled)
{
	double start = store_now(), term_at = 0;
	int status = 0, ticks = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		double now = store_now();
		if (!term_at && limit_s > 0 && now - start > (double)limit_s)
			*timed_out = 1;
		if (!term_at &&
		    (supervisor_stop || (++ticks % 10 == 0 && cancel_requested(r, j->scenario))))
			*cancelled = 1;
		if (!term_at && (*timed_out || *cancelled)) {
			kill(-pid, SIGTERM);
			term_at = now;
		} else if (term_at && now - term_at > KILL_GRACE_S) {
			kill(-pid, SIGKILL);
		}
		run_follow_output(r); /* the terminal gone: on into supervisor.log */
		sleep_ms(100);
	}
	kill(-pid, SIGKILL); /* whatever the job left behind, as SLURM does */
	char token[512];
	job_token(r, j, token, sizeof token);
	int escaped = reap_escapees(token);
	if (escaped)
		job_log(r, j,
			"campaign: killed %d process%s the job left running outside its process group (a daemon started with setsid?)\n",
			escaped, escaped == 1 ? "" : "es");
	return status;
}

/* One line per state change on stdout (the terminal of submit --wait, else
 * supervisor.log): "[HH:MM:SS] scenario: STATE (what)". */
static void progress(const char *scenario, const char *state, const char *what)
{
	char stamp[16];
	clock_hms(stamp, sizeof stamp);
	printf("[%s] %s: %s%s%s%s\n", stamp, scenario, state, what && *what ? " (" : "",
	       what ? what : "", what && *what ? ")" : "");
	fflush(stdout);
}

static int finish_job(struct run *r, const struct job_row *j, const char *job_dir, int status,
		       int timed_out, int cancelled)
{
	struct status_file js;
	struct local_end e = { statusfile_read(job_dir, &js), &js, status, timed_out, cancelled };
	struct job_decision d;
	local_decide_end(&e, &d);
	decision_explain_failure(&d, job_dir);
	int rc = decision_apply(r->st, j, &d);
	progress(j->scenario, job_state_name(d.state), d.reason);
	return rc;
}

/* Runs one job to its end (the machine's lock held). */
static int run_held(struct run *r, const struct job_row *j)
{
	const struct scenario *s = campaign_find(&r->c, j->scenario);
	char *job_dir = run_job_dir(r, j->scenario);
	char nl[64];
	nodelist_of(j->nodes, nl, sizeof nl);
	pid_t pid = spawn_job(r, j, job_dir);
	struct job_decision d;
	if (pid < 0) {
		free(job_dir);
		decision_set(&d, JS_FAILED, "cannot fork", "fork failed");
		d.exit_code = 127;
		return decision_apply(r->st, j, &d);
	}
	int rc = store_job_set_pid(r->st, j->scenario, j->attempt, pid);
	decision_set(&d, JS_RUNNING, "", "started by local executor");
	d.nodelist = nl;
	if (rc == 0)
		rc = decision_apply(r->st, j, &d);
	char where[96];
	snprintf(where, sizeof where, "on %s", nl);
	progress(j->scenario, "RUNNING", where);
	int timed_out = 0, cancelled = 0;
	int status = wait_job(r, j, pid, s ? s->time_limit_s : 0, &timed_out, &cancelled);
	if (!timed_out && !cancelled)
		cancelled = cancel_requested(r, j->scenario);
	int frc = finish_job(r, j, job_dir, status, timed_out, cancelled);
	free(job_dir);
	return rc < 0 ? rc : frc;
}

/* While another run's job holds the machine: the job is PENDING with whose it
 * is in its reason (said again when the holder changes). */
static int say_waiting(struct run *r, const struct job_row *j, const struct hostlock *h,
		       char *said, size_t n)
{
	char who[300], why[512];
	hostlock_holder(h, who, sizeof who);
	if (!who[0] && said[0])
		return 0; /* between one holder and the next: what was said stands */
	snprintf(why, sizeof why, "another run's job is running: %s",
		 who[0] ? who : "(it has not said which yet)");
	if (!strcmp(why, said))
		return 0;
	struct job_decision d;
	decision_set(&d, JS_PENDING, why, NULL);
	snprintf(said, n, "%s", why);
	progress(j->scenario, "PENDING", why);
	return decision_apply(r->st, j, &d);
}

/* Waits for the machine's lock: 1 taken, 0 when the job was cancelled or the
 * supervisor told to stop meanwhile (the next pick says so), or an err code. */
static int wait_for_machine(struct run *r, const struct job_row *j, struct hostlock *h)
{
	char said[512] = "";
	for (int ticks = 0;; ticks++) {
		int got = hostlock_try(h, r->id, j->scenario);
		if (got != 0)
			return got;
		if (supervisor_stop || (ticks % 10 == 9 && cancel_requested(r, j->scenario)))
			return 0;
		hostlock_want(h);
		int rc = say_waiting(r, j, h, said, sizeof said);
		if (rc < 0)
			return rc;
		run_follow_output(r); /* the terminal gone: on into supervisor.log */
		sleep_ms(WAIT_POLL_MS);
	}
}

/* Runs one job to its end, holding the machine; a store write that fails
 * stops the supervisor with the error (the job's job.status still decides
 * it later). */
static int run_one(struct run *r, const struct job_row *j, struct hostlock *h)
{
	int got = wait_for_machine(r, j, h);
	if (got <= 0)
		return got;
	int rc = run_held(r, j);
	hostlock_release(h);
	if (hostlock_others_wait(h))
		sleep_ms(3 * WAIT_POLL_MS); /* their turn: a waiter polls within this */
	return rc;
}

/* Picks the next PENDING job into *out (1), marking cancel-requested ones
 * CANCELLED; 0 when none waits; a negative err code. */
static int next_job(struct run *r, struct snapshot *js, struct job_row **out)
{
	int rc = snapshot_load(r->st, js);
	for (size_t i = 0; rc == 0 && i < js->n; i++) {
		struct job_row *j = js->latest[i];
		if (j->state != JS_PENDING)
			continue;
		if (!j->cancel_requested && !supervisor_stop) {
			*out = j;
			return 1;
		}
		struct job_decision d;
		decision_set(&d, JS_CANCELLED, "cancelled before it started", "cancelled");
		rc = decision_apply(r->st, j, &d);
	}
	return rc;
}

/* A supervisor is running now: what a status said of the jobs waiting for one is gone. */
static int forget_no_supervisor(struct run *r)
{
	struct snapshot js = SNAPSHOT_INIT;
	int rc = snapshot_load(r->st, &js);
	for (size_t i = 0; rc == 0 && i < js.n; i++) {
		const struct job_row *j = js.latest[i];
		if (j->state != JS_PENDING || !j->reason ||
		    strncmp(j->reason, LOCAL_NO_SUPERVISOR, strlen(LOCAL_NO_SUPERVISOR)))
			continue;
		struct job_decision d;
		decision_set(&d, JS_PENDING, "", NULL);
		rc = decision_apply_seen(r->st, j, &d);
	}
	snapshot_free(&js);
	return rc;
}

int local_supervise(struct run *r)
{
	int lock = supervisor_lock(r);
	if (lock < 0)
		return err_set(ERR_BACKEND, "run %s already has a supervisor", r->id);
	struct hostlock h;
	int rc = forget_no_supervisor(r);
	if (rc == 0)
		rc = hostlock_open(&h);
	if (rc < 0) {
		close(lock);
		return rc;
	}
	struct sigaction sa = { .sa_handler = on_stop_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	hangup_catch();
	struct snapshot js = SNAPSHOT_INIT;
	struct job_row *j = NULL;
	while ((rc = next_job(r, &js, &j)) > 0 && (rc = run_one(r, j, &h)) == 0)
		;
	snapshot_free(&js);
	hostlock_close(&h);
	close(lock);
	return rc;
}

/* Local job ids are the store's planning order: unique within the run. */
static int local_submit(struct run *r)
{
	struct snapshot js = SNAPSHOT_INIT;
	int rc = snapshot_load(r->st, &js);
	for (size_t i = 0; rc == 0 && i < js.n; i++) {
		const struct job_row *j = js.latest[i];
		if (j->state != JS_PLANNED)
			continue;
		char id[32];
		snprintf(id, sizeof id, "%ld", j->seq);
		rc = store_job_submitted(r->st, j->scenario, j->attempt, id,
					 "queued for the local executor");
		fault_point("after-record", j->scenario);
	}
	snapshot_free(&js);
	return rc;
}

static int pending_jobs(struct run *r)
{
	struct snapshot js = SNAPSHOT_INIT;
	int pending = 0;
	if (snapshot_load(r->st, &js) < 0)
		return 1; /* let the supervisor find out */
	for (size_t i = 0; i < js.n; i++)
		pending += js.latest[i]->state == JS_PENDING;
	snapshot_free(&js);
	return pending;
}

/* Starts a supervisor unless one is alive (it picks up new jobs) or no job
 * waits; with wait, supervises in the foreground. */
static int local_start(struct run *r, int wait)
{
	if (!pending_jobs(r) || supervisor_alive(r))
		return 0;
	struct hostlock h; /* an unsafe lock folder is said here, not in supervisor.log */
	int rc = hostlock_open(&h);
	hostlock_close(&h);
	if (rc < 0)
		return rc;
	if (wait)
		return local_supervise(r);
	struct strbuf log = STRBUF_INIT, bin = STRBUF_INIT;
	strbuf_addf(&log, "%s/" RUN_SUPERVISOR_LOG, r->dir);
	strbuf_addf(&bin, "%s/campaign", r->bin_dir);
	rc = proc_detach(log.buf, bin.buf,
			 (char *const[]){ "campaign", "supervise", r->dir, NULL });
	strbuf_free(&log);
	strbuf_free(&bin);
	return rc == 0 ? 0 : err_sys(ERR_BACKEND, "cannot start the local supervisor");
}

/* What a status without a supervisor sees of one job: its job.status (of
 * its job id) and whether its processes live. */
static void local_observe(const struct run *r, const struct job_row *j, struct status_file *js,
			  struct local_seen *seen)
{
	*seen = (struct local_seen){ r->id, j->state, j->reason, j->cancel_requested,
				     ERR_NOTFOUND, NULL, 0 };
	if (j->state != JS_RUNNING && j->state != JS_LOST)
		return; /* a job that never ran has no job.status to read */
	char *dir = run_job_dir(r, j->scenario);
	seen->status_read = statusfile_read(dir, js);
	if (seen->status_read == 0 && statusfile_is_of(js, j->job_id))
		seen->js = js;
	free(dir);
	seen->alive = j->state == JS_RUNNING && !seen->js && seen->status_read != ERR_IO &&
		      job_alive(j);
}

/* Without a live supervisor, unfinished jobs are decided from job.status; jobs that
 * wait, with none running and no submit under way, are idle: nothing will start them.
 * The snapshot may be older than the lock (a supervisor ended since, a submit queued
 * jobs): a decision is recorded only over the state it was taken from. */
static int local_refresh(struct run *r, struct snapshot *jobs)
{
	int lock = fsio_lock_shared(r->dir, SUPERVISOR_LOCK);
	if (lock < 0)
		return 0; /* a supervisor is alive and keeps the store current */
	int rc = 0, waiting = 0, running = 0, queueing = held_exclusively(r, RUN_SUBMIT_LOCK);
	for (size_t i = 0; rc == 0 && i < jobs->n; i++) {
		struct job_row *j = jobs->latest[i];
		if (job_state_is_final(j->state) && j->state != JS_LOST)
			continue;
		int waits = j->state == JS_PLANNED || j->state == JS_PENDING;
		waiting += waits && !j->cancel_requested;
		if (waits && queueing)
			continue; /* the submit moves it on, and starts a supervisor */
		struct status_file js;
		struct local_seen seen;
		struct job_decision d;
		local_observe(r, j, &js, &seen);
		local_decide(&seen, &d);
		if (d.state == JS_FAILED) {
			char *dir = run_job_dir(r, j->scenario);
			decision_explain_failure(&d, dir);
			free(dir);
		}
		rc = decision_apply_seen(r->st, j, &d);
		jobs->dirty |= d.write;
		running += d.state == JS_RUNNING;
	}
	close(lock);
	jobs->idle = waiting && !running && !queueing;
	return rc;
}

static int local_cancel(struct run *r, const char *scenario)
{
	struct snapshot js = SNAPSHOT_INIT;
	int rc = snapshot_load(r->st, &js);
	for (size_t i = 0; rc == 0 && i < js.n; i++) {
		struct job_row *j = js.latest[i];
		if ((scenario && strcmp(scenario, j->scenario)) || job_state_is_final(j->state))
			continue;
		rc = store_job_request_cancel(r->st, j->scenario, j->attempt);
		if (rc == 0 && j->state == JS_RUNNING && j->pid > 0)
			kill(-(pid_t)j->pid, SIGTERM);
	}
	if (rc == 0 && (rc = snapshot_load(r->st, &js)) == 0)
		rc = local_refresh(r, &js);
	snapshot_free(&js);
	return rc;
}

const struct backend_ops backend_local = {
	.name = "local",
	.submit = local_submit,
	.start = local_start,
	.refresh = local_refresh,
	.cancel = local_cancel,
	.start_waits = 1,
};
