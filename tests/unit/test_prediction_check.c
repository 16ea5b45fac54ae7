/* Unit tests for how a variant's checked predictions are shown outside its
 * report (orchestrator/variant.c: the cells and the knob in words, which run
 * is a variant; orchestrator/paper/table.c: a paper table's three forms and
 * LaTeX escaping): the text campaign compare and campaign paper print.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "orchestrator/paper/table.h"
#include "analyzers/prediction_check.h"
#include "analyzers/write/prediction_check_text.h"
#include "orchestrator/variant.h"
#include "util/fsio.h"
#include "util/run_layout.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void cells(json_t *e, const char *fmt, char *c[PREDICTION_CHECK_CELLS])
{
	prediction_check_cells(e, fmt, c);
}

static void free_cells(char *c[PREDICTION_CHECK_CELLS])
{
	for (int k = 0; k < PREDICTION_CHECK_CELLS; k++)
		free(c[k]);
}

static void check_cells_numbers_and_words(void)
{
	json_t *e = json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:s, s:n}", "scenario",
			      "comm-1n", "kind", "communication", "parent_step_ms", 81.133,
			      "predicted_step_ms", 25.707, "measured_step_ms", 47.253, "ci_low",
			      42.302, "ci_high", 52.052, "outcome", "worse than predicted", "miss");
	char *c[PREDICTION_CHECK_CELLS];
	cells(e, "%.2f", c);
	CHECK_STR(c[PCELL_SCENARIO], "comm-1n");
	CHECK_STR(c[PCELL_PARENT], "81.13");
	CHECK_STR(c[PCELL_PREDICTED], "25.71");
	CHECK_STR(c[PCELL_PREDICTED_INTERVAL], "n/a"); /* none, and no basis said */
	CHECK_STR(c[PCELL_MEASURED], "47.25");
	CHECK_STR(c[PCELL_MEASURED_CI], "42.30 to 52.05");
	CHECK_STR(c[PCELL_OUTCOME], "1.72x faster (95 % CI 1.56-1.92x): worse than predicted");
	CHECK_STR(c[PCELL_ERROR], "+83.8"); /* 47.253 against 25.707, in % of the prediction */
	free_cells(c);
	cells(e, "%.3f", c);
	CHECK_STR(c[PCELL_PARENT], "81.133");
	CHECK_STR(c[PCELL_MEASURED_CI], "42.302 to 52.052");
	free_cells(c);
	json_decref(e);
}

/* the prediction's interval: a replay's, a bound's marked, a ceiling's named */
static void check_cells_predicted_interval(void)
{
	json_t *e = json_pack("{s:s, s:f, s:[f, f], s:s}", "scenario", "s", "predicted_step_ms",
			      26.095, "predicted_interval_ms", 12.049, 45.45, "prediction_basis",
			      "replay");
	char *c[PREDICTION_CHECK_CELLS];
	cells(e, "%.2f", c);
	CHECK_STR(c[PCELL_PREDICTED_INTERVAL], "12.05 to 45.45");
	free_cells(c);
	json_object_set_new(e, "prediction_basis", json_string("bound"));
	cells(e, "%.3f", c);
	CHECK_STR(c[PCELL_PREDICTED_INTERVAL], "12.049 to 45.450 (bound)");
	free_cells(c);
	json_object_set_new(e, "prediction_basis", json_string("ceiling"));
	json_object_set_new(e, "predicted_interval_ms", json_null());
	cells(e, "%.2f", c);
	CHECK_STR(c[PCELL_PREDICTED_INTERVAL], "ceiling");
	free_cells(c);
	json_object_set_new(e, "prediction_basis", json_null()); /* no prediction */
	cells(e, "%.2f", c);
	CHECK_STR(c[PCELL_PREDICTED_INTERVAL], "n/a");
	free_cells(c);
	/* set against the control: the step as it ran beside the corrected one */
	json_object_set_new(e, "measured_step_ms", json_real(24.96));
	json_object_set_new(e, "outcome", json_string("confirmed"));
	json_object_set_new(e, "against_control", json_true());
	json_object_set_new(e, "uncorrected", json_pack("{s:f, s:s}", "measured_step_ms", 25.35,
							 "outcome", "confirmed"));
	cells(e, "%.2f", c);
	CHECK_STR(c[PCELL_MEASURED], "24.96 (as it ran: 25.35)");
	CHECK(strstr(c[PCELL_OUTCOME], "confirmed (against the control)") != NULL);
	free_cells(c);
	json_decref(e);
}

