/* trial: one commit of a bisection as a child run.
 * SPDX-License-Identifier: MIT */
#include "trial.h"
#include "bisection.h"
#include "worktree.h"
#include "analyzers/stats.h"
#include "analyzers/summary_keys.h"
#include "orchestrator/campaign/diag.h"
#include "orchestrator/provenance.h"
#include "orchestrator/run.h"
#include "orchestrator/store/snapshot.h"
#include "orchestrator/submission.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "util/run_layout.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *trial_tree(const struct trial_ctx *t, const char *hash, char *name, size_t n)
{
	struct strbuf p = STRBUF_INIT;
	snprintf(name, n, "campaign-bisect-%s-%.12s", jsonio_str(t->state, "bisection"), hash);
	strbuf_addf(&p, "%s/" BISECT_TREES "/%.12s", t->dir, hash);
	return strbuf_detach(&p);
}

/* The campaign of commit i: the frozen text with bisect: appended, in tmp (the
 * caller removes it once the run froze it), loaded, its {{campaign_dir}} in the
 * tree (where the campaign file lies in the repository). */
static int trial_campaign(const struct trial_ctx *t, const char *hash, const char *tree,
			  int steps, char *tmp, int *made, struct campaign *c)
{
	struct strbuf p = STRBUF_INIT, text = STRBUF_INIT;
	struct diags d;
	char *frozen = NULL;
	strbuf_addf(&p, "%s/" RUN_CAMPAIGN, t->dir);
	int rc = fsio_read(p.buf, 16 << 20, &frozen, NULL);
	if (rc == 0) {
		strbuf_addf(
			&text,
			"%s\n# campaign bisect: this run tests one commit\n"
			"bisect: {of: \"%s\", commit: \"%s\", scenario: \"%s\", active_steps: %d}\n",
			frozen, jsonio_str(t->state, "bisection"), hash,
			jsonio_str(t->state, "scenario"), steps);
		rc = fsio_write_temp(tmp, 5, text.buf, text.len, made);
	}
	diags_init(&d, tmp);
	if (rc == 0 && campaign_load(tmp, c, &d) < 0) {
		diags_print(&d, stderr);
		rc = err_set(ERR_USAGE, "the campaign of commit %.12s does not load (above)", hash);
	}
	diags_free(&d);
	if (rc == 0) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", tree, jsonio_str(t->state, "campaign_in_repo"));
		free(c->origin);
		c->origin = strbuf_detach(&p);
	}
	free(frozen);
	strbuf_free(&p);
	strbuf_free(&text);
	return rc;
}

int trial_check(const struct trial_ctx *t)
{
	struct campaign c;
	char tmp[] = "/tmp/campaign-bisect-XXXXXX.yaml";
	size_t last = bisection_ncommits(t->state) - 1;
	int made = 0;
	int rc = trial_campaign(t, bisection_commit(t->state, last), jsonio_str(t->state, "repo"),
				2 * (int)jsonio_num(t->state, "active_steps"), tmp, &made, &c);
	if (made)
		unlink(tmp);
	if (rc == 0)
		campaign_free(&c);
	return rc;
}

static void record(struct run *child, const struct trial_ctx *t, const char *hash,
		   const char *file, int steps)
{
	struct provenance prov;
	char *bin = fsio_self_dir();
	provenance_collect(file, bin, t->root, &prov);
	free(bin);
	prov.bisect = json_pack("{s:s, s:s, s:s, s:s, s:i}", "of",
				jsonio_str(t->state, "bisection"), "commit", hash, "good",
				jsonio_str(t->state, "good.commit"), "bad",
				jsonio_str(t->state, "bad.commit"), "active_steps", steps);
	if (provenance_write(child, &prov) < 0)
		fprintf(stderr, "campaign bisect: warning: provenance incomplete: %s\n",
			err_last());
	provenance_free(&prov);
}

int trial_create(const struct trial_ctx *t, size_t i, int active_steps, char **run_id)
{
	const char *hash = bisection_commit(t->state, i);
	char name[128];
	char *tree = trial_tree(t, hash, name, sizeof name);
	struct campaign c;
	struct run *child = NULL;
	char tmp[] = "/tmp/campaign-bisect-XXXXXX.yaml";
	int made = 0;
	*run_id = NULL;
	int rc = worktree_checkout(jsonio_str(t->state, "repo"), name, tree, hash);
	if (rc == 0)
		rc = trial_campaign(t, hash, tree, active_steps, tmp, &made, &c);
	if (rc == 0) {
		rc = run_create(&c, t->root, t->be->name, t->journal, &child);
		if (rc == 0)
			record(child, t, hash, c.origin, active_steps);
		campaign_free(&c);
	}
	if (made)
		unlink(tmp);
	if (rc == 0)
		*run_id = xstrdup(child->id);
	run_free(child);
	free(tree);
	return rc;
}

/* The node-hours the run's jobs held: nodes x (end - start) of each attempt. */
static double node_hours(struct run *r)
{
	struct snapshot js = SNAPSHOT_INIT;
	double h = 0;
	if (snapshot_load(r->st, &js) == 0)
		for (size_t i = 0; i < js.n_all; i++) {
			const struct job_row *j = &js.all[i];
			if (j->started_at > 0 && j->ended_at > j->started_at)
				h += j->nodes * (j->ended_at - j->started_at) / 3600.0;
		}
	snapshot_free(&js);
	return h;
}

