/* cmd_bisect: `campaign bisect GOOD BAD FILE` finds the first commit of the
 * workload's repository that made a scenario's step time slower than the
 * threshold, each commit run in its own worktree as a child run, the noise
 * measured: GOOD and BAD first (no regression resolved: it stops and says
 * so), then a noise-aware (K-ary) bisection; BISECT.md and bisect.json in
 * its own directory. --resume goes on after an interruption.
 * SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "orchestrator/backend/backend_pick.h"
#include "orchestrator/bisect/bisection.h"
#include "orchestrator/bisect/report.h"
#include "orchestrator/bisect/trial.h"
#include "orchestrator/bisect/worktree.h"
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/run.h"
#include "orchestrator/submission.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "util/proc.h"
#include "util/run_layout.h"
#include "util/strbuf.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BISECT_LOCK ".bisect.lock"
#define BISECT_LOG "bisect.log"
#define GOOD_AGAIN (-1L) /* in a list of commits to test: GOOD's second run */

struct bisector {
	const struct cmd_entry *self;
	struct args *a;
	struct trial_ctx t;
	char *dir;
	size_t parallel;
	int resumed; /* --resume: says where it stands once it holds the lock */
};

/* The widest training scenario (most ranks; the first of equals), or the one named. */
static int pick_scenario(const struct campaign *c, const char *named, const char **out)
{
	const struct scenario *best = NULL;
	for (size_t i = 0; i < c->n_scenarios; i++) {
		const struct scenario *s = &c->scenarios[i];
		if (s->probe)
			continue;
		if (named ? !strcmp(s->name, named)
			  : !best ||
				    s->nodes * s->tasks_per_node >
					    best->nodes * best->tasks_per_node)
			best = s;
	}
	if (!best)
		return err_set(ERR_USAGE,
			       "%s has no scenario named \"%s\" (campaign validate %s lists them)",
			       c->path, named, c->path);
	*out = best->name;
	return 0;
}

/* The campaign file's place in the repository's work tree ("dir/file.yaml"), or its
 * name alone when it lies outside (its folder is then the tree's top). */
static char *place_in(const char *workdir, const char *file)
{
	char *abs = realpath(file, NULL), *out; /* as libgit2 gives workdir: links resolved */
	if (!abs)
		abs = fsio_abspath(file);
	size_t n = strlen(workdir);
	if (!strncmp(abs, workdir, n) && abs[n] == '/')
		out = xstrdup(abs + n + 1);
	else
		out = xstrdup(basename(abs));
	free(abs);
	return out;
}

static int threshold_of(const struct args *a, double *out)
{
	const char *s = args_get(a, 't');
	char *end;
	*out = s ? strtod(s, &end) : 5;
	if (s && (end == s || *end || !(*out > 0) || *out >= 1000))
		return err_set(ERR_USAGE, "--threshold %s: give a percentage above 0, e.g. 5", s);
	return 0;
}

/* A new bisection's directory, state and frozen campaign. */
static int bisect_create(struct bisector *b, const struct campaign *c, const char *scenario,
			 const struct bisect_range *r, double threshold)
{
	char *id = run_new_id(), *abs = fsio_abspath(c->path);
	char *root = fsio_abspath(b->t.root);
	struct strbuf d = STRBUF_INIT;
	strbuf_addf(&d, "%s/%s/%s", root, c->name, id);
	b->dir = strbuf_detach(&d);
	b->t.state = bisection_new(id, r, abs, c->name, scenario, threshold, (int)b->parallel,
				   b->t.be->name);
	char *in_repo = place_in(r->workdir, abs);
	json_object_set_new(b->t.state, "campaign_in_repo", json_string(in_repo));
	json_object_set_new(b->t.state, "active_steps", json_integer(c->profile.active_steps));
	json_object_set_new(b->t.state, "results_root", json_string(root));
	free(in_repo);
	strbuf_addf(&d, "%s/" RUN_CAMPAIGN, b->dir);
	int rc = fsio_mkdir_p(b->dir, 0755);
	if (rc == 0)
		rc = fsio_copy_mode(c->path, d.buf, RUN_PRIVATE_MODE);
	if (rc == 0)
		rc = bisection_save(b->dir, b->t.state);
	if (rc == 0)
		printf("bisection %s\n%s\nGOOD %.12s, BAD %.12s: %zu commit%s after GOOD; scenario %s, threshold %g %%\n",
		       id, b->dir, r->v[0].hash, r->v[r->n - 1].hash, r->n - 1,
		       r->n == 2 ? "" : "s", scenario, threshold);
	fflush(stdout);
	strbuf_free(&d);
	free(root);
	free(abs);
	free(id);
	return rc;
}

