/* SPDX-License-Identifier: MIT */
#include "analyzers/shard.h"
#include "util/clock.h"
#include "util/run_layout.h"

#include "analyzers/pool.h"
#include "analyzers/timeline_fragment.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PARTIAL_FLAGS (JSON_COMPACT | JSON_ENSURE_ASCII) /* reals: 17 digits, jansson's default */

static void add_item(struct shard_plan *p, const char *dir, const char *name, int nsys, int order)
{
	XGROW(p->v, p->n, p->cap, 64);
	p->v[p->n++] = (struct shard_item){ xstrdup(dir), xstrdup(name), nsys, order };
}

static void add_dir(struct shard_plan *p, const char *job_dir, const char *sub, int nsys)
{
	struct strbuf dir = STRBUF_INIT;
	char **names;
	size_t n;
	strbuf_addf(&dir, "%s/%s", job_dir, sub);
	if (torchtrace_list(dir.buf, nsys, &names, &n) == 0) {
		int *hints = xcalloc(n + 1, sizeof *hints);
		torchtrace_rank_hints(dir.buf, names, n, hints);
		for (size_t i = 0; i < n; i++) {
			add_item(p, dir.buf, names[i], nsys, hints[i]);
			free(names[i]);
		}
		free(hints);
		free(names);
	}
	strbuf_free(&dir);
}

void shard_plan_build(const struct ana_run *run, const char *dir, struct shard_plan *p)
{
	memset(p, 0, sizeof *p);
	p->dir = xstrdup(dir);
	for (size_t i = 0; i < run->n_phase_rules; i++) {
		argv_push(&p->phase_names, run->phase_names[i]);
		argv_push(&p->phase_patterns, run->phase_patterns[i]);
	}
	for (size_t i = 0; i < run->n; i++)
		if (run->sc[i].in.completed) {
			add_dir(p, run->sc[i].in.job_dir, JOB_TRACES, 0);
			add_dir(p, run->sc[i].in.job_dir, JOB_NSYS, 1);
		}
}

static json_t *str_array(const struct argv *v)
{
	json_t *a = json_array();
	for (size_t i = 0; i < v->n; i++)
		json_array_append_new(a, json_string(v->v[i]));
	return a;
}

/* Removes the results of an earlier map step (k.json, shard-*.done, plan.json). */
static void clear_dir(const char *dir)
{
	struct argv names;
	struct strbuf p = STRBUF_INIT;
	fsio_list(dir, &names);
	for (size_t i = 0; i < names.n; i++) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", dir, names.v[i]);
		unlink(p.buf);
	}
	argv_free(&names);
	strbuf_free(&p);
}

static int write_json(const char *path, json_t *j)
{
	char *s = json_dumps(j, PARTIAL_FLAGS);
	json_decref(j);
	if (!s)
		return err_set(ERR_IO, "cannot encode %s (a number that is not finite?)", path);
	int rc = fsio_write_atomic(path, s, strlen(s), 0644);
	free(s);
	return rc;
}

int shard_plan_write(const struct shard_plan *p)
{
	int rc = fsio_mkdir_p(p->dir, 0755);
	if (rc < 0)
		return rc;
	clear_dir(p->dir);
	struct strbuf tl = STRBUF_INIT;
	shard_timeline_dir(p, &tl);
	fsio_remove_tree(tl.buf);
	/* there before any shard starts: the reduce marks a failed shard's files there */
	fsio_mkdir_p(tl.buf, 0755);
	strbuf_free(&tl);
	json_t *files = json_array();
	for (size_t i = 0; i < p->n; i++)
		json_array_append_new(files,
				      json_pack("[s, s, b, i]", p->v[i].dir, p->v[i].name,
						p->v[i].nsys, p->v[i].order));
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "%s/plan.json", p->dir);
	rc = write_json(path.buf,
			json_pack("{s:o, s:o, s:o}", "phase_names", str_array(&p->phase_names),
				  "phase_patterns", str_array(&p->phase_patterns), "files", files));
	strbuf_free(&path);
	return rc;
}

