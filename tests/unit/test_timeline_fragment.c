/* Unit tests for the timeline fragments (analyzers/timeline_fragment.c): what the map
 * step's reading of a trace leaves for write/timeline.c, read back record by
 * record; damaged, cut-short and foreign fragments refused; and the timeline
 * made from fragments the same, byte for byte, as from the traces, with a
 * rank whose shard failed left out and said so.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "analyzers/analysis.h"
#include "analyzers/read/rules.h"
#include "analyzers/timeline_fragment.h"
#include "analyzers/torchtrace.h"
#include "analyzers/write/report.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct rules phases;
static char dir[] = "/tmp/test_timeline_fragment.XXXXXX";

/* The bytes of a file, or of an open stream read from its start. */
static char *slurp(FILE *f, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0;
	*len = 0;
	rewind(f);
	for (size_t n = 1; n;) {
		XGROW(buf, *len + 4096, cap, 8192);
		n = fread(buf + *len, 1, 4096, f);
		*len += n;
	}
	return buf;
}

static void events_of_a_trace(void)
{
	FILE *f = tmpfile();
	struct timeline_fragment fr;
	struct timeline_fragment_event ev;
	CHECK(timeline_fragment_make(f, "tests/fixtures", "kineto_steps.pt.trace.json", 0, 7,
				     &phases) == 0);
	CHECK(timeline_fragment_open_stream(f, "made", &fr) == 0);
	/* the trace's own rank, not the hint */
	CHECK(fr.state == TIMELINE_FRAGMENT_EVENTS && fr.rank == 1);
	int steps = 0, kernels = 0, phase = 0, threads = 0, rc;
	while ((rc = timeline_fragment_next(&fr, &ev)) == 1) {
		if (!ev.slice) {
			threads++;
			CHECK(ev.tid >= 1 && !strncmp(ev.name, "\"thread ", 8));
			continue;
		}
		steps += !strcmp(ev.cat, "step");
		kernels += !strcmp(ev.cat, "kernel") && ev.tid >= 100000;
		if (!strcmp(ev.cat, "phase")) {
			phase++;
			CHECK(ev.range && ev.range[0] == '"');
		}
		if (steps == 1 && !strcmp(ev.cat, "step"))
			CHECK_NEAR(ev.start, fr.origin, 0); /* the first step is the zero */
		CHECK(ev.dur >= 0);
	}
	CHECK(rc == 0 && steps == 3 && kernels == 2 && phase > 0 && threads == 2);
	timeline_fragment_close(&fr);
}

/* timeline_fragment_write (the map step, from the trace it read) and timeline_fragment_make
 * (the timeline, reading it itself) leave the same bytes. */
static void written_as_made(void)
{
	struct strbuf p = STRBUF_INIT;
	struct gpu_trace t;
	FILE *f = tmpfile();
	size_t na, nb;
	strbuf_addf(&p, "%s/w.tlf", dir);
	CHECK(kineto_load("tests/fixtures/kineto_steps.pt.trace.json", 1, &t) == 0);
	CHECK(timeline_fragment_write(p.buf, &t, &phases, 0, 1) == 0);
	gpu_trace_free(&t);
	CHECK(timeline_fragment_make(f, "tests/fixtures", "kineto_steps.pt.trace.json", 0, 0,
				     &phases) == 0);
	FILE *g = fopen(p.buf, "rb");
	char *a = slurp(f, &na), *b = slurp(g, &nb);
	CHECK(na == nb && na > 100 && !memcmp(a, b, na));
	free(a);
	free(b);
	fclose(f);
	fclose(g);
	strbuf_free(&p);
}

static void damaged_fragments_refused(void)
{
	struct strbuf p = STRBUF_INIT;
	struct timeline_fragment fr;
	struct timeline_fragment_event ev;
	char *data;
	size_t len;
	strbuf_addf(&p, "%s/d.tlf", dir);
	CHECK(timeline_fragment_open(p.buf, &fr) == ERR_NOTFOUND);
	FILE *f = tmpfile();
	CHECK(timeline_fragment_make(f, "tests/fixtures", "kineto_steps.pt.trace.json", 0, 0,
				     &phases) == 0);
	data = slurp(f, &len);
	fclose(f);
	CHECK(fsio_write_atomic(p.buf, data, len - 1, 0644) == 0); /* cut short */
	CHECK(timeline_fragment_open(p.buf, &fr) == ERR_IO && strstr(err_last(), "cut short"));
	data[8]++; /* another version */
	CHECK(fsio_write_atomic(p.buf, data, len, 0644) == 0);
	CHECK(timeline_fragment_open(p.buf, &fr) == ERR_IO &&
	      strstr(err_last(), "another version"));
	data[8]--;
	data[32] = 'Q'; /* the first record's tag */
	CHECK(fsio_write_atomic(p.buf, data, len, 0644) == 0);
	CHECK(timeline_fragment_open(p.buf, &fr) == 0);
	CHECK(timeline_fragment_next(&fr, &ev) == ERR_IO &&
	      strstr(err_last(), "an unknown record"));
	timeline_fragment_close(&fr);
	CHECK(timeline_fragment_write_state(p.buf, TIMELINE_FRAGMENT_NOT_ANALYSED) == 0);
	CHECK(timeline_fragment_open(p.buf, &fr) == 0 &&
	      fr.state == TIMELINE_FRAGMENT_NOT_ANALYSED);
	CHECK(timeline_fragment_next(&fr, &ev) == 0);
	timeline_fragment_close(&fr);
	f = tmpfile(); /* not a trace: nothing to show, as before */
	CHECK(timeline_fragment_make(f, "tests/fixtures", "tiny.yaml", 0, 0, &phases) == 0);
	CHECK(timeline_fragment_open_stream(f, "tiny", &fr) == 0 &&
	      fr.state == TIMELINE_FRAGMENT_UNREADABLE);
	timeline_fragment_close(&fr);
	free(data);
	strbuf_free(&p);
}

