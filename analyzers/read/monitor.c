/* SPDX-License-Identifier: MIT */
#include "analyzers/read/monitor.h"
#include "util/run_layout.h"
#include "util/fsio.h"

#include "util/err.h"
#include "util/strbuf.h"
#include "util/words.h"
#include "analyzers/read/gpucsv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column index of name in a CSV header line, or -1. */
static int column(const char *header, const char *name)
{
	int i = 0;
	for (const char *p = header; p; p = strchr(p, ','), p = p ? p + 1 : NULL, i++) {
		size_t n = strcspn(p, ",\r\n");
		if (n == strlen(name) && !strncmp(p, name, n))
			return i;
	}
	return -1;
}

/* Where field idx of line starts (NULL: the line has fewer), its length in *len. */
static const char *field_at(const char *line, int idx, size_t *len)
{
	const char *p = line;
	for (int i = 0; i < idx && p; i++) {
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	if (p && len)
		*len = strcspn(p, ",\r\n");
	return p;
}

static double field(const char *line, int idx)
{
	const char *p = field_at(line, idx, NULL);
	return p ? atof(p) : 0;
}

long monitor_add_cpu_csv(FILE *f, struct monitor_summary *s)
{
	char *line = NULL;
	size_t cap = 0;
	long n = 0;
	int cu = -1, io = -1, mu = -1, mt = -1;
	if (getline(&line, &cap, f) > 0) {
		cu = column(line, "cpu_util_pct");
		io = column(line, "iowait_pct");
		mu = column(line, "mem_used_mib");
		mt = column(line, "mem_total_mib");
	}
	while (cu >= 0 && getline(&line, &cap, f) > 0) {
		double used = field(line, mu), total = field(line, mt);
		s->cpu_sum += field(line, cu);
		s->iow_sum += field(line, io);
		if (used > s->mem_peak_mib)
			s->mem_peak_mib = used;
		if (total > 0 && 100 * used / total > s->mem_peak_pct)
			s->mem_peak_pct = 100 * used / total;
		n++;
	}
	free(line);
	s->samples += n;
	return n;
}

long monitor_add_gpu_csv(FILE *f, struct monitor_summary *s)
{
	char *line = NULL;
	size_t cap = 0;
	long n = 0;
	unsigned long long seen = 0; /* GPU indices 0..63 of this node */
	struct gpu_sample g;
	while (getline(&line, &cap, f) > 0) {
		if (gpucsv_parse(line, &g) < 0)
			continue; /* the header, or a malformed line */
		if (g.index >= 0 && g.index < 64)
			seen |= 1ULL << g.index;
		if (!isnan(g.util_gpu_pct))
			s->gpu_util_sum += g.util_gpu_pct, s->gpu_util_n++;
		if (!isnan(g.util_mem_pct))
			s->gpu_memutil_sum += g.util_mem_pct, s->gpu_memutil_n++;
		if (!isnan(g.mem_used_mib) && g.mem_used_mib > s->gpu_mem_peak_mib)
			s->gpu_mem_peak_mib = g.mem_used_mib;
		if (!isnan(g.mem_used_mib) && g.mem_total_mib > 0 &&
		    100 * g.mem_used_mib / g.mem_total_mib > s->gpu_mem_peak_pct)
			s->gpu_mem_peak_pct = 100 * g.mem_used_mib / g.mem_total_mib;
		n++;
	}
	free(line);
	s->gpus += __builtin_popcountll(seen);
	s->gpu_samples += n;
	return n;
}

void monitor_finish(struct monitor_summary *s)
{
	if (s->samples) {
		s->cpu_util_mean_pct = s->cpu_sum / (double)s->samples;
		s->iowait_mean_pct = s->iow_sum / (double)s->samples;
	}
	if (s->gpu_util_n)
		s->gpu_util_mean_pct = s->gpu_util_sum / (double)s->gpu_util_n;
	if (s->gpu_memutil_n)
		s->gpu_mem_util_mean_pct = s->gpu_memutil_sum / (double)s->gpu_memutil_n;
}

/* Adds "name:pct;name:pct" (foreign_top) to fl's names. */
static void add_names(struct monitor_foreign *fl, const char *p, size_t len)
{
	while (len > 0) {
		size_t item = strcspn(p, ";");
		item = item < len ? item : len;
		const char *colon = memchr(p, ':', item);
		size_t nl = colon ? (size_t)(colon - p) : 0;
		double pct = colon ? atof(colon + 1) : 0;
		if (nl > 0 && nl < sizeof fl->names[0] && isfinite(pct) && pct > 0) {
			int k = 0;
			while (k < fl->n_names &&
			       (strlen(fl->names[k]) != nl || strncmp(fl->names[k], p, nl)))
				k++;
			if (k == fl->n_names && k < MONITOR_FOREIGN_NAMES) {
				memcpy(fl->names[k], p, nl);
				fl->names[k][nl] = '\0';
				fl->n_names++;
			}
			if (k < fl->n_names)
				fl->name_sum[k] += pct;
		}
		p += item;
		len -= item;
		if (len > 0)
			p++, len--;
	}
}

static void add_foreign(struct monitor_foreign *fl, double pct, const char *top, size_t len)
{
	fl->samples++;
	fl->pct_sum += pct;
	add_names(fl, top, len);
}

long monitor_add_foreign_csv(FILE *f, double from, double to, struct monitor_foreign *in,
			     struct monitor_foreign *all)
{
	char *line = NULL;
	size_t cap = 0, len = 0, tl = 0;
	long n = 0;
	int ts = -1, iv = -1, fp = -1, ft = -1;
	if (getline(&line, &cap, f) > 0) {
		ts = column(line, "timestamp");
		iv = column(line, "interval_s");
		fp = column(line, "foreign_cpu_pct");
		ft = column(line, "foreign_top");
	}
	while (ts >= 0 && iv >= 0 && fp >= 0 && ft >= 0 && getline(&line, &cap, f) > 0) {
		const char *p = field_at(line, fp, &len), *top = field_at(line, ft, &tl);
		double pct = p && len ? atof(p) : NAN, end = field(line, ts);
		if (!isfinite(pct) || pct < 0 || pct > 1e6 || !top)
			continue; /* not recorded, or malformed */
		add_foreign(all, pct, top, tl);
		if (end >= from && end - field(line, iv) <= to)
			add_foreign(in, pct, top, tl);
		n++;
	}
	free(line);
	return n;
}

/* <dir>/<node>/<file> opened for reading (a warning when it exists but cannot be); NULL when
 * absent or unreadable. */
static FILE *node_file(const char *dir, const char *node, const char *file)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/%s/%s", dir, node, file);
	FILE *f = fsio_fopen_or_warn(p.buf);
	strbuf_free(&p);
	return f;
}