/* null (no prediction, not measured) and missing values are n/a, never 0 */
static void check_cells_nulls_are_na(void)
{
	json_t *e = json_pack("{s:s, s:f, s:n, s:n, s:n, s:f, s:s}", "scenario", "io-2n",
			      "parent_step_ms", 12.5, "predicted_step_ms", "measured_step_ms",
			      "ci_low", "ci_high", 3.0, "outcome", "not measured");
	char *c[PREDICTION_CHECK_CELLS];
	cells(e, "%.2f", c);
	CHECK_STR(c[PCELL_PARENT], "12.50");
	CHECK_STR(c[PCELL_PREDICTED], "n/a");
	CHECK_STR(c[PCELL_PREDICTED_INTERVAL], "n/a");
	CHECK_STR(c[PCELL_MEASURED], "n/a");
	CHECK_STR(c[PCELL_MEASURED_CI], "n/a"); /* half an interval is none */
	CHECK_STR(c[PCELL_OUTCOME], "not measured");
	CHECK_STR(c[PCELL_ERROR], "n/a");
	free_cells(c);
	json_decref(e);
	e = json_object();
	cells(e, "%.2f", c);
	CHECK_STR(c[PCELL_SCENARIO], "");
	CHECK_STR(c[PCELL_PARENT], "n/a");
	CHECK_STR(c[PCELL_OUTCOME], "n/a");
	free_cells(c);
	json_decref(e);
}

/* the measured change heads an outcome: slower, faster or none, with the ratio's interval */
static void change_in_words(void)
{
	struct strbuf sb = STRBUF_INIT;
	prediction_check_change_write(&sb, 10.0, 45.5, 43.1, 48.0, 0);
	CHECK_STR(sb.buf, "4.55x slower (95 % CI 4.31-4.80x)");
	strbuf_reset(&sb);
	prediction_check_change_write(&sb, 10.0, 8.0, 7.5, 8.4, 0);
	CHECK_STR(sb.buf, "1.25x faster (95 % CI 1.19-1.33x)");
	strbuf_reset(&sb);
	prediction_check_change_write(&sb, 10.0, 10.2, 9.6, 10.5, 0);
	CHECK_STR(sb.buf, "no measurable change (95 % CI 0.96-1.05x the parent's)");
	strbuf_reset(&sb);
	prediction_check_change_write(&sb, 10.0, 0, 0, 0, 0);
	CHECK_STR(sb.buf, "not measured");
	strbuf_reset(&sb);
	prediction_check_change_write(&sb, 10.0, 8.0, 7.5, 8.4, 1);
	CHECK_STR(sb.buf, "1.25x faster per sample (95 % CI 1.19-1.33x)");
	strbuf_reset(&sb);
	prediction_check_change_write(&sb, 10.0, 8.0, -1, -1, 0);
	CHECK_STR(sb.buf, "no interval (fewer than 5 steps on a side)");
	strbuf_free(&sb);
	json_t *e = json_pack("{s:s, s:f, s:n, s:f, s:f, s:f, s:s}", "scenario", "s",
			      "parent_step_ms", 10.0, "predicted_step_ms", "measured_step_ms", 45.5,
			      "ci_low", 43.1, "ci_high", 48.0, "outcome", "no prediction");
	char *c[PREDICTION_CHECK_CELLS];
	cells(e, "%.2f", c);
	CHECK_STR(c[PCELL_OUTCOME], "4.55x slower (95 % CI 4.31-4.80x): no prediction");
	free_cells(c);
	json_decref(e);
}

/* one rule: within 10 % of the prediction confirms, whatever the interval; else no
 * measurable change is noise; else the side of the prediction it fell on; a variant
 * measured beside other load is not checked */
