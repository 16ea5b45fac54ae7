/* analysis: from per-scenario telemetry to numbers and verdicts: step-time
 * statistics, time shares, the bottleneck verdict with its evidence, and
 * scaling against a baseline. Knows nothing of schedulers or the store: the
 * caller hands it each scenario's state and directory.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_ANALYSIS_H
#define ANALYZERS_ANALYSIS_H

struct trace_source;

#include "analyzers/read/perfstat.h"
#include "analyzers/read/rules.h"
#include "analyzers/clock_offset.h"
#include "analyzers/collective.h"
#include "analyzers/fabric_curve.h"
#include "analyzers/inspector.h"
#include "analyzers/read/monitor.h"
#include "analyzers/straggler.h"
#include "analyzers/thresholds.h"
#include "analyzers/verdict.h"
#include "analyzers/prediction_check.h"
#include "analyzers/stats.h"
#include "analyzers/replay_scenario.h"

struct trace_set; /* analyzers/torchtrace.h */

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
	/* the reference trainer's --workers and --prefetch in this scenario's command under
	 * the campaign's data_loading knob (0: the knob sets neither, or there is none) */
	int loader_workers, loader_prefetch;
	/* the reference trainer's --checkpoint-every and --checkpoint-async in this scenario's
	 * command under the campaign's io knob (0: the knob sets neither, or there is none;
	 * ckpt_every -1: not known, an analysis input written before them) */
	int ckpt_every, ckpt_async;
};

/* Where step data comes from (the first present of the first five, in this order), and
 * what is read beside it; the report names each in words. */
enum data_source {
	SOURCE_NONE,
	SOURCE_TELEMETRY,      /* the trainer's telemetry (metrics/rank_<r>.jsonl) */
	SOURCE_AORTA,          /* AORTA-style metrics */
	SOURCE_TRACES,         /* PyTorch-profiler traces (files) */
	SOURCE_NSYS,           /* Nsight Systems exports (files; NVTX ranges) */
	SOURCE_STEP_LOG,       /* step lines in the rank logs (analysis.step_log) */
	SOURCE_TRACE_OPS,      /* beside the telemetry: the traces' operators */
	SOURCE_STEP_LOG_TIMES, /* the step times of traces without step boundaries */
	SOURCE_MONITORS        /* the node monitors */
};

/* A source read, with its file count where the report gives one */
struct ana_source {
	enum data_source kind;
	size_t files;
};
#define ANA_SOURCES 6

/* Why a scenario was not analysed */
enum ana_problem {
	PROBLEM_NONE,
	PROBLEM_INCOMPLETE,   /* the job did not complete */
	PROBLEM_NO_STEP_DATA, /* no source gave step data: ana_missing says why each did not */
	PROBLEM_ALL_WARMUP,   /* every matching step line is warm-up (profile.warmup_steps) */
	PROBLEM_NO_ACTIVE     /* the step data has no active steps */
};

/* Why each source but the telemetry gave no step data (PROBLEM_NO_STEP_DATA; the
 * telemetry had none, and the monitors' part is mon.have_monitor). */
enum miss_traces {
	MISS_TRACES_ABSENT,   /* no traces in traces/ */
	MISS_TRACES_UNUSABLE, /* traces/ holds files, none usable: trace_files, trace_problem */
	MISS_TRACES_UNMATCHED /* profile.traces matched no file (traces_missed) */
};
enum miss_nsys {
	MISS_NSYS_ABSENT,  /* no export in nsys/ */
	MISS_NSYS_UNUSABLE /* exports, none usable: nsys_problem */
};
enum miss_step_log {
	MISS_STEP_LOG_NO_PATTERN, /* no analysis.step_log */
	MISS_STEP_LOG_NO_MATCH    /* no line of the rank logs matches it */
};
struct ana_missing {
	enum miss_traces traces;
	enum miss_nsys nsys;
	/* the first export that could not be used, and why (the reader's words) */
	char nsys_problem[320];
	enum miss_step_log step_log;
};

/* Profilers asked for that left no output (a bitset) */
enum { PROFILE_NSYS = 1, PROFILE_PERF = 2, PROFILE_INSPECTOR = 4 };

/* Launched ranks without data named in the report, at most */
#define ANA_RANKS_SHOWN 16
/* Trace-like files named when profile.traces matched nothing, at most */
#define ANA_TRACE_LIKE_SHOWN 3

