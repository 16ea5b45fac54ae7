/* kineto: PyTorch-profiler (Kineto) Chrome-trace JSON, streamed with yajl:
 * only GPU events (args.stream present and not -1) and ProfilerStep#N
 * markers are kept, so memory follows the number of GPU events, not the
 * file size. Timestamps follow HTA: start = ceil(ts), end = floor(ts+dur). */
#ifndef ANALYZERS_KINETO_H
#define ANALYZERS_KINETO_H

#include <stddef.h>

struct gpu_event {
	double start, end; /* microseconds */
	int name;          /* index into names */
	int cat;           /* category index, set by the analysis */
};

struct gpu_trace {
	int rank;          /* from distributedInfo, -1 when absent */
	struct gpu_event *ev;
	size_t n, cap;
	char **names;
	size_t nnames, names_cap;
	int *slots;        /* open-addressed hash of names */
	size_t nslots;
	double last_step_ts; /* start of the last ProfilerStep#N when >= 2 distinct, else -1 */
	int steps;           /* distinct ProfilerStep#N names */
	long dropped;        /* GPU events of the dropped last step */
};

/* Reads path; ERR_IO with the file and byte offset of a parse error. */
int kineto_load(const char *path, struct gpu_trace *t);
void gpu_trace_free(struct gpu_trace *t);

#endif