static void outcome_rule(void)
{
	CHECK(check_decide(-1, 45, 10, 43, 48, -1, -1, 0) == CHECK_UNPREDICTED);
	CHECK(check_decide(20, 21.9, 30, 21, 23, -1, -1, 0) == CHECK_CONFIRMED);
	CHECK(check_decide(20, 18.1, 30, 17, 19, -1, -1, 0) == CHECK_CONFIRMED);
	CHECK(check_decide(20, 22.2, 30, 21.5, 22.9, -1, -1, 0) == CHECK_WORSE);
	CHECK(check_decide(20, 17.9, 30, 17, 19, -1, -1, 0) == CHECK_BETTER);
	CHECK(check_decide(15, 29, 30, 25, 33, -1, -1, 0) == CHECK_NOISE);
	/* a prediction inside a wide interval but 20 % off is not confirmed */
	CHECK(check_decide(20, 25, 30, 18, 27, -1, -1, 0) == CHECK_WORSE);
	/* measured beside other load: nothing is checked, whatever the numbers say */
	CHECK(check_decide(20, 21.9, 30, 21, 23, -1, -1, 1) == CHECK_CONTAMINATED);
	/* a replayed prediction's interval confirms what lies in it, beyond 10 % */
	CHECK(check_decide(20, 23.5, 30, 22.5, 24.5, 18, 24, 0) == CHECK_CONFIRMED);
	CHECK(check_decide(20, 24.5, 30, 23.5, 25.5, 18, 24, 0) == CHECK_WORSE);
	/* ... unless it holds the parent's median too: it then predicts no change as well */
	CHECK(check_decide(20, 23.5, 30, 22.5, 24.5, 18, 35, 0) == CHECK_WORSE);
	CHECK(check_decide(20, 21.5, 30, 20.5, 22.5, 18, 35, 0) == CHECK_CONFIRMED);
	CHECK(check_decide(20, 23.5, 30, 22.5, 24.5, 18, 24, 1) == CHECK_CONTAMINATED);
	CHECK(check_decide(20, 22.2, 30, 21.5, 22.9, -1, -1, 1) == CHECK_CONTAMINATED);
	CHECK(check_decide(-1, 45, 10, 43, 48, -1, -1, 1) == CHECK_UNPREDICTED);
	CHECK_STR(check_outcome_name(CHECK_CONTAMINATED),
		  "not checked (measured beside other load)");
	/* no measured interval (fewer than 5 steps on a side): within 10 % still confirms;
	 * else neither noise nor a direction */
	CHECK(check_decide(20, 21.9, 30, -1, -1, -1, -1, 0) == CHECK_CONFIRMED);
	CHECK(check_decide(20, 29, 30, -1, -1, -1, -1, 0) == CHECK_FEW_STEPS);
	CHECK(check_decide(20, 12, 30, -1, -1, -1, -1, 0) == CHECK_FEW_STEPS);
	CHECK(check_decide(20, 23.5, 30, -1, -1, 18, 24, 0) == CHECK_CONFIRMED);
	CHECK_STR(check_outcome_name(CHECK_FEW_STEPS), "too few steps to tell");
	/* "no gain predicted" (29.5 of 30: under 2 % off) holds where the step gained no
	 * more: 15 % slower (beyond the 10 %), 1.9 % faster, or no measurable change */
	CHECK(check_decide(29.5, 34.5, 30, 33.5, 35.5, -1, -1, 0) == CHECK_CONFIRMED);
	CHECK(check_decide(29.5, 34.5, 30, -1, -1, -1, -1, 0) == CHECK_CONFIRMED);
	CHECK(check_decide(31, 36, 30, 35, 37, -1, -1, 0) == CHECK_CONFIRMED);
	CHECK(check_decide(29.5, 29.43, 30, 29.2, 29.6, -1, -1, 0) == CHECK_CONFIRMED);
	CHECK(check_decide(29.5, 26, 30, 25, 31, -1, -1, 0) == CHECK_CONFIRMED);
	/* ... and not where it gained: beyond the 10 % and beyond noise */
	CHECK(check_decide(29.5, 26, 30, 25, 27, -1, -1, 0) == CHECK_BETTER);
	CHECK(check_decide(29.5, 26, 30, -1, -1, -1, -1, 0) == CHECK_FEW_STEPS);
	/* a gain of 2 % or more predicted is not "no gain": a slower step refutes it */
	CHECK(check_decide(29.3, 34.5, 30, 33.5, 35.5, -1, -1, 0) == CHECK_WORSE);
	CHECK(check_decide(29.5, 34.5, 30, 33.5, 35.5, -1, -1, 1) == CHECK_CONTAMINATED);
}