static int read_strings(json_t *a, struct argv *v)
{
	for (size_t i = 0; i < json_array_size(a); i++) {
		const char *s = json_string_value(json_array_get(a, i));
		if (!s)
			return -1;
		argv_push(v, s);
	}
	return 0;
}

int shard_plan_read(const char *dir, struct shard_plan *p)
{
	memset(p, 0, sizeof *p);
	p->dir = xstrdup(dir);
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "%s/plan.json", dir);
	json_error_t je;
	json_t *j = json_load_file(path.buf, 0, &je), *names = json_object_get(j, "phase_names"),
	       *pats = json_object_get(j, "phase_patterns"), *files = json_object_get(j, "files");
	int rc = 0;
	if (!j)
		rc = err_set(fsio_exists(path.buf) ? ERR_IO : ERR_NOTFOUND, "%s: %s", path.buf,
			     je.text);
	else if (!json_is_array(names) || !json_is_array(files) ||
		 json_array_size(pats) != json_array_size(names))
		rc = err_set(ERR_IO, "%s: not a map-step plan", path.buf);
	if (rc == 0 &&
	    (read_strings(names, &p->phase_names) || read_strings(pats, &p->phase_patterns)))
		rc = err_set(ERR_IO, "%s: a phase rule is not a string", path.buf);
	for (size_t i = 0; rc == 0 && i < json_array_size(files); i++) {
		const char *d = NULL, *n = NULL;
		int nsys = 0, order = 0;
		if (json_unpack(json_array_get(files, i), "[s, s, b, i]", &d, &n, &nsys, &order))
			rc = err_set(ERR_IO, "%s: file %zu is not [dir, name, nsys, order]",
				     path.buf, i);
		else
			add_item(p, d, n, nsys, order);
	}
	json_decref(j);
	strbuf_free(&path);
	return rc;
}

void shard_plan_free(struct shard_plan *p)
{
	argv_free(&p->phase_names);
	argv_free(&p->phase_patterns);
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].dir);
		free(p->v[i].name);
	}
	free(p->v);
	free(p->dir);
	memset(p, 0, sizeof *p);
}

/* ---- one file's result as JSON and back ---- */

static json_t *real(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static double real_of(json_t *j)
{
	return json_is_number(j) ? json_number_value(j) : NAN;
}

static json_t *steps_json(const struct rank_metrics *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->n; i++) {
		const struct step_rec *s = &r->steps[i];
		json_t *row = json_pack("[I, b]", (json_int_t)s->step, s->active);
		const double v[] = { s->data_ms,      s->forward_ms,       s->backward_ms,
				     s->comm_ms,      s->optimizer_ms,     s->step_ms,
				     s->loss,         s->comm_exposed_ms,  s->io_ms,
				     s->gemm_ms,      s->elementwise_ms,   s->bytes,
				     s->allreduce_ms, s->reducescatter_ms, s->start_us };
		for (size_t k = 0; k < sizeof v / sizeof *v; k++)
			json_array_append_new(row, real(v[k]));
		json_array_append_new(row, json_integer(s->samples));
		for (int k = 0; k < GPU_FIELDS; k++)
			json_array_append_new(row, real(s->gpu[k]));
		json_array_append_new(row, real(s->ops_ms));
		json_array_append_new(row, real(s->gpu_end_us));
		json_array_append_new(a, row);
	}
	return a;
}

#define STEP_FIELDS (20 + GPU_FIELDS)

