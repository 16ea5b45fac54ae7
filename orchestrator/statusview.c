/* SPDX-License-Identifier: MIT */
#include "statusview.h"
#include "util/run_layout.h"
#include "orchestrator/backend/requeue.h"
#include "util/clock.h"

#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

static double elapsed(const struct job_row *j)
{
	if (j->started_at <= 0)
		return 0;
	double end = j->ended_at > 0 ? j->ended_at : store_now();
	return end > j->started_at ? end - j->started_at : 0;
}

static void fmt_elapsed(double s, char *buf, size_t n)
{
	long t = (long)s;
	snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

/* The newest change of a job's outputs (its job log, its ranks' logs and
 * telemetry), as a Unix time; 0 when none exists yet. */
static double last_output(const struct run *r, const struct job_row *j)
{
	char *dir = run_job_dir(r, j->scenario);
	static const char *const subs[] = { "", "/logs", "/metrics", NULL };
	double newest = 0;
	for (int k = 0; subs[k]; k++) {
		struct strbuf p = STRBUF_INIT;
		strbuf_addf(&p, "%s%s", dir, subs[k]);
		struct argv names;
		fsio_list(p.buf, &names);
		for (size_t i = 0; i < names.n; i++) {
			const char *name = names.v[i];
			struct stat st;
			size_t n = strlen(name);
			if (n < 4 ||
			    (strcmp(name + n - 4, ".out") &&
			     (n < 6 || strcmp(name + n - 6, ".jsonl"))))
				continue;
			struct strbuf f = STRBUF_INIT;
			strbuf_addf(&f, "%s/%s", p.buf, name);
			if (lstat(f.buf, &st) == 0 && S_ISREG(st.st_mode)) {
				double t = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
				newest = t > newest ? t : newest;
			}
			strbuf_free(&f);
		}
		argv_free(&names);
		strbuf_free(&p);
	}
	free(dir);
	return newest;
}

/* Whether a /proc stat's command is the job's own machinery, not the
 * workload: the rank launcher (campaign, polling its ranks every 20 ms, which
 * a 300 ms sample may charge a tick) and the node monitor. */
static int machinery(const char *stat)
{
	return !strncmp(stat, "(campaign) ", 11) || !strncmp(stat, "(campaign-monito) ", 18);
}

/* A process's time on a CPU in ns, from /proc/PID/schedstat (the scheduler's own count, to
 * the ns); else its stat's user and system ticks (ut, st), in ns. A short burst between
 * sleeps moves the first where the ticks, rounded to 10 ms, may not move in a sample. */
static unsigned long long cpu_ns(const char *pid, unsigned long long ut, unsigned long long st)
{
	char path[300], *text = NULL;
	unsigned long long ns = 0;
	snprintf(path, sizeof path, "/proc/%s/schedstat", pid);
	int ok = fsio_read(path, 256, &text, NULL) == 0 && sscanf(text, "%llu", &ns) == 1;
	free(text);
	if (ok)
		return ns;
	long hz = sysconf(_SC_CLK_TCK);
	return (ut + st) * (1000000000ULL / (unsigned long long)(hz > 0 ? hz : 100));
}

/* CPU time (ns) of the workload's processes in the local job's process group. */
static unsigned long long group_cpu(long pgid)
{
	unsigned long long sum = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && pgid > 0 && (e = readdir(d))) {
		char path[300], *text = NULL;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		const char *rp;
		long pg;
		unsigned long long ut, sti;
		const char *cm;
		if (fsio_read(path, 4096, &text, NULL) == 0 && (cm = strchr(text, '(')) &&
		    !machinery(cm) && (rp = strrchr(text, ')')) &&
		    sscanf(rp + 2, "%*c %*d %ld %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &pg,
			   &ut, &sti) == 3 &&
		    pg == pgid)
			sum += cpu_ns(e->d_name, ut, sti);
		free(text);
	}
	if (d)
		closedir(d);
	return sum;
}

/* Seconds a RUNNING job has been silent when that passes the campaign's
 * hang_timeout and (locally) its processes use no CPU either; 0 otherwise. */
static double hung_for(const struct run *r, const struct job_row *j)
{
	int limit = r->c.profile.hang_timeout_s;
	if (j->state != JS_RUNNING || limit <= 0 || j->started_at <= 0)
		return 0;
	double last = last_output(r, j), now = store_now(),
	       quiet = now - (last > j->started_at ? last : j->started_at);
	if (quiet < limit)
		return 0;
	if (r->row.backend && !strcmp(r->row.backend, "local") && j->pid > 0) {
		unsigned long long a = group_cpu(j->pid);
		struct timespec ts = { 0, 300000000L };
		nanosleep(&ts, NULL);
		if (group_cpu(j->pid) > a)
			return 0; /* computing without a word: not hung */
	}
	return quiet;
}

