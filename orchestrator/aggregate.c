/* SPDX-License-Identifier: MIT */
#include "aggregate.h"
#include "orchestrator/backend/requeue.h"
#include "util/run_layout.h"

#include "aggregate_map.h"
#include "orchestrator/campaign/knob_trainer.h"
#include "variant.h"
#include "util/nodelist.h"
#include "orchestrator/store/snapshot.h"

#include "analyzers/analysis.h"
#include "analyzers/run_input.h"
#include "analyzers/write/report.h"
#include "analyzers/read/metrics.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "util/err.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Adds where the job ran to its job_metadata.json: the node list, and each
 * rank's host from its telemetry's meta line. */
static int record_placement(const char *dir, const struct job_row *j)
{
	int rc = 0;
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" JOB_METADATA, dir);
	json_error_t jerr;
	json_t *meta = json_load_file(p.buf, 0, &jerr);
	if (json_is_object(meta)) {
		struct scenario_metrics m;
		struct strbuf md = STRBUF_INIT;
		json_t *hosts = json_array();
		strbuf_addf(&md, "%s/" JOB_METRICS, dir);
		if (metrics_load_dir_meta(md.buf, &m) == 0) {
			for (size_t i = 0; i < m.n; i++)
				json_array_append_new(hosts,
						      json_pack("{s:i, s:s}", "rank",
								m.ranks[i].rank, "host",
								m.ranks[i].host));
			metrics_free(&m);
		}
		json_object_set_new(meta, "job_id",
				    j->job_id ? json_string(j->job_id) : json_null());
		json_object_set_new(meta, "state", json_string(job_state_name(j->state)));
		json_object_set_new(meta, "exit_code",
				    j->exit_code >= 0 ? json_integer(j->exit_code) : json_null());
		json_object_set_new(meta, "nodelist",
				    j->nodelist ? json_string(j->nodelist) : json_null());
		json_object_set_new(meta, "rank_hosts", hosts);
		rc = jsonio_write_mode(p.buf, meta, RUN_PRIVATE_MODE); /* it holds the env */
		strbuf_free(&md);
	}
	json_decref(meta);
	strbuf_free(&p);
	return rc;
}

/* Two scenarios whose jobs ran on a node at the same time measured each
 * other: each is told whom it shared with, where and for how long. */
static void note_overlap(struct ana_scenario *s, const struct job_row *a, const struct job_row *b)
{
	char node[128] = "";
	double from = a->started_at > b->started_at ? a->started_at : b->started_at;
	double to = a->ended_at < b->ended_at ? a->ended_at : b->ended_at;
	if (a->started_at <= 0 || b->started_at <= 0 || a->ended_at <= 0 || b->ended_at <= 0 ||
	    to <= from)
		return;
	int shared = nodelist_shared(a->nodelist, b->nodelist, node, sizeof node);
	if (shared <= 0)
		return;
	size_t n = strlen(s->data.contaminated);
	snprintf(s->data.contaminated + n, sizeof s->data.contaminated - n,
		 "%s%s (on %s%s, for %.0f s)", n ? "; " : "", b->scenario, node,
		 shared > 1 ? " and more" : "", to - from);
}

static void find_overlaps(struct ana_run *in, const struct job_row **chosen)
{
	for (size_t i = 0; i < in->n; i++)
		for (size_t k = 0; k < in->n; k++)
			if (k != i && chosen[i] && chosen[k])
				note_overlap(&in->sc[i], chosen[i], chosen[k]);
}

/* The attempt a scenario's analysis uses among rows[first..end): its latest
 * successful one, else its latest. */
static size_t chosen_attempt(const struct job_row *rows, size_t first, size_t end)
{
	size_t k = end - 1;
	for (size_t i = first; i < end; i++)
		if (rows[i].state == JS_COMPLETED)
			k = i;
	return k;
}

/* Whether kvlists a and b hold the same names with the same values, in any order (a
 * { from_env: true } value, NULL, the same as another). */
