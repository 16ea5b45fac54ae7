/* SPDX-License-Identifier: MIT */
#include "run.h"
#include "util/run_layout.h"

#include "util/err.h"
#include "util/fsio.h"
#include "util/hangup.h"
#include "util/jsonio.h"
#include "orchestrator/campaign/render.h"
#include "util/strbuf.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

char *run_job_dir(const struct run *r, const char *scenario)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s/%s", r->dir, scenario);
	return strbuf_detach(&sb);
}

int run_reload_row(struct run *r)
{
	struct run_row row;
	int rc = store_run_get(r->st, &row);
	if (rc < 0)
		return rc;
	run_row_free(&r->row);
	r->row = row;
	return 0;
}

char *run_attempt_dir(const struct run *r, const char *scenario, int attempt, int latest)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s/%s", r->dir, scenario);
	if (!latest)
		strbuf_addf(&sb, "/attempts/%d", attempt);
	return strbuf_detach(&sb);
}

/* Keeps in the scenario folder what the next attempt needs (its script and
 * the metadata written at submission, copied into the archive too), moves
 * the rest; the live job log (a requeued job's, which SLURM has open in
 * append mode for the next attempt) is copied, then emptied. */
static int archive_entry(const char *dir, const char *dest, const char *name, const char *live)
{
	struct strbuf from = STRBUF_INIT, to = STRBUF_INIT;
	strbuf_addf(&from, "%s/%s", dir, name);
	strbuf_addf(&to, "%s/%s", dest, name);
	static const char *const kept[] = { JOB_SCRIPT, JOB_METADATA, "job_metadata.txt" };
	int rc = 0, keep = 0, is_live = live && !strcmp(name, live);
	for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
		keep |= !strcmp(name, kept[i]);
	if (keep || is_live)
		rc = fsio_copy(from.buf, to.buf);
	/* gone meanwhile: a writer's temporary file */
	else if (rename(from.buf, to.buf) < 0 && errno != ENOENT)
		rc = err_sys(ERR_IO, "cannot move %s to %s", from.buf, to.buf);
	if (rc == 0 && is_live && truncate(from.buf, 0) < 0)
		rc = err_sys(ERR_IO, "cannot empty %s after copying it to %s", from.buf, to.buf);
	strbuf_free(&from);
	strbuf_free(&to);
	return rc;
}

int run_archive_job_dir(const char *dir, int attempt, const char *live_log)
{
	struct strbuf dest = STRBUF_INIT;
	strbuf_addf(&dest, "%s/attempts/%d", dir, attempt);
	int rc = fsio_mkdir_p(dest.buf, 0755);
	struct argv names = { 0 };
	if (rc == 0 && fsio_list_all(dir, &names) < 0)
		rc = err_sys(ERR_IO, "cannot list %s", dir);
	for (size_t i = 0; rc == 0 && i < names.n; i++)
		if (strcmp(names.v[i], "attempts"))
			rc = archive_entry(dir, dest.buf, names.v[i], live_log);
	argv_free(&names);
	if (rc == 0)
		rc = fsio_sync_dir(dir);
	strbuf_free(&dest);
	return rc;
}

int run_archive_attempt(const struct run *r, const char *scenario, int attempt)
{
	char *dir = run_job_dir(r, scenario);
	int rc = run_archive_job_dir(dir, attempt, NULL);
	free(dir);
	return rc;
}

char *run_new_id(void)
{
	time_t now = time(NULL);
	struct tm tm;
	unsigned char rnd[2] = { 0, 0 };
	char buf[64];
	gmtime_r(&now, &tm);
	if (getrandom(rnd, sizeof rnd, 0) != sizeof rnd)
		rnd[0] = (unsigned char)(clock() & 0xff);
	strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
	snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "-%02x%02x", rnd[0], rnd[1]);
	return xstrdup(buf);
}

