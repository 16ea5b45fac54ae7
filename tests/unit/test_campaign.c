/* Unit tests of the campaign loader: defaults, matrix expansion, and the
 * exact FILE:LINE:COLUMN messages of invalid campaigns.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "orchestrator/campaign/campaign.h"
#include "orchestrator/campaign/diag.h"
#include "orchestrator/variant.h"
#include "util/fsio.h"
#include "util/strbuf.h"

static char *diag_text(struct diags *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	diags_print(d, f);
	fclose(f);
	return buf;
}

/* Loads src; returns the printed diagnostics (malloc'ed, "" when valid). */
static char *load(const char *src, struct campaign *c, int *rc)
{
	struct diags d;
	diags_init(&d, "t.yaml");
	*rc = campaign_load_buffer("t.yaml", src, strlen(src), c, &d);
	char *t = diag_text(&d);
	diags_free(&d);
	return t;
}

static const char minimal[] =
	"campaign: demo\n"
	"scenarios:\n"
	"  - name: a\n"
	"    nodes: 2\n";

static void test_defaults(void)
{
	struct campaign c;
	int rc;
	char *t = load(minimal, &c, &rc);
	CHECK(rc == 0);
	CHECK_STR(t, "");
	CHECK_STR(c.name, "demo");
	CHECK(c.n_scenarios == 1);
	CHECK(c.scenarios[0].nodes == 2);
	CHECK(c.scenarios[0].tasks_per_node == 1);
	CHECK(c.scenarios[0].gpus_per_node == 0);
	CHECK_STR(c.scenarios[0].backend, "gloo");
	CHECK_STR(c.scenarios[0].time, "00:30:00");
	CHECK(c.scenarios[0].time_limit_s == 1800);
	CHECK(c.profile.warmup_steps == 5 && c.profile.active_steps == 20);
	CHECK_NEAR(c.analysis.th.comm_pct, 20, 0);
	CHECK_NEAR(c.analysis.th.data_pct, 30, 0);
	CHECK_NEAR(c.analysis.peak_gflops, 0, 0); /* unknown: no MFU */
	CHECK(c.workload.command.n == 9);
	CHECK_STR(c.workload.command.v[0], "{{trainer}}");
	free(t);
	campaign_free(&c);
}

/* env: { from_env: true } is a NULL value, a scenario's literal overrides it,
 * and campaign_env_missing names the unset ones once; allow_literal_secrets lets
 * a secret-named literal through. */
static void test_env_from(void)
{
	struct campaign c;
	int rc;
	unsetenv("TEST_CAMPAIGN_TOKEN_A");
	unsetenv("TEST_CAMPAIGN_TOKEN_B");
	char *t = load("campaign: e\n"
		       "workload:\n"
		       "  env: { TEST_CAMPAIGN_TOKEN_A: { from_env: true }, PLAIN: p }\n"
		       "scenarios:\n"
		       "  - { name: a, nodes: 1 }\n"
		       "  - { name: b, nodes: 1, env: { TEST_CAMPAIGN_TOKEN_B: { from_env: yes },\n"
		       "      PLAIN: { from_env: true } } }\n",
		       &c, &rc);
	CHECK(rc == 0);
	CHECK_STR(t, "");
	CHECK(c.scenarios[0].env.n == 2 && !c.scenarios[0].env.items[0].value);
	CHECK_STR(kvlist_get(&c.scenarios[0].env, "PLAIN"), "p");
	CHECK(c.scenarios[1].env.n == 3 && !kvlist_get(&c.scenarios[1].env, "PLAIN"));
	CHECK(campaign_has_env_from(&c));
	char *m = campaign_env_missing(&c);
	CHECK_STR(m, "TEST_CAMPAIGN_TOKEN_A, PLAIN, TEST_CAMPAIGN_TOKEN_B");
	free(m);
	setenv("TEST_CAMPAIGN_TOKEN_A", "", 1); /* set, though empty: present */
	setenv("PLAIN", "x", 1);
	setenv("TEST_CAMPAIGN_TOKEN_B", "x", 1);
	CHECK(campaign_env_missing(&c) == NULL);
	unsetenv("PLAIN");
	free(t);
	campaign_free(&c);
	t = load("campaign: e\nallow_literal_secrets: true\n"
		 "workload: { env: { HF_TOKEN: literal-value } }\n"
		 "scenarios: [{ name: a, nodes: 1 }]\n",
		 &c, &rc);
	CHECK(rc == 0 && c.scenarios[0].env.items[0].value != NULL);
	CHECK_STR(kvlist_get(&c.scenarios[0].env, "HF_TOKEN"), "literal-value");
	CHECK(!campaign_has_env_from(&c));
	free(t);
	campaign_free(&c);
	t = load("campaign: e\nworkload: { env: { HF_TOKEN: literal-value, EMPTY_TOKEN: \"\" } }\n"
		 "scenarios: [{ name: a, nodes: 1 }]\n",
		 &c, &rc);
	CHECK(rc < 0);
	CHECK(!strstr(t, "literal-value") && strstr(t, "t.yaml:2:30: workload.env.HF_TOKEN: "));
	CHECK(!strstr(t, "EMPTY_TOKEN"));
	free(t);
}

