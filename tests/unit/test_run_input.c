/* Unit tests for analyzers/run_input.c: RUN/analysis_input.json read back
 * gives the run's input as written (every field, reals to the bit, job
 * folders under the directory it is read from), and a damaged or hostile
 * file is refused with its reason, never followed outside the run; every
 * value is within analyzers/bounds.h, on the way in and out.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "analyzers/run_input.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/run_layout.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void sample(struct ana_run *r, const char *dir)
{
	memset(r, 0, sizeof *r);
	r->campaign = xstrdup("demo");
	r->run_id = xstrdup("20261124-1");
	r->run_dir = xstrdup(dir);
	r->baseline = xstrdup("a-1n");
	r->th.comm_pct = 1.0 / 3.0;
	r->th.gpu_copy_pct = 12.5;
	r->peak_gflops = 0.1;
	r->epoch = 1764000000;
	r->host_cpus = 2;
	r->want_perf = 1;
	r->phase_names = xcalloc(2, sizeof *r->phase_names);
	r->phase_patterns = xcalloc(2, sizeof *r->phase_patterns);
	r->phase_names[0] = xstrdup("forward");
	r->phase_patterns[0] = xstrdup("^fwd\\b");
	r->n_phase_rules = 1;
	r->trace_globs = xcalloc(2, sizeof *r->trace_globs);
	r->trace_globs[0] = xstrdup("prof/*.json");
	r->n_trace_globs = 1;
	r->global_batch = 4096;
	struct strbuf jd = STRBUF_INIT;
	strbuf_addf(&jd, "%s/a-2n/attempts/1", dir);
	ana_run_add(r, "a-2n", "COMPLETED", NULL, "nccl", jd.buf, 0, 2, 4);
	r->sc[0].in.series = xstrdup("nccl/4/4");
	r->sc[0].in.requeued = xstrdup("requeued after NODE_FAIL on n2");
	r->sc[0].in.attempt = 1;
	r->sc[0].in.attempts = 2;
	snprintf(r->sc[0].data.contaminated, sizeof r->sc[0].data.contaminated, "b-1n");
	strbuf_reset(&jd);
	strbuf_addf(&jd, "%s/probe", dir);
	ana_run_add_probe(r, "probe", "FAILED", "gloo", jd.buf, 2, 1);
	strbuf_free(&jd);
	r->variant.of = xstrdup("parent-run");
	r->variant.kind = xstrdup("communication");
	r->variant.knob = xstrdup("{\"params\":{\"ddp\":\"bucketed\"}}");
	r->variant.checks = xcalloc(1, sizeof *r->variant.checks);
	r->variant.n = 1;
	struct ana_check *c = &r->variant.checks[0];
	c->scenario = xstrdup("a-2n");
	c->predicted_ms = 25.707;
	c->parent_steps = xcalloc(2, sizeof *c->parent_steps);
	c->parent_steps[0] = 81.133;
	c->parent_steps[1] = 0.1 + 0.2;
	c->n_parent = 2;
	for (int k = 0; k < CHECK_SHARES; k++)
		c->parent_share_pct[k] = k == 2 ? -1 : 10.0 * k + 0.1;
	c->parent_batch = 256;
	c->parent_contaminated = 1;
}

static void round_trip(void)
{
	char dir[] = "/tmp/runinput-XXXXXX", moved[] = "/tmp/runinput-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	CHECK(mkdtemp(moved) != NULL);
	struct ana_run w, r;
	sample(&w, dir);
	CHECK(run_input_write(&w) == 0);
	struct strbuf from = STRBUF_INIT, to = STRBUF_INIT;
	strbuf_addf(&from, "%s/" RUN_ANALYSIS_INPUT, dir);
	strbuf_addf(&to, "%s/" RUN_ANALYSIS_INPUT, moved);
	struct stat st;
	CHECK(stat(from.buf, &st) == 0 && (st.st_mode & 0777) == RUN_PRIVATE_MODE);
	CHECK(rename(from.buf, to.buf) == 0);
	CHECK(run_input_read(moved, &r) == 0);
	CHECK_STR(r.campaign, "demo");
	CHECK_STR(r.baseline, "a-1n");
	CHECK(r.th.comm_pct == 1.0 / 3.0 && r.th.gpu_copy_pct == 12.5 && r.th.io_pct == 0);
	CHECK(r.peak_gflops == 0.1 && r.epoch == 1764000000 && r.host_cpus == 2);
	CHECK(r.want_perf == 1 && r.want_nsys == 0 && r.global_batch == 4096);
	CHECK(r.step_log == NULL && r.scaling == NULL);
	CHECK(r.n_phase_rules == 1 && r.n_trace_globs == 1);
	CHECK_STR(r.phase_patterns[0], "^fwd\\b");
	CHECK_STR(r.trace_globs[0], "prof/*.json");
	CHECK(r.n == 1 && r.nprobes == 1);
	struct strbuf jd = STRBUF_INIT;
	strbuf_addf(&jd, "%s/a-2n/attempts/1", moved);
	CHECK_STR(r.sc[0].in.job_dir, jd.buf);
	CHECK_STR(r.sc[0].in.series, "nccl/4/4");
	CHECK_STR(r.sc[0].in.requeued, "requeued after NODE_FAIL on n2");
	CHECK_STR(r.sc[0].data.contaminated, "b-1n");
	CHECK(r.sc[0].in.ranks == 8 && r.sc[0].in.completed && r.sc[0].in.attempts == 2);
	CHECK(r.probes[0].ranks == 2 && !strcmp(r.probes[0].state, "FAILED"));
	struct ana_check *c = &r.variant.checks[0];
	CHECK(r.variant.n == 1 && c->n_parent == 2 && c->parent_steps[1] == 0.1 + 0.2);
	CHECK(c->parent_share_pct[2] == -1 && c->parent_share_pct[5] == 50.1);
	CHECK(c->predicted_ms == 25.707 && c->parent_batch == 256 && c->parent_contaminated == 1);
	CHECK_STR(r.variant.knob, "{\"params\":{\"ddp\":\"bucketed\"}}");
	ana_run_free(&w);
	ana_run_free(&r);
	unlink(to.buf);
	rmdir(dir);
	rmdir(moved);
	strbuf_free(&from);
	strbuf_free(&to);
	strbuf_free(&jd);
}

/* The file, with one text replaced, read back: its code and message. */
static int read_altered(const char *dir, const char *from, const char *to)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" RUN_ANALYSIS_INPUT, dir);
	char *text = NULL;
	size_t len = 0;
	int rc = fsio_read(p.buf, 1 << 20, &text, &len);
	char *at = rc == 0 ? strstr(text, from) : NULL;
	struct strbuf out = STRBUF_INIT;
	if (at) {
		strbuf_add(&out, text, (size_t)(at - text));
		strbuf_adds(&out, to);
		strbuf_adds(&out, at + strlen(from));
	}
	strbuf_addf(&p, ".altered");
	CHECK(at && fsio_write_atomic(p.buf, out.buf, out.len, 0600) == 0);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/alt", dir);
	fsio_mkdir_p(p.buf, 0700);
	strbuf_addf(&p, "/" RUN_ANALYSIS_INPUT);
	struct strbuf src = STRBUF_INIT;
	strbuf_addf(&src, "%s/" RUN_ANALYSIS_INPUT ".altered", dir);
	CHECK(rename(src.buf, p.buf) == 0);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/alt", dir);
	struct ana_run r;
	rc = run_input_read(p.buf, &r);
	ana_run_free(&r);
	free(text);
	strbuf_free(&p);
	strbuf_free(&src);
	strbuf_free(&out);
	return rc;
}

