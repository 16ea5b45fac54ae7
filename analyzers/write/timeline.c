/* timeline: run_dir/timeline.json, a Chrome-trace document (Perfetto,
 * chrome://tracing) merging every analysed scenario's ranks. From telemetry:
 * one process per scenario, one thread per rank, a "step N" slice per step
 * with its phases (data loading, forward, backward, exposed communication,
 * optimizer) laid in order inside it, the rank's waiting for peers (its
 * communication beyond the step's least over ranks) at the start of its
 * exposed communication; steps start at the telemetry's
 * start_us (laid end to end when it has none). From PyTorch-profiler
 * traces or Nsight Systems exports: one process per rank (the first
 * TIMELINE_FRAGMENT_RANKS files by name), its steps, its classified host ranges (the
 * phase as the name, the range's own name in args) on the threads that ran
 * them, and its GPU kernels per stream. Those events come from the rank's
 * timeline fragment (analyzers/timeline_fragment.h), which the map step made while it
 * read the trace for the analysis: this file concatenates fragments and
 * parses a trace only when its fragment is missing or damaged (never one
 * whose map-step shard failed: that rank is left out, and said so). Written
 * rank by rank, so memory holds one rank's data at a time; atomically
 * (temp file, fsync, rename).
 * SPDX-License-Identifier: MIT */
#include "analyzers/analysis.h"
#include "analyzers/write/report.h"
#include "util/run_layout.h"
#include "analyzers/read/metrics.h"
#include "analyzers/timeline_fragment.h"
#include "analyzers/torchtrace.h"

#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct tl_out {
	FILE *f;
	int first;
};

/* Starts the next event of the list: a comma after the first. */
static void next_event(struct tl_out *o)
{
	fputs(o->first ? "\n" : ",\n", o->f);
	o->first = 0;
}

static void event(struct tl_out *o, const char *fmt_fields)
{
	next_event(o);
	fputs(fmt_fields, o->f);
}

static void slice(struct tl_out *o, int pid, int tid, const char *name, const char *cat, double ts,
		  double dur_ms)
{
	char buf[256];
	snprintf(
		buf, sizeof buf,
		"{\"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"name\": \"%s\", \"cat\": \"%s\", \"ts\": %.3f, \"dur\": %.3f}",
		pid, tid, name, cat, ts, dur_ms * 1000);
	event(o, buf);
}

/* floor: per step, the least communication time over the scenario's ranks
 * (NULL: unknown); a rank's excess shows as "waiting for peers" at the
 * start of its exposed communication. */
static void rank_events(struct tl_out *o, int pid, const struct rank_metrics *m, double *t0,
			const double *floor, size_t nfloor, double shift_us)
{
	char buf[256], host[sizeof m->host];
	/* the host name comes from a telemetry file: only safe characters reach the JSON */
	size_t h = 0;
	for (const char *c = m->host; *c && h + 1 < sizeof host; c++)
		host[h++] = (isalnum((unsigned char)*c) || strchr("-._", *c)) ? *c : '_';
	host[h] = '\0';
	snprintf(
		buf, sizeof buf,
		"{\"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"name\": \"thread_name\", \"args\": {\"name\": \"rank %d%s%.100s\"}}",
		pid, m->rank, m->rank, host[0] ? " on " : "", host);
	event(o, buf);
	double next = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct step_rec *s = &m->steps[i];
		if (*t0 == 0 && s->start_us > 0)
			*t0 = s->start_us - shift_us;
		double ts = s->start_us > 0 ? s->start_us - shift_us - *t0 : next;
		next = ts + s->step_ms * 1000;
		char name[48];
		snprintf(name, sizeof name, "step %ld%s", s->step, s->active ? "" : " (warm-up)");
		slice(o, pid, m->rank, name, "step", ts, s->step_ms);
		const char *ph[] = { "data loading", "forward", "backward",
				     "communication (exposed)", "optimizer" };
		double d[] = { s->data_ms, s->forward_ms, s->backward_ms, s->comm_exposed_ms,
			       s->optimizer_ms };
		for (int k = 0; k < 5; k++) {
			if (d[k] > 0)
				slice(o, pid, m->rank, ph[k], "phase", ts, d[k]);
			double wait =
				k == 3 && i < nfloor && floor[i] > 0 ? s->comm_ms - floor[i] : 0;
			if (wait > 0.001)
				slice(o, pid, m->rank, "waiting for peers", "wait", ts,
				      wait < d[k] ? wait : d[k]);
			ts += d[k] * 1000;
		}
	}
}

