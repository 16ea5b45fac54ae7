/* cmd_try: `campaign try RUN [KIND...]` closes the loop on a run's advice:
 * for each recommendation whose kind has a knob, a variant run of the same
 * scenarios with the knob applied (a child of RUN: variant.h), submitted
 * like any run; its analysis sets each prediction against what it measured.
 * SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "analyzers/advice.h"
#include "analyzers/prediction_check.h"
#include "analyzers/summary_keys.h"
#include "analyzers/write/prediction_check_text.h"
#include "orchestrator/backend/backend_pick.h"
#include "orchestrator/cli/prose.h"
#include "orchestrator/provenance.h"
#include "orchestrator/submission.h"
#include "orchestrator/variant.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "util/run_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct try_ctx {
	const struct args *a;
	struct run *parent;
	json_t *summary;
	const struct campaign *knobs; /* where the knobs come from */
	const struct backend_ops *be;
	char *parent_file; /* the parent's campaign file, absolute, as submitted; NULL: unknown */
	int wait;
	int submitted, failed;
	int stopped; /* a submission failed (said): its exit status; no further variant */
	int variants_read; /* variants waited for whose checks were read */
	int checked, confirmed; /* their predictions checked (confirmed or not), confirmed */
	int no_gain;            /* of those confirmed, as "no gain" alone (SK_NO_GAIN) */
	int few, drift;         /* apart: too few steps to tell, undecided (the runs drift) */
	int control;            /* --control: the parent re-run unchanged first */
	char *control_id, *control_dir; /* that run, once submitted; NULL: none */
};

/* The run's summary.json into *out: absent, the run has no analysis yet
 * (ERR_NOTFOUND); there but no JSON object, it is corrupt (ERR_IO), said so,
 * naming the file and where. */
static int parent_summary(struct run *r, const char *shown, json_t **out)
{
	struct strbuf p = STRBUF_INIT;
	json_error_t e;
	int rc = 0;
	strbuf_addf(&p, "%s/" RUN_SUMMARY, r->dir);
	json_t *j = fsio_exists(p.buf) ? json_load_file(p.buf, 0, &e) : NULL;
	if (j && !json_is_object(j)) {
		snprintf(e.text, sizeof e.text, "not a JSON object");
		e.line = 1;
		json_decref(j);
		j = NULL;
	}
	if (!j && !fsio_exists(p.buf))
		rc = err_set(
			ERR_NOTFOUND,
			"run %s has no analysis yet (%s): wait for it to end, or `campaign aggregate %s`",
			shown, p.buf, shown);
	else if (!j)
		rc = err_set(
			ERR_IO,
			"run %s: %s is corrupt (line %d: %s): `campaign aggregate --force %s` writes it again",
			shown, p.buf, e.line, e.text, shown);
	strbuf_free(&p);
	*out = j;
	return rc;
}

/* The campaign file the parent was submitted from (its provenance), or NULL. */
static char *parent_campaign_file(const struct run *parent)
{
	struct strbuf pj = STRBUF_INIT;
	strbuf_addf(&pj, "%s/" RUN_PROVENANCE, parent->dir);
	json_t *pp = json_load_file(pj.buf, 0, NULL);
	const char *file = pp ? jsonio_str(pp, "campaign_file") : "";
	char *out = *file ? xstrdup(file) : NULL;
	json_decref(pp);
	strbuf_free(&pj);
	return out;
}

/* The provenance of the code the variant runs: the repository of the
 * parent's campaign file when it is still there. */
static void record_provenance(struct run *child, const char *tmp, struct try_ctx *t,
			      const struct knob *k, const struct variant_plan *plan)
{
	const char *file = t->parent_file;
	struct provenance prov;
	char *bin = fsio_self_dir();
	provenance_collect(file && fsio_exists(file) ? file : tmp, bin, cmd_results_root(t->a),
			   &prov);
	free(bin);
	prov.variant = variant_provenance(t->parent->id, k, plan);
	if (provenance_write(child, &prov) < 0)
		fprintf(stderr, "campaign try: warning: provenance incomplete: %s\n", err_last());
	provenance_free(&prov);
}

