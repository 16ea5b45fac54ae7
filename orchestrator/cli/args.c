/* args: the shared option parser behind struct cmd_entry (see cmd.h), and
 * the dispatcher that opens a command's run and reports its errors.
 * SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "orchestrator/cli/prose.h"
#include "orchestrator/bisect/bisection.h"

#include "orchestrator/run.h"
#include "util/err.h"
#include "util/hangup.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct optdef results_opt[] = {
	{ 'R', "results", "DIR", "results root (default $CAMPAIGN_RESULTS, else ./results)" },
	{ 'J', "store-journal", "MODE",
	  PROSE_OPT_STORE_JOURNAL },
	OPT_END,
};

/* The command's own options, then the ones its flags give it. */
const struct optdef *cmd_opt_list(const struct cmd_entry *e, int which)
{
	if (which == 0)
		return e->opts;
	return which == 1 && (e->flags & (CMD_RUN | CMD_RESULTS)) ? results_opt : NULL;
}

static const struct optdef *find_opt(const struct cmd_entry *e, const char *name, size_t n, char c)
{
	for (int w = 0; w < 2; w++)
		for (const struct optdef *o = cmd_opt_list(e, w); o && o->id; o++) {
			if (name && strlen(o->name) == n && !strncmp(o->name, name, n))
				return o;
			if (!name && o->id == c &&
			    ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
				return o;
		}
	return NULL;
}

void cmd_usage(const struct cmd_entry *e, FILE *out)
{
	fprintf(out, "usage: campaign %s %s\n\n%s\n\noptions:\n", e->name, e->usage, e->summary);
	for (int w = 0; w < 2; w++)
		for (const struct optdef *o = cmd_opt_list(e, w); o && o->id; o++) {
			char left[64];
			snprintf(left, sizeof left, "--%s%s%s", o->name, o->argname ? " " : "",
				 o->argname ? o->argname : "");
			fprintf(out, "  %-26s %s\n", left, o->help);
		}
	fputs("  --help                     show this help\n", out);
}

static int bad(const struct cmd_entry *e, const char *fmt, const char *what)
{
	fprintf(stderr, "campaign %s: ", e->name);
	fprintf(stderr, fmt, what);
	fprintf(stderr, "\nTry 'campaign %s --help'.\n", e->name);
	return EXIT_USAGE;
}

int args_parse(const struct cmd_entry *e, int argc, char **argv, struct args *a)
{
	memset(a, 0, sizeof *a);
	a->dashdash = -1;
	a->pos = calloc((size_t)argc + 1, sizeof *a->pos);
	if (!a->pos)
		abort();
	for (int i = 1; i < argc; i++) {
		char *s = argv[i];
		if (a->dashdash >= 0 || s[0] != '-' || s[1] == '\0') {
			a->pos[a->npos++] = s;
			continue;
		}
		if (!strcmp(s, "--")) {
			a->dashdash = a->npos;
			continue;
		}
		if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			cmd_usage(e, stdout);
			return -1;
		}
		const struct optdef *o;
		const char *inline_val = NULL;
		if (s[1] == '-') {
			char *eq = strchr(s + 2, '=');
			size_t n = eq ? (size_t)(eq - s - 2) : strlen(s + 2);
			o = find_opt(e, s + 2, n, 0);
			if (eq)
				inline_val = eq + 1;
		} else {
			o = s[2] ? NULL : find_opt(e, NULL, 0, s[1]);
		}
		if (!o)
			return bad(e, "unknown option '%s'", s);
		if (!o->argname) {
			if (inline_val)
				return bad(e, "option '--%s' takes no value", o->name);
			a->val[(unsigned char)o->id] = "";
		} else if (inline_val) {
			a->val[(unsigned char)o->id] = inline_val;
		} else if (i + 1 < argc) {
			a->val[(unsigned char)o->id] = argv[++i];
		} else {
			return bad(e, "option '--%s' needs a value", o->name);
		}
	}
	int nplain = a->dashdash >= 0 ? a->dashdash : a->npos;
	if (nplain < e->min_pos)
		return bad(e, "%s", e->min_pos == 1 ? "missing argument" : "missing arguments");
	if (e->max_pos >= 0 && a->npos > e->max_pos)
		return bad(e, "unexpected argument '%s'", a->pos[e->max_pos]);
	return 0;
}

const char *args_get(const struct args *a, char id)
{
	return a->val[(unsigned char)id];
}

int args_has(const struct args *a, char id)
{
	return a->val[(unsigned char)id] != NULL;
}

int args_int(const struct cmd_entry *e, const struct args *a, char id, long min, long max,
	     long dflt, long *out)
{
	const char *s = args_get(a, id);
	*out = dflt;
	if (!s)
		return 0;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max) {
		const struct optdef *o = find_opt(e, NULL, 0, id);
		fprintf(stderr, "campaign %s: --%s must be an integer in %ld..%ld, not '%s'\n",
			e->name, o ? o->name : "?", min, max, s);
		return EXIT_USAGE;
	}
	*out = v;
	return 0;
}

int cmd_exit_of(int code)
{
	switch (code) {
	case 0: return EXIT_OK;
	case ERR_USAGE: return EXIT_USAGE;
	case ERR_NOTFOUND: return EXIT_NOTFOUND;
	case ERR_IO: return EXIT_IO;
	case ERR_BACKEND: return EXIT_BACKEND;
	default: return EXIT_INTERNAL;
	}
}