static int step_of(json_t *row, struct step_rec *s)
{
	if (json_array_size(row) != STEP_FIELDS)
		return -1;
	double *v[] = { &s->data_ms,      &s->forward_ms,       &s->backward_ms,
			&s->comm_ms,      &s->optimizer_ms,     &s->step_ms,
			&s->loss,         &s->comm_exposed_ms,  &s->io_ms,
			&s->gemm_ms,      &s->elementwise_ms,   &s->bytes,
			&s->allreduce_ms, &s->reducescatter_ms, &s->start_us };
	s->step = (long)json_integer_value(json_array_get(row, 0));
	s->active = json_is_true(json_array_get(row, 1));
	for (size_t k = 0; k < sizeof v / sizeof *v; k++)
		*v[k] = real_of(json_array_get(row, k + 2));
	s->samples = (long)json_integer_value(json_array_get(row, 17));
	for (int k = 0; k < GPU_FIELDS; k++)
		s->gpu[k] = real_of(json_array_get(row, 18 + k));
	s->ops_ms = real_of(json_array_get(row, 18 + GPU_FIELDS));
	s->gpu_end_us = real_of(json_array_get(row, 19 + GPU_FIELDS));
	return 0;
}

/* The rank's collectives: [step, seq, pg, op, group, bytes, ms, end_us] each. */
static json_t *coll_json(const struct rank_metrics *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->ncoll; i++) {
		const struct coll_rec *c = &r->coll[i];
		json_array_append_new(a,
				      json_pack("[i, i, I, i, i, o, o, o]", c->step, c->seq,
						(json_int_t) c->pg, c->op, c->group, real(c->bytes),
						real(c->ms), real(c->end_us)));
	}
	return a;
}

static int coll_of(json_t *a, struct rank_metrics *r)
{
	size_t i;
	json_t *row;
	r->ncoll = r->collcap = json_array_size(a);
	r->coll = xcalloc(r->ncoll + 1, sizeof *r->coll);
	json_array_foreach(a, i, row) {
		struct coll_rec *c = &r->coll[i];
		json_int_t pg = 0;
		json_t *bytes = NULL, *ms = NULL, *end = NULL;
		if (json_unpack(row, "[i, i, I, i, i, o, o, o]", &c->step, &c->seq, &pg, &c->op,
				&c->group, &bytes, &ms, &end))
			return -1;
		c->pg = (unsigned)pg;
		c->bytes = real_of(bytes);
		c->ms = real_of(ms);
		c->end_us = real_of(end);
	}
	return 0;
}

static json_t *rank_json(const struct rank_metrics *r)
{
	return json_pack("{s:i, s:i, s:i, s:I, s:o, s:s, s:I, s:b, s:b, s:b, s:o, s:o}", "rank",
			 r->rank, "world_size", r->world_size, "format", (int) r->format,
			 "global_batch", (json_int_t) r->global_batch, "flops_per_step",
			 real(r->flops_per_step), "host", r->host, "bad_lines",
			 (json_int_t) r->bad_lines, "have_meta", r->have_meta, "whole_window",
			 r->whole_window, "own_clock", r->own_clock, "steps", steps_json(r),
			 "collectives", coll_json(r));
}

static int rank_of(json_t *j, struct rank_metrics *r)
{
	json_int_t gb = 0, bad = 0;
	int format = 0, meta = 0, whole = 0, own = 0;
	const char *host = "";
	json_t *fl = NULL, *steps = NULL, *coll = NULL;
	memset(r, 0, sizeof *r);
	if (json_unpack(j, "{s:i, s:i, s:i, s:I, s:o, s:s, s:I, s:b, s:b, s:b, s:o, s:o}", "rank",
			&r->rank, "world_size", &r->world_size, "format", &format, "global_batch",
			&gb, "flops_per_step", &fl, "host", &host, "bad_lines", &bad, "have_meta",
			&meta, "whole_window", &whole, "own_clock", &own, "steps", &steps,
			"collectives", &coll) ||
	    !json_is_array(steps) || !json_is_array(coll) || coll_of(coll, r) < 0)
		return -1;
	r->format = (enum metrics_format)format;
	r->global_batch = (long)gb;
	r->flops_per_step = real_of(fl);
	snprintf(r->host, sizeof r->host, "%s", host);
	r->bad_lines = (long)bad;
	r->have_meta = meta;
	r->whole_window = whole;
	r->own_clock = own;
	r->n = r->cap = json_array_size(steps);
	r->steps = xcalloc(r->n + 1, sizeof *r->steps);
	for (size_t i = 0; i < r->n; i++)
		if (step_of(json_array_get(steps, i), &r->steps[i]) < 0)
			return -1;
	return 0;
}