/* Where its step data came from, and what could not be used */
struct ana_data {
	int analysed;          /* telemetry found and used */
	enum ana_problem problem; /* why it was not analysed */
	struct ana_missing missing; /* PROBLEM_NO_STEP_DATA: why each source gave none */
	long bad_lines;        /* telemetry lines skipped: malformed or implausible */
	enum metrics_format format; /* of the step data; METRICS_NONE without */
	enum data_source source; /* where the step data came from; SOURCE_NONE when none */
	struct ana_source sources[ANA_SOURCES]; /* every source found and used, in order */
	int n_sources;
	int monitors_only;      /* no step data: utilisation and verdict from the monitors alone */
	size_t trace_files, trace_gpu_files;
	size_t trace_unused;        /* files read for steps but not usable (damaged, no steps) */
	char trace_problem[320];    /* the first of them, and why (the reader's words) */
	size_t trace_not_analysed;  /* files a failed map shard left without a result */
	char *trace_not_analysed_names;
	struct ana_op top_ops[ANA_TOP_OPS]; /* CPU operators by self time, from the traces */
	int n_top_ops;
	double ops_total_ms;
	struct perf_summary *perf;  /* perf stat counters, or NULL */
	int nsys_reports;
	unsigned profile_missing;  /* profilers asked for that left no output: PROFILE_* */
	/* ranks the step data covers (the world size launched is ranks) */
	int ranks_with_data;
	/* launched ranks without step data: how many, and the first ANA_RANKS_SHOWN */
	int ranks_without_data;
	int ranks_missing[ANA_RANKS_SHOWN];
	int ranks_beyond;          /* ranks of the step data beyond the world size */
	/* the step times come from step lines that rank 0 alone of several prints (nanoGPT,
	 * DLRM): the others' logs have none, which is no missing data */
	int rank0_lines_only;
	/* profile.traces (the run's trace_globs) matched no file: trace-like files elsewhere in
	 * the job directory, how many and the first few (relative paths) */
	int traces_missed;
	int n_trace_like;
	char *trace_like[ANA_TRACE_LIKE_SHOWN];
	/* other scenarios that ran on its nodes at the same time, in words; "" none */
	char contaminated[320];
	/* step lines whose times add up, on rank lines_rank, to lines_s, more than the job ran
	 * (job_s, its job.status): printed by the workload, not timed; 0 when they fit */
	double lines_s, job_s;
	int lines_rank;
};

/* Where a scenario's global batch comes from, the first known */
enum batch_from {
	BATCH_UNKNOWN,
	BATCH_TELEMETRY,         /* the telemetry's */
	BATCH_STEP_SAMPLES,      /* the step lines' samples */
	BATCH_SCENARIO_GLOBAL,   /* the scenario's analysis.global_batch */
	BATCH_SCENARIO_PER_RANK, /* the scenario's analysis.batch_per_rank x ranks */
	BATCH_CAMPAIGN_GLOBAL,   /* the campaign's analysis.global_batch */
	BATCH_CAMPAIGN_PER_RANK  /* the campaign's analysis.batch_per_rank x ranks */
};

