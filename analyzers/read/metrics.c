/* SPDX-License-Identifier: MIT */
#include "analyzers/read/metrics.h"
#include "util/fsio.h"

#include "analyzers/pool.h"
#include "util/err.h"
#include "util/sort.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double num(json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

/* Times a step can really take (ms): finite, not negative, under 10^9 ms
 * (11 days). Hostile or corrupt telemetry must not make the statistics. */
static int sane_ms(double v)
{
	return isfinite(v) && v >= 0 && v < 1e9;
}

static int step_is_sane(const struct step_rec *s)
{
	const double all[] = { s->data_ms,      s->forward_ms,      s->backward_ms,
			       s->comm_ms,      s->optimizer_ms,    s->comm_exposed_ms,
			       s->io_ms,        s->gemm_ms,         s->elementwise_ms,
			       s->allreduce_ms, s->reducescatter_ms };
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		if (!sane_ms(all[i]))
			return 0;
	return sane_ms(s->step_ms) && s->step_ms > 0 && s->step >= 0 && s->samples >= 0 &&
		isfinite(s->loss) && isfinite(s->bytes) && s->bytes >= 0 && isfinite(s->start_us) &&
		s->start_us >= 0 && isfinite(s->coll_end_us) && s->coll_end_us >= 0;
}

double step_compute_ms(const struct step_rec *s)
{
	return s->forward_ms + s->backward_ms + s->optimizer_ms + s->ops_ms;
}

void metrics_add_step(struct rank_metrics *r, const struct step_rec *s)
{
	if (!step_is_sane(s)) {
		r->bad_lines++;
		return;
	}
	XGROW(r->steps, r->n, r->cap, 64);
	r->steps[r->n++] = *s;
}

/* A whole non-negative number, or -1 (a string, a fraction, too large). */
static long whole(json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0 &&
			json_integer_value(v) < (json_int_t) 1 << 50
		? (long) json_integer_value(v)
		: -1;
}

static void add_step(struct rank_metrics *r, json_t *o)
{
	struct step_rec s = { 0 };
	const char *phase = json_string_value(json_object_get(o, "phase"));
	s.step = whole(json_object_get(o, "step"));
	s.active = phase && !strcmp(phase, "active");
	s.data_ms = num(o, "data_wait_ms");
	s.forward_ms = num(o, "forward_ms");
	s.backward_ms = num(o, "backward_ms");
	s.comm_ms = num(o, "comm_ms");
	s.optimizer_ms = num(o, "optimizer_ms");
	s.step_ms = num(o, "step_ms");
	s.loss = num(o, "loss");
	json_t *ce = json_object_get(o, "comm_exposed_ms");
	s.comm_exposed_ms = json_is_number(ce) ? json_number_value(ce) : s.comm_ms;
	s.io_ms = num(o, "io_ms");
	s.gemm_ms = num(o, "gemm_ms");
	s.elementwise_ms = num(o, "elementwise_ms");
	s.bytes = num(o, "bytes_allreduced");
	json_t *n = json_object_get(o, "samples");
	s.samples = n ? whole(n) : 0;
	s.start_us = num(o, "start_us");
	s.coll_end_us = num(o, "coll_end_us");
	/* inside its step (1 ms of rounding either side), else not known: a wrong one would
	 * make a period of anything */
	if (!(s.start_us > 0 && s.coll_end_us >= s.start_us - 1e3 &&
	      s.coll_end_us <= s.start_us + s.step_ms * 1e3 + 1e3))
		s.coll_end_us = 0;
	metrics_add_step(r, &s);
}

/* The first meta line describes the rank; a later one is a bad line. A
 * host name keeps its text but not its control characters. */