static void knob_in_words(void)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *k = json_loads(
		"{\"params\": {\"ddp\": \"bucketed\", \"workers\": \"4\"}, \"env\": {\"TOKEN\": {\"from_env\": true}}, \"tasks_per_node\": 4, \"analysis\": {\"batch_per_rank\": 8}}",
		0, NULL);
	variant_knob_text(k, &sb);
	CHECK_STR(
		sb.buf,
		"params.ddp=bucketed, params.workers=4, env.TOKEN.from_env=true, tasks_per_node=4, analysis.batch_per_rank=8");
	json_decref(k);
	variant_knob_text(json_null(), &sb);
	CHECK_STR(strbuf_str(&sb), "");
	k = json_object();
	variant_knob_text(k, &sb);
	CHECK_STR(strbuf_str(&sb), "");
	json_decref(k);
	strbuf_free(&sb);
}

/* summary.json's variant names the parent; without it, variant.json does */
static void which_run_is_a_variant(void)
{
	char dir[] = "/tmp/test-checked-views-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	json_t *s = json_loads(
		"{\"run_id\": \"C\", \"variant\": {\"of\": \"P\", \"kind\": \"io\", \"knob\": {\"params\": {\"a\": \"b\"}}}}",
		0, NULL);
	json_t *i = variant_info(s, dir);
	CHECK(i && !strcmp(json_string_value(json_object_get(i, "of")), "P"));
	CHECK(i && !strcmp(json_string_value(json_object_get(i, "kind")), "io"));
	CHECK(i && json_is_object(json_object_get(i, "knob")));
	json_decref(i);
	json_decref(s);
	s = json_loads("{\"run_id\": \"P\", \"variant\": null}", 0, NULL);
	CHECK(variant_info(s, dir) == NULL); /* no variant.json either */
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" RUN_VARIANT, dir);
	const char *vj = "{\"parent_run\": \"Q\", \"kind\": \"communication\"}\n";
	CHECK(fsio_write_atomic(p.buf, vj, strlen(vj), 0644) == 0);
	i = variant_info(s, dir);
	CHECK(i && !strcmp(json_string_value(json_object_get(i, "of")), "Q"));
	CHECK(i && json_is_null(json_object_get(i, "knob")));
	json_decref(i);
	json_decref(s);
	fsio_remove_tree(dir);
	strbuf_free(&p);
}

static void tex_escaping(void)
{
	struct strbuf sb = STRBUF_INIT;
	paper_tex_escape(&sb, "95 % of a_b & #1 $x {y} \\ ~ ^ <> line\nbreak");
	CHECK_STR(
		sb.buf,
		"95 \\% of a\\_b \\& \\#1 \\$x \\{y\\} \\textbackslash{} \\textasciitilde{} \\textasciicircum{} \\textless{}\\textgreater{} line break");
	strbuf_free(&sb);
}

static char *slurp(const char *dir, const char *rel)
{
	struct strbuf p = STRBUF_INIT;
	char *text = NULL;
	strbuf_addf(&p, "%s/%s", dir, rel);
	if (fsio_read(p.buf, 1 << 20, &text, NULL) < 0)
		text = NULL;
	strbuf_free(&p);
	return text;
}