/* Step times, throughput, loss, FLOPs, and the step-timeline figure's data */
struct ana_steps {
	size_t active_steps;
	double step_med_ms, step_p95_ms, step_min_ms, step_max_ms, spread_pct;
	/* the median's 95 % bootstrap interval over the steps; -1 with fewer than
	 * STATS_BOOTSTRAP_MIN_N or steps not alike (the steps' own variation, not run to run) */
	double step_med_lo_ms, step_med_hi_ms;
	/* the active_steps step times (steptime.h), in the order the steps ran, for noise
	 * estimates (a bootstrap of their mean resamples whole periods: stats.h) */
	double *step_ms;
	/* how many of them are the period between consecutive steps' last collectives
	 * (estimator "collective_period"); 0: each the slowest rank's step ("rank_step") */
	size_t step_periods;
	double step_mean_ms; /* the mean of step_ms */
	/* samples per second, or steps per second when the batch is unknown, at the median step
	 * and at the mean step (the rate over the run) */
	double throughput, throughput_at_mean;
	long global_batch;     /* samples per step over all ranks; 0 = unknown (steps/s) */
	enum batch_from batch_from; /* where global_batch comes from */
	double loss_first, loss_last;
	int loss_known;         /* the step data carries the loss (traces do not) */
	int slowest_rank;
	double slowest_rank_ms;   /* its mean active step */
	double slowest_others_ms; /* the other ranks' mean active step; 0: one rank */
	/* no step boundaries: shares and verdict from the GPU window, no step statistics */
	int no_steps;
	/* the traces have no step boundaries and the step times come from elsewhere (the
	 * step lines of the logs): the shares are those of the traces' whole window */
	int window_shares;
	/* steps data from traces: their last steps left out as partial (the tail the profiler
	 * cut, trace_reduce_drop_partial_step) */
	size_t partial_steps;
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
	/* each rank's active steps' compute (forward, backward, optimizer, operators; ms), the
	 * samples the host compute share is the mean of; NULL: none */
	double *step_compute_ms;
	size_t n_step_compute;
	double forward_pct, backward_pct, optimizer_pct;
	double comm_total_pct;  /* all communication, overlapped or not */
	double sync_wait_pct;   /* in collectives but waiting for slower ranks (imbalance) */
	double overlap_pct;     /* share of communication hidden behind compute */
	double gemm_pct, elementwise_pct; /* of compute time, when the telemetry splits it */
	double split_cover_pct;           /* how much of compute the split times (0: none) */
	/* of compute: operators under no phase range (a metric, an augmentation, an EMA) */
	double ops_pct;
	/* the shares' denominator: the mean active step over ranks (ms), and how many ranks
	 * had one */
	double rank_step_mean_ms;
	int share_ranks;
	int shares_known;      /* the step breakdown (data, compute, comm, I/O) was measured */
};

/* Collectives, waiting for peers, stragglers */
struct ana_comm {
	double allreduce_gbps;  /* bytes all-reduced per second of communication */
	/* ranks that keep the others waiting, by impact */
	struct straggler stragglers[STRAGGLER_MAX];
	size_t n_stragglers;
	struct straggler_test straggler_test; /* what the test could tell (straggler.h) */
	char slow_node[128];    /* a node all of whose ranks are stragglers; "" none */
	int slow_node_emulated; /* that node is emulated: the local executor's, this machine */
	int have_slow_mon;      /* monitors of the slow node and of the others */
	struct monitor_summary slow_mon, rest_mon;
	/* per step (rank 0's positions): the least communication time over ranks; the rest
	 * of each rank's is waiting for peers (timeline.json); NULL: none */
	double *comm_floor_ms;
	size_t n_floor;
	/* per operation and size class: latency, wait, bandwidth (by cost) */
	struct collective *colls;
	size_t ncolls;
	/* each node's clock against the first node's, from collective ends */
	struct ana_clocks clocks;
	struct insp_summary insp; /* the NCCL Inspector's dumps (found 0: none) */
};

/* The GPU timeline (HTA's definitions) from traces with kernels */
struct ana_gpu {
	/* the verdict and gpu_pct come from the GPU timeline (traces with kernels) */
	int gpu_basis;
	/* shares of the steps' GPU windows, enum step_gpu (GPU_WINDOW: ms summed) */
	double gpu_pct[10];
	size_t gpu_steps;      /* rank-steps with a GPU view */
	/* of gpu_pct[GPU_COMM], the waiting for slower ranks (% of the GPU windows): a collective
	 * instance's transfer is its least time over its ranks (the last to arrive), the rest of
	 * each rank's time in it waiting; the exposed communication beyond all of the transfer
	 * (the most of it that can be exposed) is waiting. Known where two ranks or more share
	 * collectives, per step */
	int peer_wait_known;
	double peer_wait_pct;
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

/* Processes outside the job beside it (contamination.h): what the monitors saw of them
 * over the active steps, on the node where they used most CPU */
enum { ANA_FOREIGN_WHAT = 3 };
struct ana_foreign {
	int known;              /* the monitors recorded it (foreign_cpu_pct) */
	int contaminated;       /* cpu_pct above ANA_FOREIGN_CPU_PCT */
	double cpu_pct;         /* mean, % of one core */
	int n_what;             /* their commands that used most, most first */
	char what[ANA_FOREIGN_WHAT][24];
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
	struct ana_foreign foreign;
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
	 * straggler is named; else with the straggler's cause (data loading, I/O, host
	 * overhead), since removing the cause removes the wait; SHARE_PEER_WAIT
	 * (straggler-bound) when its cause is compute (one rank's excess, which faster
	 * kernels on every rank would not remove) or no phase explains it */
	enum share_kind wait_to;
	/* wait_to SHARE_PEER_WAIT for a compute straggler: its own compute beyond the others'
	 * median (% of step time), counted with the waiting it imposes, not with compute */
	double excess_pct;
};