/* A slice whose name (and range, when not NULL) are already JSON strings. */
static void trace_slice(struct tl_out *o, int pid, int tid, const char *jname, const char *cat,
			double ts, double dur_us, const char *jwhat)
{
	next_event(o);
	fprintf(o->f,
		"{\"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"name\": %s, \"cat\": \"%s\", \"ts\": %.3f, \"dur\": %.3f%s%s%s}",
		pid, tid, jname, cat, ts, dur_us, jwhat ? ", \"args\": {\"range\": " : "",
		jwhat ? jwhat : "", jwhat ? "}" : "");
}

/* A thread's name, already a JSON string. */
static void thread_name(struct tl_out *o, int pid, int tid, const char *jname)
{
	char buf[320];
	snprintf(
		buf, sizeof buf,
		"{\"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"name\": \"thread_name\", \"args\": {\"name\": %s}}",
		pid, tid, jname);
	event(o, buf);
}

/* One rank's fragment: its steps on thread 0, classified host ranges on
 * thread 1 + the trace's thread index, GPU kernels on thread 100000 +
 * stream, as the map step recorded them; times on the first node's clock
 * (the rank's own less shift_us) from *t0, which the first rank shown sets
 * (its first step, else its first range). */
static void frag_events(struct tl_out *o, int pid, const char *label, struct timeline_fragment *fr,
			double shift_us, double *t0)
{
	char buf[256];
	struct timeline_fragment_event ev;
	int rc;
	snprintf(
		buf, sizeof buf,
		"{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_name\", \"args\": {\"name\": \"%.120s\"}}",
		pid, label);
	event(o, buf);
	thread_name(o, pid, 0, "\"steps\"");
	if (*t0 == 0)
		*t0 = fr->origin - shift_us;
	while ((rc = timeline_fragment_next(fr, &ev)) > 0)
		if (ev.slice)
			trace_slice(o, pid, ev.tid, ev.name, ev.cat, ev.start - shift_us - *t0,
				    ev.dur, ev.range);
		else
			thread_name(o, pid, ev.tid, ev.name);
	if (rc < 0)
		fprintf(stderr, "campaign: warning: the timeline shows %s in part: %s\n", label,
			err_last());
}

/* The fragment of dir/name: the map step's, else made here from the file
 * (one the map step made none of: added since, damaged, or no folder for
 * them); as the map step does, a file of a failed shard is not read. */
static int frag_open(const struct ana_run *run, const char *dir, const char *name, int nsys,
		     int hint, const struct rules *phases, struct timeline_fragment *fr)
{
	const char *fdir = run->src ? run->src->timeline_dir : NULL;
	if (fdir) {
		struct strbuf p = STRBUF_INIT;
		timeline_fragment_path(&p, fdir, dir, name);
		int rc = timeline_fragment_open(p.buf, fr);
		if (rc < 0 && rc != ERR_NOTFOUND)
			fprintf(stderr, "campaign: warning: %s; reading %s/%s again\n", err_last(),
				dir, name);
		strbuf_free(&p);
		if (rc == 0)
			return 0;
	}
	FILE *f = tmpfile();
	if (!f)
		return err_sys(ERR_IO, "cannot create a temporary file for the timeline");
	int rc = timeline_fragment_make(f, dir, name, nsys, hint, phases);
	if (rc < 0) {
		fclose(f);
		return rc;
	}
	return timeline_fragment_open_stream(f, name, fr);
}

/* A process whose name says what the scenario's timeline leaves out. */
static void left_out(struct tl_out *o, int pid, const char *what)
{
	char buf[400];
	snprintf(
		buf, sizeof buf,
		"{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_name\", \"args\": {\"name\": \"%s\"}}",
		pid, what);
	event(o, buf);
}

/* The first TIMELINE_FRAGMENT_RANKS trace files (or Nsight Systems exports) of a
 * scenario analysed from them, from their fragments one at a time, and
 * lines naming how many more there are and how many the map step lost. */