/* The variant's campaign, loaded from a temporary file holding its text. */
static int variant_campaign(struct try_ctx *t, const struct knob *k, char *tmp, int *made,
			    struct campaign *c)
{
	struct strbuf cy = STRBUF_INIT, text = STRBUF_INIT;
	char *parent_text = NULL;
	strbuf_addf(&cy, "%s/" RUN_CAMPAIGN, t->parent->dir);
	int rc = fsio_read(cy.buf, 16 << 20, &parent_text, NULL);
	if (rc == 0)
		variant_campaign_text(parent_text, t->parent->id, k, &text);
	if (rc == 0)
		rc = fsio_write_temp(tmp, 5, text.buf, text.len, made);
	if (rc == 0 && cmd_load_campaign(tmp, c) != 0)
		rc = err_set(ERR_USAGE, "the variant of run %s for %s does not load (above)",
			     t->parent->id, k->kind);
	/* {{campaign_dir}} and CAMPAIGN_DIR stay the parent's folder, not the temporary's */
	if (rc == 0 && t->parent_file)
		c->origin = xstrdup(t->parent_file);
	free(parent_text);
	strbuf_free(&cy);
	strbuf_free(&text);
	return rc;
}

static void say_plan(const struct run *child, const struct variant_plan *p)
{
	size_t i;
	json_t *e;
	printf("variant for %s: %s\n", p->kind, p->text);
	json_array_foreach(p->predictions, i, e) {
		json_t *pred = json_object_get(e, SK_PREDICTED_STEP_MS),
		       *mean = json_object_get(e, SK_PREDICTED_MEAN_MS),
		       *measured_mean = json_object_get(e, SK_STEP_MEAN_MS);
		if (json_is_true(json_object_get(e, SK_GAIN_BY_MEANS)) && json_is_number(mean) &&
		    json_is_number(measured_mean)) {
			/* as the report leads and the check decides: by the means */
			printf("  %s: mean %.2f ms/step measured, %.2f ms predicted (by the means: its steps, measured or predicted, are not alike; median %.2f -> %.2f)\n",
			       jsonio_str(e, SK_SCENARIO), json_number_value(measured_mean),
			       json_number_value(mean), jsonio_num(e, SK_STEP_MS),
			       jsonio_num(e, SK_PREDICTED_STEP_MS));
			continue;
		}
		printf("  %s: %.1f ms/step measured, ", jsonio_str(e, SK_SCENARIO),
		       jsonio_num(e, SK_STEP_MS));
		if (json_is_number(pred) && !strcmp(p->kind, rec_kind_name(REC_BATCH)))
			printf("%.1f ms predicted for as many samples (half a step of twice the batch: the variant's steps are checked per sample)\n",
			       json_number_value(pred));
		else if (json_is_number(pred))
			printf("%.1f ms predicted\n", json_number_value(pred));
		else
			printf("no prediction (the accounting gives no ceiling)\n");
	}
	printf("run %s\n%s\n", child->id, child->dir);
	fflush(stdout);
}

/* The checks neither confirmed nor refuted, apart from the count: too few steps to tell, and
 * undecided where the two unchanged runs (parent and control) disagree. */
static void say_apart(int few, int drift)
{
	if (few)
		printf("; %d more too few steps to tell", few);
	if (drift)
		printf("; %d more undecided: the runs drift", drift);
}

/* Of the confirmed predictions, those confirmed as "no gain" alone (the advice held, not
 * the figure: prediction_check.h), said apart where there are any. */
static void say_no_gain(int n)
{
	if (n)
		printf(", %d of them as no gain", n);
}

/* Each checked prediction of a variant's summary s: what the variant measured against it and
 * the outcome, as its report's table says them. */
