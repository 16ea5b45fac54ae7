/* Unit tests for the timeline fragments (analyzers/tlfrag.c): what the map
 * step's reading of a trace leaves for write/timeline.c, read back record by
 * record; damaged, cut-short and foreign fragments refused. */
#include "harness.h"

#include "analyzers/read/rules.h"
#include "analyzers/tlfrag.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct rules phases;
static char dir[] = "/tmp/test_tlfrag.XXXXXX";

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
	struct tlfrag fr;
	struct tlfrag_event ev;
	CHECK(tlfrag_make(f, "tests/fixtures", "kineto_steps.pt.trace.json", 0, 7, &phases) == 0);
	CHECK(tlfrag_open_stream(f, "made", &fr) == 0);
	CHECK(fr.state == TLFRAG_EVENTS && fr.rank == 1); /* the trace's own rank, not the hint */
	int steps = 0, kernels = 0, phase = 0, threads = 0, rc;
	while ((rc = tlfrag_next(&fr, &ev)) == 1) {
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
	tlfrag_close(&fr);
}

/* tlfrag_write (the map step, from the trace it read) and tlfrag_make
 * (the timeline, reading it itself) leave the same bytes. */
static void written_as_made(void)
{
	struct strbuf p = STRBUF_INIT;
	struct gpu_trace t;
	FILE *f = tmpfile();
	size_t na, nb;
	strbuf_addf(&p, "%s/w.tlf", dir);
	CHECK(kineto_load("tests/fixtures/kineto_steps.pt.trace.json", 1, &t) == 0);
	CHECK(tlfrag_write(p.buf, &t, &phases, 0, 1) == 0);
	gpu_trace_free(&t);
	CHECK(tlfrag_make(f, "tests/fixtures", "kineto_steps.pt.trace.json", 0, 0, &phases) == 0);
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
	struct tlfrag fr;
	struct tlfrag_event ev;
	char *data;
	size_t len;
	strbuf_addf(&p, "%s/d.tlf", dir);
	CHECK(tlfrag_open(p.buf, &fr) == ERR_NOTFOUND);
	FILE *f = tmpfile();
	CHECK(tlfrag_make(f, "tests/fixtures", "kineto_steps.pt.trace.json", 0, 0, &phases) == 0);
	data = slurp(f, &len);
	fclose(f);
	CHECK(fsio_write_atomic(p.buf, data, len - 1, 0644) == 0); /* cut short */
	CHECK(tlfrag_open(p.buf, &fr) == ERR_IO && strstr(err_last(), "cut short"));
	data[8]++; /* another version */
	CHECK(fsio_write_atomic(p.buf, data, len, 0644) == 0);
	CHECK(tlfrag_open(p.buf, &fr) == ERR_IO && strstr(err_last(), "another version"));
	data[8]--;
	data[32] = 'Q'; /* the first record's tag */
	CHECK(fsio_write_atomic(p.buf, data, len, 0644) == 0);
	CHECK(tlfrag_open(p.buf, &fr) == 0);
	CHECK(tlfrag_next(&fr, &ev) == ERR_IO && strstr(err_last(), "an unknown record"));
	tlfrag_close(&fr);
	CHECK(tlfrag_write_state(p.buf, TLFRAG_NOT_ANALYSED) == 0);
	CHECK(tlfrag_open(p.buf, &fr) == 0 && fr.state == TLFRAG_NOT_ANALYSED);
	CHECK(tlfrag_next(&fr, &ev) == 0);
	tlfrag_close(&fr);
	f = tmpfile(); /* not a trace: nothing to show, as before */
	CHECK(tlfrag_make(f, "tests/fixtures", "tiny.yaml", 0, 0, &phases) == 0);
	CHECK(tlfrag_open_stream(f, "tiny", &fr) == 0 && fr.state == TLFRAG_UNREADABLE);
	tlfrag_close(&fr);
	free(data);
	strbuf_free(&p);
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
	rules_free(&phases);
	fsio_remove_tree(dir);
	HARNESS_END();
}