static json_t *metadata_json(const struct campaign *c, const struct scenario *s, const char *run_id,
			     const char *job_dir)
{
	json_t *params = json_object(), *env = json_object();
	for (size_t i = 0; i < s->params.n; i++)
		json_object_set_new(params, s->params.items[i].key,
				    json_string(s->params.items[i].value));
	for (size_t i = 0; i < s->env.n; i++)
		json_object_set_new(env, s->env.items[i].key,
				    s->env.items[i].value ? json_string(s->env.items[i].value)
							  : json_pack("{s:b}", "from_env", 1));
	return json_pack(
		"{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:s, s:s, s:I, s:s, s:o, s:o, s:i, s:i}",
		"campaign", c->name, "run_id", run_id, "scenario", s->name, "nodes", s->nodes,
		"tasks_per_node", s->tasks_per_node, "gpus_per_node", s->gpus_per_node, "ranks",
		s->nodes * s->tasks_per_node, "backend", s->backend, "time", s->time,
		"time_limit_s", (json_int_t) s->time_limit_s, "job_dir", job_dir, "params", params,
		"env", env, "warmup_steps", c->profile.warmup_steps, "active_steps",
		c->profile.active_steps);
}

/* The absolute folder of the campaign file: {{campaign_dir}} and CAMPAIGN_DIR. */
static char *campaign_dir(const struct campaign *c)
{
	const char *file = c->origin ? c->origin : c->path;
	char *abs = fsio_abspath(file ? file : "./campaign.yaml");
	char *slash = strrchr(abs, '/');
	if (slash == abs)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	return abs;
}

int run_render_all(const struct campaign *c, const char *dir, const char *run_id,
		   const char *bin_dir, int dry, struct argv *argvs)
{
	char *tdir = render_templates_dir(bin_dir);
	if (!tdir)
		return ERR_NOTFOUND;
	struct strbuf *scripts = xcalloc(c->n_scenarios, sizeof *scripts);
	int rc = 0;
	char *cdir = campaign_dir(c);
	for (size_t i = 0; i < c->n_scenarios && rc == 0; i++) {
		struct strbuf jd = STRBUF_INIT;
		strbuf_addf(&jd, "%s/%s", dir, c->scenarios[i].name);
		struct render_ctx ctx = { run_id, dir, jd.buf, bin_dir, tdir, cdir };
		rc = render_job(c, &c->scenarios[i], &ctx, &scripts[i]);
		if (rc == 0 && argvs)
			rc = render_command(c, &c->scenarios[i], &ctx, &argvs[i]);
		strbuf_free(&jd);
	}
	for (size_t i = 0; i < c->n_scenarios && rc == 0 && !dry; i++) {
		const struct scenario *s = &c->scenarios[i];
		struct strbuf p = STRBUF_INIT;
		strbuf_addf(&p, "%s/%s", dir, s->name);
		if ((rc = fsio_mkdir_p(p.buf, 0755)) == 0) {
			json_t *meta = metadata_json(c, s, run_id, p.buf);
			strbuf_adds(&p, "/job_metadata.json");
			rc = jsonio_write_mode(p.buf, meta, RUN_PRIVATE_MODE);
			json_decref(meta);
			p.len -= strlen("/job_metadata.json");
			strbuf_adds(&p, "/job.sbatch");
			if (rc == 0)
				rc = fsio_write_atomic(p.buf, scripts[i].buf, scripts[i].len,
						       RUN_PRIVATE_SCRIPT_MODE);
		}
		strbuf_free(&p);
	}
	for (size_t i = 0; i < c->n_scenarios; i++)
		strbuf_free(&scripts[i]);
	free(scripts);
	free(tdir);
	free(cdir);
	return rc;
}

/* The journal asked for (the command's), else the campaign's store_journal,
 * else auto. */
static int journal_asked(const struct campaign *c, const char *asked, enum store_journal *j)
{
	*j = STORE_JOURNAL_AUTO;
	if (asked && *asked)
		return store_journal_parse(asked, j) < 0
			? err_set(ERR_USAGE, "store journal '%s': expected auto, wal or delete",
				  asked)
			: 0;
	return c && c->store_journal ? store_journal_parse(c->store_journal, j) : 0;
}