static void damaged_and_hostile(void)
{
	char dir[] = "/tmp/runinput-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct ana_run w, r;
	sample(&w, dir);
	CHECK(run_input_write(&w) == 0);
	ana_run_free(&w);
	CHECK(run_input_read("/nonexistent-run", &r) == ERR_NOTFOUND);
	CHECK(strstr(err_last(), "run `campaign aggregate --force /nonexistent-run` once") != NULL);
	ana_run_free(&r);
	static const char *const cases[][2] = {
		{ "\"a-2n/attempts/1\"", "\"../../../etc\"" },
		{ "\"a-2n/attempts/1\"", "\"/etc\"" },
		{ "\"a-2n/attempts/1\"", "\"a-2n/./x\"" },
		{ "\"a-2n/attempts/1\"", "\"a-2n/\"" },
		{ "\"probe\"", "\"..\"" },
		{ "\"version\": 1", "\"version\": 2" },
		{ "\"nodes\": 2", "\"nodes\": \"2\"" },
		{ "\"communication_pct\"", "\"comm_pct\"" },
		{ "\"series\": \"nccl/4/4\"", "\"series\": 4" },
		{ "\"format\"", "\"format\": 1, \"format\"" },
		{ "\"campaign\": \"demo\"", "\"campaign\": \"demo\", \"extra\": 1" },
		{ "\"scenarios\": [", "\"scenarios\": [{}, " },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int rc = read_altered(dir, cases[i][0], cases[i][1]);
		if (rc != ERR_IO)
			printf("    case %zu (%s): %d %s\n", i, cases[i][1], rc, err_last());
		CHECK(rc == ERR_IO);
		CHECK(strstr(err_last(), "is damaged (") != NULL);
	}
	CHECK(strstr(err_last(), "run `campaign aggregate --force ") != NULL);
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "rm -rf '%s'", dir);
	CHECK(system(p.buf) == 0);
	strbuf_free(&p);
}