static int kvlist_same(const struct kvlist *a, const struct kvlist *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		size_t k = 0;
		while (k < b->n && strcmp(a->items[i].key, b->items[k].key))
			k++;
		if (k == b->n)
			return 0;
		const char *x = a->items[i].value, *y = b->items[k].value; /* NULL: from_env */
		if (x || y ? !x || !y || strcmp(x, y) : 0)
			return 0;
	}
	return 1;
}

/* What makes scenarios one scaling series: the backend, the ranks per node, every
 * parameter and the environment; only the node count differs along a series. An
 * environment's values may be secrets, so the key holds none: ";env#N" names the first
 * scenario of c with the same environment, where that is not the first scenario's. */
static char *series_key(const struct campaign *c, const struct scenario *s)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s/%d/%d", s->backend, s->tasks_per_node, s->gpus_per_node);
	for (size_t i = 0; i < s->params.n; i++)
		if (strcmp(s->params.items[i].key, "nodes"))
			strbuf_addf(&sb, ";%s=%s", s->params.items[i].key,
				    s->params.items[i].value);
	size_t first = 0;
	while (first < c->n_scenarios && !kvlist_same(&c->scenarios[first].env, &s->env))
		first++;
	if (first > 0 && first < c->n_scenarios)
		strbuf_addf(&sb, ";env#%zu", first);
	return strbuf_detach(&sb);
}

static int build_input(struct run *r, struct job_row *rows, size_t n, struct ana_run *in)
{
	int rc = 0;
	memset(in, 0, sizeof *in);
	in->campaign = xstrdup(r->c.name);
	in->run_id = xstrdup(r->id);
	in->run_dir = xstrdup(r->dir);
	in->baseline = r->c.analysis.baseline ? xstrdup(r->c.analysis.baseline) : NULL;
	in->th = r->c.analysis.th;
	in->peak_gflops = r->c.analysis.peak_gflops;
	in->cores_per_node = r->c.analysis.cores_per_node;
	in->epoch = (long)r->row.created_at;
	in->want_nsys = r->c.profile.nsys;
	in->want_perf = r->c.profile.perf;
	in->want_inspector = r->c.profile.inspector;
	const struct argv *pn = &r->c.analysis.phase_names, *pp = &r->c.analysis.phase_patterns;
	in->n_phase_rules = pn->n;
	in->phase_names = xcalloc(pn->n + 1, sizeof *in->phase_names);
	in->phase_patterns = xcalloc(pn->n + 1, sizeof *in->phase_patterns);
	for (size_t i = 0; i < pn->n; i++) {
		in->phase_names[i] = xstrdup(pn->v[i]);
		in->phase_patterns[i] = xstrdup(pp->v[i]);
	}
	in->step_log = r->c.analysis.step_log ? xstrdup(r->c.analysis.step_log) : NULL;
	in->n_trace_globs = r->c.profile.traces.n;
	in->trace_globs = xcalloc(in->n_trace_globs + 1, sizeof *in->trace_globs);
	for (size_t i = 0; i < in->n_trace_globs; i++)
		in->trace_globs[i] = xstrdup(r->c.profile.traces.v[i]);
	in->warmup_steps = r->c.profile.warmup_steps;
	in->batch_per_rank = r->c.analysis.batch_per_rank;
	in->global_batch = r->c.analysis.global_batch;
	in->scaling = r->c.analysis.scaling ? xstrdup(r->c.analysis.scaling) : NULL;
	if (r->row.backend && !strcmp(r->row.backend, "local"))
		in->host_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	const struct job_row **chosen = xcalloc(n + 1, sizeof *chosen);
	for (size_t first = 0, next; rc == 0 && first < n; first = next) {
		next = job_rows_scenario_end(rows, n, first);
		size_t k = chosen_attempt(rows, first, next);
		const struct job_row *j = &rows[k];
		chosen[in->n] = j;
		const struct scenario *s = campaign_find(&r->c, j->scenario);
		char *dir = run_attempt_dir(r, j->scenario, j->attempt, k + 1 == next);
		rc = record_placement(dir, j);
		if (s && s->probe) { /* a fabric probe: measured against, not analysed */
			ana_run_add_probe(in, j->scenario, job_state_name(j->state), s->backend,
					  dir, j->nodes, s->tasks_per_node);
			free(dir);
			continue;
		}
		ana_run_add(in, j->scenario, job_state_name(j->state), j->reason,
			    s ? s->backend : CAMPAIGN_DEFAULT_BACKEND, dir, j->exit_code, j->nodes,
			    s ? s->tasks_per_node : j->ntasks / (j->nodes ? j->nodes : 1));
		struct ana_input *added = &in->sc[in->n - 1].in;
		added->attempt = j->attempt;
		added->batch_per_rank = s ? s->batch_per_rank : 0;
		added->global_batch_set = s ? s->global_batch : 0;
		added->series = s ? series_key(&r->c, s) : NULL;
		added->attempts = rows[next - 1].attempt;
		if (s) { /* paths only fill the command's placeholders: its options are read */
			struct render_ctx ctx = { r->id, r->dir, dir, r->bin_dir, "", r->dir };
			knob_loader(&r->c, s, &ctx, &added->loader_workers,
				    &added->loader_prefetch);
			knob_checkpoints(&r->c, s, &ctx, &added->ckpt_every, &added->ckpt_async);
		}
		struct strbuf rq = STRBUF_INIT;
		requeue_sentence(rows, first, k, &rq);
		added->requeued = rq.len ? strbuf_detach(&rq) : NULL;
		strbuf_free(&rq);
		free(dir);
	}
	if (rc == 0)
		find_overlaps(in, chosen);
	if (rc == 0)
		rc = variant_checks(r->dir, &in->variant);
	free(chosen);
	return rc;
}