int run_create(const struct campaign *c, const char *results_root, const char *backend,
	       const char *journal_arg, struct run **out)
{
	struct run *r = xcalloc(1, sizeof *r);
	char *root = fsio_abspath(results_root);
	struct strbuf dir = STRBUF_INIT;
	int rc;
	r->bin_dir = fsio_self_dir();
	r->id = run_new_id();
	strbuf_addf(&dir, "%s/%s/%s", root, c->name, r->id);
	free(root);
	r->dir = strbuf_detach(&dir);
	/* Render everything in memory first: a template error creates nothing. */
	enum store_journal journal;
	if ((rc = journal_asked(c, journal_arg, &journal)) < 0 ||
	    (rc = run_render_all(c, r->dir, r->id, r->bin_dir, 1, NULL)) < 0)
		goto fail;
	if ((rc = fsio_mkdir_p(r->dir, 0755)) < 0)
		goto fail;
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" RUN_CAMPAIGN, r->dir);
	rc = fsio_copy_mode(c->path, p.buf, RUN_PRIVATE_MODE);
	strbuf_free(&p);
	if (rc < 0 || (rc = run_render_all(c, r->dir, r->id, r->bin_dir, 0, NULL)) < 0)
		goto fail;
	struct strbuf dbp = STRBUF_INIT;
	strbuf_addf(&dbp, "%s/" RUN_STATE_DB, r->dir);
	rc = store_open(dbp.buf, 1, journal, &r->st);
	strbuf_free(&dbp);
	if (rc < 0)
		goto fail;
	struct run_row row = { .run_id = r->id, .campaign = c->name, .run_dir = r->dir,
			       .backend = (char *)backend, .created_at = store_now() };
	if ((rc = store_run_create(r->st, &row)) < 0 || (rc = store_run_get(r->st, &r->row)) < 0)
		goto fail;
	struct diags d;
	struct strbuf cy = STRBUF_INIT;
	strbuf_addf(&cy, "%s/" RUN_CAMPAIGN, r->dir);
	diags_init(&d, cy.buf);
	rc = campaign_load(cy.buf, &r->c, &d);
	if (rc < 0)
		err_set(ERR_IO, "frozen copy %s does not load back", cy.buf);
	diags_free(&d);
	strbuf_free(&cy);
	if (rc < 0)
		goto fail;
	*out = r;
	return 0;
fail:
	run_free(r);
	return rc;
}

void run_list_holding(const char *root, const char *file, struct argv *out)
{
	struct argv camps, runs;
	fsio_list(root, &camps);
	for (size_t i = 0; i < camps.n; i++) {
		struct strbuf c = STRBUF_INIT;
		strbuf_addf(&c, "%s/%s", root, camps.v[i]);
		fsio_list(c.buf, &runs);
		for (size_t k = 0; k < runs.n; k++) {
			struct strbuf f = STRBUF_INIT;
			strbuf_addf(&f, "%s/%s/%s", c.buf, runs.v[k], file);
			if (fsio_exists(f.buf)) {
				strbuf_reset(&f);
				strbuf_addf(&f, "%s/%s", camps.v[i], runs.v[k]);
				argv_push(out, f.buf);
			}
			strbuf_free(&f);
		}
		argv_free(&runs);
		strbuf_free(&c);
	}
	argv_free(&camps);
}

void run_list(const char *root, struct argv *out)
{
	run_list_holding(root, RUN_STATE_DB, out);
}

/* The run id of "<campaign>/<run-id>". */
static const char *id_of(const char *rel)
{
	return strchr(rel, '/') + 1;
}

/* A run of root by reference: a run directory; an exact run id; the newest
 * run (ids sort by time) of a campaign named ref, or of all with no ref; or
 * the one run whose id starts with ref. *ambiguous counts the runs a prefix
 * matched when more than one did. */