static void say_outcomes(json_t *s)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(s, SK_CHECKED_PREDICTIONS), i, e) {
		char *c[PREDICTION_CHECK_CELLS];
		prediction_check_cells(e, "%.2f", c);
		printf("  %s: %s ms predicted, %s ms measured: %s\n", c[PCELL_SCENARIO],
		       c[PCELL_PREDICTED], c[PCELL_MEASURED], c[PCELL_OUTCOME]);
		for (int k = 0; k < PREDICTION_CHECK_CELLS; k++)
			free(c[k]);
	}
}

/* A variant waited for: how many of its predictions were checked and confirmed (its
 * summary's checked_tally), said and added to t (a prediction measured beside other load, not
 * measured or absent is not checked), then each one's outcome. */
static void say_checked(struct try_ctx *t, const struct run *child)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" RUN_SUMMARY, child->dir);
	json_t *s = json_load_file(p.buf, 0, NULL), *k = json_object_get(s, SK_CHECKED_TALLY);
	strbuf_free(&p);
	if (json_is_object(k)) { /* as the report's line under its table says it */
		int n = (int)jsonio_num(k, "checked"), ok = (int)jsonio_num(k, "confirmed"),
		    no_gain = (int)jsonio_num(k, SK_NO_GAIN), few = (int)jsonio_num(k, "few_steps"),
		    drift = (int)jsonio_num(k, "drift");
		printf("checked: %d of %d prediction%s confirmed", ok, n, n == 1 ? "" : "s");
		say_no_gain(no_gain);
		printf(" (%s", child->id);
		const char *ctl = jsonio_str(json_object_get(s, SK_VARIANT), SK_CONTROL);
		if (ctl && *ctl)
			printf(", with control run %s", ctl);
		printf(")");
		say_apart(few, drift);
		printf("\n");
		t->variants_read++, t->checked += n, t->confirmed += ok, t->no_gain += no_gain;
		t->few += few, t->drift += drift;
		say_outcomes(s);
	}
	json_decref(s);
}

/* A control run waited for: each scenario's drift from the parent, as its summary's
 * side_effects rows hold it. */
static void say_control(const struct run *child)
{
	struct strbuf p = STRBUF_INIT;
	size_t i;
	json_t *e;
	strbuf_addf(&p, "%s/" RUN_SUMMARY, child->dir);
	json_t *s = json_load_file(p.buf, 0, NULL);
	strbuf_free(&p);
	printf("control %s: each scenario now against the parent as it ran\n", child->id);
	json_array_foreach(json_object_get(s, "side_effects"), i, e)
		printf("  %s: %.2f -> %.2f ms: %s\n", jsonio_str(e, SK_SCENARIO),
		       jsonio_num(e, SK_PARENT_STEP_MS), jsonio_num(e, SK_MEASURED_STEP_MS),
		       jsonio_str(e, SK_MEASURED_CHANGE));
	json_decref(s);
}

/* One variant: created, recorded as the parent's child, submitted. */
static int try_kind(struct try_ctx *t, const struct knob *k, const struct variant_plan *p)
{
	char tmp[] = "/tmp/campaign-try-XXXXXX.yaml";
	struct campaign c;
	struct run *child = NULL;
	int made = 0, rc = variant_campaign(t, k, tmp, &made, &c);
	/* a variable the knob passes through from this environment must be here (the
	 * parent's own were checked before); the message names the knobs' file */
	if (rc == 0) {
		char *tmp_path = c.path;
		c.path = t->knobs->path;
		rc = submission_check_env(&c);
		c.path = tmp_path;
		if (rc < 0)
			campaign_free(&c);
	}
	if (rc == 0) {
		rc = run_create(&c, cmd_results_root(t->a), t->be->name, cmd_journal(t->a), &child);
		campaign_free(&c);
	}
	int is_control = !strcmp(k->kind, CHECK_CONTROL_KIND);
	if (rc == 0) {
		record_provenance(child, tmp, t, k, p);
		rc = variant_write(child->dir, t->parent->id, t->parent->dir, k, p,
				   is_control ? NULL : t->control_id,
				   is_control ? NULL : t->control_dir);
	}
	if (made)
		unlink(tmp);
	if (rc < 0) {
		run_free(child);
		return rc;
	}
	run_follow_output(child); /* after a SIGHUP: this variant's lines in its own log */
	say_plan(child, p);
	rc = cmd_start_run("campaign try", t->a, child, t->be, t->wait);
	if (rc == 0 && is_control) {
		t->control_id = xstrdup(child->id), t->control_dir = xstrdup(child->dir);
		if (t->wait)
			say_control(child);
	} else if (rc == 0 && t->wait) {
		say_checked(t, child);
	}
	t->failed += rc > 0;
	t->submitted += rc >= 0;
	if (rc < 0)
		t->stopped = cmd_exit_of(rc);
	run_free(child);
	return 0;
}