static json_t *ops_json(const struct op_table *t)
{
	json_t *a = json_array();
	for (size_t i = 0; i < t->n; i++)
		json_array_append_new(a, json_pack("[s, o, I]", t->v[i].name, real(t->v[i].self_ms),
						   (json_int_t)t->v[i].count));
	return json_pack("{s:o, s:o}", "total_ms", real(t->total_ms), "v", a);
}

static int ops_of(json_t *j, struct op_table *t)
{
	json_t *a = json_object_get(j, "v");
	if (!json_is_array(a))
		return -1;
	t->total_ms = real_of(json_object_get(j, "total_ms"));
	t->n = t->cap = json_array_size(a);
	t->v = xcalloc(t->n + 1, sizeof *t->v);
	for (size_t i = 0; i < t->n; i++) {
		const char *name;
		json_t *ms;
		json_int_t count;
		if (json_unpack(json_array_get(a, i), "[s, o, I]", &name, &ms, &count)) {
			t->n = i;
			return -1;
		}
		t->v[i] = (struct op_stat){ xstrdup(name), real_of(ms), (long)count };
	}
	return 0;
}

static json_t *part_json(const struct shard_item *it, const struct trace_set *ts, const char *host)
{
	json_t *ranks = json_array();
	for (size_t i = 0; i < ts->m.n; i++)
		json_array_append_new(ranks, rank_json(&ts->m.ranks[i]));
	const double gpu[] = { ts->gpu_kernel_us,      ts->gpu_idle_us, ts->gpu_compute_us,
			       ts->gpu_non_compute_us, ts->gpu_comm_us, ts->gpu_overlap_us };
	json_t *g = json_array();
	for (size_t i = 0; i < sizeof gpu / sizeof *gpu; i++)
		json_array_append_new(g, real(gpu[i]));
	return json_pack("{s:s, s:s, s:s, s:[I, I, I, I, I], s:o, s:s, s:o, s:o, s:o}", "dir",
			 it->dir, "name", it->name, "host", host, "counts",
			 (json_int_t) ts->unreadable, (json_int_t) ts->no_steps,
			 (json_int_t) ts->gpu_files, (json_int_t) ts->malformed,
			 (json_int_t) ts->partial_steps, "gpu_us", g, "problem", ts->problem, "ops",
			 ops_json(&ts->ops), "kernels", ops_json(&ts->kernels), "ranks", ranks);
}

static int part_of(json_t *j, const struct shard_item *it, struct trace_set *ts)
{
	const char *dir, *name, *host, *problem;
	json_int_t c[5];
	json_t *g, *ops, *kernels, *ranks;
	memset(ts, 0, sizeof *ts);
	if (json_unpack(j, "{s:s, s:s, s:s, s:[I, I, I, I, I], s:o, s:s, s:o, s:o, s:o}", "dir",
			&dir, "name", &name, "host", &host, "counts", &c[0], &c[1], &c[2], &c[3],
			&c[4], "gpu_us", &g, "problem", &problem, "ops", &ops, "kernels",
			&kernels, "ranks", &ranks) ||
	    strcmp(dir, it->dir) || strcmp(name, it->name) || json_array_size(g) != 6 ||
	    !json_is_array(ranks))
		return -1;
	ts->unreadable = (size_t)c[0];
	ts->no_steps = (size_t)c[1];
	ts->gpu_files = (size_t)c[2];
	ts->malformed = (long)c[3];
	ts->partial_steps = (size_t)c[4];
	double *gpu[] = { &ts->gpu_kernel_us,      &ts->gpu_idle_us, &ts->gpu_compute_us,
			  &ts->gpu_non_compute_us, &ts->gpu_comm_us, &ts->gpu_overlap_us };
	for (size_t i = 0; i < 6; i++)
		*gpu[i] = real_of(json_array_get(g, i));
	snprintf(ts->problem, sizeof ts->problem, "%s", problem);
	if (ops_of(ops, &ts->ops) || ops_of(kernels, &ts->kernels))
		return -1;
	ts->m.ranks = xcalloc(json_array_size(ranks) + 1, sizeof *ts->m.ranks);
	for (size_t i = 0; i < json_array_size(ranks); i++, ts->m.n++)
		if (rank_of(json_array_get(ranks, i), &ts->m.ranks[i]) < 0) {
			ts->m.n++;
			return -1;
		}
	return 0;
}

