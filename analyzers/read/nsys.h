/* nsys: Nsight Systems SQLite exports (nsys export --type sqlite). GPU work
 * (CUPTI_ACTIVITY_KIND_KERNEL, MEMCPY, MEMSET) becomes one gpu_trace per
 * (process, device) in nanoseconds, with the CUDA runtime calls of that
 * process (CUPTI_ACTIVITY_KIND_RUNTIME) joined by correlation id; names come
 * from StringIds. NVTX ranges (NVTX_EVENTS) are summed per name; for the
 * replay, a process's NVTX ranges and runtime calls become its traces' host
 * ranges. Rows are stepped through one at a time: memory follows the events
 * kept.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_NSYS_H
#define ANALYZERS_NSYS_H

#include "analyzers/read/kineto.h"

#include <jansson.h>

struct nsys_report {
	struct gpu_trace *proc; /* by (pid, device); label "pid<P>_dev<D>", rank = position */
	size_t n;
	json_t *nvtx_top;       /* [{range, total_ns, instances}], largest total first */
};

/* 1 when path starts with the SQLite file header. */
int nsys_is_sqlite(const char *path);
/* ERR_IO (with the reason) when path is not an Nsight Systems export. */
int nsys_load(const char *path, int nvtx_top_n, struct nsys_report *out);
void nsys_report_free(struct nsys_report *r);
/* The (process, GPU) pair with the most GPU events (the first of them): in a run, the rank's
 * own GPU, whose work is the rank's steps' GPU view and its replay (0 when r has none). */
size_t nsys_busiest(const struct nsys_report *r);
/* The host side of each process of r (loaded from path): its NVTX ranges (push/pop and
 * start/end, finished ones) and its CUDA runtime calls as host ranges (µs) of its traces, on
 * their threads (globalTid), for the replay (launch calls and synchronisations cut the
 * ranges as a Kineto trace's). ERR_IO when path cannot be read again. */
int nsys_add_host(const char *path, struct nsys_report *r);
/* The export's NVTX ranges (push/pop and start/end, finished ones) as host
 * ranges of *host, in µs, one thread per globalTid: the phases and steps a
 * workload annotated. ERR_IO when path is not an Nsight Systems export. */
int nsys_load_host(const char *path, struct gpu_trace *host);

#endif