static void trace_scenario_events(struct tl_out *o, int index, const struct ana_scenario *s,
				  const struct ana_run *run, const struct rules *phases,
				  double *t0)
{
	int nsys = s->data.format == METRICS_NSYS;
	struct strbuf dir = STRBUF_INIT;
	char **names, what[320];
	size_t n, lost = 0;
	strbuf_addf(&dir, "%s/%s", s->in.job_dir, nsys ? JOB_NSYS : JOB_TRACES);
	trace_files_list(dir.buf, nsys, &names, &n);
	int *hints = xcalloc(n + 1, sizeof *hints);
	trace_files_rank_hints(dir.buf, names, n, hints);
	for (size_t i = 0; i < n; i++) {
		struct timeline_fragment fr;
		if (i < TIMELINE_FRAGMENT_RANKS &&
		    frag_open(run, dir.buf, names[i], nsys, hints[i], phases, &fr) == 0) {
			char label[160];
			snprintf(label, sizeof label, "%.80s rank %d", s->in.name, fr.rank);
			lost += fr.state == TIMELINE_FRAGMENT_NOT_ANALYSED;
			if (fr.state == TIMELINE_FRAGMENT_EVENTS)
				frag_events(o, index * 100000 + fr.rank % 100000, label, &fr,
					    clocks_shift_us(&s->comm.clocks, fr.rank), t0);
			timeline_fragment_close(&fr);
		}
		free(names[i]);
	}
	if (n > TIMELINE_FRAGMENT_RANKS) {
		snprintf(
			what, sizeof what,
			"%.80s: %zu more rank%s not shown (first %d by file name; all are in the analysis)",
			s->in.name, n - TIMELINE_FRAGMENT_RANKS,
			n - TIMELINE_FRAGMENT_RANKS == 1 ? "" : "s", TIMELINE_FRAGMENT_RANKS);
		left_out(o, index * 100000 + 99999, what);
	}
	if (lost) {
		snprintf(
			what, sizeof what,
			"%.80s: %zu rank%s not shown: the map step could not analyse %s (trace_files_not_analysed in summary.json)",
			s->in.name, lost, lost == 1 ? "" : "s",
			lost == 1 ? "its file" : "their files");
		left_out(o, index * 100000 + 99998, what);
	}
	free(hints);
	free(names);
	strbuf_free(&dir);
}

/* Every rank file of one scenario, one at a time. */
static void scenario_events(struct tl_out *o, int pid, const struct ana_scenario *s, double *t0)
{
	char buf[256];
	snprintf(
		buf, sizeof buf,
		"{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_name\", \"args\": {\"name\": \"%.80s\"}}",
		pid, s->in.name);
	event(o, buf);
	struct strbuf dir = STRBUF_INIT;
	strbuf_addf(&dir, "%s/" JOB_METRICS, s->in.job_dir);
	struct argv names;
	/* rank files in name order: the same document on every file system */
	fsio_list(dir.buf, &names);
	for (size_t i = 0; i < names.n; i++) {
		int r;
		if (!metrics_rank_file(names.v[i], &r))
			continue;
		struct strbuf p = STRBUF_INIT;
		struct rank_metrics m;
		strbuf_addf(&p, "%s/%s", dir.buf, names.v[i]);
		if (metrics_load_file(p.buf, &m) == 0) {
			if (m.rank < 0)
				m.rank = r;
			rank_events(o, pid, &m, t0, s->comm.comm_floor_ms, s->comm.n_floor,
				    clocks_shift_us(&s->comm.clocks, m.rank));
			rank_metrics_free(&m);
		}
		strbuf_free(&p);
	}
	argv_free(&names);
	strbuf_free(&dir);
}

int timeline_write(const struct ana_run *run)
{
	struct strbuf path = STRBUF_INIT, tmp = STRBUF_INIT;
	strbuf_addf(&path, "%s/" RUN_TIMELINE, run->run_dir);
	strbuf_addf(&tmp, "%s/.timeline.json.XXXXXX", run->run_dir);
	int fd = mkstemp(tmp.buf), rc = 0;
	if (fd >= 0)
		fchmod(fd, 0644);
	struct tl_out o = { .f = fd >= 0 ? fdopen(fd, "w") : NULL, .first = 1 };
	if (!o.f) {
		rc = err_sys(ERR_IO, "cannot create %s", tmp.buf);
		goto out;
	}
	double t0 = 0, trace_t0 = 0;
	struct rules phases;
	int have_phases = ana_phase_rules_load(run, &phases) == 0;
	fputs("{\"displayTimeUnit\": \"ms\", \"otherData\": {\"generator\": \"campaign\"}, \"traceEvents\": [",
	      o.f);
	for (size_t i = 0; i < run->n; i++) {
		if (!run->sc[i].data.analysed)
			continue;
		if ((run->sc[i].data.format == METRICS_TORCH_TRACE ||
		     run->sc[i].data.format == METRICS_NSYS) &&
		    have_phases)
			trace_scenario_events(&o, (int)i + 1, &run->sc[i], run, &phases,
					      &trace_t0);
		else
			scenario_events(&o, (int)i + 1, &run->sc[i], &t0);
	}
	if (have_phases)
		rules_free(&phases);
	fputs("\n]}\n", o.f);
	if (fflush(o.f) != 0 || fsync(fileno(o.f)) != 0 || ferror(o.f))
		rc = err_sys(ERR_IO, "cannot write %s", tmp.buf);
	if (fclose(o.f) != 0 && rc == 0)
		rc = err_sys(ERR_IO, "cannot write %s", tmp.buf);
	if (rc == 0)
		rc = fsio_replace(tmp.buf, path.buf);
	if (rc < 0)
		unlink(tmp.buf);
out:
	strbuf_free(&path);
	strbuf_free(&tmp);
	return rc;
}
