/* timeline: run_dir/timeline.json, a Chrome-trace document (Perfetto,
 * chrome://tracing) merging every analysed scenario's ranks. From telemetry:
 * one process per scenario, one thread per rank, a "step N" slice per step
 * with its phases (data loading, forward, backward, exposed communication,
 * optimizer) laid in order inside it, the rank's waiting for peers (its
 * communication beyond the step's least over ranks) at the start of its
 * exposed communication; steps start at the telemetry's
 * start_us (laid end to end when it has none). From PyTorch-profiler
 * traces: one process per rank, its steps, its classified host ranges (the
 * phase as the name, the range's own name in args) on the threads that ran
 * them, and its GPU kernels per stream. Written rank by rank, so memory
 * holds one rank's data at a time; atomically (temp file, fsync, rename). */
#include "analyzers/analysis.h"
#include "analyzers/write/report.h"
#include "util/run_layout.h"
#include "analyzers/read/kineto.h"
#include "analyzers/read/metrics.h"
#include "analyzers/read/nsys.h"
#include "analyzers/phases.h"
#include "analyzers/torchtrace.h"

#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <ctype.h>
#include <jansson.h>
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
	snprintf(buf, sizeof buf,
		 "{\"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"name\": \"%s\", \"cat\": \"%s\", \"ts\": %.3f, \"dur\": %.3f}",
		 pid, tid, name, cat, ts, dur_ms * 1000);
	event(o, buf);
}

/* floor: per step, the least communication time over the scenario's ranks
 * (NULL: unknown); a rank's excess shows as "waiting for peers" at the
 * start of its exposed communication. */