static char *timeline_of(const struct ana_run *run)
{
	char path[600], *s = NULL;
	snprintf(path, sizeof path, "%s/timeline.json", dir);
	CHECK(timeline_write(run) == 0);
	CHECK(fsio_read(path, 1 << 24, &s, NULL) == 0);
	return s;
}

static void analysed(struct ana_run *run, const char *jd, const struct trace_source *src)
{
	*run = (struct ana_run){ .campaign = strdup("t"), .run_id = strdup("r"),
				 .run_dir = strdup(dir), .th = { 20, 30, 70, 90 }, .src = src };
	ana_run_add(run, "tr", "COMPLETED", "", "gloo", jd, 0, 1, 2);
	CHECK(ana_run_analyse(run) == 0);
}

/* A run of one scenario analysed from two traces: its timeline read from the
 * traces (no fragment folder) and from the fragments the analysis left. */
static void timeline_from_fragments(void)
{
	char jd[600], tr[700], fdir[600], src_path[700];
	const char *files[] = { "kineto_steps.pt.trace.json", "mini.pt.trace.json" };
	snprintf(jd, sizeof jd, "%s/job", dir);
	snprintf(tr, sizeof tr, "%s/traces", jd);
	snprintf(fdir, sizeof fdir, "%s/frag", dir);
	CHECK(fsio_mkdir_p(tr, 0755) == 0 && fsio_mkdir_p(fdir, 0755) == 0);
	for (int i = 0; i < 2; i++) {
		snprintf(src_path, sizeof src_path, "tests/fixtures/%s", files[i]);
		snprintf(tr, sizeof tr, "%s/traces/%s", jd, files[i]);
		CHECK(fsio_copy(src_path, tr) == 0);
	}
	struct ana_run run;
	analysed(&run, jd, NULL);
	CHECK(run.sc[0].data.format == METRICS_TORCH_TRACE);
	char *direct = timeline_of(&run);
	ana_run_free(&run);
	struct trace_source src = { NULL, NULL, fdir };
	analysed(&run, jd, &src);
	struct argv made;
	CHECK(fsio_list(fdir, &made) == 0 && made.n == 2); /* one per trace, nothing else */
	char *mapped = timeline_of(&run);
	CHECK(!strcmp(direct, mapped));
	struct strbuf p = STRBUF_INIT;
	snprintf(tr, sizeof tr, "%s/traces", jd);
	timeline_fragment_path(&p, fdir, tr, files[0]);
	CHECK(truncate(p.buf, 40) == 0); /* damaged: that trace is read again */
	char *again = timeline_of(&run);
	CHECK(!strcmp(direct, again));
	CHECK(timeline_fragment_write_state(p.buf, TIMELINE_FRAGMENT_NOT_ANALYSED) == 0);
	char *lost = timeline_of(&run);
	CHECK(strstr(lost, "\"tr: 1 rank not shown: the map step could not analyse its file") &&
	      !strstr(lost, "\"tr rank 1\"") && strstr(direct, "\"tr rank 1\""));
	argv_free(&made);
	strbuf_free(&p);
	free(direct);
	free(mapped);
	free(again);
	free(lost);
	run.src = NULL;
	ana_run_free(&run);
}

int main(void)
{
	setenv("CAMPAIGN_PHASE_RULES", "analyzers/phase_rules.txt", 1);
	setenv("CAMPAIGN_RULES", "analyzers/kernel_rules.txt", 1);
	if (rules_load("analyzers/phase_rules.txt", &phases) < 0 || !mkdtemp(dir))
		return 1;
	RUN(events_of_a_trace);
	RUN(written_as_made);
	RUN(damaged_fragments_refused);
	RUN(timeline_from_fragments);
	rules_free(&phases);
	fsio_remove_tree(dir);
	HARNESS_END();
}
