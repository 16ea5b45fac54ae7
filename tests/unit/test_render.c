/* Unit tests of quoting, word splitting and template rendering.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "util/quote.h"
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/campaign/knob_trainer.h"
#include "orchestrator/campaign/render.h"
#include "util/words.h"

#include <sys/wait.h>

static void test_shell_quote(void)
{
	struct strbuf sb = STRBUF_INIT;
	shell_quote(&sb, "it's $(touch x); `y` \"z\"");
	CHECK_STR(strbuf_str(&sb), "'it'\\''s $(touch x); `y` \"z\"'");
	strbuf_reset(&sb);
	shell_quote(&sb, "");
	CHECK_STR(strbuf_str(&sb), "''");
	strbuf_free(&sb);
}

/* Every hostile string, quoted, must come back from a real shell unchanged. */
static void test_quote_roundtrip_in_bash(void)
{
	const char *hostile[] = { "$(touch /tmp/pwned)",
				  "; rm -rf ~",
				  "`id`",
				  "a'b\"c\\d",
				  "\n$HOME\t*",
				  "${IFS}",
				  "!!",
				  "-e",
				  NULL };
	for (int i = 0; hostile[i]; i++) {
		struct strbuf cmd = STRBUF_INIT;
		strbuf_adds(&cmd, "printf %s ");
		shell_quote(&cmd, hostile[i]);
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);
		FILE *p = popen(cmd.buf, "r");
		char buf[256];
		size_t n;
		while (p && (n = fread(buf, 1, sizeof buf, p)) > 0)
			fwrite(buf, 1, n, f);
		CHECK(p && WEXITSTATUS(pclose(p)) == 0);
		fclose(f);
		CHECK_STR(out, hostile[i]);
		free(out);
		strbuf_free(&cmd);
	}
}

static void test_words(void)
{
	struct argv a;
	const char *why;
	CHECK(words_split("run  'a b' \"c \\\"d\\\"\" e\\ f $(x) ;", &a, &why) == 0);
	CHECK(a.n == 6);
	if (a.n == 6) {
		CHECK_STR(a.v[0], "run");
		CHECK_STR(a.v[1], "a b");
		CHECK_STR(a.v[2], "c \"d\"");
		CHECK_STR(a.v[3], "e f");
		CHECK_STR(a.v[4], "$(x)");
		CHECK_STR(a.v[5], ";");
	}
	argv_free(&a);
	CHECK(words_split("{{x}} '{{x}}' \"{{y}}\" a\\ b", &a, &why) == 0);
	CHECK(a.n == 4 && !a.quoted[0] && a.quoted[1] && a.quoted[2] && a.quoted[3]);
	argv_free(&a);
	CHECK(words_split("a 'b", &a, &why) < 0);
	CHECK_STR(why, "unterminated quote");
}

static void test_template_rules(void)
{
	struct render_vars rv = { 0 };
	struct strbuf out = STRBUF_INIT;
	struct argv cmd = { 0 }, e1 = { 0 }, e2 = { 0 };
	argv_push(&cmd, "echo");
	argv_push(&cmd, "$(touch x)");
	argv_push(&e1, "--exclusive");
	argv_push(&e2, "--mem=0");
	render_var_scalar(&rv, "name", "job-1");
	render_var_scalar(&rv, "partition", NULL);
	render_var_words(&rv, "command", &cmd);
	render_var_item(&rv, "extra", &e1);
	render_var_item(&rv, "extra", &e2);
	CHECK(render_template("t",
			      "#SBATCH --job-name={{name}}\n#SBATCH --partition={{partition}}\n"
			      "#SBATCH {{ extra }}\nrun {{command}}\nname={{name}}\n",
			      &rv, &out) == 0);
	CHECK_STR(strbuf_str(&out),
		  "#SBATCH --job-name=job-1\n#SBATCH --exclusive\n#SBATCH --mem=0\n"
		  "run 'echo' '$(touch x)'\nname='job-1'\n");
	strbuf_reset(&out);
	render_var_scalar(&rv, "spaced", "/r/My Results/o.out"); /* quoted, one value for sbatch */
	CHECK(render_template("t", "#SBATCH --output={{spaced}}\n", &rv, &out) == 0);
	CHECK_STR(strbuf_str(&out), "#SBATCH --output=\"/r/My Results/o.out\"\n");
	strbuf_reset(&out);
	render_var_scalar(&rv, "bad", "a \"b\" $(x)");
	CHECK(render_template("t", "x\n#SBATCH --x={{bad}}\n", &rv, &out) < 0);
	CHECK(render_template("t", "{{nosuch}}\n", &rv, &out) < 0);
	render_vars_free(&rv);
	strbuf_free(&out);
	argv_free(&cmd);
	argv_free(&e1);
	argv_free(&e2);
}