static void table_three_forms(void)
{
	static const char *const head[] = { "Scenario", "95 % CI (ms)" };
	char dir[] = "/tmp/test-checked-views-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct paper_table t = { .name = "t_x", .caption = "Knob a_b\nc", .ncols = 2,
				 .head = head, .align = "lr" };
	char **row = paper_table_row(&t);
	row[0] = xstrdup("s-1");
	row[1] = paper_cell_num("%.2f", 1.005);
	row = paper_table_row(&t);
	row[0] = xstrdup("s_2");
	row[1] = xstrdup("n/a");
	row = paper_table_row(&t); /* a cell with a comma and a quote: quoted in the CSV */
	row[0] = xstrdup("s,3");
	row[1] = xstrdup("say \"x\"");
	CHECK(paper_table_write(dir, &t) == 0);
	char *tex = slurp(dir, "tables/t_x.tex"), *csv = slurp(dir, "tables/t_x.csv"),
	     *md = slurp(dir, "tables/t_x.md");
	CHECK_STR(
		tex,
		"% Knob a_b c\n\\begin{table}\n\\centering\n\\caption{Knob a\\_b c}\n"
		"\\label{tab:t_x}\n\\resizebox{\\linewidth}{!}{%\n\\begin{tabular}{lr}\n\\toprule\n"
		"Scenario & 95 \\% CI (ms) \\\\\n\\midrule\ns-1 & 1.00 \\\\\ns\\_2 & n/a \\\\\ns,3 & say \"x\" \\\\\n\\bottomrule\n\\end{tabular}}\n\\end{table}\n");
	CHECK_STR(csv, "Scenario,95 % CI (ms)\ns-1,1.00\ns_2,n/a\n\"s,3\",\"say \"\"x\"\"\"\n");
	CHECK_STR(
		md,
		"| Scenario | 95 % CI (ms) |\n|---|---:|\n| s-1 | 1.00 |\n| s_2 | n/a |\n| s,3 | say \"x\" |\n\nTable: Knob a_b c\n");
	free(tex);
	free(csv);
	free(md);
	paper_table_free(&t);
	CHECK(t.rows == NULL && t.nrows == 0);
	fsio_remove_tree(dir);
}

/* A knob's env values stay in the private variant.json: the checks (summary.json, the
 * report, the paper) and compare's family get the variables' names only. */
static void knob_env_names_only(void)
{
	char dir[] = "/tmp/test-checked-views-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" RUN_VARIANT, dir);
	const char *vj =
		"{\"parent_run\": \"P\", \"parent_dir\": \"/nonexistent\", \"kind\": \"io\", \"knob\": {\"env\": {\"IO_DEPTH\": \"value-7f3a\"}, \"params\": {\"a\": \"b\"}}, \"predictions\": []}\n";
	CHECK(fsio_write_atomic(p.buf, vj, strlen(vj), 0600) == 0);
	struct ana_variant v;
	CHECK(variant_checks(dir, &v) == 0);
	CHECK_STR(v.knob, "{\"env\":[\"IO_DEPTH\"],\"params\":{\"a\":\"b\"}}");
	prediction_check_free(&v);
	json_t *s = json_loads("{\"run_id\": \"C\"}", 0, NULL);
	json_t *i = variant_info(s, dir);
	char *k = i ? json_dumps(json_object_get(i, "knob"), JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	CHECK(k && !strcmp(k, "{\"env\":[\"IO_DEPTH\"],\"params\":{\"a\":\"b\"}}"));
	free(k);
	json_decref(i);
	json_decref(s);
	fsio_remove_tree(dir);
	strbuf_free(&p);
}

/* A bound's basis reaches the check: from the variant's copy of the prediction, or, for a
 * variant made before bounds were marked ("replay"), from the parent's summary where it says
 * "bound" of the same prediction. */
