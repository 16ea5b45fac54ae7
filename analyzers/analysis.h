/* analysis: from per-scenario telemetry to numbers and verdicts: step-time
 * statistics, time shares, the bottleneck verdict with its evidence, and
 * scaling against a baseline. Knows nothing of schedulers or the store: the
 * caller hands it each scenario's state and directory. */
#ifndef ANALYZERS_ANALYSIS_H
#define ANALYZERS_ANALYSIS_H

struct trace_source;

#include "analyzers/read/perfstat.h"
#include "analyzers/read/rules.h"
#include "analyzers/collective.h"
#include "analyzers/fabric.h"
#include "analyzers/inspector.h"
#include "analyzers/read/monitor.h"
#include "analyzers/straggler.h"
#include "analyzers/thresholds.h"
#include "analyzers/verdict.h"
#include "analyzers/checked.h"

#include <stddef.h>

/* An operator of the traces with its self time (summed over ranks and steps). */
struct ana_op {
	char name[160];
	double self_ms;
	long count;
};

#define ANA_TOP_OPS 10

/* What the orchestrator says of the scenario (its job, its size) */
struct ana_input {
	char *name, *state, *reason, *backend, *job_dir;
	int completed;          /* state is COMPLETED: the only end whose data is analysed */
	char *series;           /* scenarios of one scaling series share it (NULL: same backend and
				 * tasks per node); the orchestrator adds the parameters */
	int exit_code, nodes, tasks_per_node, ranks;
	/* the scenario's own analysis batch (0: the campaign's) */
	int batch_per_rank, global_batch_set;
	int attempt, attempts;  /* the attempt analysed, of how many (0: not known) */
	char *requeued;         /* "requeued after NODE_FAIL on n2; measured on n[3-4]" when the
				 * scheduler requeued the job before the attempt analysed; NULL */
};

/* Where its step data came from, and what could not be used */
struct ana_data {
	int analysed;          /* telemetry found and used */
	char *problem;         /* why it was not analysed */
	long bad_lines;        /* telemetry lines skipped: malformed or implausible */
	enum metrics_format format; /* of the step data; METRICS_NONE without */
	char source[48];        /* where the step data came from, in words; "" when none */
	char sources[256];      /* every source found and used, for the report */
	int monitors_only;      /* no step data: utilisation and verdict from the monitors alone */
	size_t trace_files, trace_gpu_files;
	size_t trace_unused;        /* files read for steps but not usable (damaged, no steps) */
	char trace_problem[320];    /* the first of them, and why */
	size_t trace_not_analysed;  /* files a failed map shard left without a result */
	char *trace_not_analysed_names;
	struct ana_op top_ops[ANA_TOP_OPS]; /* CPU operators by self time, from the traces */
	int n_top_ops;
	double ops_total_ms;
	struct perf_summary *perf;  /* perf stat counters, or NULL */
	int nsys_reports;
	char profile_missing[128]; /* profilers asked for that left no output */
	/* ranks the step data covers (the world size launched is ranks) */
	int ranks_with_data;
	/* launched ranks without data, or data from ranks beyond them; "" none */
	char ranks_note[256];
	/* profile.traces matched nothing: the globs, and trace-like files elsewhere; NULL */
	char *traces_missed;
	/* other scenarios that ran on its nodes at the same time, in words; "" none */
	char contaminated[320];
};