/* Loads src (valid) and renders its first scenario's job script into out. */
static int render_src(const char *src, struct strbuf *out)
{
	struct campaign c;
	struct diags d;
	diags_init(&d, "t.yaml");
	int rc = campaign_load_buffer("t.yaml", src, strlen(src), &c, &d);
	CHECK(rc == 0 && d.n == 0);
	diags_free(&d);
	if (rc)
		return rc;
	struct render_ctx ctx = { "r1", "/runs/r1", "/runs/r1/s1", "/opt/bin", "templates", "/c" };
	rc = render_job(&c, &c.scenarios[0], &ctx, out);
	campaign_free(&c);
	return rc;
}

/* An env value is one value whatever its params hold: never split (an
 * empty param used to leave no word, and the renderer read past it). */
static void test_env_value_never_splits(void)
{
	struct strbuf out = STRBUF_INIT;
	CHECK(render_src("campaign: e\n"
			 "workload:\n"
			 "  command: [/bin/true]\n"
			 "  params: { empty: '', two: 'a b' }\n"
			 "  env: { X: '{{empty}}', Y: '{{two}}' }\n"
			 "scenarios: [{ name: s1, nodes: 1 }]\n",
			 &out) == 0);
	CHECK(strstr(strbuf_str(&out), "\nexport 'X='\n") != NULL);
	CHECK(strstr(strbuf_str(&out), "\nexport 'Y=a b'\n") != NULL);
	strbuf_free(&out);
}

/* Each scenario's command words, "|" between words and "\n" after each
 * scenario (malloc'ed), or NULL when one does not render. */
static char *argv_lines(const char *src)
{
	struct campaign c;
	struct diags d;
	struct strbuf sb = STRBUF_INIT;
	diags_init(&d, "t.yaml");
	int rc = campaign_load_buffer("t.yaml", src, strlen(src), &c, &d);
	CHECK(rc == 0 && d.n == 0);
	diags_free(&d);
	if (rc)
		return NULL;
	struct render_ctx ctx = { "r1", "/runs/r1", "/runs/r1/s", "/opt/bin", "templates", "/c d" };
	for (size_t i = 0; i < c.n_scenarios && rc == 0; i++) {
		struct argv w;
		if ((rc = render_command(&c, &c.scenarios[i], &ctx, &w)) < 0)
			break;
		for (size_t k = 0; k < w.n; k++)
			strbuf_addf(&sb, "%s%s", k ? "|" : "", w.v[k]);
		strbuf_addch(&sb, '\n');
		argv_free(&w);
	}
	campaign_free(&c);
	if (rc == 0)
		return strbuf_detach(&sb);
	strbuf_free(&sb);
	return NULL;
}

#define EXTRA_SCENARIOS                                                             \
	"scenarios:\n"                                                               \
	"  - { name: empty, nodes: 1, params: { extra: '' } }\n"                     \
	"  - { name: two, nodes: 1, params: { extra: '--slow-ms=1.5 --repeat=1' } }\n" \
	"  - { name: quoted, nodes: 1, params: { extra: \"--name 'a b'\" } }\n"       \
	"  - { name: hostile, nodes: 1, params: { extra: '$(touch x) ; `id`|y' } }\n"