/* analysis.peak_gflops_per_rank: loaded, and range-checked with its place. */
static void test_peak_gflops(void)
{
	struct campaign c;
	int rc;
	char src[256];
	snprintf(src, sizeof src, "%sanalysis:\n  peak_gflops_per_rank: 989000\n", minimal);
	char *t = load(src, &c, &rc);
	CHECK(rc == 0);
	CHECK_NEAR(c.analysis.peak_gflops, 989000, 0);
	free(t);
	campaign_free(&c);
	snprintf(src, sizeof src, "%sanalysis:\n  peak_gflops_per_rank: -1\n", minimal);
	t = load(src, &c, &rc);
	CHECK(rc != 0);
	CHECK(strstr(t, "t.yaml:6:25: analysis.peak_gflops_per_rank:") != NULL);
	free(t);
}

/* analysis.phase_rules, step_log, batch_per_rank: loaded in order, and bad
 * patterns, unknown phases and missing named groups named at their place. */
static void test_trace_analysis_keys(void)
{
	struct campaign c;
	int rc;
	char src[1024];
	snprintf(src, sizeof src,
		 "%sanalysis:\n  batch_per_rank: 32\n  phase_rules:\n"
		 "    - {phase: data_loading, pattern: '^my_prep'}\n    - {phase: io, pattern: 'ckpt$'}\n"
		 "  step_log: {pattern: 'step (?<step>\\d+) (?<step_ms>[0-9.]+) ms'}\n",
		 minimal);
	char *t = load(src, &c, &rc);
	CHECK(rc == 0);
	CHECK(c.analysis.batch_per_rank == 32);
	CHECK(c.analysis.phase_names.n == 2);
	CHECK_STR(c.analysis.phase_names.v[1], "io");
	CHECK_STR(c.analysis.phase_patterns.v[0], "^my_prep");
	CHECK_STR(c.analysis.step_log, "step (?<step>\\d+) (?<step_ms>[0-9.]+) ms");
	free(t);
	campaign_free(&c);
	snprintf(src, sizeof src,
		 "%sanalysis:\n  phase_rules:\n    - {phase: computing, pattern: 'x'}\n"
		 "    - {phase: forward, pattern: '(unclosed'}\n  step_log: {pattern: '(?<step>\\d+) only'}\n"
		 "  batch_per_rank: 0\n",
		 minimal);
	t = load(src, &c, &rc);
	CHECK(rc != 0);
	CHECK(strstr(t, "t.yaml:7:15: analysis.phase_rules[0]: unknown phase \"computing\" (expected forward, backward, optimizer, data_loading, communication, io, compute or other)") != NULL);
	CHECK(strstr(t,
		     "t.yaml:8:33: analysis.phase_rules[1]: not a PCRE2 pattern: missing closing parenthesis") != NULL);
	CHECK(strstr(t,
		     "t.yaml:9:23: analysis.step_log.pattern: the pattern has no named group (?<step_ms>...)") != NULL);
	CHECK(strstr(t, "t.yaml:10:19: analysis.batch_per_rank:") != NULL);
	free(t);
}