/* Step times, throughput, loss, FLOPs, and the step-timeline figure's data */
struct ana_steps {
	size_t active_steps;
	double step_med_ms, step_p95_ms, step_min_ms, step_max_ms, spread_pct;
	/* the active_steps step times (slowest rank per step), for noise estimates */
	double *step_ms;
	/* samples per second, or steps per second when the batch is unknown */
	double throughput;
	long global_batch;     /* samples per step over all ranks; 0 = unknown */
	char throughput_unit[16]; /* "samples/s", or "steps/s" when the batch is unknown */
	char batch_from[48];   /* where global_batch comes from, in words */
	double loss_first, loss_last;
	int loss_known;         /* the step data carries the loss (traces do not) */
	int slowest_rank;
	double slowest_rank_ms;
	/* no step boundaries: shares and verdict from the GPU window, no step statistics */
	int no_steps;
	/* the traces have no step boundaries and the step times come from elsewhere (the
	 * step lines of the logs): the shares are those of the traces' whole window */
	int window_shares;
	double flops_per_step;  /* per rank, from the telemetry; 0 = unknown */
	double achieved_gflops; /* per rank at the median step */
	double mfu_pct;         /* achieved / peak; -1 when either is unknown */
	long tl_step;           /* the step shown in the step-timeline figure (median step time) */
	int tl_ranks;
	/* per rank: data, forward, backward, exposed comm + wait, optimizer, operators outside
	 * the phases, other (ms) */
	double (*tl)[7];
	/* rank 0's steps: step, step_ms, active (for the step-time figure) */
	double (*rank0)[3];
	size_t n_rank0;
};

/* Where step time goes (percent of the median step) */
struct ana_shares {
	double data_pct, compute_pct, comm_pct, io_pct, other_pct;
	double forward_pct, backward_pct, optimizer_pct;
	double comm_total_pct;  /* all communication, overlapped or not */
	double sync_wait_pct;   /* in collectives but waiting for slower ranks (imbalance) */
	double overlap_pct;     /* share of communication hidden behind compute */
	double gemm_pct, elementwise_pct; /* of compute time, when the telemetry splits it */
	/* of compute: operators under no phase range (a metric, an augmentation, an EMA) */
	double ops_pct;
	int shares_known;      /* the step breakdown (data, compute, comm, I/O) was measured */
};

/* Collectives, waiting for peers, stragglers */
struct ana_comm {
	double allreduce_gbps;  /* bytes all-reduced per second of communication */
	/* ranks that keep the others waiting, by impact */
	struct straggler stragglers[STRAGGLER_MAX];
	size_t n_stragglers;
	char slow_node[128];    /* a node all of whose ranks are stragglers; "" none */
	int have_slow_mon;      /* monitors of the slow node and of the others */
	struct monitor_summary slow_mon, rest_mon;
	/* per step (rank 0's positions): the least communication time over ranks; the rest
	 * of each rank's is waiting for peers (timeline.json); NULL: none */
	double *comm_floor_ms;
	size_t n_floor;
	/* per operation and size class: latency, wait, bandwidth (by cost) */
	struct collective *colls;
	size_t ncolls;
	struct insp_summary insp; /* the NCCL Inspector's dumps (found 0: none) */
};

/* The GPU timeline (HTA's definitions) from traces with kernels */
struct ana_gpu {
	/* the verdict and gpu_pct come from the GPU timeline (traces with kernels) */
	int gpu_basis;
	/* shares of the steps' GPU windows, enum step_gpu (GPU_WINDOW: ms summed) */
	double gpu_pct[10];
	size_t gpu_steps;      /* rank-steps with a GPU view */
	/* the GPU's work per step outlasted the host's steps (the launch queue grew): the
	 * step times are the GPU's period; host_step_med_ms the host's median step, and
	 * host_ahead_ms how far the host ran ahead of the GPU at the end (the most of any
	 * rank) */
	int gpu_limits;
	double host_step_med_ms, host_ahead_ms;
	/* GPU time from traces with kernels (HTA's definitions, all ranks); gpu_kernel_ms 0:
	 * none */
	double gpu_kernel_ms, gpu_idle_pct, gpu_compute_pct, gpu_non_compute_pct, gpu_overlap_pct;
	struct ana_op top_kernels[ANA_TOP_OPS];
	int n_top_kernels;
	double kernels_total_ms;
};

/* The node monitors */
struct ana_mon {
	int have_monitor;      /* node monitor data found */
	int monitor_nodes;
	long monitor_samples;
	double cpu_util_mean_pct, iowait_mean_pct, mem_peak_pct;
	int gpus;               /* GPUs seen by the GPU monitor */
	/* -1 when not monitored */
	double gpu_util_mean_pct, gpu_mem_util_mean_pct, gpu_mem_peak_pct;
};