/* Weak scaling keeps the per-rank batch, strong scaling the global batch */
enum scaling_mode { SCALING_UNKNOWN, SCALING_WEAK, SCALING_STRONG };

/* Why a scenario has no speedup, or what is odd about it */
enum scaling_note {
	SCALING_NOTE_NONE,
	SCALING_NOTE_BATCHES_DIFFER, /* neither the per-rank nor the global batch is the
				      * baseline's: no speedup */
	SCALING_NOTE_DECLARED,       /* analysis.scaling (declared) says the other mode than the
				      * batches, which are used */
	SCALING_NOTE_ONE_BATCH,      /* the batch of it or of its baseline is unknown: no speedup */
	SCALING_NOTE_NO_BATCH,       /* no batch and no analysis.scaling: no speedup */
	SCALING_NOTE_SUPERLINEAR     /* efficiency above 100 % */
};

/* Against the baseline of its series */
struct ana_scaling {
	/* against its baseline; SCALING_UNKNOWN when neither can be said */
	enum scaling_mode mode;
	enum scaling_note note;
	enum scaling_mode declared; /* analysis.scaling, for SCALING_NOTE_DECLARED */
	/* the baseline's global batch, ranks and step spread, for the note */
	long base_batch;
	int base_ranks;
	double base_spread_pct;
	int is_baseline;
	double speedup, efficiency; /* against the baseline of its series; 0 if none */
	/* the steps of it or its baseline are not alike (stats_unalike): speedup and efficiency
	 * compare the mean steps, the time per sample over the run, not the medians */
	int by_means;
	/* their 95 % bootstrap intervals over both scenarios' active steps; not known
	 * without a speedup or with fewer than STATS_BOOTSTRAP_MIN_N steps on a side (the
	 * baseline's own: 1 to 1) */
	struct stats_interval speedup_ci, efficiency_ci;
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
	struct replay_result replay; /* the unchanged graph's replay (built 0: why) */
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
/* ... and only where that growth is at least this share (%) of the widest's step: compute
 * of 0.61 -> 0.86 ms in a 160 ms step of checkpoints is not what slows it. */
#define MODEL_CONTENTION_MIN_PCT 1.0
/* Processes outside a job that used more CPU than this (mean over its active steps, % of
 * one core) beside it contaminate its measurement: its times are not its own alone. */
#define ANA_FOREIGN_CPU_PCT 10.0
/* Monitors alone: a CPU busy this much (mean %) makes a scenario cpu-saturated. */
#define ANA_CPU_BUSY_PCT 90.0
/* A share of step time under this (%) is none in the report's sentences. */
#define ANA_NEGLIGIBLE_PCT 0.05
/* Communication this much hidden behind compute (%): more overlap gains little. */
#define ANA_OVERLAP_ENOUGH_PCT 40.0

/* Per-rank compute that grew with the node count at the same work per rank: ranks
 * contending for the machine */
struct model_contention {
	int found;
	double base_ms, wide_ms; /* per-rank compute per step at the baseline and the widest */
	int base_nodes, wide_nodes, wide_ranks;
	char wide[72];           /* the widest scenario */
	/* the part of the step other than compute whose per-rank time grew the most from the
	 * baseline to the widest (communication with waiting for peers as one), on the
	 * widest's basis (GPU when gpu), and its ms per rank and step at both */
	enum share_kind grew;
	int gpu;
	double grew_base_ms, grew_wide_ms;
	/* the widest ran on the local executor with more ranks than CPUs (oversubscribed) */
	int oversubscribed;
	double wide_eff;         /* the widest's measured parallel efficiency */
	int wide_by_means;       /* ... by the means (its steps, or the baseline's, not alike) */
	struct stats_interval wide_eff_ci; /* and its 95 % interval */
	/* the 95 % bootstrap interval of wide_ms / base_ms (ratio of the means of each rank's
	 * steps' compute, host basis on both; known 0: none, fewer than 5 steps or GPU basis) */
	struct stats_interval growth_ci;
};

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
	/* what limits scaling (unless contended): the largest share that is not compute in
	 * the series' widest scenario, on the GPU's basis when limit_gpu */
	enum share_kind limit;
	int limit_gpu;
	double max_err_pct;    /* largest |model - measured| / measured over the series' points */
	int max_err_nodes;     /* where it is */
	/* the largest share other than compute in the baseline, what the rest (a) is made of */
	enum share_kind base_rest;
	double base_rest_pct;
	struct model_contention contention;
	/* the widest ran on the local executor with more ranks than CPUs (emulated_ranks of
	 * emulated_wide), its emulated nodes one machine whose cores, memory and storage the
	 * ranks share; 0 none */
	int emulated_ranks;
	char emulated_wide[72];
	/* whether the model predicts (eff8, eff16, crossover are said): it fits its points
	 * within MODEL_FITS_PCT and its widest is not oversubscribed emulated nodes (whatever
	 * grew there, compute (contention) or another part, is this machine's contention) */
	int predicts;
};

