/* replay_scenario: a scenario's replay fidelity: its traces read again with their host
 * ranges, built into an execution graph (replay_build.h), replayed unchanged
 * (replay/sim.h), and each active step's replayed time set against the measured one, per
 * scenario and per rank. It owns the replay's result and why there is none; it writes
 * nothing (summary.json and the report show it).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_REPLAY_SCENARIO_H
#define ANALYZERS_REPLAY_SCENARIO_H

#include "analyzers/read/kineto.h"
#include "analyzers/read/metrics.h"
#include "analyzers/read/rules.h"

#include <stddef.h>

struct replay_rank_result {
	int rank;
	double step_ms, measured_ms, error_pct; /* medians over its active steps */
	size_t steps;
};

/* Why a scenario has no replay; write/data_text.c says it in words. */
enum replay_why {
	REPLAY_MADE,
	REPLAY_INCOMPLETE,     /* the job did not complete */
	REPLAY_MONITORS_ONLY,  /* no step data but the node monitors */
	REPLAY_NO_STEP_DATA,   /* no step data at all */
	REPLAY_TELEMETRY,      /* telemetry without the trainer's trace of every rank */
	REPLAY_STEP_LINES,     /* step lines only */
	REPLAY_NO_STEP_RANGES, /* traces without step ranges (step times from step lines) */
	REPLAY_NO_CORES,       /* the nodes' cores unknown (analysis.cores_per_node) */
	REPLAY_FILES,          /* not one trace file per rank with steps: detail names it */
	REPLAY_UNREADABLE,     /* a file could not be read again: detail names it */
	REPLAY_NOT_BUILT,      /* the builder refused the traces: detail is its error */
	REPLAY_FAILED,         /* the simulator failed: detail is its error */
	REPLAY_NO_ACTIVE       /* no active step was replayed */
};

/* A recommendation's step predicted by replaying the changed graph (replay_change.c): the
 * measured median step times each active step's ratio of changed to unchanged replay (so
 * the replay's own error cancels): the median over the steps and its 95 % bootstrap interval. */
struct replay_pred {
	int made;                     /* 0: why says (the change does not apply) */
	/* median, its interval (-1 -1 from fewer than STATS_BOOTSTRAP_MIN_N steps: none) */
	double step_ms, lo_ms, hi_ms;
	/* the mean step the same way (the measured mean times the changed replay's mean step
	 * over the unchanged one's) and its 95 % bootstrap interval (-1 -1: none, as above): the
	 * time per sample over the run where the steps are not alike (a loader's bursts) */
	double mean_ms, mean_lo_ms, mean_hi_ms;
	double measured_mean_ms; /* the measured mean it scales (-1 none) */
	double busy_pct;              /* the busiest host's cores in use over the changed
				       * replay, its whole length (warm-up steps too) */
	size_t buckets;               /* the change's buckets, over ranks and steps */
	/* the transfer model the buckets' costs follow (replay_build_info): per call + per
	 * MiB, fitted on fit_colls all-reduces; fit_colls 0: in proportion to their bytes */
	size_t fit_colls;
	double per_call_ms, ms_per_mib;
	/* fit_colls 0: the median step replayed as if all of the transfer were per call (the
	 * interval spans it and step_ms, in proportion to bytes), -1 none */
	double per_call_step_ms;
	/* a fitted model extrapolated (its buckets over twice the largest collective it was fitted
	 * on, bucket_max_bytes and fit_max_bytes): the median step replayed with the transfer in
	 * proportion to bytes instead (the interval spans it and step_ms), -1 none */
	double proportional_step_ms;
	double fit_max_bytes, bucket_max_bytes;
	/* the batch change: the median step replayed with its GEMMs as long as measured (the
	 * gemm_share of replay_where; the interval spans it and step_ms), -1 none */
	double gemm_bound_step_ms;
	/* communication where DDP already overlaps the all-reduce: each started as soon as
	 * backward begins (replay_build_info.early): step_ms is the most smaller buckets gain, a
	 * bound, and the interval reaches the measured step */
	int bound;
	char why[240];
};

/* A scenario's compute said to hold time waiting for a core from this share of it on. */
#define REPLAY_CORE_WAIT_SAID_PCT 10.0