/* ---- the map: one shard ---- */

struct shard_job {
	const struct shard_plan *p;
	size_t *items; /* plan indexes of this shard */
	const struct rules *phases, *kernels;
	const char *host;
	int *rc;       /* per item */
	double *bytes;
};

static void result_path(struct strbuf *sb, const struct shard_plan *p, size_t k)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "%s/%zu.json", p->dir, k);
}

/* 1 when plan item k is among the first TIMELINE_FRAGMENT_RANKS files of its folder
 * (the plan lists a folder's files together, by name): the timeline shows it. */
static int shown_in_timeline(const struct shard_plan *p, size_t k)
{
	return k < TIMELINE_FRAGMENT_RANKS ||
		strcmp(p->v[k - TIMELINE_FRAGMENT_RANKS].dir, p->v[k].dir) != 0;
}

void shard_timeline_dir(const struct shard_plan *p, struct strbuf *out)
{
	strbuf_reset(out);
	strbuf_addf(out, "%s/" RUN_PARTIAL_TIMELINE, p->dir);
}

static void shard_job_one(void *ctx, size_t i)
{
	struct shard_job *j = ctx;
	size_t k = j->items[i];
	const struct shard_item *it = &j->p->v[k];
	struct trace_set part;
	struct strbuf path = STRBUF_INIT, frag = STRBUF_INIT;
	struct stat st;
	if (shown_in_timeline(j->p, k)) {
		shard_timeline_dir(j->p, &path);
		timeline_fragment_path(&frag, path.buf, it->dir, it->name);
	}
	torchtrace_load_file(it->dir, it->name, it->nsys, it->order, j->phases, j->kernels,
			     frag.len ? frag.buf : NULL, &part);
	strbuf_free(&frag);
	result_path(&path, j->p, k);
	j->rc[i] = write_json(path.buf, part_json(it, &part, j->host));
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/%s", it->dir, it->name);
	j->bytes[i] = stat(path.buf, &st) == 0 ? (double)st.st_size : 0;
	trace_set_free(&part);
	strbuf_free(&path);
}

static void host_name(char *buf, size_t n)
{
	const char *node = getenv("SLURMD_NODENAME");
	if (node && *node)
		snprintf(buf, n, "%s", node);
	else if (gethostname(buf, n) != 0)
		snprintf(buf, n, "unknown");
	buf[n - 1] = '\0';
}

static int load_rules(const struct shard_plan *p, struct rules *phases, struct rules *kernels,
		      int *have_kernels)
{
	struct ana_run run = { .phase_names = p->phase_names.v,
			       .phase_patterns = p->phase_patterns.v,
			       .n_phase_rules = p->phase_names.n };
	int rc = ana_phase_rules_load(&run, phases);
	if (rc < 0)
		return rc;
	char *kpath = rules_default_path();
	/* as ana_run_analyse: no kernel rules, no GPU breakdown */
	*have_kernels = rules_load(kpath, kernels) == 0;
	free(kpath);
	return 0;
}