static double foreign_mean(const struct monitor_foreign *fl)
{
	return fl->samples ? fl->pct_sum / (double)fl->samples : -1;
}

int monitor_foreign_worst(const char *job_dir, double from, double to,
			  struct monitor_foreign *out)
{
	struct strbuf dir = STRBUF_INIT;
	struct argv nodes;
	int found = 0;
	memset(out, 0, sizeof *out);
	strbuf_addf(&dir, "%s/" JOB_MONITOR, job_dir);
	fsio_list(dir.buf, &nodes);
	for (size_t i = 0; i < nodes.n; i++) {
		struct monitor_foreign in = { 0 }, all = { 0 };
		FILE *f = node_file(dir.buf, nodes.v[i], "cpu_monitor.csv");
		if (!f)
			continue;
		long n = monitor_add_foreign_csv(f, from, to, &in, &all);
		fclose(f);
		const struct monitor_foreign *use = in.samples ? &in : &all;
		if (n > 0 && (!found || foreign_mean(use) > foreign_mean(out)))
			*out = *use;
		found |= n > 0;
	}
	argv_free(&nodes);
	strbuf_free(&dir);
	return found ? 0 : err_set(ERR_NOTFOUND, "no foreign load recorded in %s/monitor", job_dir);
}

/* Adds <dir>/<node>/<file> with add(); returns its samples (0 when absent). */
static long add_node_file(const char *dir, const char *node, const char *file,
			  long (*add)(FILE *, struct monitor_summary *), struct monitor_summary *s)
{
	FILE *f = node_file(dir, node, file);
	if (!f)
		return 0;
	long n = add(f, s);
	fclose(f);
	return n;
}