static void test_nccl_gpus_default(void)
{
	struct campaign c;
	int rc;
	char *t = load("campaign: g\nscenarios:\n  - {name: g, nodes: 1, tasks_per_node: 4, backend: nccl}\n",
		       &c, &rc);
	CHECK(rc == 0);
	CHECK(c.scenarios[0].gpus_per_node == 4);
	free(t);
	campaign_free(&c);
}

static void test_matrix(void)
{
	struct campaign c;
	int rc;
	char *t = load("campaign: m\n"
		       "workload:\n  params: {batch: '8'}\n"
		       "matrix:\n  nodes: [1, 2, 4]\n  batch: ['16', '32']\n"
		       "scenarios:\n  - name: 'gloo-{{nodes}}n-b{{batch}}'\n    nodes: 1\n"
		       "  - name: plain\n    nodes: 1\n", &c, &rc);
	CHECK(rc == 0);
	CHECK_STR(t, "");
	CHECK(c.n_scenarios == 12);
	if (c.n_scenarios == 12) {
		CHECK_STR(c.scenarios[0].name, "gloo-1n-b16");
		CHECK_STR(c.scenarios[1].name, "gloo-1n-b32");
		CHECK_STR(c.scenarios[5].name, "gloo-4n-b32");
		CHECK(c.scenarios[5].nodes == 4);
		CHECK_STR(kvlist_get(&c.scenarios[5].params, "batch"), "32");
		CHECK_STR(c.scenarios[6].name, "plain-1-16");
		CHECK_STR(c.scenarios[11].name, "plain-4-32");
	}
	free(t);
	campaign_free(&c);
}

static void test_many_errors_at_once(void)
{
	struct campaign c;
	int rc;
	char *t = load("campaign: demo\n"
		       "colour: blue\n"
		       "profile:\n  warmup_steps: many\n"
		       "scenarios:\n"
		       "  - name: a\n    nodes: 0\n"
		       "  - name: a\n    nodes: 1\n    backend: mpi\n"
		       "  - nodes: 1\n", &c, &rc);
	CHECK(rc < 0);
	CHECK_STR(t,
		  "t.yaml:2:1: colour: unknown key (expected one of: campaign, description, slurm, workload, profile, scenarios, matrix, analysis, store_journal, allow_literal_secrets, knobs, variant, bisect)\n"
		  "t.yaml:4:17: profile.warmup_steps: expected an integer, found \"many\"\n"
		  "t.yaml:7:12: scenarios[0].nodes: 0 is out of range (1..100000)\n"
		  "t.yaml:8:5: scenarios[1].name: duplicate scenario name \"a\"\n"
		  "t.yaml:10:14: scenarios[1].backend: backend must be gloo or nccl, not \"mpi\"\n"
		  "t.yaml:11:5: scenarios[2]: missing required key 'name'\n");
	free(t);
}

static void test_duplicates_and_unsafe_names(void)
{
	struct campaign c;
	int rc;
	char *t = load("campaign: demo\nscenarios:\n"
		       "  - {name: a, nodes: 1}\n"
		       "  - {name: a, nodes: 2}\n"
		       "  - {name: ../../etc, nodes: 1}\n", &c, &rc);
	CHECK(rc < 0);
	CHECK_STR(t,
		  "t.yaml:4:5: scenarios[1].name: duplicate scenario name \"a\"\n"
		  "t.yaml:5:12: scenarios[2].name: \"../../etc\" is not a safe scenario name (letters, digits, . _ -; at most 64; not starting with . or -)\n");
	free(t);
	t = load("campaign: ../x\nscenarios:\n  - {name: a, nodes: 1}\n", &c, &rc);
	CHECK(rc < 0);
	CHECK(strstr(t, "t.yaml:1:11: campaign: \"../x\" is not a safe name") != NULL);
	free(t);
}