/* What the verdict rests on */
enum verdict_basis {
	BASIS_NONE,     /* nothing: undetermined */
	BASIS_MONITORS, /* node monitors alone (utilisation, memory) */
	BASIS_HOST,     /* the host's step breakdown (telemetry, CPU traces) */
	BASIS_GPU       /* the GPU timeline's partitioned windows (traces with kernels) */
};

/* The verdict (verdict.h) and what it rests on; the report writes the
 * sentences from these numbers. */
struct ana_outcome {
	struct verdict_out v;
	enum verdict_basis basis;
	/* the local executor ran more ranks than this machine has CPUs */
	int oversubscribed;
	/* where waiting for peers counts (host basis): with communication when no
	 * straggler is named; else with the straggler's cause, since removing the cause
	 * removes the wait; SHARE_PEER_WAIT (straggler-bound) when no phase explains it */
	enum share_kind wait_to;
};

/* Against the baseline of its series */
struct ana_scaling {
	/* "weak" or "strong" against its baseline; "" when neither can be said */
	char scaling_mode[8];
	/* why no speedup is given, or what is odd about it; "" when nothing */
	char scaling_note[320];
	int is_baseline;
	double speedup, efficiency; /* against the baseline of its series; 0 if none */
	char baseline[72];
};

/* One scenario: what it was (in), what its data gave (data, steps, shares,
 * comm, gpu, mon) and what the analysis concludes (outcome, scaling). */
struct ana_scenario {
	struct ana_input in;
	struct ana_data data;
	struct ana_steps steps;
	struct ana_shares shares;
	struct ana_comm comm;
	struct ana_gpu gpu;
	struct ana_mon mon;
	struct ana_outcome outcome;
	struct ana_scaling scaling;
};

/* Step time versus nodes N, fitted by least squares over a series:
 * T(N) = b/N + a + c*log2(N): b from the compute time (work that divides across
 * nodes), a and c >= 0 from the rest (communication, waiting for peers, data,
 * I/O) growing with the node count. Step times are scaled to the baseline's
 * global batch, so weak and strong scaling series both fit. */
/* A model further than this from a point it was fitted on predicts nothing. */
#define MODEL_FITS_PCT 10.0
/* A model needs this many scenarios of distinct sizes (a + c log2 N has three terms). */
#define MODEL_MIN_POINTS 3
/* Where the overhead's crossing of compute is looked for: up to this many nodes. */
#define MODEL_MAX_NODES 1024
/* A series still this efficient at 16 nodes (its fitted model) gets no scaling advice. */
#define MODEL_ADVICE_EFFICIENCY 0.8
/* A series' widest scenario whose compute per rank grew by this factor over its base,
 * for the same work per rank, is ranks contending for the machine. */
#define MODEL_CONTENTION_RATIO 1.2
/* Monitors alone: a CPU busy this much (mean %) makes a scenario compute-bound. */
#define ANA_CPU_BUSY_PCT 90.0
/* A share of step time under this (%) is none in the report's sentences. */
#define ANA_NEGLIGIBLE_PCT 0.05
/* Communication this much hidden behind compute (%): more overlap gains little. */
#define ANA_OVERLAP_ENOUGH_PCT 40.0

struct ana_model {
	char series[72];       /* the baseline scenario of the series */
	int points, base_nodes, max_nodes;
	/* a scenario's compute share is unknown (step times only): fitted without the
	 * compute term, b = 0, T(N) = a + c*log2(N) on the step times */
	int step_only;
	double a, b, c;        /* ms, at the baseline's global batch */
	double eff8, eff16;    /* predicted parallel efficiency at 8 and 16 nodes */
	/* nodes from which the overhead exceeds compute; 0 = not below 1024 */
	int crossover;
	char limit[640];       /* one sentence with the fitted numbers */
	double max_err_pct;    /* largest |model - measured| / measured over the series' points */
	int max_err_nodes;     /* where it is */
	char fit[256];         /* one sentence on how well the model fits */
	/* when per-rank compute grows with the node count at fixed work; "" otherwise */
	char contention[512];
};

/* What a recommendation is about: one per cause (the verdict's share, or a
 * flag) and series. */
