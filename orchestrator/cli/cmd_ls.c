/* cmd_ls: `campaign ls [--json] [--results DIR]` lists the runs under the
 * results root, newest first: id, campaign, how many jobs are in each state
 * (as last recorded: `status` brings a run up to date), whether its analysis
 * is written, and its age. A run whose store cannot be read is listed as such.
 * SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "analyzers/prediction_check.h"
#include "util/run_layout.h"
#include "orchestrator/store/jobstate.h"
#include "orchestrator/run.h"
#include "orchestrator/bisect/bisection.h"
#include "orchestrator/variant.h"
#include "util/jsonio.h"
#include "orchestrator/store/snapshot.h"
#include "orchestrator/store/store.h"
#include "util/err.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Newest first: run ids start with their creation time. */
static int by_id_desc(const void *a, const void *b)
{
	const char *x = strchr(*(char *const *)a, '/'), *y = strchr(*(char *const *)b, '/');
	int c = strcmp(y ? y : "", x ? x : "");
	return c ? c : strcmp(*(char *const *)a, *(char *const *)b);
}

static json_t *run_json(const char *root, const char *rel)
{
	struct strbuf p = STRBUF_INIT;
	struct store *st = NULL;
	struct run_row row = { 0 };
	struct snapshot js = SNAPSHOT_INIT;
	strbuf_addf(&p, "%s/%s/" RUN_STATE_DB, root, rel);
	json_t *o = json_pack("{s:s, s:s}", "run", strchr(rel, '/') + 1, "campaign_dir", rel);
	int rc = store_open(p.buf, 0, STORE_JOURNAL_AUTO, &st);
	if (rc == 0)
		rc = store_run_get(st, &row);
	if (rc == 0)
		rc = snapshot_load(st, &js);
	if (rc < 0) {
		json_object_set_new(o, "problem", json_string(err_last()));
	} else {
		json_t *states = json_object();
		for (size_t i = 0; i < js.n; i++) {
			const char *s = job_state_name(js.latest[i]->state);
			json_object_set_new(
				states, s,
				json_integer(json_integer_value(json_object_get(states, s)) + 1));
		}
		json_object_set_new(o, "campaign", json_string(row.campaign ? row.campaign : ""));
		json_object_set_new(o, "backend", json_string(row.backend ? row.backend : ""));
		json_object_set_new(o, "jobs", json_integer((json_int_t)js.n));
		json_object_set_new(o, "states", states);
		json_object_set_new(o, "analysed", json_boolean(row.aggregated_at > 0));
		json_object_set_new(o, "age_s",
				    json_integer((json_int_t) (store_now() - row.created_at)));
	}
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/%s", root, rel);
	json_t *v = variant_read(p.buf);
	if (v)
		json_object_set_new(o, "variant_of",
				    json_pack("{s:s, s:s}", "run", jsonio_str(v, "parent_run"),
					      "kind", jsonio_str(v, "kind")));
	json_decref(v);
	strbuf_addf(&p, "/" RUN_PROVENANCE);
	json_t *prov = json_load_file(p.buf, 0, NULL), *b = json_object_get(prov, "bisect");
	if (b)
		json_object_set_new(o, "bisect_of",
				    json_pack("{s:s, s:s}", "bisection", jsonio_str(b, "of"),
					      "commit", jsonio_str(b, "commit")));
	json_decref(prov);
	snapshot_free(&js);
	run_row_free(&row);
	store_close(st);
	strbuf_free(&p);
	return o;
}

/* The family: each parent lists the variants `campaign try` made of it. */
static void link_variants(json_t *list)
{
	size_t i, j;
	json_t *r, *q;
	json_array_foreach(list, i, r) {
		const char *of = jsonio_str(r, "variant_of.run");
		json_array_foreach(list, j, q) {
			if (!*of || strcmp(jsonio_str(q, "run"), of))
				continue;
			if (!json_object_get(q, "variants"))
				json_object_set_new(q, "variants", json_array());
			json_array_append_new(json_object_get(q, "variants"),
					      json_pack("{s:s, s:s}", "run", jsonio_str(r, "run"),
							"kind", jsonio_str(r, "variant_of.kind")));
		}
	}
}