static void test_syntax_error(void)
{
	struct campaign c;
	int rc;
	char *t = load("campaign: demo\nscenarios: [\n  - a\n", &c, &rc);
	CHECK(rc < 0);
	CHECK(strncmp(t, "t.yaml:3:3: YAML syntax error:", 30) == 0);
	free(t);
	t = load("", &c, &rc);
	CHECK(rc < 0);
	CHECK_STR(t, "t.yaml:1:1: the campaign file is empty\n");
	free(t);
	t = load("campaign: \xff\xfe\n", &c, &rc);
	CHECK(rc < 0);
	CHECK(strstr(t, "YAML syntax error: invalid") != NULL);
	free(t);
}

static void test_alias_bomb(void)
{
	struct campaign c;
	int rc;
	char *t = load("a: &a [x, x, x, x, x, x, x, x, x, x]\n"
		       "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
		       "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
		       "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
		       "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
		       "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n", &c, &rc);
	CHECK(rc < 0);
	CHECK_STR(t,
		  "t.yaml:1:1: document expands to more than 100000 nodes through aliases; refusing it\n");
	free(t);
}

static void test_placeholders_and_env(void)
{
	struct campaign c;
	int rc;
	char *t = load("campaign: demo\n"
		       "workload:\n"
		       "  command: 'run {{nosuch}} {{nodes}}'\n"
		       "  env: {'BAD-NAME': x, GOOD: '{{scenario}}'}\n"
		       "  params: {nodes: '3'}\n"
		       "scenarios:\n  - {name: a, nodes: 1}\n", &c, &rc);
	CHECK(rc < 0);
	/* structural problems first; placeholders are checked once the
	 * scenarios themselves are valid */
	CHECK_STR(t,
		  "t.yaml:4:9: workload.env.BAD-NAME: 'BAD-NAME' is not a valid environment variable name (letters, digits, _; not starting with a digit)\n"
		  "t.yaml:5:12: workload.params.nodes: 'nodes' is a built-in placeholder and cannot be a parameter\n");
	free(t);
	t = load("campaign: demo\n"
		 "workload:\n"
		 "  command: 'run {{nosuch}} {{nodes}} {{x'\n"
		 "scenarios:\n  - {name: a, nodes: 1}\n", &c, &rc);
	CHECK(rc < 0);
	CHECK_STR(t,
		  "t.yaml:3:12: workload.command: unknown placeholder {{nosuch}} (scenario a; define it under workload.params)\n"
		  "t.yaml:3:12: workload.command: unterminated placeholder in \"{{x\"\n");
	free(t);
}

/* A value that a whole command word splits into words must split: an
 * unterminated quote is refused at the value, wherever it is written; a
 * value used only quoted or inside a longer word is one word and may hold
 * any quote. */
static void test_split_value_quotes(void)
{
	struct campaign c;
	int rc;
	const char *why = " (the command word {{extra}} becomes this value's words, split as a shell would: close the quote, or escape a quote character as \\')\n";
	struct strbuf want = STRBUF_INIT;
	char *t = load("campaign: q\n"
		       "workload:\n"
		       "  command: [/bin/prog, '{{extra}}', '--y={{y}}']\n"
		       "  params: { extra: \"--name 'a b\", y: \"it's\" }\n"
		       "matrix: { extra: [ok, '\"x'] }\n"
		       "knobs: { communication: { params: { extra: \"'\" } } }\n"
		       "scenarios:\n"
		       "  - { name: a, nodes: 1, params: { extra: \"a 'b' 'c\" } }\n",
		       &c, &rc);
	CHECK(rc < 0);
	strbuf_addf(&want, "t.yaml:4:20: workload.params.extra: unterminated quote%s", why);
	strbuf_addf(&want, "t.yaml:5:23: matrix.extra[1]: unterminated quote%s", why);
	strbuf_addf(&want, "t.yaml:6:44: knobs.communication.params.extra: unterminated quote%s", why);
	strbuf_adds(&want, "t.yaml:8:5: scenarios[1].name: \"a-\"x\" is not a safe scenario name (letters, digits, . _ -; at most 64; not starting with . or -)\n");
	strbuf_addf(&want, "t.yaml:8:43: scenarios[0].params.extra: unterminated quote%s", why);
	CHECK_STR(t, strbuf_str(&want));
	free(t);
	strbuf_free(&want);
	/* the string form: the same check; a quoted word does not split */
	t = load("campaign: q\n"
		 "workload:\n"
		 "  command: \"/bin/prog {{extra}} '{{one}}'\"\n"
		 "  params: { extra: \"a 'b\", one: \"it's\" }\n"
		 "scenarios: [{ name: a, nodes: 1 }]\n",
		 &c, &rc);
	CHECK(rc < 0);
	CHECK_STR(t, "t.yaml:4:20: workload.params.extra: unterminated quote (the command word {{extra}} becomes this value's words, split as a shell would: close the quote, or escape a quote character as \\')\n");
	free(t);
	t = load("campaign: q\n"
		 "workload: { command: \"/bin/prog '{{one}}' --x={{one}}\", params: { one: \"it's\" } }\n"
		 "scenarios: [{ name: a, nodes: 1 }]\n",
		 &c, &rc);
	CHECK(rc == 0);
	CHECK_STR(t, "");
	free(t);
	if (rc == 0)
		campaign_free(&c);
}