enum rec_kind {
	REC_COMMUNICATION, /* exposed communication: overlap, larger buckets, fewer bytes */
	REC_STRAGGLER,     /* one rank keeps the others waiting */
	REC_DATA,          /* data loading */
	REC_IO,            /* checkpoints and other I/O */
	REC_HOST,          /* host overhead, or the GPU waiting for the host */
	REC_COPIES,        /* exposed host-device copies */
	REC_ELEMENTWISE,   /* bandwidth-bound elementwise compute */
	REC_KERNELS,       /* compute itself: faster kernels */
	REC_MEMORY_PEAK,   /* memory nearly full (a flag) */
	REC_COLLECT,       /* nothing known enough: what to collect */
	REC_KIND_N
};

/* A recommendation: its scenarios (indices into ana_run.sc) and, for each,
 * the median step and the step it predicts once the cause is removed: a
 * ceiling from the time taken off the step's critical path (the accounted
 * share, never summed kernel time); -1 when the accounting gives none. */
struct ana_rec {
	enum rec_kind kind;
	char series[72];        /* the baseline of their series, or the scenario */
	size_t *sc;
	double *step_ms, *predicted_ms;
	size_t n;
	size_t lead;            /* the one of them with the largest gain (0 when none has one) */
	double gain_pct;        /* the largest predicted gain of its scenarios; 0 none */
	const char *basis;      /* "host step shares", "GPU windows", "straggler impact", "none" */
};

struct ana_run {
	char *campaign, *run_id, *run_dir, *baseline;
	int want_nsys, want_perf; /* the campaign asked for these profilers */
	int want_inspector;       /* profile.nccl_inspector */
	double peak_gflops;       /* per rank, for MFU; 0 = unknown */
	long epoch;               /* SOURCE_DATE_EPOCH for the figures (the run's creation time) */
	/* local executor: the CPUs every scenario's ranks shared; 0 on a cluster */
	int host_cpus;
	struct ana_model *models; /* fitted step time vs nodes, one per series */
	size_t nmodels;
	struct ana_thresholds th;
	/* the campaign's phase rules, before phase_rules.txt */
	char **phase_names, **phase_patterns;
	size_t n_phase_rules;
	char *step_log;           /* PCRE2 for step lines in rank logs; NULL: none */
	char **trace_globs;       /* profile.traces, to say what they missed */
	size_t n_trace_globs;
	int warmup_steps;         /* step-log lines of each rank to skip as warm-up */
	/* samples per rank and step, for traces and step logs; 0 = unknown */
	int batch_per_rank;
	/* samples per step over all ranks (the campaign's); 0 = unknown */
	long global_batch;
	/* "weak", "strong" or NULL: the campaign's word when batches are unknown */
	char *scaling;
	/* threads for the per-rank work; < 1: every CPU this process may use */
	int jobs;
	/* results of the map step (shard.h) to use instead of reading; NULL: none */
	const struct trace_source *src;
	struct ana_scenario *sc;
	size_t n;
	struct ana_probe *probes;  /* fabric probes (analysis.fabric_probe), not scenarios */
	size_t nprobes;
	struct ana_rec *recs;      /* by predicted gain, largest first (advice.h) */
	size_t nrecs;
	struct ana_variant variant; /* campaign try's predictions to check (of NULL: none) */
};

void ana_run_add(struct ana_run *run, const char *name, const char *state, const char *reason,
		 const char *backend, const char *job_dir, int exit_code, int nodes,
		 int tasks_per_node);
/* A fabric probe's job; its fabric.json is read by ana_run_analyse. */
void ana_run_add_probe(struct ana_run *run, const char *name, const char *state,
		       const char *backend, const char *job_dir, int nodes, int tasks_per_node);
/* The campaign's phase rules, then analyzers/phase_rules.txt. */
int ana_phase_rules_load(const struct ana_run *run, struct rules *r);
/* The candidates of s's verdict (verdict.h) on its basis, the waiting for
 * peers counted where outcome.wait_to says; how many into c (SHARE_N room). */
size_t ana_candidates(const struct ana_scenario *s, struct candidate *c);
/* Analyses every scenario (reading its metrics/) and the scaling. */
int ana_run_analyse(struct ana_run *run);
void ana_run_free(struct ana_run *run);

#endif
