/* SPDX-License-Identifier: MIT */
#include "analyzers/inspector.h"

#include "analyzers/analysis.h"
#include "analyzers/read/ranklines.h"
#include "analyzers/torchtrace.h"
#include "util/err.h"
#include "util/run_layout.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bytes a collective moves as nccl-tests counts them (the larger of its input and
 * output): the Inspector's coll_msg_size_bytes is one rank's count times the type's size,
 * its part of an all-gather's output or of a reduce-scatter's input. */
static double traffic_bytes(int op, double msg, int n)
{
	return op == COLL_ALL_GATHER || op == COLL_REDUCE_SCATTER ? msg * n : msg;
}

/* GB/s as the plugin computes them (inspectorComputeCollBw): bytes / 1e9 / seconds. */
static double gbps(double bytes, double us)
{
	return us > 0 ? bytes / 1.0E9 / (us / 1000000.0) : 0;
}

static int differs(double file, double ours)
{
	return file >= 0 && fabs(file - ours) > INSP_BW_TOLERANCE * (1 + fabs(ours));
}

/* Each record's own algbw and busbw against those its size and time give. */
static void check_bandwidths(struct insp_data *d, const struct insp_instance *in, int op,
			     double bytes)
{
	int n = in->comm->n_ranks;
	for (int r = 0; r < n; r++) {
		const struct insp_rank_rec *x = &in->r[r];
		double alg = gbps(bytes, x->exec_us), bus = alg * coll_busbw_factor(op, n);
		if (x->algbw < 0 && x->busbw < 0)
			continue;
		d->sum.checked++;
		if (!differs(x->algbw, alg) && !differs(x->busbw, bus))
			continue;
		if (d->sum.mismatches < INSP_SHOWN)
			d->sum.shown[d->sum.mismatches] = (struct insp_mismatch){
				op, in->sn, x->proc, x->algbw, x->busbw, alg, bus
			};
		d->sum.mismatches++;
	}
}

/* Keeps every stride-th of the rows seen; 0 when this one is not kept. */
static int keep_row(size_t *seen, size_t *stride)
{
	if (!*stride)
		*stride = 1;
	return (*seen)++ % *stride == 0;
}

/* The instance's times for the straggler test, a sample of at most INSP_KEEP_JUDGED
 * values: when full, every second row kept goes and the stride doubles. */
static void keep_judged(struct insp_data *d, const struct insp_instance *in, const double *ms)
{
	size_t n = (size_t)in->comm->n_ranks, seen = d->judge_seen;
	if (n < 2 || !keep_row(&d->judge_seen, &d->judge_stride))
		return;
	if (d->njudged + n + 1 > INSP_KEEP_JUDGED) {
		size_t at = 0, out = 0, row = 0;
		for (; at < d->njudged; row++) {
			size_t len = 1 + (size_t)d->read.comms[(size_t)d->judged[at]].n_ranks;
			if (row % 2 == 0)
				memmove(&d->judged[out], &d->judged[at], len * sizeof *d->judged),
					out += len;
			at += len;
		}
		d->njudged = out;
		d->judge_rows = (d->judge_rows + 1) / 2;
		d->judge_stride *= 2;
		if (seen % d->judge_stride)
			return;
	}
	while (d->njudged + n + 1 > d->judgedcap)
		XGROW(d->judged, d->judgedcap, d->judgedcap, 1024);
	d->judged[d->njudged++] = (double)in->comm_index;
	memcpy(&d->judged[d->njudged], ms, n * sizeof *ms);
	d->njudged += n;
	d->judge_rows++;
}

/* The kernels' stop times of the instance's verbose records, a sample of at most
 * INSP_KEEP_ENDS of them (instances dropped as keep_judged drops rows). */
static void keep_ends(struct insp_data *d, const struct insp_instance *in)
{
	struct insp_summary *s = &d->sum;
	size_t n = 0, inst = d->ends_seen;
	for (int r = 0; r < in->comm->n_ranks; r++)
		n += in->r[r].kernel_stop_us > 0;
	if (!n || !keep_row(&d->ends_seen, &d->ends_stride))
		return;
	if (s->n_ends + n > INSP_KEEP_ENDS) {
		size_t out = 0;
		for (size_t i = 0; i < s->n_ends; i++)
			if (s->ends[i].instance % (2 * d->ends_stride) == 0)
				s->ends[out++] = s->ends[i];
		s->n_ends = out;
		d->ends_stride *= 2;
		if (inst % d->ends_stride)
			return;
	}
	for (int r = 0; r < in->comm->n_ranks; r++)
		if (in->r[r].kernel_stop_us > 0) {
			XGROW(s->ends, s->n_ends, d->ends_cap, 256);
			s->ends[s->n_ends++] = (struct insp_end){ inst, in->comm_index, in->sn,
								  (size_t)in->r[r].proc,
								  in->r[r].kernel_stop_us };
		}
}