int monitor_summarise(const char *job_dir, struct monitor_summary *out)
{
	return monitor_summarise_nodes(job_dir, NULL, 0, out);
}

int monitor_summarise_nodes(const char *job_dir, const char *node, int others,
			    struct monitor_summary *out)
{
	struct strbuf dir = STRBUF_INIT;
	memset(out, 0, sizeof *out);
	strbuf_addf(&dir, "%s/" JOB_MONITOR, job_dir);
	struct argv nodes;
	/* in name order: the sums come out the same on every file system */
	fsio_list(dir.buf, &nodes);
	for (size_t i = 0; i < nodes.n; i++) {
		if (node && !strcmp(nodes.v[i], node) == !!others)
			continue;
		long n = add_node_file(dir.buf, nodes.v[i], "cpu_monitor.csv", monitor_add_cpu_csv,
				       out);
		n += add_node_file(dir.buf, nodes.v[i], "gpu_monitor.csv", monitor_add_gpu_csv,
				   out);
		out->nodes += n > 0;
	}
	argv_free(&nodes);
	strbuf_free(&dir);
	if (!out->samples && !out->gpu_samples)
		return err_set(ERR_NOTFOUND, "no monitor data in %s/monitor", job_dir);
	monitor_finish(out);
	return 0;
}

/* Field idx of line as a number; NAN when it is missing, empty or not one. */
static double number_at(const char *line, int idx)
{
	size_t len = 0;
	const char *p = idx >= 0 ? field_at(line, idx, &len) : NULL;
	if (!p || !len)
		return NAN;
	char *end = NULL;
	double v = strtod(p, &end);
	return end == p + len && isfinite(v) ? v : NAN;
}

/* A node's samples of [from, to] for monitor_job_cores: sums of the job's cores weighted
 * by the time inside (in) and by the whole interval of those wholly inside (whole). */
struct job_cpu {
	double in_sum, in_w, whole_sum, whole_w;
	long whole_n;
};

static void job_cpu_add(FILE *f, double from, double to, int ncpus, struct job_cpu *j)
{
	char *line = NULL;
	size_t cap = 0;
	int ts = -1, iv = -1, cu = -1, fp = -1, jp = -1;
	if (getline(&line, &cap, f) > 0) {
		ts = column(line, "timestamp");
		iv = column(line, "interval_s");
		cu = column(line, "cpu_util_pct");
		fp = column(line, "foreign_cpu_pct");
		jp = column(line, "job_cpu_pct");
	}
	while (ts >= 0 && iv >= 0 && cu >= 0 && getline(&line, &cap, f) > 0) {
		double end = number_at(line, ts), len = number_at(line, iv);
		double util = number_at(line, cu), foreign = number_at(line, fp);
		double job = number_at(line, jp);
		double a = end - len > from ? end - len : from, b = end < to ? end : to;
		if (!(end > 0 && len > 0 && len < 3600 && util >= 0 && util <= 100) || !(b > a))
			continue; /* malformed, or outside */
		/* the job's own processes where the monitor told them apart, else all but the
		 * foreign ones of the node's CPUs */
		double c = job >= 0 ? job / 100
				    : util / 100 * ncpus - (foreign > 0 ? foreign / 100 : 0);
		c = c > 0 ? c : 0;
		c = ncpus > 0 && c > ncpus ? ncpus : c; /* more than the node has: not the job's */
		j->in_sum += c * (b - a), j->in_w += b - a;
		if (end - len >= from && end <= to)
			j->whole_sum += c * len, j->whole_w += len, j->whole_n++;
	}
	free(line);
}

/* The span a node's samples cover, [*from, *to] (Unix seconds): the first one's start to the
 * last one's end; 0 when it has none. */
static int sample_span(FILE *f, double *from, double *to)
{
	char *line = NULL;
	size_t cap = 0;
	int ts = -1, iv = -1;
	*from = *to = 0;
	if (getline(&line, &cap, f) > 0)
		ts = column(line, "timestamp"), iv = column(line, "interval_s");
	while (ts >= 0 && iv >= 0 && getline(&line, &cap, f) > 0) {
		double end = number_at(line, ts), len = number_at(line, iv);
		if (!(end > 0 && len > 0 && len < 3600))
			continue;
		if (*to <= 0 || end - len < *from)
			*from = end - len;
		*to = end > *to ? end : *to;
	}
	free(line);
	return *to > *from;
}