/* A bisection's row: its campaign, range, state and what it tested. */
static json_t *bisection_json(const char *root, const char *rel)
{
	struct strbuf p = STRBUF_INIT;
	json_t *st = NULL, *tested = json_array(), *t;
	size_t i;
	strbuf_addf(&p, "%s/%s", root, rel);
	json_t *o = json_pack("{s:s, s:s}", "run", strchr(rel, '/') + 1, "campaign_dir", rel);
	if (bisection_load(p.buf, &st) < 0) {
		json_object_set_new(o, "problem", json_string(err_last()));
		json_decref(tested);
		strbuf_free(&p);
		return o;
	}
	json_array_foreach(json_object_get(st, "tested"), i, t)
		json_array_append_new(tested, json_pack("{s:s, s:s, s:s}", "commit",
							jsonio_str(t, "commit"), "outcome",
							jsonio_str(t, "outcome"), "run",
							jsonio_str(t, "run")));
	json_object_set_new(
		o, "bisection",
		json_pack("{s:s, s:s, s:s, s:s, s:O, s:o}", "good", jsonio_str(st, "good.commit"),
			  "bad", jsonio_str(st, "bad.commit"), "scenario",
			  jsonio_str(st, "scenario"), "state", jsonio_str(st, "state"), "first_bad",
			  json_object_get(st, "first_bad"), "tested", tested));
	json_object_set_new(o, "campaign", json_string(jsonio_str(st, "campaign")));
	json_object_set_new(o, "backend", json_string(jsonio_str(st, "backend")));
	json_decref(st);
	strbuf_free(&p);
	return o;
}

static void print_bisection(json_t *r)
{
	json_t *b = json_object_get(r, "bisection"), *t;
	size_t i;
	printf("%-24s %-20s %-8s bisect %.12s..%.12s (%s): ", jsonio_str(r, "run"),
	       jsonio_str(r, "campaign"), jsonio_str(r, "backend"), jsonio_str(b, "good"),
	       jsonio_str(b, "bad"), jsonio_str(b, "scenario"));
	if (strcmp(jsonio_str(b, "state"), "done"))
		printf("under way, %zu tested\n", json_array_size(json_object_get(b, "tested")));
	else if (json_is_object(json_object_get(b, "first_bad")))
		printf("first bad %.12s\n", jsonio_str(b, "first_bad.commit"));
	else
		printf("no first bad commit found\n");
	json_array_foreach(json_object_get(b, "tested"), i, t)
		printf("%-24s   tested: %.12s %s in %s\n", "", jsonio_str(t, "commit"),
		       jsonio_str(t, "outcome"), jsonio_str(t, "run"));
}

/* "try of RUN (kind)" on a variant ("control of RUN" on a control run), "tried: kind in RUN"
 * and "control: RUN" on its parent. */
static void print_family(json_t *r)
{
	size_t i;
	json_t *v;
	int control = !strcmp(jsonio_str(r, "variant_of.kind"), CHECK_CONTROL_KIND);
	if (json_object_get(r, "variant_of") && control)
		printf("%-24s   control of %s (its campaign re-run unchanged)\n", "",
		       jsonio_str(r, "variant_of.run"));
	else if (json_object_get(r, "variant_of"))
		printf("%-24s   try of %s (%s)\n", "", jsonio_str(r, "variant_of.run"),
		       jsonio_str(r, "variant_of.kind"));
	json_array_foreach(json_object_get(r, "variants"), i, v) {
		if (!strcmp(jsonio_str(v, "kind"), CHECK_CONTROL_KIND))
			printf("%-24s   control: %s\n", "", jsonio_str(v, "run"));
		else
			printf("%-24s   tried: %s in %s\n", "", jsonio_str(v, "kind"),
			       jsonio_str(v, "run"));
	}
	if (json_object_get(r, "bisect_of"))
		printf("%-24s   bisect %s: commit %.12s\n", "",
		       jsonio_str(r, "bisect_of.bisection"), jsonio_str(r, "bisect_of.commit"));
}

