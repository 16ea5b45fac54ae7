/* summary_keys: the keys of summary.json that its writer (report.c, prediction_check.c)
 * and its readers (figures.c, orchestrator's paper, compare, try) share, named
 * once. Readers spell no summary key as a literal (tests/e2e/layout.sh checks).
 * A key written but read by no program stays where it is written.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_SUMMARY_KEYS_H
#define ANALYZERS_SUMMARY_KEYS_H

/* A path into the summary, as jsonio_num and jsonio_at take it: SK_PATH(a, b) is "a.b". */
#define SK_PATH(a, b) a "." b

/* ---- the top level ---- */
#define SK_RUN_ID "run_id"
#define SK_SCENARIOS "scenarios"
#define SK_SCALING_MODELS "scaling_models"
#define SK_FABRIC_PROBES "fabric_probes"
#define SK_RECOMMENDATIONS "recommendations"
#define SK_VARIANT "variant" /* a variant's {of, kind, knob}: null for other runs */
#define SK_CHECKED_PREDICTIONS "checked_predictions"
#define SK_CHECKED_TALLY "checked_tally" /* how many were checked, confirmed, ... */

/* ---- variant (and variant.json, which carries the same kind and knob) ---- */
#define SK_OF "of"
#define SK_KIND "kind" /* also of a recommendation and a checked prediction */
#define SK_KNOB "knob"

/* ---- a scenario ---- */
#define SK_NAME "name" /* also of a fabric probe */
#define SK_STATE "state"
#define SK_NODES "nodes"
#define SK_RANKS "ranks" /* also median_step's rows per rank */
#define SK_ANALYSED "analysed"
#define SK_BASELINE "baseline"
#define SK_SPEEDUP "speedup"
#define SK_SPEEDUP_BY_MEANS "speedup_by_means"
/* step lines adding up to more than their job ran: {rank, lines_s, job_s}, or null */
#define SK_STEP_LINES_EXCEED_JOB "step_lines_exceed_job"
#define SK_EFFICIENCY "efficiency"
#define SK_SPEEDUP_INTERVAL "speedup_interval"       /* [lo, hi], 95 %; null: none */
#define SK_EFFICIENCY_INTERVAL "efficiency_interval" /* [lo, hi], 95 %; null: none */
#define SK_VERDICT "verdict"
#define SK_STEP_TIME_MS "step_time_ms" /* {median, p95, min, max} */
#define SK_MEDIAN "median"	       /* also a collective's wait_ms */
#define SK_P95 "p95"
#define SK_STEP_TIMES_MS "step_times_ms"
/* what a step's time is: "collective_period" or "rank_step" (docs/analysis.md); absent from
 * summaries written before it was: "rank_step" */
#define SK_STEP_ESTIMATOR "step_estimator"
#define SK_GLOBAL_BATCH "global_batch"
#define SK_THROUGHPUT_SAMPLES_PER_S "throughput_samples_per_s"
#define SK_OVERLAP_PCT "overlap_pct"
#define SK_ACHIEVED_GFLOPS_PER_RANK "achieved_gflops_per_rank"
#define SK_MFU_PCT "mfu_pct"
#define SK_RANK0_STEPS "rank0_steps"
#define SK_MEDIAN_STEP "median_step" /* {step, phases, ranks} */
#define SK_STEP "step"

/* shares_pct: where step time goes (prediction_check.c's check_share_names lists six) */
#define SK_SHARES_PCT "shares_pct"
#define SK_COMPUTE "compute" /* also of gpu_shares_pct */
#define SK_COMMUNICATION "communication" /* also of gpu_shares_pct */
#define SK_DATA_LOADING "data_loading"
#define SK_IO "io"
#define SK_PEER_WAIT "peer_wait"
#define SK_VERDICT_BASIS "verdict_basis" /* "gpu", "host", "monitors" or "none" */
#define SK_OTHER "other"