/* GOOD's tested entry, or NULL when it did not run (yet). */
static json_t *good_entry(json_t *st)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(st, "tested"), i, e)
		if (!strcmp(jsonio_str(e, "commit"), bisection_commit(st, 0)) &&
		    !strcmp(jsonio_str(e, "outcome"), "good"))
			return e;
	return NULL;
}

static void say_entry(json_t *e)
{
	printf("commit %.12s: %s", jsonio_str(e, "commit"), jsonio_str(e, "outcome"));
	if (json_is_array(json_object_get(e, "ratio_interval")))
		printf(", median step %.3f ms, %.3fx GOOD's (95 %% interval %.3f to %.3f)",
		       jsonio_num(e, "median_step_ms"), jsonio_num(e, "ratio"),
		       jsonio_num(e, "ratio_interval.0"), jsonio_num(e, "ratio_interval.1"));
	else if (json_is_number(json_object_get(e, "median_step_ms")))
		printf(", median step %.3f ms", jsonio_num(e, "median_step_ms"));
	if (*jsonio_str(e, "why"))
		printf(" (%s)", jsonio_str(e, "why"));
	printf(" (run %s)\n", jsonio_str(e, "run"));
	fflush(stdout);
}

static void say_repeat(json_t *st, json_t *e)
{
	if (!json_is_number(json_object_get(e, "ratio")))
		printf("GOOD again: %s (run %s): the noise between runs is not known\n",
		       jsonio_str(e, "why"), jsonio_str(e, "run"));
	else
		printf("GOOD again: median step %.3f ms, %.3fx its first run: two runs of one commit %.1f %% apart, by which every interval is widened (run %s)\n",
		       jsonio_num(e, "median_step_ms"), jsonio_num(e, "ratio"),
		       100 * bisection_spread(st), jsonio_str(e, "run"));
	fflush(stdout);
}

/* Commit at (an index) of the pending entry p followed to its end and recorded: GOOD's
 * second run (p's repeat) as the state's repeat, judged against its first. */
static int finish_one(struct bisector *b, json_t *p)
{
	json_t *st = b->t.state, *entry = NULL;
	const char *hash = jsonio_str(p, "commit");
	int again = json_is_true(json_object_get(p, "repeat"));
	long at = bisection_index(st, hash);
	struct trial_judge j = { good_entry(st), at == 0 && !again,
				 again ? 0 : bisection_spread(st) };
	int rc = trial_finish(&b->t, (size_t)at, jsonio_str(p, "run"),
			      (int)jsonio_num(p, "active_steps"), &j, &entry);
	if (rc < 0)
		return rc;
	if (again) {
		json_object_set_new(st, "repeat", entry);
		say_repeat(st, entry);
		return 0;
	}
	json_array_append_new(json_object_get(st, "tested"), entry);
	say_entry(entry);
	return 0;
}

/* Every pending run followed to its end, in order; the state saved after each. */
static int finish_pending(struct bisector *b)
{
	json_t *pending = json_object_get(b->t.state, "pending");
	while (json_array_size(pending)) {
		int rc = finish_one(b, json_array_get(pending, 0));
		if (rc < 0)
			return rc;
		json_array_remove(pending, 0);
		if ((rc = bisection_save(b->dir, b->t.state)) < 0)
			return rc;
	}
	return 0;
}

/* A commit whose run cannot even be made (its tree, its campaign): skipped, said why. */
static void skip_unmade(struct bisector *b, size_t i, int steps)
{
	json_t *e = json_pack("{s:s, s:s, s:n, s:n, s:n, s:n, s:i, s:n, s:f, s:s}", "commit",
			      bisection_commit(b->t.state, i), "outcome", "skip",
			      "median_step_ms", "ratio", "ratio_interval", "run", "active_steps",
			      steps, "step_times_ms", "node_hours", 0.0, "why", err_last());
	json_array_append_new(json_object_get(b->t.state, "tested"), e);
	say_entry(e);
}