/* The run's analysed time as the store has it now (another process may
 * have written the analysis); keeps r->row current. */
static double aggregated_at(struct run *r)
{
	/* the row as last read: at worst the analysis is written twice */
	if (run_reload_row(r) < 0)
		fprintf(stderr, "campaign: warning: %s\n", err_last());
	return r->row.aggregated_at;
}

/* The analysis of in, its per-file work mapped over `shards` first when > 1. */
static int analyse_input(struct run *r, struct ana_run *in, int shards)
{
	struct shard_plan plan = { 0 };
	struct trace_source map = { shard_part, &plan, NULL };
	int rc = 0, mapped = shards > 1 && (rc = aggregate_map_run(in, r->dir, shards, &plan)) == 0;
	/* what campaign-analyze RUN analyses again, without the store */
	if (rc == 0)
		rc = run_input_write(in);
	if (rc == 0)
		rc = ana_run_analyse_write(in, mapped ? &map : NULL);
	shard_plan_free(&plan);
	return rc;
}

static int analyse(struct run *r, int force, int only_if_due, int jobs, int shards)
{
	int lock = fsio_lock(r->dir, RUN_ANALYSIS_LOCK, 0);
	if (lock < 0)
		return lock;
	struct snapshot js = SNAPSHOT_INIT;
	int rc = 0, failed;
	if (only_if_due && aggregated_at(r) > 0)
		goto out; /* written by another process while this one waited */
	if ((rc = snapshot_load(r->st, &js)) < 0)
		goto out;
	int final = run_is_done(&js, &failed);
	if (!force && !final) {
		rc = 1;
		goto out;
	}
	struct ana_run in;
	long attempts = (long)js.n_all;
	rc = build_input(r, js.all, js.n_all, &in);
	in.jobs = jobs;
	if (rc == 0)
		rc = analyse_input(r, &in, shards);
	ana_run_free(&in);
	/* A forced analysis of an unfinished run is provisional: the run is
	 * analysed again when its last job ends. */
	if (rc == 0 && final)
		rc = store_run_set_aggregated(r->st, store_now(), attempts);
	if (rc == 0 && final)
		aggregated_at(r);
out:
	snapshot_free(&js);
	close(lock);
	return rc;
}

int aggregate_run(struct run *r, int force, int jobs, int shards)
{
	return analyse(r, force, 0, jobs, shards);
}

int aggregate_if_due(struct run *r)
{
	return aggregated_at(r) > 0 ? 0 : analyse(r, 0, 1, 0, 1);
}