static void test_sbatch_values(void)
{
	struct campaign c;
	int rc;
	char *t = load(
		"campaign: demo\n"
		"slurm:\n  partition: 'gpu; rm -rf ~'\n  time: 'soon'\n  extra: ['--mem=0', '-x']\n"
		"scenarios:\n  - {name: a, nodes: 1, time: '1-00:00:00'}\n",
		&c, &rc);
	CHECK(rc < 0);
	CHECK_STR(t,
		  "t.yaml:3:14: slurm.partition: \"gpu; rm -rf ~\" holds characters not allowed in an sbatch option (allowed: letters, digits and _ . , : = + @ / % -)\n"
		  "t.yaml:4:9: slurm.time: \"soon\" is not a SLURM time limit (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED)\n"
		  "t.yaml:5:10: slurm.extra: \"-x\" is not an sbatch long option of safe characters (e.g. --exclusive, --mem=0)\n");
	free(t);
}

static void test_time_parse(void)
{
	long s;
	CHECK(slurm_time_parse("30", &s) == 0 && s == 1800);
	CHECK(slurm_time_parse("1:30", &s) == 0 && s == 90);
	CHECK(slurm_time_parse("02:00:05", &s) == 0 && s == 7205);
	CHECK(slurm_time_parse("1-02", &s) == 0 && s == 93600);
	CHECK(slurm_time_parse("1-0:01", &s) == 0 && s == 86460);
	CHECK(slurm_time_parse("2-00:00:01", &s) == 0 && s == 172801);
	CHECK(slurm_time_parse("UNLIMITED", &s) == 0 && s == 0);
	CHECK(slurm_time_parse("", &s) < 0);
	CHECK(slurm_time_parse("1:2:3:4", &s) < 0);
	CHECK(slurm_time_parse("0", &s) < 0);
	CHECK(slurm_time_parse("99999999999", &s) < 0);
}

/* analysis.thresholds comes from analyzers/thresholds.h's table: each key lands in its own
 * field, out of range is refused at its place, and docs/campaign-format.md's row (type and
 * defaults) is the table's. */