/* What the replay's fidelity is judged by: the medians, or the means because the measured
 * steps, or (theirs being fine) the replayed ones, are not alike or have a fragile median. */
enum replay_means { REPLAY_BY_MEDIANS, REPLAY_MEANS_MEASURED, REPLAY_MEANS_REPLAYED };

struct replay_result {
	int built; /* 0: no replay, why says */
	int predicted; /* each change was replayed too (a run's analysis, not the command line's) */
	enum replay_why why_kind;
	/* the median over the active steps of the step (as the analysis times it: the
	 * collective period, else the slowest rank's), replayed and measured, and
	 * error_pct = 100 (replayed - measured) / measured */
	double step_ms, measured_ms, error_pct;
	/* the same over the same steps by their means, and by_means: the measured steps, or else
	 * the replayed ones, are not alike or their median is fragile (stats_unalike,
	 * stats_median_fragile: steps in modes, whose median a step or two moves far), so the
	 * means' error is the one the report leads with and flags */
	double mean_step_ms, measured_mean_ms, mean_error_pct;
	enum replay_means by_means;
	/* the steps compared (steps of each, in step order): replayed and measured, to recount */
	double *replayed_steps_ms, *measured_steps_ms;
	/* of the host compute's time (forward, backward, optimizer, operators; the graph as
	 * measured), the share beyond its CPU demand: waiting for a core beside more traced work
	 * than the host's cores (-1: no such operation) */
	double compute_core_wait_pct;
	size_t steps;
	int hosts, cores; /* what the graph had: hosts, cores of each */
	char why[240]; /* a file's name, or an error message, as why_kind says */
	struct replay_rank_result *ranks;
	size_t nranks;
	/* communication: the step thread's all-reduce in buckets overlapped with backward */
	struct replay_pred comm;
	/* I/O: the checkpoints the io knob makes (replay_where): one every io_every steps,
	 * written asynchronously where io_async (buckets, fit_colls unused) */
	struct replay_pred io;
	int io_every, io_async;
	/* io_async: the storage's floor under the median step (where every step checkpoints)
	 * and the mean (replay_build_info's storage_busy_ms and storage_busy_mean_ms), -1 none */
	double io_storage_ms, io_storage_mean_ms;
	/* data loading: the loader the campaign's data_loading knob makes (replay_where) */
	struct replay_pred data;
	size_t loaders; /* data: the loader threads measured (the most of any rank) */
	/* data of a user's DataLoader (user_loader 1, loaders 0): the share of its loading's
	 * time that was CPU work (%, an estimate from the node monitors; -1 not measured: the
	 * prediction takes all of it as CPU work), and the median step replayed with all of it
	 * waiting instead, and all of it CPU work (-1 none); the interval reaches both */
	int user_loader;
	double loader_cpu_pct, loader_wait_step_ms, loader_cpu_step_ms;
	double loader_wait_mean_ms, loader_cpu_mean_ms; /* the bounds' mean steps (-1: none) */
	double gemm_share; /* batch: replay_where's, where its GEMM bound was replayed (else 0) */
	double loader_cpu_span_s; /* replay_where's job_cores_span_s where it gave the share */
	double loader_unplaced_s, loader_monitored_s; /* replay_where's, where it gave none */
	int loader_by_write; /* replay_where's ends_by_write */
	/* straggler: the slow ranks' (replay_where) excess step-thread work removed */
	struct replay_pred straggler;
	/* host: the launch overhead halved (REPLAY_CHANGE_HOST) */
	struct replay_pred host;
	/* the batch per rank REPLAY_BATCH_X times (REPLAY_CHANGE_BATCH): the step of that many
	 * times the samples */
	struct replay_pred batch;
};

/* The replay's error that judges it: the means' where its steps are not alike (by_means),
 * else the medians'. */
double replay_result_error(const struct replay_result *r);

/* A replay whose unchanged graph misses the measured median step by more than this (%) is
 * flagged where its fidelity and its predictions are said: issue 47's bar for a scenario. */
#define REPLAY_ROUGH_PCT 10.0

/* The I/O change of an analysis input written before the io knob's checkpoints were read
 * (replay_where.ckpt_every -1): what the analysis replayed then, a checkpoint every 4th step
 * (the shipped campaigns' io knob), so that a run analysed again predicts as it did. */
