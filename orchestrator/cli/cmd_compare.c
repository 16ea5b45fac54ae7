/* cmd_compare: `campaign compare RUN_A RUN_B` prints run B set against
 * reference A (orchestrator/compare.h): per scenario and metric the ratio
 * and whether its 95 % interval calls it better, worse or within noise; the
 * verdicts and stragglers; a variant's checked predictions; --json prints
 * the document itself.
 * SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "analyzers/prediction_check.h"
#include "analyzers/summary_keys.h"
#include "analyzers/write/prediction_check_text.h"
#include "orchestrator/cli/prose.h"
#include "orchestrator/compare.h"
#include "orchestrator/variant.h"
#include "util/jsonio.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_text(json_t *doc)
{
	const char *name;
	json_t *sc;
	printf("reference %s\ncandidate %s\n", json_string_value(json_object_get(doc, "reference")),
	       json_string_value(json_object_get(doc, "candidate")));
	json_object_foreach(json_object_get(doc, "scenarios"), name, sc) {
		printf("\n%s: %s -> %s\n  %-30s %14s %14s %8s\n", name,
		       json_string_value(json_object_get(sc, "verdict_reference")),
		       json_string_value(json_object_get(sc, "verdict_candidate")), "metric",
		       "reference", "candidate", "ratio");
		for (size_t k = 0; k < compare_nmetrics(); k++) {
			json_t *m = json_object_get(json_object_get(sc, "metrics"),
						    compare_metric_label(k));
			if (!m)
				continue;
			json_t *ratio = json_object_get(m, "ratio");
			char r[32] = "     n/a";
			if (json_is_number(ratio))
				snprintf(r, sizeof r, "%7.3fx", json_number_value(ratio));
			json_t *better = json_object_get(m, "better"),
			       *ci = json_object_get(m, "ratio_95ci");
			char range[64] = "";
			if (json_is_array(ci))
				snprintf(range, sizeof range, " (95 %% CI %.3f-%.3f)",
					 json_number_value(json_array_get(ci, 0)),
					 json_number_value(json_array_get(ci, 1)));
			const char *note = json_string_value(json_object_get(m, "note"));
			printf("  %-30s %14.3f %14.3f %s%s%s%s%s%s\n", compare_metric_label(k),
			       json_number_value(json_object_get(m, "reference")),
			       json_number_value(json_object_get(m, "candidate")), r,
			       json_is_true(better)    ? "  better"
			       : json_is_false(better) ? "  worse"
			       : json_is_string(better) ? "  "
							: "",
			       json_is_string(better) ? json_string_value(better) : "", range,
			       note ? "; p95 " : "", note ? note : "");
		}
		printf("  stragglers: %s -> %s\n",
		       json_string_value(json_object_get(sc, "stragglers_reference")),
		       json_string_value(json_object_get(sc, "stragglers_candidate")));
	}
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(doc, "only_in_one"), i, v)
		printf("\n%s: in one run only (or not analysed in both): not compared\n",
		       json_string_value(v));
}

#define CHECK_ROW "  %-20s %14s %14s %14s  %-22s %s\n"

static void print_checked(json_t *f)
{
	struct strbuf knob = STRBUF_INIT;
	json_t *ck = json_object_get(f, SK_CHECKED_PREDICTIONS), *e;
	size_t i;
	variant_knob_text(json_object_get(f, SK_KNOB), &knob);
	printf("\nPredicted and measured (campaign try: %s)\n  %s run %s is a variant of run %s%s%s%s\n",
	       jsonio_str(f, SK_KIND), jsonio_str(f, "variant"), jsonio_str(f, "variant_run"),
	       jsonio_str(f, SK_OF), knob.len ? " (knob " : "", knob.buf ? knob.buf : "",
	       knob.len ? ")" : "");
	if (json_is_string(json_object_get(f, SK_CONTROL)))
		printf(PROSE_COMPARE_WITH_CONTROL, jsonio_str(f, SK_CONTROL));
	if (!strcmp(jsonio_str(f, SK_KIND), CHECK_CONTROL_KIND))
		printf("  a control run: the parent's campaign re-run unchanged, no predictions (its report and summary.json's side_effects give each scenario's drift)\n");
	else if (!json_array_size(ck))
		printf("  its summary.json holds no checked predictions (`campaign aggregate %s` writes them)\n",
		       jsonio_str(f, "variant_run"));
	else
		printf(CHECK_ROW, "scenario", "parent (ms)", "predicted (ms)", "measured (ms)",
		       "95 % CI (ms)", "outcome");
	json_array_foreach(ck, i, e) {
		char *c[PREDICTION_CHECK_CELLS];
		prediction_check_cells(e, "%.3f", c);
		printf(CHECK_ROW, c[PCELL_SCENARIO], c[PCELL_PARENT], c[PCELL_PREDICTED],
		       c[PCELL_MEASURED], c[PCELL_MEASURED_CI], c[PCELL_OUTCOME]);
		for (int k = 0; k < PREDICTION_CHECK_CELLS; k++)
			free(c[k]);
	}
	json_array_foreach(ck, i, e)
		if (json_is_string(json_object_get(e, SK_MISS)))
			printf("  %s: %s\n", jsonio_str(e, SK_SCENARIO), jsonio_str(e, SK_MISS));
	strbuf_free(&knob);
}

static int compare_exec(const struct cmd_entry *self, struct args *a)
{
	json_t *doc;
	(void)self;
	int rc = compare_runs(cmd_results_root(a), cmd_journal(a), a->pos[0], a->pos[1], &doc);
	if (rc < 0)
		return rc;
	json_t *warn = json_object_get(doc, "caution"),
	       *fam = json_object_get(doc, "predicted_and_measured");
	if (args_has(a, 'j')) {
		char *text =
			json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(10));
		printf("%s\n", text);
		free(text);
	} else {
		if (json_is_string(warn))
			printf("caution: %s\n", json_string_value(warn));
		print_text(doc);
		if (fam)
			print_checked(fam);
	}
	int n = (int)json_object_size(json_object_get(doc, "scenarios"));
	json_decref(doc);
	if (n == 0) {
		fprintf(stderr, "campaign compare: no scenario was analysed in both runs\n");
		return EXIT_NOTFOUND;
	}
	return EXIT_OK;
}

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.usage = "[--json] [--results DIR] RUN_A RUN_B",
	.summary =
		"run B against reference A: ratios per metric and scenario; a variant's checked predictions",
	.flags = CMD_RESULTS,
	.min_pos = 2,
	.max_pos = 2,
	.exec = compare_exec,
	.opts = (const struct optdef[]){ OPT_JSON("print one JSON document"), OPT_END },
};
