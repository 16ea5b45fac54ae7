#include "aggregate.h"

#include "../analyzers/analysis.h"
#include "../analyzers/metrics.h"
#include "fsio.h"
#include "jsonio.h"
#include "err.h"
#include "strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int all_final(struct job_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!job_state_is_final(rows[i].state))
			return 0;
	return 1;
}

/* Adds where the job ran to its job_metadata.json: the node list, and each
 * rank's host from its telemetry's meta line. */
static void record_placement(const char *dir, const struct job_row *j)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/job_metadata.json", dir);
	json_error_t jerr;
	json_t *meta = json_load_file(p.buf, 0, &jerr);
	if (json_is_object(meta)) {
		struct scenario_metrics m;
		struct strbuf md = STRBUF_INIT;
		json_t *hosts = json_array();
		strbuf_addf(&md, "%s/metrics", dir);
		if (metrics_load_dir_meta(md.buf, &m) == 0) {
			for (size_t i = 0; i < m.n; i++)
				json_array_append_new(hosts, json_pack("{s:i, s:s}", "rank", m.ranks[i].rank, "host", m.ranks[i].host));
			metrics_free(&m);
		}
		json_object_set_new(meta, "job_id", j->job_id ? json_string(j->job_id) : json_null());
		json_object_set_new(meta, "state", json_string(job_state_name(j->state)));
		json_object_set_new(meta, "exit_code", j->exit_code >= 0 ? json_integer(j->exit_code) : json_null());
		json_object_set_new(meta, "nodelist", j->nodelist ? json_string(j->nodelist) : json_null());
		json_object_set_new(meta, "rank_hosts", hosts);
		jsonio_write(p.buf, meta);
		strbuf_free(&md);
	}
	json_decref(meta);
	strbuf_free(&p);
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

static void build_input(struct run *r, struct job_row *rows, size_t n, struct ana_run *in)
{
	memset(in, 0, sizeof *in);
	in->campaign = xstrdup(r->c.name);
	in->run_id = xstrdup(r->id);
	in->run_dir = xstrdup(r->dir);
	in->baseline = r->c.analysis.baseline ? xstrdup(r->c.analysis.baseline) : NULL;
	in->th.comm_pct = r->c.analysis.comm_pct;
	in->th.data_pct = r->c.analysis.data_pct;
	in->th.gpu_util_pct = r->c.analysis.gpu_util_pct;
	in->th.memory_pct = r->c.analysis.memory_pct;
	in->th.io_pct = r->c.analysis.io_pct;
	in->peak_gflops = r->c.analysis.peak_gflops;
	in->epoch = (long)r->row.created_at;
	in->want_nsys = r->c.profile.nsys;
	in->want_perf = r->c.profile.perf;
	for (size_t first = 0, next; first < n; first = next) {
		next = job_rows_scenario_end(rows, n, first);
		size_t k = chosen_attempt(rows, first, next);
		const struct job_row *j = &rows[k];
		const struct scenario *s = campaign_find(&r->c, j->scenario);
		char *dir = run_attempt_dir(r, j->scenario, j->attempt, k + 1 == next);
		record_placement(dir, j);
		ana_run_add(in, j->scenario, job_state_name(j->state), j->reason, s ? s->backend : "gloo", dir,
			    j->exit_code, j->nodes, s ? s->tasks_per_node : j->ntasks / (j->nodes ? j->nodes : 1));
		in->sc[in->n - 1].attempt = j->attempt;
		in->sc[in->n - 1].attempts = rows[next - 1].attempt;
		free(dir);
	}
}

/* The run's analysed time as the store has it now (another process may
 * have written the analysis); keeps r->row current. */
static double aggregated_at(struct run *r)
{
	run_reload_row(r);
	return r->row.aggregated_at;
}

static int analyse(struct run *r, int force, int only_if_due)
{
	int lock = fsio_lock(r->dir, ".aggregate.lock", 0);
	if (lock < 0)
		return lock;
	struct job_row *rows;
	size_t n;
	int rc = 0;
	if (only_if_due && aggregated_at(r) > 0)
		goto out; /* written by another process while this one waited */
	if ((rc = store_jobs_latest(r->st, &rows, &n)) < 0)
		goto out;
	int final = all_final(rows, n);
	job_rows_free(rows, n);
	if (!force && !final) {
		rc = 1;
		goto out;
	}
	if ((rc = store_jobs_all(r->st, &rows, &n)) < 0)
		goto out;
	struct ana_run in;
	long attempts = (long)n;
	build_input(r, rows, n, &in);
	job_rows_free(rows, n);
	rc = ana_run_analyse(&in);
	if (rc == 0)
		rc = ana_run_write(&in);
	ana_run_free(&in);
	/* A forced analysis of an unfinished run is provisional: the run is
	 * analysed again when its last job ends. */
	if (rc == 0 && final)
		rc = store_run_set_aggregated(r->st, store_now(), attempts);
	if (rc == 0 && final)
		aggregated_at(r);
out:
	close(lock);
	return rc;
}

int aggregate_run(struct run *r, int force)
{
	return analyse(r, force, 0);
}

int aggregate_if_due(struct run *r)
{
	return aggregated_at(r) > 0 ? 0 : analyse(r, 0, 1);
}