/* The run's one scenario in its summary.json, or NULL with *why said. */
static json_t *scenario_of(struct run *r, json_t **summary, struct strbuf *why)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" RUN_SUMMARY, r->dir);
	*summary = json_load_file(p.buf, 0, NULL);
	strbuf_free(&p);
	json_t *sc = json_array_get(json_object_get(*summary, SK_SCENARIOS), 0);
	size_t n = json_array_size(json_object_get(sc, SK_STEP_TIMES_MS));
	if (!sc)
		strbuf_addf(why, "run %s has no analysis (no %s)", r->id, RUN_SUMMARY);
	else if (strcmp(jsonio_str(sc, SK_STATE), "COMPLETED"))
		strbuf_addf(why, "its job ended %s: `campaign status %s %s` says why",
			    jsonio_str(sc, SK_STATE), r->id, jsonio_str(sc, SK_NAME));
	else if (n < BISECT_MIN_STEPS)
		strbuf_addf(why, "it measured %zu step times, fewer than %d", n, BISECT_MIN_STEPS);
	return why->len ? NULL : sc;
}

static double *values(json_t *a, size_t *n)
{
	size_t i;
	json_t *v;
	double *out = xcalloc(json_array_size(a) + 1, sizeof *out);
	*n = 0;
	json_array_foreach(a, i, v)
		out[(*n)++] = json_number_value(v);
	return out;
}

/* The verdict of scenario sc against j's GOOD (j->good NULL: none); GOOD's own first run
 * (j->reference) is the reference. What keeps a commit from a verdict goes into why. */
static void verdict(const struct trial_judge *j, json_t *sc, double threshold,
		    struct bisect_verdict *v, struct strbuf *why)
{
	json_t *good = j->good;
	const char *e = jsonio_str(sc, SK_STEP_ESTIMATOR),
		   *ge = jsonio_str(good, SK_STEP_ESTIMATOR);
	*v = (struct bisect_verdict){ BISECT_SKIP, 0, 0, 0, 0 };
	if (j->reference) {
		*v = (struct bisect_verdict){ BISECT_GOOD, 1, 1, 1, 0 };
		return;
	}
	if (!good) {
		strbuf_addf(why, "GOOD did not run: nothing to compare with");
		return;
	}
	size_t ng, n;
	double *g = values(json_object_get(good, SK_STEP_TIMES_MS), &ng);
	double *s = values(json_object_get(sc, SK_STEP_TIMES_MS), &n);
	judge_steps(g, ng, s, n, threshold, j->spread, v);
	free(g);
	free(s);
	if (strcmp(e, ge)) { /* not the same measure: no verdict from their ratio */
		v->outcome = BISECT_UNCLEAR;
		strbuf_addf(why,
			    "its step times are measured otherwise than GOOD's (%s against %s)", e,
			    ge);
	}
}

static json_t *round3(double x)
{
	return json_real(round(x * 1000) / 1000);
}

/* The tested entry of commit i's run r, its scenario sc (NULL: none) judged as v. */
static json_t *entry_of(const struct trial_ctx *t, size_t i, struct run *r, json_t *sc,
			const struct bisect_verdict *v, int active_steps, const char *why)
{
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:s, s:i, s:O, s:s, s:o, s:o}", "commit",
			 bisection_commit(t->state, i), "outcome", judge_outcome_name(v->outcome),
			 "median_step_ms",
			 sc ? round3(jsonio_num(sc, SK_STEP_TIME_MS "." SK_MEDIAN)) : json_null(),
			 "ratio", sc && v->ratio > 0 ? round3(v->ratio) : json_null(),
			 "ratio_interval",
			 v->known ? json_pack("[o, o]", round3(v->lo), round3(v->hi)) : json_null(),
			 "run", r->id, "active_steps", active_steps, "step_times_ms",
			 sc ? json_object_get(sc, SK_STEP_TIMES_MS) : json_null(), "step_estimator",
			 jsonio_str(sc, SK_STEP_ESTIMATOR), "node_hours",
			 json_real(round(node_hours(r) * 1e6) / 1e6), "why",
			 *why ? json_string(why) : json_null());
}

int trial_finish(const struct trial_ctx *t, size_t i, const char *run_id, int active_steps,
		 const struct trial_judge *j, json_t **entry)
{
	struct run *r = NULL;
	struct submission_opts so = { 0 };
	struct strbuf why = STRBUF_INIT;
	json_t *summary = NULL, *sc = NULL;
	struct bisect_verdict v = { BISECT_SKIP, 0, 0, 0, 0 };
	*entry = NULL;
	int rc = run_open(t->root, run_id, t->journal, &r);
	if (rc < 0)
		return rc;
	rc = submission_run(r, t->be, &so); /* what is not submitted yet (an interruption) */
	if (rc == 0)
		rc = submission_wait(r, t->be, stdout);
	if (rc == ERR_BACKEND || rc == ERR_USAGE) { /* the scheduler: nothing decided */
		run_free(r);
		return rc;
	}
	if (rc < 0) /* its analysis, say, failed: the commit is skipped, said why */
		strbuf_addf(&why, "its run did not end with an analysis: %s", err_last());
	else if ((sc = scenario_of(r, &summary, &why)) != NULL)
		verdict(j, sc, jsonio_num(t->state, "threshold_pct") / 100, &v, &why);
	*entry = entry_of(t, i, r, sc, &v, active_steps, why.len ? why.buf : "");
	json_decref(summary);
	strbuf_free(&why);
	run_free(r);
	return 0;
}

int trial_submit(const struct trial_ctx *t, const char *run_id)
{
	struct run *r = NULL;
	struct submission_opts so = { 0 };
	int rc = run_open(t->root, run_id, t->journal, &r);
	if (rc == 0)
		rc = submission_run(r, t->be, &so);
	run_free(r);
	return rc;
}