static json_t *job_json(const struct job_row *j)
{
	return json_pack("{s:s, s:i, s:o, s:s, s:s, s:i, s:i, s:o, s:f, s:o, s:o}",
		"scenario", j->scenario, "attempt", j->attempt,
		"job_id", j->job_id ? json_string(j->job_id) : json_null(),
		"state", job_state_name(j->state), "reason", j->reason ? j->reason : "",
		"nodes", j->nodes, "ranks", j->ntasks,
		"nodelist", j->nodelist ? json_string(j->nodelist) : json_null(),
		"elapsed_s", elapsed(j),
		"exit_code", j->exit_code >= 0 ? json_integer(j->exit_code) : json_null(),
		"final", json_boolean(job_state_is_final(j->state)));
}

/* Earlier attempts of rows[last]'s scenario, oldest first. */
static json_t *history_json(const struct job_row *rows, size_t first, size_t last)
{
	json_t *h = json_array();
	for (size_t i = first; i < last; i++) {
		json_t *o = job_json(&rows[i]);
		json_object_del(o, "scenario");
		json_array_append_new(h, o);
	}
	return h;
}

static void print_row(FILE *out, const struct job_row *j)
{
	char el[32], ex[16], at[32] = "";
	fmt_elapsed(elapsed(j), el, sizeof el);
	snprintf(ex, sizeof ex, "%d", j->exit_code);
	if (j->attempt > 1)
		snprintf(at, sizeof at, "attempt %d%s", j->attempt,
			 j->reason && *j->reason ? ": " : "");
	fprintf(out, "%-24s %-8s %-13s %5d %5d %9s %4s  %s%s\n", j->scenario,
		j->job_id ? j->job_id : "-", job_state_name(j->state), j->nodes, j->ntasks, el,
		j->exit_code >= 0 ? ex : "-", at, j->reason ? j->reason : "");
}

/* "  a: requeued after NODE_FAIL on n2; measured on n[3-4]" */
static void print_requeues(FILE *out, const struct job_row *rows, size_t first, size_t last)
{
	struct strbuf rq = STRBUF_INIT;
	requeue_sentence(rows, first, last, &rq);
	if (rq.len)
		fprintf(out, "  %s: %s\n", rows[last].scenario, rq.buf);
	strbuf_free(&rq);
}

void statusview_outage(const struct run *r, FILE *out)
{
	char hms[16];
	if (r->ctl_down_since <= 0)
		return;
	clock_hms_at(r->ctl_down_since, hms, sizeof hms);
	fprintf(out, "%s controller at %s not answering since %s\n", r->row.backend, r->ctl_addr,
		hms);
}

/* What the run is (after the controller's outage, if any); table: the
 * table's header too. */
static void print_head(const struct run *r, int table, FILE *out)
{
	statusview_outage(r, out);
	fprintf(out, "run %s (campaign %s, %s backend)\n%s\n", r->id, r->c.name, r->row.backend,
		r->dir);
	if (table)
		fprintf(out, "%-24s %-8s %-13s %5s %5s %9s %4s  %s\n", "SCENARIO", "JOBID", "STATE",
			"NODES", "RANKS", "ELAPSED", "EXIT", "REASON");
}

/* "  a: possibly hung: ..." below a RUNNING job silent past the hang timeout. */
static void print_hung(const struct run *r, const struct job_row *j, double hung, FILE *out)
{
	if (hung > 0)
		fprintf(out,
			"  %s: possibly hung: no output for %.0f s (profile.hang_timeout %d s)%s; see `campaign logs %s %s`\n",
			j->scenario, hung, r->c.profile.hang_timeout_s,
			r->row.backend && !strcmp(r->row.backend, "local") ? " and no CPU used"
									   : "",
			r->id, j->scenario);
}

/* One scenario (rows[first..last], its attempts) as status --json has it. */
static json_t *scenario_json(const struct job_row *rows, size_t first, size_t last, double hung)
{
	json_t *o = job_json(&rows[last]);
	struct strbuf rq = STRBUF_INIT;
	requeue_sentence(rows, first, last, &rq);
	json_object_set_new(o, "requeued", rq.len ? json_string(rq.buf) : json_null());
	strbuf_free(&rq);
	json_object_set_new(o, "earlier_attempts", history_json(rows, first, last));
	json_object_set_new(o, "possibly_hung_s", hung > 0 ? json_real(hung) : json_null());
	return o;
}