/* GOOD's second run recorded as not run, and why: the noise between runs is not known. */
static void repeat_missing(json_t *st, const char *why)
{
	json_object_set_new(st, "repeat",
			    json_pack("{s:s, s:n, s:n, s:s, s:f}", "commit",
				      bisection_commit(st, 0), "run", "ratio", "why", why,
				      "node_hours", 0.0));
}

static void say_testing(json_t *st, size_t i, int again, int steps)
{
	if (again)
		printf("testing GOOD %.12s again (how far two runs of one commit are apart)\n",
		       bisection_commit(st, 0));
	else
		printf("testing commit %.12s (%zu of %zu)%s\n", bisection_commit(st, i), i,
		       bisection_ncommits(st) - 1, steps > jsonio_num(st, "active_steps")
		       ? ": unclear, again with twice the active steps" : "");
	fflush(stdout);
}

/* The commits at idx[0..k) tested (GOOD_AGAIN: GOOD's second run): their runs made and
 * recorded as pending (so that an interruption never makes one twice), submitted, then
 * followed to their ends. */
static int test_commits(struct bisector *b, const long *idx, size_t k)
{
	json_t *st = b->t.state, *pending = json_object_get(st, "pending");
	int rc = 0;
	for (size_t j = 0; rc == 0 && j < k; j++) {
		int again = idx[j] == GOOD_AGAIN;
		size_t i = again ? 0 : (size_t)idx[j];
		int steps = (int)jsonio_num(st, "active_steps") *
			    (!again && bisection_runs_of(st, i) ? 2 : 1);
		char *run_id = NULL;
		say_testing(st, i, again, steps);
		if (trial_create(&b->t, i, steps, &run_id) < 0 && again)
			repeat_missing(st, err_last());
		else if (!run_id)
			skip_unmade(b, i, steps);
		else
			json_array_append_new(pending, json_pack("{s:s, s:s, s:i, s:b}", "commit",
				bisection_commit(st, i), "run", run_id, "active_steps", steps,
				"repeat", again));
		free(run_id);
		rc = bisection_save(b->dir, st);
	}
	for (size_t j = 0; rc == 0 && j < json_array_size(pending); j++)
		rc = trial_submit(&b->t, jsonio_str(json_array_get(pending, j), "run"));
	return rc < 0 ? rc : finish_pending(b);
}

/* GOOD or BAD did not run, or BAD is no regression the noise lets through: the reason
 * to stop (malloc'ed), or NULL to go on. */
static char *noise_first(json_t *st)
{
	size_t last = bisection_ncommits(st) - 1;
	struct strbuf why = STRBUF_INIT;
	int g = bisection_outcome(st, 0), bad = bisection_outcome(st, last);
	if (g == BISECT_SKIP)
		strbuf_addf(&why, "GOOD %.12s did not run: nothing to compare with",
			    bisection_commit(st, 0));
	else if (bad == BISECT_SKIP)
		strbuf_addf(&why, "BAD %.12s did not run: nothing to compare with",
			    bisection_commit(st, last));
	else if (bad != BISECT_BAD)
		report_noise_reason(st, &why);
	return why.len ? strbuf_detach(&why) : NULL;
}

/* A bisection without a repeat begun by a campaign that ran GOOD once (commits other
 * than GOOD tested already): its repeat said missing, not run now (BAD was judged
 * without it). */
static int began_without_repeat(json_t *st)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(st, "tested"), i, e)
		if (strcmp(jsonio_str(e, "commit"), bisection_commit(st, 0))) {
			repeat_missing(st, "the bisection began before campaign ran GOOD twice");
			return 1;
		}
	return 0;
}

static int drive(struct bisector *b)
{
	json_t *st = b->t.state;
	size_t n = bisection_ncommits(st);
	long idx[64];
	int rc = finish_pending(b);
	size_t k = 0;
	/* GOOD, GOOD again (judged against its first: the noise between runs), BAD */
	if (bisection_outcome(st, 0) < 0)
		idx[k++] = 0;
	if (!json_is_object(json_object_get(st, "repeat")) && !began_without_repeat(st))
		idx[k++] = GOOD_AGAIN;
	if (bisection_outcome(st, n - 1) < 0)
		idx[k++] = (long)n - 1;
	if (rc == 0 && k)
		rc = test_commits(b, idx, k);
	char *stop = rc < 0 ? NULL : noise_first(st);
	while (rc == 0 && !stop && (k = bisection_next(st, b->parallel, idx)) > 0)
		rc = test_commits(b, idx, k);
	if (rc < 0)
		return rc;
	if (stop) {
		json_object_set_new(st, "state", json_string("done"));
		json_object_set_new(st, "reason", json_string(stop));
		free(stop);
	} else {
		bisection_answer(st);
	}
	return 0;
}