static void set_meta(struct rank_metrics *r, json_t *o)
{
	if (r->have_meta++) {
		r->bad_lines++;
		return;
	}
	long rank = whole(json_object_get(o, "rank")), ws = whole(json_object_get(o, "world_size"));
	long gb = whole(json_object_get(o, "global_batch"));
	double flops = num(o, "flops_per_step");
	r->rank = rank >= 0 && rank < 1000000 ? (int)rank : -1;
	r->world_size = ws > 0 && ws < 1000000 ? (int)ws : 0;
	r->global_batch = gb > 0 ? gb : 0;
	r->flops_per_step = isfinite(flops) && flops > 0 ? flops : 0;
	const char *h = json_string_value(json_object_get(o, "host"));
	snprintf(r->host, sizeof r->host, "%s", h ? h : "");
	for (char *c = r->host; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

/* An AORTA-style iteration: {"rank", "step", "loss", "profile": {"total_ms",
 * "overlap": {"per_stream_ms": {compute, allreduce, reducescatter | comm},
 * "overlap_ms": {compute_comm}}}}. Compute goes to forward_ms; exposed
 * communication is what overlap did not hide. */
static void add_aorta_step(struct rank_metrics *r, json_t *o)
{
	json_t *ov = json_object_get(json_object_get(o, "profile"), "overlap");
	json_t *ps = json_object_get(ov, "per_stream_ms"), *om = json_object_get(ov, "overlap_ms");
	struct step_rec st = { 0 }, *s = &st;
	json_t *step = json_object_get(o, "global_step");
	s->step = whole(step ? step : json_object_get(o, "step"));
	s->active = 1;
	s->forward_ms = num(ps, "compute");
	s->allreduce_ms = num(ps, "allreduce") + num(ps, "all_reduce");
	s->reducescatter_ms = num(ps, "reducescatter") + num(ps, "reduce_scatter");
	s->comm_ms = s->allreduce_ms + s->reducescatter_ms;
	if (s->comm_ms == 0)
		s->comm_ms = num(ps, "comm");
	double hidden = num(om, "compute_comm");
	s->comm_exposed_ms = s->comm_ms > hidden ? s->comm_ms - hidden : 0;
	s->step_ms = num(json_object_get(o, "profile"), "total_ms");
	if (s->step_ms <= 0)
		s->step_ms = s->forward_ms + s->comm_exposed_ms;
	s->loss = num(o, "loss");
	long rank = whole(json_object_get(o, "rank"));
	if (rank >= 0 && rank < 1000000)
		r->rank = (int)rank;
	r->format = METRICS_AORTA;
	metrics_add_step(r, s);
}

int metrics_rank_file(const char *name, int *rank)
{
	char tail[32];
	return sscanf(name, "rank_%d%31s", rank, tail) == 2 &&
		(!strcmp(tail, ".jsonl") || !strcmp(tail, "_metrics.jsonl"));
}

int metrics_parse_line(struct rank_metrics *r, const char *line, size_t len)
{
	json_error_t jerr;
	json_t *o = json_loadb(line, len, 0, &jerr);
	const char *type = o ? json_string_value(json_object_get(o, "type")) : NULL;
	int meta = type && !strcmp(type, "meta");
	if (meta)
		set_meta(r, o);
	else if (type && !strcmp(type, "step"))
		add_step(r, o);
	else if (json_is_object(json_object_get(o, "profile")))
		add_aorta_step(r, o);
	else if (strspn(line, " \t\r\n") < len)
		r->bad_lines++; /* not JSON, not an object, or of an unknown type */
	json_decref(o);
	return meta;
}

int metrics_load_stream(FILE *f, struct rank_metrics *out, int meta_only)
{
	memset(out, 0, sizeof *out);
	out->rank = -1;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0)
		if (metrics_parse_line(out, line, (size_t)len) && meta_only)
			break; /* the steps are not wanted */
	free(line);
	return 0;
}

static int load_file(const char *path, struct rank_metrics *out, int meta_only)
{
	FILE *f = fsio_fopen_or_warn(path);
	if (!f) {
		memset(out, 0, sizeof *out);
		return ERR_NOTFOUND;
	}
	int rc = metrics_load_stream(f, out, meta_only);
	fclose(f);
	return rc;
}

int metrics_load_file(const char *path, struct rank_metrics *out)
{
	return load_file(path, out, 0);
}

static int rank_cmp(const void *a, const void *b)
{
	const struct rank_metrics *x = a, *y = b;
	return x->rank - y->rank;
}

struct dir_job {
	char **paths;
	int *rank_of_name, *ok, meta_only;
	struct rank_metrics *slot;
};

static void dir_job_one(void *ctx, size_t i)
{
	struct dir_job *j = ctx;
	j->ok[i] = load_file(j->paths[i], &j->slot[i], j->meta_only) == 0;
	if (j->ok[i] && j->slot[i].rank < 0)
		j->slot[i].rank = j->rank_of_name[i];
}

/* The rank files of dir, read on up to `jobs` threads, kept in file-name
 * order and then ordered by rank: the same whatever jobs is. */
static int load_dir(const char *dir, int jobs, struct scenario_metrics *out, int meta_only)
{
	memset(out, 0, sizeof *out);
	struct argv names;
	if (fsio_list(dir, &names) < 0)
		return err_set(ERR_NOTFOUND, "no metrics directory %s", dir);
	char **paths = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < names.n; i++) {
		int r;
		if (!metrics_rank_file(names.v[i], &r))
			continue;
		struct strbuf p = STRBUF_INIT;
		strbuf_addf(&p, "%s/%s", dir, names.v[i]);
		XGROW(paths, n, cap, 16);
		paths[n++] = strbuf_detach(&p);
	}
	argv_free(&names);
	struct dir_job j = { paths, xcalloc(n + 1, sizeof(int)), xcalloc(n + 1, sizeof(int)),
			     meta_only, xcalloc(n + 1, sizeof(struct rank_metrics)) };
	for (size_t i = 0; i < n; i++)
		metrics_rank_file(strrchr(paths[i], '/') + 1, &j.rank_of_name[i]);
	pool_run(n, jobs, dir_job_one, &j);
	out->ranks = xcalloc(n + 1, sizeof *out->ranks);
	for (size_t i = 0; i < n; i++) {
		if (j.ok[i])
			out->ranks[out->n++] = j.slot[i];
		free(paths[i]);
	}
	free(paths);
	free(j.rank_of_name);
	free(j.ok);
	free(j.slot);
	if (out->n == 0) {
		metrics_free(out);
		return err_set(ERR_NOTFOUND,
			       "no rank_<r>.jsonl or rank_<r>_metrics.jsonl files in %s", dir);
	}
	metrics_sort_ranks(out);
	return 0;
}

void metrics_sort_ranks(struct scenario_metrics *m)
{
	if (m->n)
		sort_runs(m->ranks, m->n, sizeof *m->ranks, rank_cmp);
}

int metrics_load_dir(const char *dir, int jobs, struct scenario_metrics *out)
{
	return load_dir(dir, jobs, out, 0);
}

int metrics_load_dir_meta(const char *dir, struct scenario_metrics *out)
{
	return load_dir(dir, 1, out, 1);
}

void rank_metrics_free(struct rank_metrics *r)
{
	free(r->steps);
	free(r->coll);
	memset(r, 0, sizeof *r);
}

void metrics_free(struct scenario_metrics *m)
{
	for (size_t i = 0; i < m->n; i++)
		rank_metrics_free(&m->ranks[i]);
	free(m->ranks);
	memset(m, 0, sizeof *m);
}

const char *metrics_format_name(enum metrics_format f)
{
	static const char *const names[] = { "trainer", "aorta", "pytorch-trace", "step-log",
					     "nsys" };
	return f >= 0 && f < (int)(sizeof names / sizeof *names) ? names[f] : "";
}