/* A list item that is exactly one param placeholder becomes the words of
 * its value, split as a shell would (quotes kept, nothing expanded; none
 * when empty), as a word of the string form does (issue 45, point 5); in a
 * longer word the value goes in as it is, and built-ins never split. */
static void test_list_command_splits_param(void)
{
	char *t = argv_lines("campaign: l\n"
			     "workload:\n"
			     "  command: [/bin/prog, '{{extra}}', '--x={{extra}}', '{{ extra }}',\n"
			     "            '{{campaign_dir}}']\n" EXTRA_SCENARIOS);
	CHECK_STR(
		t,
		"/bin/prog|--x=|/c d\n"
		"/bin/prog|--slow-ms=1.5|--repeat=1|--x=--slow-ms=1.5 --repeat=1|--slow-ms=1.5|--repeat=1|/c d\n"
		"/bin/prog|--name|a b|--x=--name 'a b'|--name|a b|/c d\n"
		"/bin/prog|$(touch|x)|;|`id`|y|--x=$(touch x) ; `id`|y|$(touch|x)|;|`id`|y|/c d\n");
	free(t);
	/* the string form: the same words; a quoted word stays one */
	t = argv_lines("campaign: s\n"
		       "workload:\n"
		       "  command: \"/bin/prog {{extra}} '{{extra}}'\"\n" EXTRA_SCENARIOS);
	CHECK_STR(t, "/bin/prog|\n"
		     "/bin/prog|--slow-ms=1.5|--repeat=1|--slow-ms=1.5 --repeat=1\n"
		     "/bin/prog|--name|a b|--name 'a b'\n"
		     "/bin/prog|$(touch|x)|;|`id`|y|$(touch x) ; `id`|y\n");
	free(t);
}

/* The job script passes those words each quoted: a value runs nothing. */
static void test_list_command_words_quoted_in_script(void)
{
	struct strbuf out = STRBUF_INIT;
	CHECK(render_src(
		      "campaign: q\n"
		      "workload: { command: [/bin/prog, '{{extra}}', '{{e}}'], params: { e: '' } }\n"
		      "scenarios: [{ name: s1, nodes: 1, params: { extra: \"--name 'a b' ;$(x)\" } }]\n",
		      &out) == 0);
	CHECK(strstr(strbuf_str(&out), " '/bin/prog' '--name' 'a b' ';$(x)' &\n") != NULL);
	strbuf_free(&out);
}

/* What knob (knob_loader, knob_checkpoints) reads of the first scenario of src under its
 * knob, as "A,B". */
static void knob_of(void (*knob)(const struct campaign *, const struct scenario *,
				 const struct render_ctx *, int *, int *),
		    const char *src, char *out, size_t n)
{
	struct campaign c;
	struct diags d;
	diags_init(&d, "t.yaml");
	int rc = campaign_load_buffer("t.yaml", src, strlen(src), &c, &d);
	CHECK(rc == 0 && d.n == 0);
	diags_free(&d);
	int x = -1, y = -1;
	struct render_ctx ctx = { "r1", "/runs/r1", "/runs/r1/s", "/opt/bin", "", "/c" };
	if (rc == 0)
		knob(&c, &c.scenarios[0], &ctx, &x, &y);
	snprintf(out, n, "%d,%d", x, y);
	if (rc == 0)
		campaign_free(&c);
}

/* The loader threads and prefetch depth under the data_loading knob, as "W,D". */
static void loader_of(const char *src, char *out, size_t n)
{
	knob_of(knob_loader, src, out, n);
}

