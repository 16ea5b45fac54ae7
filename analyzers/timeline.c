/* timeline: run_dir/timeline.json, a Chrome-trace document (Perfetto,
 * chrome://tracing) merging every analysed scenario's ranks: one process per
 * scenario, one thread per rank, a "step N" slice per step with its phases
 * (data loading, forward, backward, exposed communication, optimizer) laid
 * in order inside it. Steps start at the telemetry's start_us (steps laid end
 * to end when the telemetry has none). Written rank by rank, so memory holds
 * one rank's telemetry at a time; atomically (temp file, fsync, rename). */
#include "analysis.h"
#include "metrics.h"

#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct tl_out {
	FILE *f;
	int first;
};

static void event(struct tl_out *o, const char *fmt_fields)
{
	fprintf(o->f, "%s\n%s", o->first ? "" : ",", fmt_fields);
	o->first = 0;
}

static void slice(struct tl_out *o, int pid, int tid, const char *name, const char *cat, double ts, double dur_ms)
{
	char buf[256];
	snprintf(buf, sizeof buf, "{\"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"name\": \"%s\", \"cat\": \"%s\", "
		 "\"ts\": %.3f, \"dur\": %.3f}", pid, tid, name, cat, ts, dur_ms * 1000);
	event(o, buf);
}

static void rank_events(struct tl_out *o, int pid, const struct rank_metrics *m, double *t0)
{
	char buf[256], host[sizeof m->host];
	/* the host name comes from a telemetry file: only safe characters reach the JSON */
	size_t h = 0;
	for (const char *c = m->host; *c && h + 1 < sizeof host; c++)
		host[h++] = (isalnum((unsigned char)*c) || strchr("-._", *c)) ? *c : '_';
	host[h] = '\0';
	snprintf(buf, sizeof buf, "{\"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"name\": \"thread_name\", "
		 "\"args\": {\"name\": \"rank %d%s%.100s\"}}", pid, m->rank, m->rank, host[0] ? " on " : "", host);
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
		const char *ph[] = { "data loading", "forward", "backward", "communication (exposed)", "optimizer" };
		double d[] = { s->data_ms, s->forward_ms, s->backward_ms, s->comm_exposed_ms, s->optimizer_ms };
		for (int k = 0; k < 5; k++) {
			if (d[k] > 0)
				slice(o, pid, m->rank, ph[k], "phase", ts, d[k]);
			ts += d[k] * 1000;
		}
	}
}

/* Every rank file of one scenario, one at a time. */
static void scenario_events(struct tl_out *o, int pid, const struct ana_scenario *s, double *t0)
{
	char buf[256];
	snprintf(buf, sizeof buf, "{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_name\", \"args\": {\"name\": \"%.80s\"}}",
		 pid, s->name);
	event(o, buf);
	struct strbuf dir = STRBUF_INIT;
	strbuf_addf(&dir, "%s/metrics", s->job_dir);
	DIR *d = opendir(dir.buf);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		int r;
		if (!metrics_rank_file(e->d_name, &r))
			continue;
		struct strbuf p = STRBUF_INIT;
		struct rank_metrics m;
		strbuf_addf(&p, "%s/%s", dir.buf, e->d_name);
		if (metrics_load_file(p.buf, &m) == 0) {
			if (m.rank < 0)
				m.rank = r;
			rank_events(o, pid, &m, t0);
			rank_metrics_free(&m);
		}
		strbuf_free(&p);
	}
	if (d)
		closedir(d);
	strbuf_free(&dir);
}

int timeline_write(const struct ana_run *run)
{
	struct strbuf path = STRBUF_INIT, tmp = STRBUF_INIT;
	strbuf_addf(&path, "%s/timeline.json", run->run_dir);
	strbuf_addf(&tmp, "%s/.timeline.json.XXXXXX", run->run_dir);
	int fd = mkstemp(tmp.buf), rc = 0;
	if (fd >= 0)
		fchmod(fd, 0644);
	struct tl_out o = { .f = fd >= 0 ? fdopen(fd, "w") : NULL, .first = 1 };
	if (!o.f) {
		rc = err_sys(ERR_IO, "cannot create %s", tmp.buf);
		goto out;
	}
	double t0 = 0;
	fputs("{\"displayTimeUnit\": \"ms\", \"otherData\": {\"generator\": \"campaign\"}, \"traceEvents\": [", o.f);
	for (size_t i = 0; i < run->n; i++)
		if (run->sc[i].analysed)
			scenario_events(&o, (int)i + 1, &run->sc[i], &t0);
	fputs("\n]}\n", o.f);
	if (fflush(o.f) != 0 || fsync(fileno(o.f)) != 0 || ferror(o.f))
		rc = err_sys(ERR_IO, "cannot write %s", tmp.buf);
	if (fclose(o.f) != 0 && rc == 0)
		rc = err_sys(ERR_IO, "cannot write %s", tmp.buf);
	if (rc == 0 && rename(tmp.buf, path.buf) < 0)
		rc = err_sys(ERR_IO, "cannot rename %s to %s", tmp.buf, path.buf);
	if (rc < 0)
		unlink(tmp.buf);
out:
	strbuf_free(&path);
	strbuf_free(&tmp);
	return rc;
}