/* The end of steps span_s long that end by end_by (> 0) inside [s, e]: end_by where it
 * is a bound (before e, span_s or more after s), else e. */
static double steps_end_by(double s, double e, double span_s, double end_by)
{
	return end_by > 0 && end_by < e && end_by >= s + span_s ? end_by : e;
}

/* The job's cores on one node over [from, to] (span_s > 0: over the part of the node's
 * samples' span, up to end_by where it bounds it, that span_s seconds anywhere inside it
 * must cover, in whole samples only); 0 when no sample is there. */
static int node_job_cores(FILE *f, double from, double to, double span_s, double end_by,
			  int ncpus, double *c)
{
	struct job_cpu j = { 0 };
	if (span_s > 0) {
		double s, e;
		if (!sample_span(f, &s, &e))
			return 0;
		e = steps_end_by(s, e, span_s, end_by);
		if (e - span_s >= s + span_s)
			return 0;
		from = e - span_s, to = s + span_s;
		rewind(f);
	}
	job_cpu_add(f, from, to, ncpus, &j);
	if (j.whole_n >= (span_s > 0 ? 1 : 2))
		*c = j.whole_sum / j.whole_w;
	else if (j.in_w > 0 && span_s <= 0)
		*c = j.in_sum / j.in_w;
	else
		return 0;
	return 1;
}

/* The mean over the nodes' monitors of node_job_cores. */
static int job_cores_of(const char *job_dir, double from, double to, double span_s,
			double end_by, int ncpus, double *cores)
{
	struct strbuf dir = STRBUF_INIT;
	struct argv nodes;
	double sum = 0, c;
	int n = 0;
	strbuf_addf(&dir, "%s/" JOB_MONITOR, job_dir);
	fsio_list(dir.buf, &nodes);
	for (size_t i = 0; i < nodes.n && ncpus > 0 && (to > from || span_s > 0); i++) {
		FILE *f = node_file(dir.buf, nodes.v[i], "cpu_monitor.csv");
		if (!f)
			continue;
		if (node_job_cores(f, from, to, span_s, end_by, ncpus, &c))
			sum += c, n++;
		fclose(f);
	}
	argv_free(&nodes);
	strbuf_free(&dir);
	if (!n)
		return err_set(ERR_NOTFOUND, "no monitor sample of the steps in %s/monitor",
			       job_dir);
	*cores = sum / n;
	return 0;
}

int monitor_job_cores(const char *job_dir, double from, double to, int ncpus, double *cores)
{
	return job_cores_of(job_dir, from, to, 0, 0, ncpus, cores);
}

int monitor_span(const char *job_dir, double span_s, double end_by, double *seconds,
		 double *whole)
{
	struct strbuf dir = STRBUF_INIT;
	struct argv nodes;
	double least = 0, least_whole = 0, s = 0, e = 0;
	strbuf_addf(&dir, "%s/" JOB_MONITOR, job_dir);
	fsio_list(dir.buf, &nodes);
	for (size_t i = 0; i < nodes.n; i++) {
		FILE *f = node_file(dir.buf, nodes.v[i], "cpu_monitor.csv");
		if (!f)
			continue;
		if (!sample_span(f, &s, &e))
			s = e = 0; /* none of this node's (not the last node's) */
		if (e > s && (least_whole <= 0 || e - s < least_whole))
			least_whole = e - s;
		e = e > s ? steps_end_by(s, e, span_s, end_by) : e;
		if (e > s && (least <= 0 || e - s < least))
			least = e - s;
		fclose(f);
	}
	argv_free(&nodes);
	strbuf_free(&dir);
	*seconds = least;
	if (whole)
		*whole = least_whole;
	return least > 0 ? 0 : err_set(ERR_NOTFOUND, "no monitor sample in %s/monitor", job_dir);
}

int monitor_job_cores_within(const char *job_dir, double span_s, double end_by, int ncpus,
			     double *cores)
{
	return span_s > 0 ? job_cores_of(job_dir, 0, 0, span_s, end_by, ncpus, cores)
			  : err_set(ERR_NOTFOUND, "no span of steps to look for in %s/monitor",
				    job_dir);
}
