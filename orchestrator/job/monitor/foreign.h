/* foreign: the CPU time this node's processes that are not the job's used
 * (and the job's own) between two scans of /proc (a second user's work, another run's job, a
 * build started beside it). A process is the job's when its environment
 * holds the job's marker (CAMPAIGN_JOB_TOKEN=... under the local executor,
 * else SLURM_JOB_ID=...) or its parent is the job's; kernel threads are
 * nobody's. It reads /proc only; the analysis decides what the numbers mean.
 * SPDX-License-Identifier: MIT */
#ifndef MONITOR_FOREIGN_H
#define MONITOR_FOREIGN_H

#include <stddef.h>

struct foreign_proc {
	int pid, ppid;
	unsigned long long start; /* clock ticks after boot: a reused pid is another process */
	unsigned long long ticks; /* utime + stime */
	unsigned long long delta; /* ticks in the last interval */
	int own;                  /* 1 the job's, 0 foreign, 2 a kernel thread, -1 not decided */
	char comm[24];            /* the command's name, [A-Za-z0-9._+-] only */
};

struct foreign {
	char *marker;             /* "NAME=value" in a job process's environment; NULL: unknown */
	struct foreign_proc *v;   /* the last scan, by pid */
	size_t n;
	double uptime;            /* /proc/uptime at the last scan; 0 before the first */
	unsigned long scans;
};

/* The marker from this process's own environment (the monitor is one of the
 * job's processes); 0, or -1 when it has none (nothing can be told apart). */
int foreign_open(struct foreign *f);
/* Scans /proc: the foreign CPU since the last scan in % of one core, and up to
 * three of its commands with theirs, "name:pct;name:pct" (top, n bytes); the
 * job's own processes' CPU into *job_pct, in % of one core too.
 * -1 on the first scan (a baseline) or without a marker. */
int foreign_sample(struct foreign *f, double *pct, double *job_pct, char *top, size_t n);
void foreign_close(struct foreign *f);

#endif
