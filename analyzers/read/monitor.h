/* monitor: ingest of campaign-monitor's CSV files (one directory per node
 * under <job>/monitor/<node>/): cpu_monitor.csv (mean CPU utilisation and
 * iowait, memory peak) and gpu_monitor.csv (nvidia-smi's columns: mean GPU
 * and memory-controller utilisation, GPU memory peak). Streamed line by line.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_MONITOR_H
#define ANALYZERS_MONITOR_H

#include <stdio.h>

struct monitor_summary {
	int nodes;
	long samples;
	double cpu_util_mean_pct, iowait_mean_pct, mem_peak_pct, mem_peak_mib;
	int gpus;             /* distinct (node, GPU index) */
	long gpu_samples;
	double gpu_util_mean_pct, gpu_mem_util_mean_pct, gpu_mem_peak_pct, gpu_mem_peak_mib;
	/* running sums, turned into the means by monitor_finish */
	double cpu_sum, iow_sum, gpu_util_sum, gpu_memutil_sum;
	long gpu_util_n, gpu_memutil_n;
};

/* 0 with *out filled, or ERR_NOTFOUND when the job has no monitor data. */
int monitor_summarise(const char *job_dir, struct monitor_summary *out);
/* The same over one node's data (others 0) or every other node's (others 1). */
int monitor_summarise_nodes(const char *job_dir, const char *node, int others,
			    struct monitor_summary *out);
/* Adds one cpu_monitor.csv / gpu_monitor.csv stream to s (0 or more samples;
 * malformed lines are skipped); returns the samples added. */
long monitor_add_cpu_csv(FILE *f, struct monitor_summary *s);
long monitor_add_gpu_csv(FILE *f, struct monitor_summary *s);
void monitor_finish(struct monitor_summary *s);

/* The CPU of the processes outside the job over the samples of one node. */
enum { MONITOR_FOREIGN_NAMES = 16 };
struct monitor_foreign {
	long samples;           /* with foreign_cpu_pct recorded */
	double pct_sum;         /* foreign_cpu_pct (% of one core) summed over them */
	int n_names;            /* distinct foreign_top commands, the first MONITOR_FOREIGN_NAMES */
	char names[MONITOR_FOREIGN_NAMES][24];
	double name_sum[MONITOR_FOREIGN_NAMES]; /* each one's % summed over the samples */
};
/* Adds one cpu_monitor.csv stream: into in the samples whose interval overlaps
 * [from, to] (Unix seconds), into all every sample; returns the samples with the
 * foreign columns (0: a monitor that did not record them). */
long monitor_add_foreign_csv(FILE *f, double from, double to, struct monitor_foreign *in,
			     struct monitor_foreign *all);
/* The node whose processes outside the job used most CPU on average, over the samples
 * overlapping [from, to], or over all its samples when none does (steps timed on
 * another clock); ERR_NOTFOUND when no monitor recorded the foreign columns. */
int monitor_foreign_worst(const char *job_dir, double from, double to,
			  struct monitor_foreign *out);

/* The cores the job kept busy on a node, over the samples of [from, to] (Unix seconds;
 * those wholly inside it where at least two are, else those overlapping it, weighted by how
 * much): job_cpu_pct, the job's own processes, where recorded; else cpu_util_pct of ncpus
 * CPUs less the foreign processes' CPU; the mean over the nodes' monitors into *cores.
 * ERR_NOTFOUND when no monitor has a sample there. */
int monitor_job_cores(const char *job_dir, double from, double to, int ncpus, double *cores);
/* The same for steps timed on a clock of their own, span_s seconds long, whose place in the
 * job is unknown: over the part of each node's monitored span (its first sample's start to
 * its last one's end; the monitors run from before the workload to after it) that any
 * span_s seconds inside it cover, [end - span_s, start + span_s], in whole samples (one
 * at least). end_by > 0 (Unix seconds: when the traces were written, after their steps)
 * is the end where it is earlier than the span's and leaves span_s after its start; else
 * it is not a bound, and is ignored. ERR_NOTFOUND where no node's part holds one. */
int monitor_job_cores_within(const char *job_dir, double span_s, double end_by, int ncpus,
			     double *cores);
/* The shortest span a node's monitor sampled (its first sample's start to its last one's
 * end, or to end_by where monitor_job_cores_within takes it), seconds, and into *whole
 * (NULL: not wanted) the same without end_by; ERR_NOTFOUND where no monitor has a sample. */
int monitor_span(const char *job_dir, double span_s, double end_by, double *seconds,
		 double *whole);

#endif