static int write_done(const struct shard_plan *p, const struct shard_done *d)
{
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "%s/shard-%d.done", p->dir, d->index);
	int rc = write_json(path.buf,
			    json_pack("{s:i, s:i, s:i, s:s, s:I, s:f, s:f}", "index", d->index,
				      "count", d->count, "attempt", d->attempt, "host", d->host,
				      "files", (json_int_t) d->files, "bytes", d->bytes, "seconds",
				      d->seconds));
	strbuf_free(&path);
	return rc;
}

int shard_run(const struct shard_plan *p, int index, int count, int attempt, int jobs,
	      struct shard_done *done)
{
	memset(done, 0, sizeof *done);
	*done = (struct shard_done){ .index = index, .count = count, .attempt = attempt };
	host_name(done->host, sizeof done->host);
	double t0 = clock_mono_s();
	struct rules phases, kernels;
	int have_kernels, rc = load_rules(p, &phases, &kernels, &have_kernels);
	if (rc < 0)
		return rc;
	struct shard_job j = { p,          xcalloc(p->n + 1, sizeof *j.items),
			       &phases,    have_kernels ? &kernels : NULL,
			       done->host, NULL,
			       NULL };
	for (size_t k = (size_t)index; k < p->n; k += (size_t)count)
		j.items[done->files++] = k;
	struct strbuf tl = STRBUF_INIT;
	shard_timeline_dir(p, &tl);
	fsio_mkdir_p(tl.buf, 0755); /* else no fragment: the timeline reads those files itself */
	strbuf_free(&tl);
	j.rc = xcalloc(done->files + 1, sizeof *j.rc);
	j.bytes = xcalloc(done->files + 1, sizeof *j.bytes);
	pool_run(done->files, jobs, shard_job_one, &j);
	for (size_t i = 0; i < done->files; i++) {
		done->bytes += j.bytes[i];
		if (rc == 0 && j.rc[i] < 0)
			rc = err_set(j.rc[i], "shard %d/%d: cannot write the result of %s/%s",
				     index, count, p->v[j.items[i]].dir, p->v[j.items[i]].name);
	}
	done->seconds = clock_mono_s() - t0;
	if (rc == 0)
		rc = write_done(p, done);
	rules_free(&phases);
	if (have_kernels)
		rules_free(&kernels);
	free(j.items);
	free(j.rc);
	free(j.bytes);
	return rc;
}

int shard_done_read(const struct shard_plan *p, int index, struct shard_done *done)
{
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "%s/shard-%d.done", p->dir, index);
	json_t *j = json_load_file(path.buf, 0, NULL);
	const char *host = "";
	json_int_t files = 0;
	memset(done, 0, sizeof *done);
	int ok = j &&
		!json_unpack(j, "{s:i, s:i, s:i, s:s, s:I, s:F, s:F}", "index", &done->index,
			     "count", &done->count, "attempt", &done->attempt, "host", &host,
			     "files", &files, "bytes", &done->bytes, "seconds", &done->seconds);
	snprintf(done->host, sizeof done->host, "%s", host);
	done->files = (size_t)files;
	json_decref(j);
	strbuf_free(&path);
	return ok;
}

/* ---- the reduce's source ---- */

int shard_part(void *plan, const char *dir, const char *name, struct trace_set *out)
{
	const struct shard_plan *p = plan;
	/* a linear search: 10^6 comparisons for 1,000 files, nothing beside reading them */
	size_t k = 0;
	while (k < p->n && (strcmp(p->v[k].name, name) || strcmp(p->v[k].dir, dir)))
		k++;
	if (k == p->n)
		return 0; /* not in the plan (added since): read it here */
	struct strbuf path = STRBUF_INIT;
	result_path(&path, p, k);
	json_t *j = json_load_file(path.buf, 0, NULL);
	int ok = j && part_of(j, &p->v[k], out) == 0;
	json_decref(j);
	strbuf_free(&path);
	if (!ok) {
		trace_set_free(out);
		out->not_analysed = 1;
		out->not_analysed_names = xstrdup(name);
	}
	return 1;
}
