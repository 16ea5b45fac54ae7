/* SPDX-License-Identifier: MIT */
#include "analyzers/torchtrace.h"

#include "analyzers/gpu_breakdown.h"
#include "analyzers/read/nsys.h"
#include "analyzers/phases.h"
#include "analyzers/pool.h"
#include "analyzers/timeline_fragment.h"
#include "analyzers/trace_names.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <stdlib.h>
#include <string.h>

/* Adds a file's steps to the rank it belongs to (a rank may have written
 * several files: one per profiling cycle). */
static void add_rank(struct trace_set *ts, struct rank_metrics *r)
{
	for (size_t i = 0; i < ts->m.n; i++) {
		struct rank_metrics *x = &ts->m.ranks[i];
		if (x->rank != r->rank)
			continue;
		for (size_t k = 0; k < r->ncoll; k++) { /* its steps follow x's */
			XGROW(x->coll, x->ncoll, x->collcap, 64);
			x->coll[x->ncoll] = r->coll[k];
			x->coll[x->ncoll++].step += (int)x->n;
		}
		for (size_t k = 0; k < r->n; k++)
			metrics_add_step(x, &r->steps[k]);
		rank_metrics_free(r);
		return;
	}
	ts->m.ranks = xrealloc(ts->m.ranks, (ts->m.n + 1) * sizeof *ts->m.ranks);
	ts->m.ranks[ts->m.n++] = *r;
}

/* A trace with GPU kernels: HTA's breakdown of this rank (done (NULL: done here), t's
 * kernels classified), added to the scenario's sums, and its kernels' time by name. */
static void gpu_time(struct trace_set *ts, struct gpu_trace *t, const struct rules *kernels,
		     const struct gpu_breakdown_rank *done)
{
	struct gpu_breakdown_rank own;
	const struct gpu_breakdown_rank *h = done;
	if (!h) {
		gpu_breakdown_analyse(t, kernels, 1, &own);
		h = &own;
	}
	double us = 1 / (t->unit_per_us > 0 ? t->unit_per_us : 1);
	ts->gpu_kernel_us += h->kernel_time * us;
	ts->gpu_idle_us += h->idle * us;
	ts->gpu_compute_us += h->compute * us;
	ts->gpu_non_compute_us += h->non_compute * us;
	ts->gpu_comm_us += h->comm_union * us;
	ts->gpu_overlap_us += h->overlap * us;
	if (!done)
		gpu_breakdown_rank_free(&own);
	/* per name first: one table look-up per kernel name */
	double *ms = xcalloc(t->nnames + 1, sizeof *ms);
	long *count = xcalloc(t->nnames + 1, sizeof *count);
	for (size_t i = 0; i < t->n; i++) {
		ms[t->ev[i].name] += (t->ev[i].end - t->ev[i].start) * us / 1000.0;
		count[t->ev[i].name]++;
	}
	for (size_t i = 0; i < t->nnames; i++)
		if (count[i])
			op_table_add(&ts->kernels, t->names[i], ms[i], count[i]);
	free(count);
	free(ms);
}

/* A file's rank (the trace's own, else its name's, else its order) joins the
 * set when it has steps; else the first such file is named with what to do. */
static void keep_rank(struct trace_set *ts, struct rank_metrics *r, const char *name, int order,
		      const char *path, const char *no_steps)
{
	r->rank = trace_rank_for(r->rank, name, order);
	if (r->n) {
		add_rank(ts, r);
		return;
	}
	ts->no_steps++;
	if (!ts->problem[0])
		snprintf(ts->problem, sizeof ts->problem, "%s %s", path, no_steps);
	rank_metrics_free(r);
}

void trace_set_add_kineto(struct trace_set *ts, struct gpu_trace *t, struct rank_metrics *reduced,
			  const char *name, int order, const char *path,
			  const struct rules *phases, const struct rules *kernels,
			  const struct gpu_breakdown_rank *done)
{
	struct rank_metrics r = *reduced;
	memset(reduced, 0, sizeof *reduced);
	ts->malformed += t->malformed;
	ts->gpu_files += t->n > 0;
	if (t->n > 0 && kernels) {
		gpu_time(ts, t, kernels, done); /* sets the kernels' categories */
		trace_reduce_gpu_steps(t, phases, kernels, &r);
		trace_reduce_gpu_window(t, phases, kernels, &r);
	}
	trace_reduce_collectives(t, t, &r);
	ts->partial_steps += (size_t)trace_reduce_drop_partial_step(t, &r);
	keep_rank(
		ts, &r, name, order, path,
		"has no ProfilerStep#N ranges: call prof.step() once per training step inside the torch.profiler context");
}

void trace_set_add_gpu(struct trace_set *ts, struct gpu_trace *t, const struct rules *kernels,
		       const struct gpu_breakdown_rank *done)
{
	ts->gpu_files += t->n > 0;
	if (t->n > 0)
		gpu_time(ts, t, kernels, done);
}