/* The worktrees of every tested commit removed (the runs keep what they measured). */
static void remove_trees(struct bisector *b)
{
	char name[128];
	for (size_t i = 0; i < bisection_ncommits(b->t.state); i++) {
		char *tree = trial_tree(&b->t, bisection_commit(b->t.state, i), name, sizeof name);
		if (fsio_exists(tree) &&
		    worktree_remove(jsonio_str(b->t.state, "repo"), name, tree) < 0)
			fprintf(stderr, "campaign bisect: warning: %s\n", err_last());
		free(tree);
	}
	struct strbuf d = STRBUF_INIT;
	strbuf_addf(&d, "%s/" BISECT_TREES, b->dir);
	rmdir(d.buf); /* when empty */
	strbuf_free(&d);
}

static int run_locked(struct bisector *b)
{
	int lock = fsio_lock(b->dir, BISECT_LOCK, 1);
	if (lock < 0)
		return err_set(
			ERR_USAGE,
			"bisection %s is being driven by another campaign process (it holds %s/%s): follow it with `campaign ls`",
			jsonio_str(b->t.state, "bisection"), b->dir, BISECT_LOCK);
	/* read again under the lock: another process may have gone on since */
	json_decref(b->t.state);
	int rc = bisection_load(b->dir, &b->t.state);
	if (rc == 0 && *jsonio_str(b->t.state, "results_root")) /* its runs are there */
		b->t.root = jsonio_str(b->t.state, "results_root");
	if (rc == 0) { /* as it began: where its runs go, how many at once */
		b->t.be = backend_pick(jsonio_str(b->t.state, "backend"), &(const char *){ NULL });
		b->parallel = (size_t)jsonio_num(b->t.state, "parallel");
		rc = b->t.be ? 0 : ERR_USAGE;
	}
	if (rc == 0 && b->resumed)
		printf("bisection %s: %zu tested, %zu under way\n",
		       jsonio_str(b->t.state, "bisection"),
		       json_array_size(json_object_get(b->t.state, "tested")),
		       json_array_size(json_object_get(b->t.state, "pending")));
	if (rc == 0 && strcmp(jsonio_str(b->t.state, "state"), "done"))
		rc = drive(b);
	if (rc == 0) {
		remove_trees(b);
		rc = report_write(b->dir, b->t.root, b->t.journal, b->t.state);
	}
	if (rc == 0)
		rc = bisection_save(b->dir, b->t.state);
	if (rc == 0)
		report_say(b->dir, b->t.state, stdout);
	close(lock);
	if (rc < 0) {
		fprintf(stderr, "campaign bisect: %s\n", err_last());
		fprintf(stderr,
			"What was tested is kept in %s/%s: once the cause is fixed, `campaign bisect --resume %s` goes on (no commit runs twice).\n",
			b->dir, BISECT_STATE, jsonio_str(b->t.state, "bisection"));
		return cmd_exit_of(rc);
	}
	return rc;
}

/* Without --wait: the bisection goes on detached (`campaign bisect --wait --resume DIR`),
 * its output into its bisect.log; said when it could not be started. */
static int detach(struct bisector *b)
{
	struct strbuf log = STRBUF_INIT;
	char *self = fsio_self_dir(), *root = fsio_abspath(b->t.root);
	strbuf_addf(&log, "%s/campaign", self);
	char *bin = strbuf_detach(&log);
	strbuf_addf(&log, "%s/" BISECT_LOG, b->dir);
	int rc = proc_detach(log.buf, bin,
			     (char *const[]){ "campaign", "bisect", "--wait", "--results", root,
					      "--resume", b->dir, NULL });
	if (rc == 0)
		printf("the bisection goes on in the background; its progress: %s\n"
		       "its answer: %s/" BISECT_REPORT
		       " once done (`campaign ls` lists its runs)\n",
		       log.buf, b->dir);
	else
		rc = err_set(
			ERR_BACKEND,
			"cannot start the bisection in the background (%s): `campaign bisect --wait --resume %s` drives it in the foreground",
			bin, b->dir);
	free(self);
	free(bin);
	free(root);
	strbuf_free(&log);
	return rc;
}