/* Maps an err.h code to an exit status and prints err_last() with a prefix. */
static int cmd_fail(const struct cmd_entry *e, int code)
{
	fprintf(stderr, "campaign %s: %s\n", e->name, err_last());
	return cmd_exit_of(code);
}

const char *cmd_journal(const struct args *a)
{
	if (args_has(a, 'J'))
		return args_get(a, 'J');
	const char *env = getenv("CAMPAIGN_STORE_JOURNAL");
	return env && *env ? env : NULL;
}

const char *cmd_results_root(const struct args *a)
{
	const char *r = args_get(a, 'R'), *env = getenv("CAMPAIGN_RESULTS");
	return r ? r : env && *env ? env : "results";
}

void cmd_print_run_command(FILE *out, const struct args *a, const char *verb, const char *run_id)
{
	const char *root = args_get(a, 'R');
	fprintf(out, "campaign %s%s%s %s", verb, root ? " --results " : "", root ? root : "",
		run_id);
}

void args_free(struct args *a)
{
	run_free(a->run);
	a->run = NULL;
	free(a->pos);
	a->pos = NULL;
}

static int has_scenario(const struct run *r, const char *name)
{
	for (size_t i = 0; i < r->c.n_scenarios; i++)
		if (!strcmp(r->c.scenarios[i].name, name))
			return 1;
	return 0;
}

/* Says that name is neither a run nor a scenario of the newest run r, naming
 * r's first scenarios. */
static int no_run_nor_scenario(const char *root, const char *name, const struct run *r)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < r->c.n_scenarios && i < 8; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", r->c.scenarios[i].name);
	if (r->c.n_scenarios > 8)
		strbuf_addf(&sb, " and %zu more", r->c.n_scenarios - 8);
	char len[48] = "";
	if (strlen(name) > 80)
		snprintf(len, sizeof len, " (%zu characters)", strlen(name));
	int rc = err_set(
		ERR_NOTFOUND,
		"no run '%.80s%s'%s under %s, and the newest run %s has no scenario of that name (its scenarios: %s): give a run id, a run directory or one of its scenarios",
		name, *len ? "..." : "", len, root, r->id, sb.buf);
	strbuf_free(&sb);
	return rc;
}

/* Opens the run of a CMD_RUN command into a->run: the one pos[0] names, or
 * the newest when it is left out; with CMD_RUN_SCENARIO a lone argument that
 * names no run is taken as a scenario of the newest run (a->nrun 0). */
static int open_run(const struct cmd_entry *e, struct args *a)
{
	const char *root = cmd_results_root(a),
		   *ref = a->npos && a->dashdash != 0 ? a->pos[0] : NULL;
	int rc = run_open(root, ref, cmd_journal(a), &a->run);
	a->nrun = ref != NULL;
	if (rc != ERR_NOTFOUND || !(e->flags & CMD_RUN_SCENARIO) || a->npos != 1 || !ref)
		return rc;
	struct run *newest = NULL;
	/* a start of several run ids is said as such, not as an unknown scenario */
	char *why = strncmp(err_last(), "no run '", 8) ? xstrdup(err_last()) : NULL;
	rc = run_open(root, NULL, cmd_journal(a), &newest); /* no runs at all: the answer */
	if (rc == 0 && !has_scenario(newest, ref))
		rc = why ? err_set(ERR_NOTFOUND, "%s", why)
			 : no_run_nor_scenario(root, ref, newest);
	free(why);
	if (rc == 0) {
		a->run = newest;
		a->nrun = 0;
		return 0;
	}
	run_free(newest);
	return rc;
}

/* open_run, and a bisection named where a run was asked for said as one. */
static int open_run_said(const struct cmd_entry *e, struct args *a)
{
	const char *ref = a->npos && a->dashdash != 0 ? a->pos[0] : NULL;
	int rc = open_run(e, a);
	if (rc != ERR_NOTFOUND || !ref)
		return rc;
	char *dir = NULL, *why = xstrdup(err_last());
	/* its folder or whole id: a start of one may be a run's too, or a scenario's name */
	if (bisection_find(cmd_results_root(a), ref, 0, &dir) == 0)
		err_set(ERR_NOTFOUND,
			PROSE_BISECTION_NOT_A_RUN,
			ref, ref);
	else
		err_set(ERR_NOTFOUND, "%s", why); /* the run's message, not the bisection's */
	free(dir);
	free(why);
	return rc;
}

int cmd_dispatch(const struct cmd_entry *e, int argc, char **argv)
{
	struct args a;
	int rc = args_parse(e, argc, argv, &a);
	if (rc != 0) {
		args_free(&a);
		return rc < 0 ? EXIT_OK : rc; /* -1: --help was printed */
	}
	enum store_journal j;
	if (args_has(&a, 'J') && (rc = store_journal_parse(args_get(&a, 'J'), &j)) == 0)
		/* for the processes it starts (supervisor, jobs): they read it from there */
		setenv("CAMPAIGN_STORE_JOURNAL", args_get(&a, 'J'), 1);
	if (rc == 0 && (e->flags & CMD_OUTLIVES_OUTPUT))
		hangup_catch();
	if (rc == 0 && (e->flags & CMD_RUN))
		rc = open_run_said(e, &a);
	if (rc == 0)
		rc = e->exec(e, &a);
	if (rc < 0)
		rc = cmd_fail(e, rc);
	args_free(&a);
	return rc;
}