static void rank_events(struct tl_out *o, int pid, const struct rank_metrics *m, double *t0,
			const double *floor, size_t nfloor)
{
	char buf[256], host[sizeof m->host];
	/* the host name comes from a telemetry file: only safe characters reach the JSON */
	size_t h = 0;
	for (const char *c = m->host; *c && h + 1 < sizeof host; c++)
		host[h++] = (isalnum((unsigned char)*c) || strchr("-._", *c)) ? *c : '_';
	host[h] = '\0';
	snprintf(buf, sizeof buf,
		 "{\"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"name\": \"thread_name\", \"args\": {\"name\": \"rank %d%s%.100s\"}}",
		 pid, m->rank, m->rank, host[0] ? " on " : "", host);
	event(o, buf);
	double next = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct step_rec *s = &m->steps[i];
		if (*t0 == 0 && s->start_us > 0)
			*t0 = s->start_us;
		double ts = s->start_us > 0 ? s->start_us - *t0 : next;
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

/* A name from a trace as a JSON string (escaped by jansson), at most 200 bytes. */
static char *json_name(const char *s)
{
	char cut[201];
	snprintf(cut, sizeof cut, "%s", s);
	json_t *j = json_string(cut);
	char *out = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	json_decref(j);
	return out ? out : strdup("\"?\"");
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

/* Name i of t as a JSON string, escaped once per name. */
static const char *jname_of(const struct gpu_trace *t, char **cache, size_t i)
{
	if (!cache[i])
		cache[i] = json_name(t->names[i]);
	return cache[i];
}

static void thread_name(struct tl_out *o, int pid, int tid, const char *name)
{
	char *n = json_name(name), buf[320];
	snprintf(buf, sizeof buf,
		 "{\"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"name\": \"thread_name\", \"args\": {\"name\": %s}}",
		 pid, tid, n);
	event(o, buf);
	free(n);
}

/* One rank's trace: steps on thread 0, classified host ranges on thread
 * 1 + the trace's thread index, GPU kernels on thread 100000 + stream. */
static void trace_rank_events(struct tl_out *o, int pid, const char *label,
			      const struct gpu_trace *t, const struct rules *phases,
			      int loose_steps, double *t0)
{
	char buf[256];
	snprintf(buf, sizeof buf,
		 "{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_name\", \"args\": {\"name\": \"%.120s\"}}",
		 pid, label);
	event(o, buf);
	thread_name(o, pid, 0, "steps");
	int *ph = torchtrace_name_phases(t, phases, loose_steps);
	for (size_t i = 0; i < t->ncpu && *t0 == 0; i++)
		if (ph[t->cpu[i].name] == TORCHTRACE_STEP)
			*t0 = t->cpu[i].start;
	if (*t0 == 0 && t->ncpu) /* no step range: from the first range */
		*t0 = t->cpu[0].start;
	int *named = xcalloc(t->nnames + 1, sizeof *named);
	char **jn = xcalloc(t->nnames + 1, sizeof *jn), *jphase[PH_N] = { 0 };
	for (size_t i = 0; i < t->ncpu; i++) {
		const struct cpu_range *c = &t->cpu[i];
		if (ph[c->name] == TORCHTRACE_STEP) {
			trace_slice(o, pid, 0, jname_of(t, jn, c->name), "step", c->start - *t0,
				    c->end - c->start, NULL);
			continue;
		}
		if (ph[c->name] < 0 || ph[c->name] == PH_OPS) /* operators are no phase ranges */
			continue;
		if (!named[c->tid]++) {
			snprintf(buf, sizeof buf, "thread %.100s", t->names[c->tid]);
			thread_name(o, pid, 1 + c->tid, buf);
		}
		if (!jphase[ph[c->name]])
			jphase[ph[c->name]] = json_name(phase_name(ph[c->name]));
		trace_slice(o, pid, 1 + c->tid, jphase[ph[c->name]], "phase", c->start - *t0,
			    c->end - c->start, jname_of(t, jn, c->name));
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct gpu_event *g = &t->ev[i];
		trace_slice(o, pid, 100000 + g->stream, jname_of(t, jn, g->name), "kernel",
			    g->start / t->unit_per_us - *t0, (g->end - g->start) / t->unit_per_us,
			    NULL);
	}
	for (size_t i = 0; i < t->nnames; i++)
		free(jn[i]);
	for (int k = 0; k < PH_N; k++)
		free(jphase[k]);
	free(jn);
	free(named);
	free(ph);
}

/* One Nsight Systems export: its NVTX ranges as host ranges, its GPU work
 * (every process and device of the file) as kernels. */
static int nsys_load_all(const char *path, struct gpu_trace *t)
{
	struct nsys_report rep;
	if (nsys_load_host(path, t) < 0)
		return -1;
	if (nsys_load(path, 1, &rep) == 0) {
		for (size_t i = 0; i < rep.n; i++)
			for (size_t k = 0; k < rep.proc[i].n; k++) {
				const struct gpu_event *g = &rep.proc[i].ev[k];
				gpu_trace_add(t, g->start / 1000, g->end / 1000,
					      rep.proc[i].names[g->name], g->stream, g->corr);
			}
		nsys_report_free(&rep);
	}
	return 0;
}

/* Trace ranks shown per scenario: the reduce reads each again whole, and
 * Perfetto opens a few hundred MB at most; every rank is in the analysis. */
#define TIMELINE_TRACE_RANKS 8

/* The first TIMELINE_TRACE_RANKS trace files (or Nsight Systems exports) of
 * a scenario analysed from them, one at a time, and a line naming how many
 * more there are. */
static void trace_scenario_events(struct tl_out *o, int index, const struct ana_scenario *s,
				  const struct rules *phases, double *t0)
{
	int nsys = s->data.format == METRICS_NSYS;
	struct strbuf dir = STRBUF_INIT;
	char **names;
	size_t n;
	strbuf_addf(&dir, "%s/%s", s->in.job_dir, nsys ? JOB_NSYS : JOB_TRACES);
	torchtrace_list(dir.buf, nsys, &names, &n);
	int *hints = xcalloc(n + 1, sizeof *hints);
	torchtrace_rank_hints(dir.buf, names, n, hints);
	for (size_t i = 0; i < n; i++) {
		struct strbuf p = STRBUF_INIT;
		struct gpu_trace t;
		if (i >= TIMELINE_TRACE_RANKS) {
			free(names[i]);
			continue;
		}
		strbuf_addf(&p, "%s/%s", dir.buf, names[i]);
		if ((nsys ? nsys_load_all(p.buf, &t) : kineto_load(p.buf, 1, &t)) == 0) {
			int rank = torchtrace_rank_for(nsys ? -1 : t.rank, names[i], hints[i]);
			char label[160];
			snprintf(label, sizeof label, "%.80s rank %d", s->in.name, rank);
			trace_rank_events(o, index * 100000 + rank % 100000, label, &t, phases,
					  nsys, t0);
			gpu_trace_free(&t);
		}
		strbuf_free(&p);
		free(names[i]);
	}
	if (n > TIMELINE_TRACE_RANKS) {
		char buf[320];
		snprintf(buf, sizeof buf,
			 "{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_name\", \"args\": {\"name\": \"%.80s: %zu more rank%s not shown (first %d by file name; all are in the analysis)\"}}",
			 index * 100000 + 99999, s->in.name, n - TIMELINE_TRACE_RANKS,
			 n - TIMELINE_TRACE_RANKS == 1 ? "" : "s", TIMELINE_TRACE_RANKS);
		event(o, buf);
	}
	free(hints);
	free(names);
	strbuf_free(&dir);
}

/* Every rank file of one scenario, one at a time. */
static void scenario_events(struct tl_out *o, int pid, const struct ana_scenario *s, double *t0)
{
	char buf[256];
	snprintf(buf, sizeof buf,
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
			rank_events(o, pid, &m, t0, s->comm.comm_floor_ms, s->comm.n_floor);
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
			trace_scenario_events(&o, (int)i + 1, &run->sc[i], &phases, &trace_t0);
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