static char *find_run_dir(const char *root, const char *ref, int *ambiguous)
{
	*ambiguous = 0;
	struct strbuf sb = STRBUF_INIT;
	if (ref) {
		strbuf_addf(&sb, "%s/" RUN_STATE_DB, ref);
		int is_dir = fsio_exists(sb.buf);
		strbuf_free(&sb);
		if (is_dir)
			return fsio_abspath(ref);
		if (strchr(ref, '/') || !strcmp(ref, ".") || !strcmp(ref, ".."))
			return NULL;
	}
	struct argv runs = { 0 };
	run_list(root, &runs);
	const char *exact = NULL, *newest = NULL, *prefixed = NULL;
	size_t len = ref ? strlen(ref) : 0;
	for (size_t i = 0; i < runs.n; i++) {
		const char *id = id_of(runs.v[i]);
		size_t clen = (size_t)(id - 1 - runs.v[i]);
		if (ref && !strcmp(id, ref))
			exact = runs.v[i];
		if ((!ref || (clen == len && !strncmp(runs.v[i], ref, len))) &&
		    (!newest || strcmp(id, id_of(newest)) > 0))
			newest = runs.v[i];
		if (ref && !strncmp(id, ref, len) && (*ambiguous)++ == 0)
			prefixed = runs.v[i];
	}
	const char *pick = exact ? exact : newest ? newest : *ambiguous == 1 ? prefixed : NULL;
	if (pick)
		*ambiguous = 0;
	char *found = NULL;
	if (pick) {
		strbuf_addf(&sb, "%s/%s", root, pick);
		found = fsio_abspath(sb.buf);
	}
	strbuf_free(&sb);
	argv_free(&runs);
	return found;
}

int run_open(const char *results_root, const char *ref, const char *journal_arg,
	     struct run **out)
{
	int ambiguous;
	char *dir = find_run_dir(results_root, ref, &ambiguous);
	if (!dir && ambiguous > 1)
		return err_set(ERR_NOTFOUND,
			       "%d runs under %s have ids starting with '%s': give more of the id (`campaign ls` lists them)",
			       ambiguous, results_root, ref);
	if (!dir) {
		if (ref && strlen(ref) > 200)
			return err_set(ERR_NOTFOUND,
				       "no run '%.80s...' (%zu characters) under %s (give a run id or a run directory)",
				       ref, strlen(ref), results_root);
		if (ref)
			return err_set(ERR_NOTFOUND,
				       "no run '%s' under %s (give a run id or a run directory)",
				       ref, results_root);
		return err_set(ERR_NOTFOUND, "no runs under %s (submit one, or pass --results DIR)",
			       results_root);
	}
	/* a link given by the user is resolved once: below it, none is followed */
	char *real = realpath(dir, NULL);
	if (real) {
		free(dir);
		dir = real;
	}
	struct run *r = xcalloc(1, sizeof *r);
	r->dir = dir;
	r->bin_dir = fsio_self_dir();
	struct strbuf p = STRBUF_INIT;
	enum store_journal journal;
	strbuf_addf(&p, "%s/" RUN_STATE_DB, dir);
	int rc = journal_asked(NULL, journal_arg, &journal);
	if (rc == 0)
		rc = store_open(p.buf, 0, journal, &r->st);
	if (rc == 0)
		rc = store_run_get(r->st, &r->row);
	if (rc == 0) {
		r->id = xstrdup(r->row.run_id);
		struct diags d;
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/" RUN_CAMPAIGN, dir);
		diags_init(&d, p.buf);
		if ((rc = campaign_load(p.buf, &r->c, &d)) < 0)
			rc = err_set(ERR_IO, "%s: the run's frozen campaign no longer loads",
				     p.buf);
		diags_free(&d);
	}
	strbuf_free(&p);
	if (rc < 0) {
		run_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void run_free(struct run *r)
{
	if (!r)
		return;
	store_close(r->st);
	campaign_free(&r->c);
	run_row_free(&r->row);
	free(r->id);
	free(r->dir);
	free(r->bin_dir);
	free(r);
}

void run_follow_output(const struct run *r)
{
	struct strbuf log = STRBUF_INIT;
	strbuf_addf(&log, "%s/" RUN_SUPERVISOR_LOG, r->dir);
	hangup_check(log.buf);
	strbuf_free(&log);
}
