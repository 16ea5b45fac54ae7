/* metrics: streaming ingest of the trainer's per-rank JSONL telemetry
 * (docs/formats.md): one meta line, then one line per step; and AORTA-style
 * rank_<r>_metrics.jsonl (one iteration per line, per-stream times). Lines are read
 * one at a time; only the numbers kept per step stay in memory.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_METRICS_H
#define ANALYZERS_METRICS_H

#include <stddef.h>
#include <stdio.h>

/* The GPU view of a step (gpu_breakdown_steps): its window and the parts adding up to
 * it; GPU_GEMM is the matrix kernels' part of GPU_COMPUTE. */
enum step_gpu {
	GPU_WINDOW,
	GPU_COMPUTE,
	GPU_COMM,
	GPU_MEMCPY,
	GPU_OTHER,
	GPU_IDLE_HOST,
	GPU_IDLE_DATA,
	GPU_IDLE_KERNEL,
	GPU_IDLE_OTHER,
	GPU_GEMM,
	GPU_FIELDS
};

struct step_rec {
	long step;
	int active; /* phase == "active" */
	double data_ms, forward_ms, backward_ms, comm_ms, optimizer_ms, step_ms, loss;
	double comm_exposed_ms; /* = comm_ms when the telemetry has no such field */
	/* compute outside the model's phases: operators under no phase range (traces) */
	double ops_ms;
	double io_ms, gemm_ms, elementwise_ms, bytes;
	double allreduce_ms, reducescatter_ms; /* AORTA-style per-stream times */
	double start_us;   /* Unix time of the step's start in microseconds; 0 = unknown */
	/* when its last blocking collective ended, as start_us (the reference trainer's
	 * telemetry: steptime.c's collective period); 0 = unknown */
	double coll_end_us;
	long samples;
	/* the GPU view (traces with kernels), ms; gpu[GPU_WINDOW] 0 = none */
	double gpu[GPU_FIELDS];
	double gpu_end_us; /* where its GPU window ends, as start_us; 0 = none */
};

/* One collective as one rank ran it (analyzers/collective.h matches them
 * across ranks by step, process group, operation and seq). */
struct coll_rec {
	int step;      /* position in the rank's steps */
	int seq;       /* order among the step's collectives of this op and process group */
	unsigned pg;   /* hash of the process group's name */
	int op;        /* enum coll_op */
	int group;     /* ranks in it; 0 unknown */
	double bytes;  /* -1 unknown */
	double ms;     /* how long it took on this rank */
	double end_us; /* when it ended, on this rank's clock (the trace's µs) */
};

enum metrics_format {
	METRICS_NONE = -1, /* no step data */
	METRICS_TRAINER,
	METRICS_AORTA,
	METRICS_TORCH_TRACE,
	METRICS_STEP_LOG,
	METRICS_NSYS
};

/* Its name in summary.json (telemetry_format): "trainer", "aorta", "pytorch-trace",
 * "step-log", "nsys"; "" for METRICS_NONE. */
const char *metrics_format_name(enum metrics_format f);

struct rank_metrics {
	int rank, world_size;
	enum metrics_format format;
	long global_batch;
	double flops_per_step;
	char host[128];
	struct step_rec *steps;
	size_t n, cap;
	long bad_lines; /* lines skipped: not JSON, unknown, a second meta line, implausible
			 * numbers (reported in the analysis, not fatal) */
	int have_meta;
	/* no step boundaries: one step stands for the trace's GPU window (shares only) */
	int whole_window;
	/* its times count from its own start (the legacy profiler's array form), on no
	 * clock other ranks share */
	int own_clock;
	/* added to its steps' start_us for Unix time (µs): a trace's baseTimeNanoseconds (its
	 * times count from it); 0: they are Unix time already, or own_clock */
	double clock_base_us;
	struct coll_rec *coll; /* collectives from traces, by step; none for telemetry */
	size_t ncoll, collcap;
};

struct scenario_metrics {
	struct rank_metrics *ranks;
	size_t n;
};

/* Reads every rank_<r>.jsonl of dir, on up to `jobs` threads (< 1: every
 * CPU; the result is the same whatever jobs is). ERR_NOTFOUND when there is none. */
int metrics_load_dir(const char *dir, int jobs, struct scenario_metrics *out);
/* The same, reading only each file's meta line (rank, host, ...): no steps. */
int metrics_load_dir_meta(const char *dir, struct scenario_metrics *out);
/* Reads one JSONL file (a trainer rank file or an AORTA-style one). */
int metrics_load_file(const char *path, struct rank_metrics *out);
int metrics_load_stream(FILE *f, struct rank_metrics *out, int meta_only);
/* 1 when name is a rank file, rank_<r>.jsonl (the trainer) or
 * rank_<r>_metrics.jsonl (AORTA-style), with *rank set. */
int metrics_rank_file(const char *name, int *rank);
/* A step's compute (ms): forward + backward + optimizer + operators outside them. */
double step_compute_ms(const struct step_rec *s);
/* Adds a step when every number in it is plausible, else counts a bad line. */
void metrics_add_step(struct rank_metrics *r, const struct step_rec *s);
/* Orders a scenario's ranks by rank. */
void metrics_sort_ranks(struct scenario_metrics *m);
/* Adds one line to r; 1 when it was the meta line. */
int metrics_parse_line(struct rank_metrics *r, const char *line, size_t len);
void metrics_free(struct scenario_metrics *m);
void rank_metrics_free(struct rank_metrics *r);

#endif