static void age_text(long s, char *buf, size_t n)
{
	if (s < 120)
		snprintf(buf, n, "%lds", s);
	else if (s < 7200)
		snprintf(buf, n, "%ldm", s / 60);
	else if (s < 172800)
		snprintf(buf, n, "%ldh", s / 3600);
	else
		snprintf(buf, n, "%ldd", s / 86400);
}

static void print_row(json_t *r)
{
	const char *problem = json_string_value(json_object_get(r, "problem"));
	if (problem) {
		printf("%-24s %-20s %s\n", json_string_value(json_object_get(r, "run")), "?",
		       problem);
		return;
	}
	struct strbuf st = STRBUF_INIT;
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(r, "states"), k, v) strbuf_addf(
		&st, "%s%lld %s", st.len ? ", " : "", (long long) json_integer_value(v), k);
	char age[32];
	age_text((long)json_integer_value(json_object_get(r, "age_s")), age, sizeof age);
	printf("%-24s %-20s %-8s %-9s %6s  %s\n", json_string_value(json_object_get(r, "run")),
	       json_string_value(json_object_get(r, "campaign")),
	       json_string_value(json_object_get(r, "backend")),
	       json_is_true(json_object_get(r, "analysed")) ? "analysed" : "-", age,
	       st.buf ? st.buf : "");
	strbuf_free(&st);
}

static int ls_exec(const struct cmd_entry *self, struct args *a)
{
	(void)self;
	const char *root = cmd_results_root(a);
	struct argv runs = { 0 }, bisections;
	run_list(root, &runs);
	bisection_list(root, &bisections);
	for (size_t i = 0; i < bisections.n; i++)
		argv_push(&runs, bisections.v[i]);
	if (runs.n > 1)
		qsort(runs.v, runs.n, sizeof *runs.v, by_id_desc);
	if (args_has(a, 'q')) { /* the ids alone (shell completion, scripts): no store is opened */
		for (size_t i = 0; i < runs.n; i++) /* runs only: what RUN arguments take */
			if (!argv_has(&bisections, runs.v[i]))
				printf("%s\n", strrchr(runs.v[i], '/') ? strrchr(runs.v[i], '/') + 1
									 : runs.v[i]);
		argv_free(&runs);
		argv_free(&bisections);
		return EXIT_OK;
	}
	json_t *list = json_array();
	for (size_t i = 0; i < runs.n; i++)
		json_array_append_new(list, argv_has(&bisections, runs.v[i])
						    ? bisection_json(root, runs.v[i])
						    : run_json(root, runs.v[i]));
	link_variants(list);
	if (args_has(a, 'j')) {
		char *text = json_dumps(list, JSON_INDENT(2) | JSON_SORT_KEYS);
		printf("%s\n", text);
		free(text);
	} else if (runs.n == 0) {
		printf("no runs under %s (submit one, or pass --results DIR or set CAMPAIGN_RESULTS)\n",
		       root);
	} else {
		printf("%-24s %-20s %-8s %-9s %6s  %s\n", "RUN", "CAMPAIGN", "BACKEND", "ANALYSIS",
		       "AGE", "JOBS");
		size_t i;
		json_t *r;
		json_array_foreach(list, i, r) {
			if (json_object_get(r, "bisection")) {
				print_bisection(r);
				continue;
			}
			print_row(r);
			print_family(r);
		}
	}
	json_decref(list);
	argv_free(&runs);
	argv_free(&bisections);
	return EXIT_OK;
}

const struct cmd_entry cmd_ls_entry = {
	.name = "ls",
	.usage = "[--json | --quiet] [--results DIR]",
	.summary = "list the runs under the results root, newest first, with their jobs' states",
	.flags = CMD_RESULTS,
	.min_pos = 0,
	.max_pos = 0,
	.exec = ls_exec,
	.opts = (const struct optdef[]){ OPT_JSON("print one JSON array"),
				 { 'q', "quiet", NULL, "print the run ids only, one per line" },
				 OPT_END },
};