static int resume(struct bisector *b, const char *ref)
{
	b->resumed = 1;
	return bisection_find(b->t.root, ref, 1, &b->dir);
}

static int start(struct bisector *b)
{
	struct args *a = b->a;
	struct campaign c;
	struct bisect_range r = { 0 };
	const char *scenario = NULL, *why = "";
	double threshold;
	long k;
	int rc = threshold_of(a, &threshold);
	if (rc < 0)
		return rc;
	if (args_int(b->self, a, 'p', 1, 64, 1, &k) != 0)
		return EXIT_USAGE;
	if ((rc = cmd_load_campaign(a->pos[2], &c)) != 0)
		return rc;
	if ((rc = pick_scenario(&c, args_get(a, 's'), &scenario)) == 0) {
		const char *repo = args_get(a, 'r');
		char *cdir = fsio_abspath(c.path);
		rc = commits_load(repo ? repo : dirname(cdir), a->pos[0], a->pos[1], &r);
		free(cdir);
	}
	if (rc == 0 && (b->t.be = backend_pick(args_get(a, 'b'), &why)) == NULL)
		rc = ERR_USAGE;
	if (rc == 0 && *why)
		fprintf(stderr, "campaign bisect: %s\n", why);
	b->parallel = (size_t)k;
	if (rc == 0 && k > 1 && !strcmp(b->t.be->name, "local")) {
		printf("the local executor runs one commit at a time (each measured alone): --parallel %ld is for SLURM\n",
		       k);
		b->parallel = 1;
	}
	if (rc == 0 && (rc = submission_check_env(&c)) == 0)
		rc = bisect_create(b, &c, scenario, &r, threshold);
	b->t.dir = b->dir;
	if (rc == 0 && (rc = trial_check(&b->t)) < 0)
		fsio_remove_tree(b->dir); /* nothing ran: nothing to keep */
	commits_free(&r);
	campaign_free(&c);
	return rc;
}

static int bisect_exec(const struct cmd_entry *self, struct args *a)
{
	struct bisector b = { .self = self, .a = a };
	const char *ref = args_get(a, 'e');
	b.t.root = cmd_results_root(a);
	b.t.journal = cmd_journal(a);
	if (ref ? a->npos != 0 : a->npos != 3) {
		fprintf(stderr, "campaign bisect: %s\n",
			ref ? "--resume BISECTION takes no GOOD, BAD or FILE"
			    : "give GOOD, BAD and the campaign file");
		cmd_usage(self, stderr);
		return EXIT_USAGE;
	}
	int rc = ref ? resume(&b, ref) : start(&b);
	b.t.dir = b.dir;
	if (rc == 0)
		rc = args_has(a, 'w') || ref ? run_locked(&b) : detach(&b);
	json_decref(b.t.state);
	free(b.dir);
	return rc;
}

const struct cmd_entry cmd_bisect_entry = {
	.name = "bisect",
	.usage =
		"[--wait] [--scenario NAME] [--threshold PCT] [--parallel K] [--repo DIR] [--backend NAME] [--results DIR] GOOD BAD FILE | --resume BISECTION",
	.summary = "find the first commit that made a scenario slower, with the noise measured",
	.flags = CMD_RESULTS | CMD_OUTLIVES_OUTPUT,
	.min_pos = 0,
	.max_pos = 3,
	.exec = bisect_exec,
	.opts =
		(const struct optdef[]){
			{ 'w', "wait", NULL, "stay in the foreground until the answer is written" },
			{ 's', "scenario", "NAME", "the scenario to time (default: the widest)" },
			{ 't', "threshold", "PCT",
			  "the slowdown that counts as a regression (default 5)" },
			{ 'p', "parallel", "K", "SLURM: test K commits at once (a K-ary split)" },
			{ 'r', "repo", "DIR",
			  "the workload's repository (default: the one holding FILE)" },
			OPT_BACKEND,
			{ 'e', "resume", "BISECTION",
			  "go on with an interrupted bisection (its id or folder)" },
			OPT_END },
};