static void on_instance(void *ctx, const struct insp_instance *in)
{
	struct insp_data *d = ctx;
	int op = coll_op_of(in->coll), n = in->comm->n_ranks;
	op = op < 0 ? COLL_UNKNOWN : op;
	while ((size_t)n > d->mscap)
		XGROW(d->ms, d->mscap, d->mscap, 64);
	double bytes = traffic_bytes(op, in->r[0].msg_bytes, n);
	for (int r = 0; r < n; r++)
		d->ms[r] = in->r[r].exec_us / 1000.0;
	check_bandwidths(d, in, op, bytes);
	coll_aggr_add(&d->aggr, op, bytes, n, d->ms, (size_t)n);
	keep_judged(d, in, d->ms);
	keep_ends(d, in);
}

/* The communicator holding process p whose rank names it: the largest, then the one with
 * the most instances, then the first seen; -1 none. */
static long naming_comm(const struct insp_read *r, size_t p, int *rank)
{
	long best = -1;
	for (size_t k = 0; k < r->ncomms; k++) {
		const struct insp_comm *c = &r->comms[k], *b = best < 0 ? NULL : &r->comms[best];
		for (int i = 0; i < c->n_ranks; i++)
			if (c->member[i] == (int)p &&
			    (!b || c->n_ranks > b->n_ranks ||
			     (c->n_ranks == b->n_ranks && c->instances > b->instances))) {
				best = (long)k;
				*rank = i;
			}
	}
	return best;
}

/* Each process's global rank and node: the launcher's record of its host and pid (job
 * runs), else its rank in the largest communicator it is in and its host name. */
static void name_procs(struct insp_data *d, const char *job_dir)
{
	struct insp_summary *s = &d->sum;
	size_t n = d->read.nprocs;
	struct rank_record *rec = NULL;
	size_t nrec = job_dir ? ranklines_records(job_dir, &rec) : 0;
	s->proc_rank = xcalloc(n + 1, sizeof *s->proc_rank);
	s->proc_node = xcalloc(n + 1, sizeof *s->proc_node);
	for (size_t p = 0; p < n; p++) {
		const struct insp_proc *pr = &d->read.procs[p];
		int rank = -1;
		snprintf(s->proc_node[p], sizeof s->proc_node[p], "%.127s", pr->host);
		for (size_t k = 0; k < nrec && rank < 0; k++)
			if (rec[k].pid == pr->pid && !strcmp(rec[k].host, pr->host)) {
				rank = (int)rec[k].rank;
				snprintf(s->proc_node[p], sizeof s->proc_node[p], "%.127s",
					 rec[k].node);
			}
		if (rank < 0 && naming_comm(&d->read, p, &rank) < 0)
			rank = -1;
		s->proc_rank[p] = rank;
	}
	free(rec);
}

int inspector_load(char *const *paths, size_t n, const char *job_dir, struct insp_data *d)
{
	memset(d, 0, sizeof *d);
	if (!n)
		return err_set(ERR_NOTFOUND, "no NCCL Inspector dump");
	d->aggr.keep = INSP_KEEP_VALUES;
	insp_read_files(paths, n, on_instance, d, &d->read);
	d->sum.found = 1;
	d->sum.st = d->read.st;
	d->sum.procs = d->read.nprocs;
	d->sum.comms = d->read.ncomms;
	name_procs(d, job_dir);
	for (size_t i = 0; i < d->sum.mismatches && i < INSP_SHOWN; i++) {
		int p = d->sum.shown[i].rank; /* the process, named now */
		d->sum.shown[i].rank = p >= 0 ? d->sum.proc_rank[p] : -1;
	}
	return 0;
}

void inspector_rows(struct insp_data *d, size_t steps, struct collective **out, size_t *n)
{
	coll_aggr_rows(&d->aggr, steps, out, n);
	d->sum.colls_used = *n > 0;
}

/* Whether communicator k spans every process, one rank each (the straggler test's units). */
static int spans_all(const struct insp_data *d, size_t k, unsigned char *seen)
{
	const struct insp_comm *c = &d->read.comms[k];
	if (d->read.nprocs < 2 || (size_t)c->n_ranks != d->read.nprocs)
		return 0;
	memset(seen, 0, d->read.nprocs);
	for (int r = 0; r < c->n_ranks; r++)
		if (c->member[r] < 0 || seen[c->member[r]]++)
			return 0;
	return 1;
}