/* Every value within analyzers/bounds.h, the campaign file's table, or the
 * file is refused naming the key (issue 46). */
static void bounded(void)
{
	char dir[] = "/tmp/runinput-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct ana_run w;
	sample(&w, dir);
	CHECK(run_input_write(&w) == 0);
	ana_run_free(&w);
	char *long_reason = xcalloc(5000 + 16, 1);
	strcpy(long_reason, "\"reason\": \"");
	memset(long_reason + strlen(long_reason), 'x', 5000);
	strcat(long_reason, "\"");
	const char *cases[][3] = {
		{ "\"communication_pct\": 0.33333333333333331", "\"communication_pct\": -1e308",
		  "settings.thresholds.communication_pct: -1e+308 is out of range (0..100)" },
		{ "\"reason\": \"\"", long_reason, "scenarios[0].reason: 5000 bytes, more than 4096" },
		{ "\"nodes\": 2", "\"nodes\": 1e9", "probes[0].nodes: 1e+09 is out of range (0..100000)" },
		{ "\"exit_code\": 0", "\"exit_code\": 1000000000000",
		  "scenarios[0].exit_code: 1000000000000 is out of range (-2147483648..2147483647)" },
		{ "\"name\": \"a-2n\"", "\"name\": \"a\\u001b[2J\"",
		  "scenarios[0].name: not a safe name (letters, digits, . _ -; at most 64; not starting with . or -)" },
		{ "\"parent_steps\": [", "\"parent_steps\": [1e300, ",
		  "variant.checks[0].parent_steps[0]: 1e+300 is out of range (0..1e+09)" },
		{ "\"peak_gflops\": 0.10000000000000001", "\"peak_gflops\": 2e9",
		  "settings.peak_gflops: 2e+09 is out of range (0..1e+09)" },
		{ "\"predicted_ms\": 25.707000000000001", "\"predicted_ms\": -5",
		  "variant.checks[0].predicted_ms: -5 is out of range (-1..1000000000)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int rc = read_altered(dir, cases[i][0], cases[i][1]);
		CHECK(rc == ERR_IO);
		if (!strstr(err_last(), cases[i][2]))
			printf("    case %zu: %s\n", i, err_last());
		CHECK(strstr(err_last(), cases[i][2]) != NULL);
	}
	free(long_reason);
	/* larger than campaign writes: refused before it is read */
	struct strbuf p = STRBUF_INIT, want = STRBUF_INIT;
	strbuf_addf(&p, "%s/" RUN_ANALYSIS_INPUT, dir);
	CHECK(truncate(p.buf, (16 << 20) + 1) == 0);
	struct ana_run r;
	CHECK(run_input_read(dir, &r) == ERR_IO);
	ana_run_free(&r);
	strbuf_addf(&want, "%s: 16777217 bytes, more than the 16 MiB campaign writes: not read; run `campaign aggregate --force %s` to write it again", p.buf, dir);
	CHECK_STR(err_last(), want.buf);
	strbuf_reset(&p);
	strbuf_addf(&p, "rm -rf '%s'", dir);
	CHECK(system(p.buf) == 0);
	strbuf_free(&p);
	strbuf_free(&want);
}

/* What the run makes is written within the bounds: a long reason cut, a long
 * series key by its hash; a value beyond one is not written at all. */
static void written_within(void)
{
	char dir[] = "/tmp/runinput-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct ana_run w, r;
	sample(&w, dir);
	free(w.sc[0].in.reason);
	w.sc[0].in.reason = xcalloc(9000, 1);
	memset(w.sc[0].in.reason, 'r', 8999);
	free(w.sc[0].in.series);
	w.sc[0].in.series = xcalloc(9000, 1);
	memset(w.sc[0].in.series, 's', 8999);
	CHECK(run_input_write(&w) == 0);
	CHECK(run_input_read(dir, &r) == 0);
	CHECK(strlen(r.sc[0].in.reason) == 4096 && r.sc[0].in.reason[4095] == 'r');
	CHECK(!strncmp(r.sc[0].in.series, "sha256:", 7) && strlen(r.sc[0].in.series) == 71);
	ana_run_free(&r);
	free(w.campaign);
	w.campaign = xstrdup("bad name");
	CHECK(run_input_write(&w) == 0);
	CHECK(run_input_read(dir, &r) == ERR_NOTFOUND);
	ana_run_free(&r);
	ana_run_free(&w);
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "rm -rf '%s'", dir);
	CHECK(system(p.buf) == 0);
	strbuf_free(&p);
}

int main(void)
{
	RUN(round_trip);
	RUN(damaged_and_hostile);
	RUN(bounded);
	RUN(written_within);
	HARNESS_END();
}
