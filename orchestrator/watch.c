/* SPDX-License-Identifier: MIT */
#include "watch.h"

#include "aggregate.h"
#include "orchestrator/store/jobstate.h"
#include "util/clock.h"
#include "util/err.h"
#include "statusview.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* A fingerprint of every job's state, to notice change. */
static char *fingerprint(const struct snapshot *jobs)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < jobs->n; i++) {
		const struct job_row *j = jobs->latest[i];
		strbuf_addf(&sb, "%s=%d/%d/%s;", j->scenario, j->attempt, (int) j->state,
			    j->reason ? j->reason : "");
	}
	return strbuf_detach(&sb);
}

/* One line per job whose state (or attempt) changed since prev, "[HH:MM:SS]
 * scenario: OLD -> NEW (reason)"; prev is replaced by jobs' fingerprints. */
static void state_lines(const struct snapshot *jobs, struct argv *prev, FILE *out)
{
	char stamp[16], key[64];
	clock_hms(stamp, sizeof stamp);
	struct argv now = { 0 };
	for (size_t i = 0; i < jobs->n; i++) {
		const struct job_row *j = jobs->latest[i];
		snprintf(key, sizeof key, "%d %s", j->attempt, job_state_name(j->state));
		argv_push(&now, key);
		const char *old = i < prev->n ? prev->v[i] : NULL;
		if (old && !strcmp(old, key))
			continue;
		fprintf(out, "[%s] %s: %s%s%s%s%s%s\n", stamp, j->scenario,
			old ? strchr(old, ' ') + 1 : "", old ? " -> " : "",
			job_state_name(j->state), j->reason && *j->reason ? " (" : "",
			j->reason && *j->reason ? j->reason : "",
			j->reason && *j->reason ? ")" : "");
	}
	fflush(out);
	argv_free(prev);
	*prev = now;
}

/* In lines mode, one line when the controller stops answering and one when
 * it answers again. */
static void outage_lines(const struct run *r, double *said, FILE *out)
{
	char stamp[16];
	if (r->ctl_down_since == *said)
		return;
	clock_hms(stamp, sizeof stamp);
	fprintf(out, "[%s] ", stamp);
	if (r->ctl_down_since > 0)
		statusview_outage(r, out);
	else
		fprintf(out, "%s controller at %s answers again\n", r->row.backend, r->ctl_addr);
	fflush(out);
	*said = r->ctl_down_since;
}

static double jitter(double s)
{
	unsigned short u = 0;
	if (getrandom(&u, sizeof u, 0) != sizeof u)
		u = (unsigned short)clock();
	return s * (0.8 + 0.4 * (double)u / 65535.0); /* +-20 % */
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	nanosleep(&ts, NULL);
}

static void draw(struct run *r, const struct snapshot *jobs, const struct watch_opts *o,
		 double next, const char *outage)
{
	if (o->quiet)
		return;
	if (o->redraw)
		fputs("\033[H\033[2J", o->out);
	statusview_print(r, jobs, o->out, 0);
	if (outage && r->ctl_down_since <= 0) /* a down controller is the table's first line */
		fprintf(o->out, "controller unreachable: %s\n", outage);
	fprintf(o->out, "(%ld controller RPC%s so far; next poll in %.1f s)\n", r->rpcs,
		r->rpcs == 1 ? "" : "s", next);
	fflush(o->out);
}

/* Jobs that wait with nothing to start them (a local run whose supervisor
 * ended or never started) are not waited for: once they have stayed so for
 * WATCH_IDLE_S (a supervisor just started takes its lock within it), the
 * watch stops saying what starts them. */
#define WATCH_IDLE_S 3.0

static int idle_too_long(const struct run *r, const struct snapshot *jobs, double *since)
{
	if (!jobs->idle) {
		*since = 0;
		return 0;
	}
	double now = store_now();
	if (*since <= 0)
		*since = now;
	if (now - *since < WATCH_IDLE_S)
		return 0;
	return err_set(
		ERR_BACKEND,
		"run %s: its jobs wait and no local supervisor is running to start them (it ended or never started): `campaign resume %s` starts one; nothing was lost",
		r->id, r->id);
}

int watch_run(struct run *r, const struct backend_ops *be, const struct watch_opts *o,
	      struct snapshot *jobs)
{
	double interval = o->min_s, t0 = store_now();
	char *last = NULL;
	long polls = 0;
	int rc = 0;
	struct argv seen = { 0 }; /* o->lines: each job's attempt and state at the last poll */
	double down_since = 0;    /* o->lines: the outage last said */
	double idle_since = 0;    /* jobs->idle since */
	for (;;) {
		polls++;
		snapshot_free(jobs); /* one snapshot per poll, taken by the refresh */
		int refreshed = backend_refresh(be, r, jobs);
		char *outage = refreshed < 0 ? xstrdup(err_last()) : NULL;
		char *now = fingerprint(jobs);
		int changed = !last || strcmp(now, last);
		if (o->lines && changed)
			state_lines(jobs, &seen, o->out);
		if (o->lines)
			outage_lines(r, &down_since, o->out);
		free(last);
		last = now;
		if (!outage && (rc = idle_too_long(r, jobs, &idle_since)) < 0) {
			draw(r, jobs, o, 0, NULL);
			break;
		}
		int failed, done = run_is_done(jobs, &failed);
		if (done && !outage && (rc = aggregate_if_due(r)) < 0) {
			free(outage);
			break;
		}
		if (outage)
			interval = interval * 2 > o->max_s ? o->max_s : interval * 2;
		else if (changed)
			interval = o->min_s;
		else
			interval = interval * 1.5 > o->max_s ? o->max_s : interval * 1.5;
		if (done && !outage) {
			if (!o->quiet && (changed || o->redraw))
				draw(r, jobs, o, 0, NULL);
			free(outage);
			break;
		}
		if (changed || outage || o->redraw)
			draw(r, jobs, o, interval, outage);
		free(outage);
		run_follow_output(r);
		nap(jitter(interval));
	}
	free(last);
	argv_free(&seen);
	if (!o->quiet)
		fprintf(o->out, "watch: %ld controller RPC%s in %ld poll%s over %.0f s\n", r->rpcs,
			r->rpcs == 1 ? "" : "s", polls, polls == 1 ? "" : "s", store_now() - t0);
	return rc;
}