/* What a recommendation is about: one per cause (the verdict's share, or a
 * flag) and series. */
enum rec_kind {
	REC_COMMUNICATION, /* exposed communication: overlap, larger buckets, fewer bytes */
	REC_STRAGGLER,     /* one rank keeps the others waiting */
	REC_DATA,          /* data loading */
	REC_IO,            /* checkpoints and other I/O */
	REC_HOST,          /* host overhead, or the GPU waiting for the host */
	REC_BATCH,         /* a larger batch per rank, which amortises per-step costs */
	REC_COPIES,        /* exposed host-device copies */
	REC_ELEMENTWISE,   /* bandwidth-bound elementwise compute */
	REC_KERNELS,       /* compute itself: faster kernels */
	REC_MEMORY_PEAK,   /* memory nearly full (a flag) */
	REC_COLLECT,       /* nothing known enough: what to collect */
	REC_KIND_N
};

/* What a recommendation's predictions come from */
enum rec_basis {
	REC_BASIS_NONE,      /* no prediction */
	REC_BASIS_HOST,      /* the host's step shares */
	REC_BASIS_GPU,       /* the GPU's windows */
	REC_BASIS_STRAGGLER, /* the straggler's impact */
	REC_BASIS_REPLAY     /* the replay of the changed graph */
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
	/* per scenario: the arithmetic ceiling (-1 none), and where the prediction is a replay
	 * of the changed graph (replayed 1) the 95 % interval of its median */
	double *ceiling_ms, *lo_ms, *hi_ms;
	unsigned char *replayed;
	/* per scenario: a replay whose steps, measured or predicted, are not alike (a few much
	 * slower): its gain is the mean step's, the time per sample over the run, and the
	 * report leads with the means */
	unsigned char *by_means;
	double *gain;           /* per scenario: the share of its step predicted off; -1 none */
	size_t n;
	size_t lead;            /* the one of them with the largest gain (0 when none has one) */
	int lead_ranks;         /* ... and its gain ranks (not a replay of too few steps) */
	double gain_pct;        /* the largest predicted gain of its scenarios; 0 none */
	enum rec_basis basis;   /* what its predictions come from */
};

struct ana_run {
	char *campaign, *run_id, *run_dir, *baseline;
	int want_nsys, want_perf; /* the campaign asked for these profilers */
	int want_inspector;       /* profile.nccl_inspector */
	double peak_gflops;       /* per rank, for MFU; 0 = unknown */
	long epoch;               /* SOURCE_DATE_EPOCH for the figures (the run's creation time) */
	/* local executor: the CPUs every scenario's ranks shared; 0 on a cluster */
	int host_cpus;
	int cores_per_node;       /* analysis.cores_per_node; 0: host_cpus */
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
void ana_scenario_free(struct ana_scenario *s);
/* s (zeroed here) as a scenario of ts's traces alone (campaign-analyze's objects of a file):
 * their top operators and GPU breakdown and, where the first rank has active steps (then
 * s->data.analysed), their times and shares as ana_run_analyse computes a scenario's.
 * Free with ana_scenario_free. */
void ana_scenario_of_traces(struct ana_scenario *s, struct trace_set *ts);
/* Whether an analysed scenario read trace files some of which could not be used (said
 * whether or not its steps came from them). */
int ana_some_traces_unused(const struct ana_scenario *s);

#endif