static void bound_basis_read(void)
{
	char dir[] = "/tmp/test-bound-basis-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct strbuf p = STRBUF_INIT, vj = STRBUF_INIT;
	strbuf_addf(&p, "%s/" RUN_SUMMARY, dir);
	const char *ps =
		"{\"recommendations\": [{\"kind\": \"communication\", \"scenarios\": [\"a\", \"b\"], \"predicted_step_ms\": [3.68, 11.89], \"prediction_basis\": [\"bound\", \"replay\"]}], \"scenarios\": []}\n";
	CHECK(fsio_write_atomic(p.buf, ps, strlen(ps), 0600) == 0);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/" RUN_VARIANT, dir);
	strbuf_addf(
		&vj,
		"{\"parent_run\": \"P\", \"parent_dir\": \"%s\", \"kind\": \"communication\", \"knob\": {}, \"predictions\": [{\"scenario\": \"a\", \"predicted_step_ms\": 3.68, \"prediction_basis\": \"replay\"}, {\"scenario\": \"b\", \"predicted_step_ms\": 11.89, \"prediction_basis\": \"replay\"}, {\"scenario\": \"c\", \"predicted_step_ms\": 2, \"prediction_basis\": \"bound\"}]}\n",
		dir);
	CHECK(fsio_write_atomic(p.buf, vj.buf, vj.len, 0600) == 0);
	struct ana_variant v;
	CHECK(variant_checks(dir, &v) == 0);
	CHECK(v.n >= 3 && v.checks[0].basis_bound == 1 && v.checks[1].basis_bound == 0 &&
	      v.checks[2].basis_bound == 1 && !v.checks[0].by_ceiling);
	prediction_check_free(&v);
	fsio_remove_tree(dir);
	strbuf_free(&p);
	strbuf_free(&vj);
}

/* A step faster than predicted says which other share fell (the prediction kept it as it
 * was); beyond a ceiling, that the ceiling takes off the cause's share alone. */
static void better_says_what_fell(void)
{
	struct ana_check c = { .predicted_ms = 43.67, .measured_ms = 31.07, .pred_lo_ms = -1,
			       .pred_hi_ms = -1, .by_ceiling = 1, .outcome = CHECK_BETTER,
			       .missed = 1 };
	c.miss = (struct check_miss){ .known = 1, .target = 2, .grew = -1, .shrank = 0 };
	c.miss.before_ms[2] = 197.34, c.miss.after_ms[2] = 13.16;
	c.miss.before_ms[0] = 25.54, c.miss.after_ms[0] = 9.06;
	struct strbuf sb = STRBUF_INIT;
	prediction_check_miss_write(&sb, &c);
	CHECK_STR(
		sb.buf,
		"Predicted 43.67 ms, measured 31.07 ms: data loading went from 197.34 to 13.16 ms per step, and compute fell from 25.54 to 9.06 ms per step, which the ceiling kept as it was: faster than the ceiling, which takes off the cause's accounted share alone (the change also sped up the rest of the step, or the parent's accounting gave the cause less than it cost).");
	strbuf_reset(&sb);
	c.pred_lo_ms = 40, c.pred_hi_ms = 45; /* a replay's: it did not keep compute as it was */
	c.by_ceiling = 0;
	prediction_check_miss_write(&sb, &c);
	CHECK_STR(
		sb.buf,
		"Predicted 43.67 ms, measured 31.07 ms: data loading went from 197.34 to 13.16 ms per step, and compute fell from 25.54 to 9.06 ms per step as well.");
	strbuf_reset(&sb);
	c.pred_lo_ms = c.pred_hi_ms = -1; /* a replay of too few steps for an interval: the same */
	prediction_check_miss_write(&sb, &c);
	CHECK(strstr(sb.buf, "as well.") && !strstr(sb.buf, "ceiling"));
	strbuf_reset(&sb);
	c.miss.shrank = -1; /* nothing else fell */
	prediction_check_miss_write(&sb, &c);
	CHECK_STR(
		sb.buf,
		"Predicted 43.67 ms, measured 31.07 ms: data loading went from 197.34 to 13.16 ms per step; no other share of the step fell by more than 1 % of it.");
	strbuf_free(&sb);
}

int main(void)
{
	RUN(check_cells_numbers_and_words);
	RUN(check_cells_nulls_are_na);
	RUN(check_cells_predicted_interval);
	RUN(bound_basis_read);
	RUN(change_in_words);
	RUN(outcome_rule);
	RUN(better_says_what_fell);
	RUN(knob_in_words);
	RUN(which_run_is_a_variant);
	RUN(tex_escaping);
	RUN(table_three_forms);
	RUN(knob_env_names_only);
	HARNESS_END();
}