static void test_thresholds_table(void)
{
	struct campaign c;
	int rc;
	char *t = load(minimal, &c, &rc);
	for (size_t k = 0; k < ANA_THRESHOLDS && rc == 0; k++)
		CHECK_NEAR(*ana_threshold_at(&c.analysis.th, k), ana_threshold_keys[k].def, 0);
	free(t);
	if (rc == 0)
		campaign_free(&c);
	struct strbuf src = STRBUF_INIT;
	strbuf_addf(&src, "%sanalysis:\n  thresholds:\n", minimal);
	for (size_t k = 0; k < ANA_THRESHOLDS; k++)
		strbuf_addf(&src, "    %s: %zu\n", ana_threshold_keys[k].key, 11 + k);
	t = load(src.buf, &c, &rc);
	CHECK_STR(t, "");
	struct ana_thresholds *th = &c.analysis.th;
	CHECK(rc == 0 && th->comm_pct == 11 && th->data_pct == 12 && th->io_pct == 13 &&
	      th->gpu_util_pct == 14 && th->memory_pct == 15 && th->gpu_copy_pct == 16);
	free(t);
	if (rc == 0)
		campaign_free(&c);
	strbuf_free(&src);
	strbuf_addf(&src, "%sanalysis:\n  thresholds: { io_pct: 101 }\n", minimal);
	t = load(src.buf, &c, &rc);
	CHECK(rc != 0 && strstr(t, "analysis.thresholds.io_pct"));
	free(t);
	strbuf_free(&src);
	strbuf_addf(&src, "| `analysis.thresholds.*_pct` | number %g–%g | ",
		    ana_threshold_keys[0].min, ana_threshold_keys[0].max);
	for (size_t k = 0; k < ANA_THRESHOLDS; k++) {
		const struct ana_threshold_key *d = &ana_threshold_keys[k];
		CHECK(d->min == ana_threshold_keys[0].min && d->max == ana_threshold_keys[0].max);
		strbuf_addf(&src, "%s%.*s %g", k ? ", " : "", (int)(strlen(d->key) - 4), d->key,
			    d->def);
	}
	strbuf_adds(&src, " | ");
	char *doc = NULL;
	size_t len;
	CHECK(fsio_read("docs/campaign-format.md", 1 << 20, &doc, &len) == 0);
	if (doc && !strstr(doc, src.buf))
		fprintf(stderr, "docs/campaign-format.md lacks the row: %s\n", src.buf);
	CHECK(doc && strstr(doc, src.buf));
	free(doc);
	strbuf_free(&src);
}

static void test_shipped_campaigns(void)
{
	const char *files[] = { "campaigns/local-demo.yaml", "campaigns/profiling.yaml", NULL };
	for (int i = 0; files[i]; i++) {
		struct campaign c;
		struct diags d;
		diags_init(&d, files[i]);
		int rc = campaign_load(files[i], &c, &d);
		CHECK(rc == 0);
		if (rc == 0)
			campaign_free(&c);
		diags_free(&d);
	}
}

/* A variant's campaign text keeps its knob whole, a DataLoader's loader: too: loaded back,
 * its variant is the knob. */
static void test_variant_keeps_loader(void)
{
	static const char src[] = "campaign: v\n"
				  "workload: { command: 'run {{w}}', params: { w: '0' } }\n"
				  "scenarios: [{ name: a, nodes: 1 }]\n"
				  "knobs:\n"
				  "  data_loading: { params: { w: '4' }, loader: { workers: 4, prefetch: 3 } }\n";
	struct campaign c, v;
	struct strbuf out = STRBUF_INIT;
	int rc;
	free(load(src, &c, &rc));
	CHECK(rc == 0);
	if (rc)
		return;
	variant_campaign_text(src, "r1", campaign_knob(&c, "data_loading"), &out);
	CHECK(strstr(out.buf, "\"loader\":{\"prefetch\":3,\"workers\":4}") != NULL);
	char *said = load(out.buf, &v, &rc);
	CHECK(rc == 0 && !strcmp(said, ""));
	free(said);
	if (rc == 0) {
		CHECK(v.variant.loader_workers == 4 && v.variant.loader_prefetch == 3);
		campaign_free(&v);
	}
	campaign_free(&c);
	strbuf_free(&out);
}

int main(void)
{
	RUN(test_defaults);
	RUN(test_peak_gflops);
	RUN(test_trace_analysis_keys);
	RUN(test_nccl_gpus_default);
	RUN(test_matrix);
	RUN(test_many_errors_at_once);
	RUN(test_duplicates_and_unsafe_names);
	RUN(test_syntax_error);
	RUN(test_alias_bomb);
	RUN(test_placeholders_and_env);
	RUN(test_split_value_quotes);
	RUN(test_sbatch_values);
	RUN(test_time_parse);
	RUN(test_shipped_campaigns);
	RUN(test_thresholds_table);
	RUN(test_env_from);
	RUN(test_variant_keeps_loader);
	HARNESS_END();
}
