/* perfstat: `perf stat -x,` output of every rank (<job>/perf/rank_<r>.txt),
 * summed per event over ranks; events the machine cannot count are kept
 * as unsupported rather than zero.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_PERFSTAT_H
#define ANALYZERS_PERFSTAT_H

#define PERFSTAT_MAX 24

struct perf_event {
	char name[64], unit[16];
	double value;
	int supported;
};

struct perf_summary {
	int ranks;
	int n;
	struct perf_event ev[PERFSTAT_MAX];
};

/* 0, or ERR_NOTFOUND when the job has no perf output. */
int perfstat_summarise(const char *job_dir, struct perf_summary *out);
/* Number of nsys/rank_*.sqlite exports in the job. */
int nsys_exports(const char *job_dir);

#endif