/* The control run (--control): the parent's campaign re-run unchanged, before the variants;
 * each of them is then set against it (variant.json's control). */
static int try_control(struct try_ctx *t)
{
	struct knob k = { .kind = (char *)CHECK_CONTROL_KIND };
	struct variant_plan p = { .kind = (char *)CHECK_CONTROL_KIND,
				  .text = (char *)PROSE_TRY_CONTROL_PLAN,
				  .predictions = json_array() };
	int rc = try_kind(t, &k, &p);
	json_decref(p.predictions);
	return rc;
}

static void say_no_knob(const char *kind)
{
	printf("%s: no knob for these recommendations: add one to the campaign file, e.g.\n"
	       "  knobs:\n    %s: { params: { NAME: VALUE } }\n"
	       "(params, env, tasks_per_node or analysis.batch_per_rank), or give a campaign file with knobs: with --knobs FILE; nothing submitted for it\n",
	       kind, kind);
}

/* One kind, named or recommended: tried when it has a knob and a recommendation. */
static int try_one(struct try_ctx *t, const char *kind)
{
	struct variant_plan p;
	const struct knob *k = campaign_knob(t->knobs, kind);
	if (variant_plan_of(t->summary, kind, &p) < 0) {
		struct argv all;
		variant_kinds(t->summary, &all);
		printf("%s: run %s recommends nothing of this kind (its recommendations:", kind,
		       t->parent->id);
		for (size_t i = 0; i < all.n; i++)
			printf("%s %s", i ? "," : "", all.v[i]);
		printf("%s); nothing submitted for it\n", all.n ? "" : " none");
		argv_free(&all);
		return 0;
	}
	int rc = 0;
	if (!k)
		say_no_knob(kind);
	else
		rc = try_kind(t, k, &p);
	variant_plan_free(&p);
	return rc;
}

/* Knobs the run did not recommend: said, not tried. */
static void say_unrecommended(struct try_ctx *t)
{
	struct variant_plan p;
	for (size_t i = 0; i < t->knobs->n_knobs; i++) {
		const char *kind = t->knobs->knobs[i].kind;
		if (variant_plan_of(t->summary, kind, &p) == 0) {
			variant_plan_free(&p);
			continue;
		}
		printf("%s: a knob, but run %s recommends nothing of this kind; not tried\n", kind,
		       t->parent->id);
	}
}

/* Whether kind will make a variant: it has a knob and the run recommends it. */
static int triable(struct try_ctx *t, const char *kind)
{
	struct variant_plan p;
	if (!campaign_knob(t->knobs, kind) || variant_plan_of(t->summary, kind, &p) < 0)
		return 0;
	variant_plan_free(&p);
	return 1;
}

/* The kinds named, each once: a kind named again is one variant, said once. */
static void named_kinds(char **named, int nnamed, struct argv *kinds)
{
	struct argv said = { 0 };
	for (int i = 0; i < nnamed; i++) {
		if (!argv_has(kinds, named[i])) {
			argv_push(kinds, named[i]);
		} else if (!argv_has(&said, named[i])) {
			argv_push(&said, named[i]);
			fprintf(stderr,
				"campaign try: %s is named more than once: one variant for it\n",
				named[i]);
		}
	}
	argv_free(&said);
}