/* The data_loading knob's loader read from the rendered command (the replay's data-loading
 * change): the knob's params over the scenario's, "--opt N" and "--opt=N", the trainer's
 * defaults (2, 4) for an option the command does not name; 0,0 without the knob or for a
 * command that is not the trainer's. */
static void test_knob_loader(void)
{
	char got[32];
	loader_of(
		"campaign: k\n"
		"workload: { command: '{{trainer}} --steps 5 --workers {{workers}} --prefetch={{prefetch}}',\n"
		"            params: { workers: '1', prefetch: '2' } }\n"
		"scenarios: [{ name: a, nodes: 1 }]\n"
		"knobs: { data_loading: { params: { workers: '4' } } }\n",
		got, sizeof got);
	CHECK_STR(got, "4,2");
	loader_of(
		"campaign: k\n"
		"workload: { command: '{{trainer}} --workers {{workers}}', params: { workers: '1' } }\n"
		"scenarios: [{ name: a, nodes: 1 }]\n"
		"knobs: { data_loading: { params: { workers: '3' } } }\n",
		got, sizeof got);
	CHECK_STR(got, "3,4");
	loader_of(
		"campaign: k\n"
		"workload: { command: '/bin/prog --workers {{workers}}', params: { workers: '1' } }\n"
		"scenarios: [{ name: a, nodes: 1 }]\n"
		"knobs: { data_loading: { params: { workers: '3' } } }\n",
		got, sizeof got);
	CHECK_STR(got, "0,0");
	loader_of(
		"campaign: k\n"
		"workload: { command: '{{trainer}} --workers {{workers}}', params: { workers: '1' } }\n"
		"scenarios: [{ name: a, nodes: 1 }]\n",
		got, sizeof got);
	CHECK_STR(got, "0,0");
}

/* The checkpoints under the io knob, as "EVERY,ASYNC". */
static void checkpoints_of(const char *src, char *out, size_t n)
{
	knob_of(knob_checkpoints, src, out, n);
}

/* The io knob's checkpoints read from the rendered command (the replay's I/O change): the
 * knob's params over the scenario's, "--opt N" and "--opt=N"; 0 for an option the command
 * does not name (or 0 there); 0,0 without the knob or for a command not the trainer's. */
static void test_knob_checkpoints(void)
{
	char got[32];
	static const char *const head =
		"campaign: k\n"
		"workload: { command: '{{trainer}} --checkpoint-every {{e}} --checkpoint-async={{a}}',\n"
		"            params: { e: '1', a: '0' } }\n"
		"scenarios: [{ name: a, nodes: 1 }]\n";
	const char *knobs[] = { "knobs: { io: { params: { a: '1' } } }\n",
				"knobs: { io: { params: { e: '4' } } }\n",
				"knobs: { io: { params: { e: '0', a: '1' } } }\n", "" };
	const char *want[] = { "1,1", "4,0", "0,1", "0,0" };
	for (size_t i = 0; i < sizeof knobs / sizeof *knobs; i++) {
		char src[1024];
		snprintf(src, sizeof src, "%s%s", head, knobs[i]);
		checkpoints_of(src, got, sizeof got);
		CHECK_STR(got, want[i]);
	}
	checkpoints_of(
		"campaign: k\n"
		"workload: { command: '/bin/prog --checkpoint-async {{a}}', params: { a: '0' } }\n"
		"scenarios: [{ name: a, nodes: 1 }]\n"
		"knobs: { io: { params: { a: '1' } } }\n",
		got, sizeof got);
	CHECK_STR(got, "0,0");
}

int main(void)
{
	RUN(test_shell_quote);
	RUN(test_quote_roundtrip_in_bash);
	RUN(test_words);
	RUN(test_template_rules);
	RUN(test_env_value_never_splits);
	RUN(test_list_command_splits_param);
	RUN(test_list_command_words_quoted_in_script);
	RUN(test_knob_loader);
	RUN(test_knob_checkpoints);
	HARNESS_END();
}