static void print_json(const struct run *r, json_t *jobs, const char *analysis, FILE *out)
{
	json_t *doc = json_pack(
		"{s:s, s:s, s:s, s:s, s:O, s:o, s:{s:s, s:s, s:b}, s:o}", "run_id", r->id,
		"campaign", r->c.name, "run_dir", r->dir, "backend", r->row.backend, "jobs", jobs,
		"analysis", analysis ? json_string(analysis) : json_null(), "store", "journal",
		store_journal_name(r->st), "file_system", store_fs_name(r->st), "shared",
		store_fs_shared(r->st), "controller_down_since",
		r->ctl_down_since > 0 ? json_real(r->ctl_down_since) : json_null());
	char *text = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	fprintf(out, "%s\n", text);
	free(text);
	json_decref(doc);
}

/* The scenario's latest attempt in full: one field a line, the failing
 * rank's log named, then its earlier attempts. */
static void print_detail(const struct run *r, const struct job_row *rows, size_t first,
			 size_t last, double hung, FILE *out)
{
	const struct job_row *j = &rows[last];
	char el[32], *dir = run_job_dir(r, j->scenario);
	long rank;
	fmt_elapsed(elapsed(j), el, sizeof el);
	fprintf(out, "scenario:  %s\nstate:     %s", j->scenario, job_state_name(j->state));
	if (j->exit_code >= 0)
		fprintf(out, " (exit code %d)", j->exit_code);
	fprintf(out, "\nreason:    %s\njob id:    %s, attempt %d\nnodes:     %d%s%s%s\n",
		j->reason && *j->reason ? j->reason : "-", j->job_id ? j->job_id : "-",
		j->attempt, j->nodes, j->nodelist ? " (" : "", j->nodelist ? j->nodelist : "",
		j->nodelist ? ")" : "");
	fprintf(out,
		"ranks:     %d\nelapsed:   %s\nfolder:    %s\njob log:   campaign logs %s %s\n",
		j->ntasks, el, dir, r->id, j->scenario);
	if (j->state == JS_FAILED && j->reason && sscanf(j->reason, "rank %ld: ", &rank) == 1)
		fprintf(out, "rank log:  campaign logs --rank %ld %s %s\n", rank, r->id,
			j->scenario);
	print_requeues(out, rows, first, last);
	print_hung(r, j, hung, out);
	for (size_t i = first; i < last; i++)
		fprintf(out, "attempt %d: %s%s%s%s\n", rows[i].attempt,
			job_state_name(rows[i].state),
			rows[i].reason && *rows[i].reason ? " (" : "",
			rows[i].reason ? rows[i].reason : "",
			rows[i].reason && *rows[i].reason ? ")" : "");
	free(dir);
}

int statusview_show(const struct run *r, const struct snapshot *js, const char *scenario,
		    FILE *out, int json)
{
	const struct job_row *rows = js->all;
	size_t n = js->n_all, shown = 0;
	struct strbuf analysis = STRBUF_INIT;
	strbuf_addf(&analysis, "%s/" RUN_REPORT, r->dir);
	int have_analysis = r->row.aggregated_at > 0 && fsio_exists(analysis.buf);
	json_t *jobs = json_array();
	if (!json && !scenario)
		print_head(r, 1, out);
	for (size_t first = 0, last; first < n; first = last + 1) {
		last = job_rows_scenario_end(rows, n, first) - 1;
		if (scenario && strcmp(scenario, rows[last].scenario))
			continue;
		if (!json && scenario && !shown)
			print_head(r, 0, out);
		shown++;
		double hung = hung_for(r, &rows[last]);
		if (json) {
			json_array_append_new(jobs, scenario_json(rows, first, last, hung));
		} else if (scenario) {
			print_detail(r, rows, first, last, hung, out);
		} else {
			print_row(out, &rows[last]);
			print_requeues(out, rows, first, last);
			print_hung(r, &rows[last], hung, out);
		}
	}
	int rc = 0;
	if (scenario && !shown)
		rc = err_set(ERR_NOTFOUND, "run %s has no scenario '%s'", r->id, scenario);
	else if (json)
		print_json(r, jobs, have_analysis ? analysis.buf : NULL, out);
	else if (have_analysis)
		fprintf(out, "analysis: %s\n", analysis.buf);
	json_decref(jobs);
	strbuf_free(&analysis);
	return rc;
}

void statusview_print(const struct run *r, const struct snapshot *js, FILE *out, int json)
{
	statusview_show(r, js, NULL, out, json);
}