static int try_all(struct try_ctx *t, char **named, int nnamed)
{
	struct argv kinds = { 0 };
	if (nnamed) {
		named_kinds(named, nnamed, &kinds);
	} else {
		variant_kinds(t->summary, &kinds);
		say_unrecommended(t);
	}
	int rc = 0, tried = 0;
	for (size_t i = 0; i < kinds.n; i++)
		tried += triable(t, kinds.v[i]);
	if ((tried > 1 || (tried && t->control)) && !strcmp(t->be->name, "local") && !t->wait) {
		printf("the local executor runs the %d variants one after another (each measured alone): waiting for each\n",
		       tried + (t->control != 0));
		t->wait = 1;
	}
	if (tried && t->control)
		rc = try_control(t);
	for (size_t i = 0; rc >= 0 && !t->stopped && i < kinds.n; i++)
		rc = try_one(t, kinds.v[i]);
	size_t n = kinds.n;
	argv_free(&kinds);
	if (rc < 0)
		return rc;
	if (!n)
		printf("run %s makes no recommendation: nothing to try\n", t->parent->id);
	if (t->variants_read > 1) {
		printf("campaign try: %d of %d prediction%s confirmed", t->confirmed, t->checked,
		       t->checked == 1 ? "" : "s");
		say_no_gain(t->no_gain);
		printf(" over %d variants of run %s%s%s", t->variants_read, t->parent->id,
		       t->control_id ? ", with control run " : "",
		       t->control_id ? t->control_id : "");
		say_apart(t->few, t->drift);
		printf("\n");
	}
	if (t->variants_read && !t->control_id)
		printf("(each set against run %s as it ran: the drift since is not measured; --control measures it)\n",
		       t->parent->id);
	if (t->stopped)
		return t->stopped;
	return t->failed ? EXIT_JOBS_FAILED : t->submitted ? EXIT_OK : EXIT_USAGE;
}

static int try_exec(const struct cmd_entry *self, struct args *a)
{
	(void)self;
	struct try_ctx t = { .a = a,
			     .parent = a->run,
			     .wait = args_has(a, 'w'),
			     .control = args_has(a, 'C') };
	struct campaign kc;
	const char *kf = args_get(a, 'k');
	const struct campaign *pc = &a->run->c;
	if (pc->variant.kind)
		return err_set(
			ERR_USAGE,
			"run %s is itself a variant (of %s, for %s): try the recommendations of %s",
			a->run->id, pc->variant_of ? pc->variant_of : "another run",
			pc->variant.kind, pc->variant_of ? pc->variant_of : "that run");
	int rc = submission_check_env(pc); /* as submit: nothing made without them */
	if (rc < 0)
		return rc;
	if ((rc = parent_summary(a->run, a->pos[0], &t.summary)) < 0)
		return rc;
	t.knobs = &a->run->c;
	if (kf) {
		rc = cmd_load_campaign(kf, &kc);
		if (rc) {
			json_decref(t.summary);
			return rc;
		}
		t.knobs = &kc;
	}
	t.be = backend_for_run(a->run);
	t.parent_file = parent_campaign_file(a->run);
	rc = try_all(&t, a->pos + 1, a->npos - 1);
	free(t.parent_file);
	free(t.control_id);
	free(t.control_dir);
	if (kf)
		campaign_free(&kc);
	json_decref(t.summary);
	return rc;
}

const struct cmd_entry cmd_try_entry = {
	.name = "try",
	.usage =
		"[--wait] [--control] [--knobs FILE] [--no-aggregation-job] [--results DIR] RUN [KIND...]",
	.summary =
		"run each recommendation of RUN that has a knob as a variant, and check its prediction",
	.flags = CMD_RUN | CMD_OUTLIVES_OUTPUT,
	.min_pos = 1,
	.max_pos = -1,
	.exec = try_exec,
	.opts =
		(const struct optdef[]){
			OPT_WAIT,
			{ 'C', "control", NULL, PROSE_OPT_TRY_CONTROL },
			{ 'k', "knobs", "FILE",
			  "take the knobs from this campaign file instead of the run's own" },
			OPT_NO_AGGREGATION_JOB,
			OPT_END },
};