void inspector_stragglers(struct insp_data *d, double steps, double step_med_ms,
			  struct straggler *out, size_t *n, char *slow_node, size_t slow_len,
			  struct straggler_test *test)
{
	size_t np = d->read.nprocs;
	const char **hosts = xcalloc(np + 1, sizeof *hosts);
	double *ms = xcalloc(np + 1, sizeof *ms);
	unsigned char *seen = xcalloc(np + 1, 1), *span = xcalloc(d->read.ncomms + 1, 1);
	for (size_t p = 0; p < np; p++)
		hosts[p] = d->sum.proc_node[p];
	for (size_t k = 0; k < d->read.ncomms; k++)
		span[k] = (unsigned char)spans_all(d, k, seen);
	struct straggler_judge *j = straggler_judge_new(np, hosts, d->sum.proc_rank);
	for (size_t at = 0; at < d->njudged;) {
		size_t k = (size_t)d->judged[at];
		const struct insp_comm *c = &d->read.comms[k];
		if (span[k]) {
			for (int r = 0; r < c->n_ranks; r++)
				ms[c->member[r]] = d->judged[at + 1 + (size_t)r];
			straggler_judge_add(j, ms);
			d->sum.judged++;
		}
		at += 1 + (size_t)c->n_ranks;
	}
	straggler_judge_find(j, steps, step_med_ms, out, n, slow_node, slow_len, test);
	d->sum.stragglers_used = d->sum.judged > 0;
	straggler_judge_free(j);
	free(hosts);
	free(ms);
	free(seen);
	free(span);
}

double inspector_judged_ms(const struct insp_data *d)
{
	unsigned char *seen = xcalloc(d->read.nprocs + 1, 1);
	double total = 0;
	for (size_t at = 0; at < d->njudged;) {
		size_t k = (size_t)d->judged[at], n = (size_t)d->read.comms[k].n_ranks;
		double sum = 0;
		for (size_t r = 0; r < n; r++)
			sum += d->judged[at + 1 + r];
		if (spans_all(d, k, seen))
			total += sum / (double)n;
		at += 1 + n;
	}
	free(seen);
	return total;
}

void inspector_done(struct insp_data *d, struct insp_summary *out)
{
	*out = d->sum;
	struct collective *rows;
	size_t n;
	coll_aggr_rows(&d->aggr, 0, &rows, &n); /* frees what inspector_rows did not take */
	insp_read_free(&d->read);
	free(d->judged);
	free(d->ms);
	memset(d, 0, sizeof *d);
}

void inspector_summary_free(struct insp_summary *s)
{
	free(s->proc_rank);
	free(s->proc_node);
	free(s->ends);
	memset(s, 0, sizeof *s);
}

/* Whether m's steps give each rank's time in the collectives (telemetry, traces): then
 * they, with the phases around, judge the stragglers. */
static int steps_judge(const struct ana_scenario *s, const struct scenario_metrics *m)
{
	if (!s->shares.shares_known || m->ranks[0].whole_window)
		return 0;
	for (size_t r = 0; r < m->n; r++)
		for (size_t i = 0; i < m->ranks[r].n; i++)
			if (m->ranks[r].steps[i].active && m->ranks[r].steps[i].comm_ms > 0)
				return 1;
	return 0;
}

static void inspector_stragglers_of(struct ana_scenario *s, struct insp_data *d, size_t steps)
{
	struct ana_comm *c = &s->comm;
	inspector_stragglers(d, (double) steps, s->steps.step_med_ms, c->stragglers,
			     &c->n_stragglers, c->slow_node, sizeof c->slow_node,
			     &c->straggler_test);
	c->have_slow_mon =
		c->slow_node[0] &&
		monitor_summarise_nodes(s->in.job_dir, c->slow_node, 0, &c->slow_mon) == 0 &&
		monitor_summarise_nodes(s->in.job_dir, c->slow_node, 1, &c->rest_mon) == 0;
}

void inspector_scenario(struct ana_scenario *s, const struct scenario_metrics *m)
{
	struct strbuf dir = STRBUF_INIT;
	struct argv files;
	strbuf_addf(&dir, "%s/" JOB_NCCL_INSPECTOR, s->in.job_dir);
	int none = insp_list_dir(dir.buf, &files) < 0 || !files.n;
	strbuf_free(&dir);
	struct insp_data d;
	if (none || inspector_load(files.v, files.n, s->in.job_dir, &d) < 0) {
		argv_free(&files);
		return;
	}
	argv_free(&files);
	int traced = 0;
	for (size_t r = 0; r < m->n; r++)
		traced |= m->ranks[r].ncoll > 0;
	size_t steps = m->ranks[0].n;
	if (!traced && d.aggr.n && steps) {
		collectives_free(s->comm.colls, s->comm.ncolls);
		inspector_rows(&d, steps, &s->comm.colls, &s->comm.ncolls);
	}
	if (!steps_judge(s, m) && !s->steps.no_steps && s->steps.step_med_ms > 0 && steps)
		inspector_stragglers_of(s, &d, steps);
	inspector_done(&d, &s->comm.insp);
}

int inspector_dumps(const char *job_dir)
{
	struct strbuf dir = STRBUF_INIT;
	struct argv files;
	strbuf_addf(&dir, "%s/" JOB_NCCL_INSPECTOR, job_dir);
	int n = insp_list_dir(dir.buf, &files) < 0 ? 0 : (int)files.n;
	argv_free(&files);
	strbuf_free(&dir);
	return n;
}
