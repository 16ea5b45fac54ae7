/* cpu: one node's CPU, memory, disk and network counters from /proc, and
 * the rates between two readings, as cpu_monitor.csv's lines.
 * SPDX-License-Identifier: MIT */
#ifndef MONITOR_CPU_H
#define MONITOR_CPU_H

#include <stdio.h>

struct cpu_reading {
	double t;                           /* seconds, monotonic */
	unsigned long long busy, idle, iowait, total; /* jiffies over all CPUs */
	double load1;
	double mem_used_mib, mem_total_mib;
	unsigned long long disk_read, disk_write;   /* bytes since boot, whole disks */
	unsigned long long net_rx, net_tx;          /* bytes since boot, all but lo */
};

int cpu_read(struct cpu_reading *r);
void cpu_csv_header(FILE *f);
/* One CSV line for the interval from a to b, with the CPU of the processes
 * that are not the job's over it (foreign.h; NULL: not known) and of the job's
 * own (job_pct, written where the foreign CPU is known). */
void cpu_csv_line(FILE *f, const char *node, double wall, const struct cpu_reading *a,
		  const struct cpu_reading *b, const double *foreign_pct, const char *foreign_top,
		  double job_pct);

#endif