/* A reader's message as one line of the report: newlines (yajl's pointer
 * at the error) become spaces, trailing blanks go. */
static void one_line(char *dst, size_t n, const char *msg)
{
	size_t k = 0;
	for (; *msg && k + 1 < n; msg++)
		if (*msg != '\r' && !(*msg == '\n' && k && dst[k - 1] == ' '))
			dst[k++] = *msg == '\n' || *msg == '\t' ? ' ' : *msg;
	while (k && dst[k - 1] == ' ')
		k--;
	dst[k] = '\0';
}

static void load_one(struct trace_set *ts, const char *dir, const char *name, int order,
		     const struct rules *phases, const struct rules *kernels, const char *frag)
{
	struct strbuf p = STRBUF_INIT;
	struct gpu_trace t;
	strbuf_addf(&p, "%s/%s", dir, name);
	if (kineto_load(p.buf, 1, &t) < 0) {
		ts->unreadable++;
		if (!ts->problem[0])
			one_line(ts->problem, sizeof ts->problem, err_last());
		if (frag) /* a fragment failing to be written is read again by the timeline */
			timeline_fragment_write_state(frag, TIMELINE_FRAGMENT_UNREADABLE);
		strbuf_free(&p);
		return;
	}
	if (frag)
		timeline_fragment_write(frag, &t, phases, 0, trace_rank_for(t.rank, name, order));
	struct rank_metrics r = { 0 };
	trace_reduce_rank(&t, phases, 0, &r, &ts->ops);
	trace_set_add_kineto(ts, &t, &r, name, order, p.buf, phases, kernels, NULL);
	gpu_trace_free(&t);
	strbuf_free(&p);
}

/* An export's GPU work: the GPU breakdown of every process and device,
 * and the steps' GPU view from the rank's own GPU (the busiest). */
static void nsys_gpu(struct trace_set *ts, const struct gpu_trace *host, struct nsys_report *rep,
		     const struct rules *phases, const struct rules *kernels,
		     struct rank_metrics *r)
{
	size_t busiest = nsys_busiest(rep);
	for (size_t i = 0; i < rep->n; i++)
		trace_set_add_gpu(ts, &rep->proc[i], kernels, NULL);
	if (rep->n && rep->proc[busiest].n) {
		trace_reduce_gpu_steps(&rep->proc[busiest], phases, kernels, r);
		trace_reduce_gpu_window(&rep->proc[busiest], phases, kernels, r);
		trace_reduce_collectives(host, &rep->proc[busiest], r);
	}
}

/* An Nsight Systems export: its NVTX ranges as the rank's host ranges (steps
 * from step-named ranges), its GPU work for the GPU breakdown; with frag,
 * its timeline fragment (host ranges and every process's GPU work). */
static void load_nsys(struct trace_set *ts, const char *dir, const char *name, int order,
		      const struct rules *phases, const struct rules *kernels, const char *frag)
{
	struct strbuf p = STRBUF_INIT;
	struct gpu_trace host;
	struct nsys_report rep;
	strbuf_addf(&p, "%s/%s", dir, name);
	if (!nsys_is_sqlite(p.buf) || nsys_load_host(p.buf, &host) < 0) {
		ts->unreadable++;
		if (!ts->problem[0])
			snprintf(ts->problem, sizeof ts->problem,
				 "%s is not an Nsight Systems SQLite export", p.buf);
		if (frag)
			timeline_fragment_write_state(frag, TIMELINE_FRAGMENT_UNREADABLE);
		strbuf_free(&p);
		return;
	}
	struct rank_metrics r = { 0 };
	trace_reduce_rank(&host, phases, 1, &r, &ts->ops);
	r.format = METRICS_NSYS;
	trace_reduce_collectives(&host, NULL, &r);
	int have_rep = (kernels || frag) && nsys_load(p.buf, 1, &rep) == 0;
	if (have_rep && kernels)
		nsys_gpu(ts, &host, &rep, phases, kernels, &r);
	keep_rank(
		ts, &r, name, order, p.buf,
		"has no NVTX range per step: wrap each step in a range named \"step\" (or ProfilerStep#N)");
	if (frag) { /* the analysis is done with host: the GPU work joins it */
		if (have_rep)
			timeline_fragment_add_nsys(&host, &rep);
		timeline_fragment_write(frag, &host, phases, 1, trace_rank_for(-1, name, order));
	}
	if (have_rep)
		nsys_report_free(&rep);
	gpu_trace_free(&host);
	strbuf_free(&p);
}

void torchtrace_load_file(const char *dir, const char *name, int nsys, int order,
			  const struct rules *phases, const struct rules *kernels,
			  const char *frag, struct trace_set *part)
{
	memset(part, 0, sizeof *part);
	if (!phases)
		frag = NULL;
	if (nsys)
		load_nsys(part, dir, name, order, phases, kernels, frag);
	else
		load_one(part, dir, name, order, phases, kernels, frag);
}