#define REPLAY_CHECKPOINT_LEGACY 4

/* What a scenario is replayed on, and with: the nodes' cores; one_host: every rank on one
 * (the local executor's emulated nodes are this machine), else one per distinct host; the
 * loader threads (or a user's DataLoader workers) and prefetch depth (batches in flight)
 * that the data_loading knob sets (0: it sets neither, and no data-loading change is
 * replayed); the stragglers' ranks. */
struct replay_where {
	int cores, one_host;
	int loader_workers, loader_depth;
	/* the checkpoints the io knob makes: one every ckpt_every steps (0: it does not say),
	 * written asynchronously (ckpt_async); neither said: written asynchronously;
	 * ckpt_every -1 (an analysis input written before these): REPLAY_CHECKPOINT_LEGACY */
	int ckpt_every, ckpt_async;
	/* the cores the job kept busy per host over its active steps (node monitors; < 0: not
	 * measured): how much of a user's DataLoader's time was CPU work */
	double job_cores;
	/* > 0: job_cores is over the part of the job (this many seconds of steps on a clock of
	 * their own) they must have covered, not over their own window */
	double job_cores_span_s;
	/* job_cores < 0 on steps of a clock of their own (this many seconds of them) where the
	 * monitors sampled monitored_s seconds: too long a job to place a sample within them */
	double unplaced_span_s, monitored_s;
	/* monitored_s ends where the traces were written (before the monitors' end) */
	int ends_by_write;
	/* the share of the per-sample compute (forward and backward) that was GEMMs, from the
	 * telemetry's split (0: not known) */
	double gemm_share;
	int host_ranks; /* the ranks launched on each host (0: not known) */
	const int *slow_ranks; /* the stragglers the analysis named (nslow; 0: none) */
	size_t nslow;
};

/* The least size of a bucket in the communication change: the reference trainer's
 * --bucket-mb default (4 MiB). */
#define REPLAY_BUCKET_BYTES (4.0 * 1024 * 1024)

/* Replays the traces of dir (*.json, *.json.gz: one rank each, as torchtrace_load_dir reads
 * them) whose steps are m's (torchtrace's; ranks in order), on the hosts w says. Sets
 * out->why and returns 0 when there is no replay to make; < 0 only when the simulator
 * fails (err_last). */
int replay_scenario_run(const char *dir, const struct rules *phases,
			const struct scenario_metrics *m, const struct replay_where *w,
			struct replay_result *out);
/* The same for the trainer's traces in dir (its metrics directory: JOB_TRAINER_TRACE, one
 * per rank of m, m the ranks' telemetry): each active step's replayed time set against the
 * trace's own step range (ProfilerStep#N, one per step from step 0, active as the telemetry
 * marks step N). out->why REPLAY_TELEMETRY when a rank has no trace. */
int replay_scenario_trainer(const char *dir, const struct rules *phases,
			    const struct scenario_metrics *m, const struct replay_where *w,
			    struct replay_result *out);
/* The same for traces already read (campaign-analyze's files, t[i] one rank each: its
 * distributedInfo rank where every file has a distinct one, else its position): each rank on
 * a host of its own with a core per thread of its trace (what the nodes had is not known: no
 * sharing of cores), its steps its trace's step ranges, every one active. Unchanged only: no
 * recommendation's change is replayed. */
int replay_scenario_traces(struct gpu_trace *t, size_t n, const struct rules *phases,
			   struct replay_result *out);
void replay_result_free(struct replay_result *r);

/* What a replay's fidelity over n steps, replayed rep and measured mea, is judged by: the
 * means where the measured steps' median misleads (not alike, or fragile), else the replayed
 * steps', else the medians. */
enum replay_means replay_judged_by(const double *rep, const double *mea, size_t n);

/* r judged by the means for its replayed steps (REPLAY_MEANS_REPLAYED) with a replayed median
 * over REPLAY_ROUGH_PCT off the measured one: predictions of a median, replayed medians'
 * ratios, are rough though the means' error is not. */
int replay_median_rough(const struct replay_result *r);

/* Whose steps sent r's fidelity to the means, as the report says it: "" (its steps, the
 * measured ones) or " replayed". */
const char *replay_means_whose(const struct replay_result *r);

#endif
