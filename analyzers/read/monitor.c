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

static double field(const char *line, int idx)
{
	const char *p = line;
	for (int i = 0; i < idx && p; i++) {
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
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

/* Adds <dir>/<node>/<file> with add(); returns its samples (0 when absent). */
static long add_node_file(const char *dir, const char *node, const char *file,
			  long (*add)(FILE *, struct monitor_summary *), struct monitor_summary *s)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/%s/%s", dir, node, file);
	FILE *f = fsio_fopen_or_warn(p.buf);
	strbuf_free(&p);
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