/* gpu_shares_pct: what the GPU did (HTA's categories) */
#define SK_GPU_SHARES_PCT "gpu_shares_pct"
#define SK_MEMCPY "memcpy"
#define SK_OTHER_KERNELS "other_kernels"
#define SK_IDLE_HOST_WAIT "idle_host_wait"
#define SK_IDLE_DATA_LOADING "idle_data_loading"
#define SK_IDLE_KERNEL_WAIT "idle_kernel_wait"
#define SK_IDLE_OTHER "idle_other"

/* stragglers: one per rank that held the others back */
#define SK_STRAGGLERS "stragglers"
/* what the straggler test could tell: {trials, least_p, can_name} */
#define SK_STRAGGLER_TEST "straggler_test"
/* a variant's control run (campaign try --control), and a check's step there */
#define SK_CONTROL "control"
#define SK_CONTROL_STEP_MS "control_step_ms"
#define SK_UNCORRECTED "uncorrected"
#define SK_AGAINST_CONTROL "against_control"
#define SK_UNDECIDED "undecided"
#define SK_RANK "rank"
#define SK_NODE "node"
#define SK_CAUSE "cause"
#define SK_IMPACT_PCT "impact_pct"

/* clocks: each node's clock against the first node's (timeline_clocks: what the timeline
 * did with them) */
#define SK_CLOCK_OFFSETS "clock_offsets"
#define SK_CLOCK_RANKS "clock_ranks"
#define SK_TIMELINE_CLOCKS "timeline_clocks"
#define SK_OFFSET_MS "offset_ms"
#define SK_UNCERTAINTY_MS "uncertainty_ms"

/* collectives: one row per operation and size class (and a fabric probe's sizes) */
#define SK_COLLECTIVES "collectives"
#define SK_OP "op"
#define SK_SIZE_CLASS "size_class"
#define SK_BYTES "bytes"
#define SK_BUSBW_GBPS "busbw_gbps"
#define SK_MS_PER_STEP "ms_per_step"
#define SK_WAIT_MS "wait_ms" /* {median, p95}; in samples the values */
/* what a row keeps for compare's intervals: {step_ms, wait_ms, busbw_gbps}, arrays */
#define SK_SAMPLES "samples"

/* ---- a scaling model ---- */
#define SK_SERIES "series"
#define SK_BASE_NODES "base_nodes"
#define SK_A_MS "a_ms"
#define SK_B_MS "b_ms"
#define SK_C_MS "c_ms"

/* ---- a fabric probe: name, and the sizes it measured ---- */
#define SK_SIZES "sizes"

/* ---- a recommendation (kind, scenarios, and per scenario its step and prediction) ---- */
#define SK_TEXT "text"
#define SK_STEP_MS "step_ms"
#define SK_PREDICTED_STEP_MS "predicted_step_ms" /* also of a checked prediction */
#define SK_PREDICTED_INTERVAL_MS "predicted_interval_ms" /* a replayed prediction's interval */
#define SK_PREDICTION_BASIS "prediction_basis" /* "replay", "bound", "ceiling" or null */
#define SK_PREDICTED_MEAN_MS "predicted_mean_ms" /* a replayed prediction's mean step */
#define SK_GAIN_BY_MEANS "gain_by_means" /* a prediction's gain read from the mean steps */
#define SK_STEP_MEAN_MS "step_mean_ms" /* a scenario's mean active step (variant.json) */
#define SK_BY_MEANS "by_means" /* a checked prediction decided by the means */
#define SK_NO_GAIN "no_gain" /* a checked prediction confirmed as "no gain" alone */
#define SK_PREDICTED_MEAN_INTERVAL_MS "predicted_mean_interval_ms"

/* ---- a checked prediction (kind, predicted_step_ms) ---- */
#define SK_SCENARIO "scenario" /* also of variant.json's predictions */
#define SK_PARENT_STEP_MS "parent_step_ms"
#define SK_MEASURED_STEP_MS "measured_step_ms"
#define SK_CI_LOW "ci_low"
#define SK_CI_HIGH "ci_high"
#define SK_OUTCOME "outcome"
#define SK_MISS "miss"
#define SK_MEASURED_CHANGE "measured_change"
#define SK_CONTAMINATED_BY "contaminated_by"

#endif
