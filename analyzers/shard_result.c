/* SPDX-License-Identifier: MIT */
#include "analyzers/shard_result.h"

#include "util/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP_FIELDS (20 + GPU_FIELDS)

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
	return json_pack("{s:i, s:i, s:i, s:I, s:o, s:s, s:I, s:b, s:b, s:b, s:o, s:o, s:o}",
			 "rank", r->rank, "world_size", r->world_size, "format", (int) r->format,
			 "global_batch", (json_int_t) r->global_batch, "flops_per_step",
			 real(r->flops_per_step), "host", r->host, "bad_lines",
			 (json_int_t) r->bad_lines, "have_meta", r->have_meta, "whole_window",
			 r->whole_window, "own_clock", r->own_clock, "clock_base_us",
			 real(r->clock_base_us), "steps", steps_json(r), "collectives",
			 coll_json(r));
}

static int rank_of(json_t *j, struct rank_metrics *r)
{
	json_int_t gb = 0, bad = 0;
	int format = 0, meta = 0, whole = 0, own = 0;
	const char *host = "";
	json_t *fl = NULL, *steps = NULL, *coll = NULL, *base = NULL;
	memset(r, 0, sizeof *r);
	if (json_unpack(j, "{s:i, s:i, s:i, s:I, s:o, s:s, s:I, s:b, s:b, s:b, s?o, s:o, s:o}",
			"rank", &r->rank, "world_size", &r->world_size, "format", &format,
			"global_batch", &gb, "flops_per_step", &fl, "host", &host, "bad_lines",
			&bad, "have_meta", &meta, "whole_window", &whole, "own_clock", &own,
			"clock_base_us", &base, "steps", &steps, "collectives", &coll) ||
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
	r->clock_base_us = base ? real_of(base) : 0;
	r->clock_base_us = r->clock_base_us > 0 ? r->clock_base_us : 0;
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

json_t *shard_result_json(const struct shard_item *it, const struct trace_set *ts, const char *host)
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

int shard_result_read(json_t *j, const struct shard_item *it, struct trace_set *ts)
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