struct dir_job {
	const char *dir;
	char **names;
	int nsys;
	const struct rules *phases, *kernels;
	const struct trace_source *src;
	struct trace_set *part; /* one per file, filled by whichever worker takes it */
	int *hint;              /* each file's rank when the trace does not say */
};

static void dir_job_one(void *ctx, size_t i)
{
	struct dir_job *j = ctx;
	struct strbuf frag = STRBUF_INIT;
	int shown = j->src && j->src->timeline_dir && i < TIMELINE_FRAGMENT_RANKS;
	if (shown)
		timeline_fragment_path(&frag, j->src->timeline_dir, j->dir, j->names[i]);
	memset(&j->part[i], 0, sizeof j->part[i]);
	if (!j->src || !j->src->part ||
	    j->src->part(j->src->ctx, j->dir, j->names[i], &j->part[i]) != 1)
		torchtrace_load_file(j->dir, j->names[i], j->nsys, j->hint[i], j->phases,
				     j->kernels, shown ? frag.buf : NULL, &j->part[i]);
	else if (shown && j->part[i].not_analysed) /* the timeline leaves it out, too */
		timeline_fragment_write_state(frag.buf, TIMELINE_FRAGMENT_NOT_ANALYSED);
	strbuf_free(&frag);
}

/* Adds one file's results to the scenario's, in file order. */
static void merge_part(struct trace_set *ts, struct trace_set *p)
{
	for (size_t i = 0; i < p->m.n; i++)
		add_rank(ts, &p->m.ranks[i]);
	free(p->m.ranks);
	memset(&p->m, 0, sizeof p->m);
	op_table_merge(&ts->ops, &p->ops);
	op_table_merge(&ts->kernels, &p->kernels);
	ts->unreadable += p->unreadable;
	ts->no_steps += p->no_steps;
	ts->gpu_files += p->gpu_files;
	ts->malformed += p->malformed;
	ts->partial_steps += p->partial_steps;
	ts->gpu_kernel_us += p->gpu_kernel_us;
	ts->gpu_idle_us += p->gpu_idle_us;
	ts->gpu_compute_us += p->gpu_compute_us;
	ts->gpu_non_compute_us += p->gpu_non_compute_us;
	ts->gpu_comm_us += p->gpu_comm_us;
	ts->gpu_overlap_us += p->gpu_overlap_us;
	if (!ts->problem[0])
		memcpy(ts->problem, p->problem, sizeof ts->problem);
	if (p->not_analysed) {
		str_list_append(&ts->not_analysed_names, ", ",
				p->not_analysed_names ? p->not_analysed_names : "?");
		ts->not_analysed += p->not_analysed;
	}
	trace_set_free(p);
}

static int load_dir(const char *dir, int nsys, const struct rules *phases,
		    const struct rules *kernels, int jobs, const struct trace_source *src,
		    struct trace_set *ts)
{
	memset(ts, 0, sizeof *ts);
	char **names;
	size_t n;
	int rc = trace_files_list(dir, nsys, &names, &n);
	if (rc < 0)
		return rc;
	struct dir_job j = { dir,
			     names,
			     nsys,
			     phases,
			     kernels,
			     src,
			     xcalloc(n + 1, sizeof *j.part),
			     xcalloc(n + 1, sizeof(int)) };
	trace_files_rank_hints(dir, names, n, j.hint);
	pool_run(n, jobs, dir_job_one, &j); /* each worker holds one file's data at a time */
	for (size_t i = 0; i < n; i++) {
		merge_part(ts, &j.part[i]);
		free(names[i]);
	}
	free(j.part);
	free(j.hint);
	free(names);
	ts->files = n;
	metrics_sort_ranks(&ts->m);
	op_table_sort(&ts->ops);
	op_table_sort(&ts->kernels);
	if (n == 0)
		return err_set(ERR_NOTFOUND, nsys ? "no Nsight Systems exports (*.sqlite) in %s" :
			       "no trace files (*.json, *.json.gz) in %s", dir);
	return 0;
}

int torchtrace_load_dir(const char *dir, const struct rules *phases, const struct rules *kernels,
			int jobs, const struct trace_source *src, struct trace_set *ts)
{
	return load_dir(dir, 0, phases, kernels, jobs, src, ts);
}

int torchtrace_load_nsys_dir(const char *dir, const struct rules *phases,
			     const struct rules *kernels, int jobs, const struct trace_source *src,
			     struct trace_set *ts)
{
	return load_dir(dir, 1, phases, kernels, jobs, src, ts);
}

void trace_set_free(struct trace_set *ts)
{
	metrics_free(&ts->m);
	op_table_free(&ts->ops);
	op_table_free(&ts->kernels);
	free(ts->not_analysed_names);
	memset(ts, 0, sizeof *ts);
}
