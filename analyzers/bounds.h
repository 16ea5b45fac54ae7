/* bounds: how long a string and how large a number may be, declared once for
 * both ends of the analysis: the campaign loader checks the campaign file
 * against these (orchestrator/campaign's key tables and load_read.c), and
 * run_input.c checks RUN/analysis_input.json, which carries the campaign's
 * values and what the run added, against the same, so that the analysis never
 * takes a value the campaign file could not have given, nor one larger than
 * the run could have written. (The thresholds' ranges are thresholds.h's.)
 * Plain integer literals: the key tables' initialisers and their docs use them.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_BOUNDS_H
#define ANALYZERS_BOUNDS_H

/* ---- the campaign file ---------------------------------------------------- */
#define BOUND_SCALAR_BYTES 65536     /* any string value */
#define BOUND_NAME_BYTES 64          /* a safe name (util/quote.h): campaign, scenario, kind */
#define BOUND_SCENARIOS 1024         /* scenarios of a run, the matrix expanded */
#define BOUND_NODES 100000           /* a scenario's nodes */
#define BOUND_TASKS_PER_NODE 1024    /* a scenario's, and what a knob may set */
#define BOUND_BATCH_PER_RANK 100000000
#define BOUND_GLOBAL_BATCH 2000000000
#define BOUND_STEPS 1000000          /* profile.warmup_steps, profile.active_steps */
#define BOUND_PEAK_GFLOPS 1000000000 /* analysis.peak_gflops_per_rank */
/* a list the analysis reads (profile.traces, analysis.phase_rules): more items than a 4 MiB
 * campaign file holds in practice */
#define BOUND_LIST_ITEMS 65536

/* ---- what the run adds (run_input_write keeps to these) -------------------- */
#define BOUND_TEXT_BYTES 4096        /* a sentence: a job's reason, its requeue, a series key */
#define BOUND_PATH_BYTES 4096        /* a job folder, relative to the run */
#define BOUND_STEP_MS 1e9            /* a step time or prediction, ms (11 days) */
#define BOUND_EPOCH_S 253402300799.0 /* the run's creation, s since 1970 (9999-12-31) */
#define BOUND_HOST_CPUS 1048576
#define BOUND_ATTEMPTS 1000000       /* a scenario's attempts */
#define BOUND_LOADER 4096            /* the trainer's loader threads or prefetch depth */
#define BOUND_CKPT_EVERY 100000000   /* the trainer's --checkpoint-every (its own bound) */
/* the largest analysis_input.json campaign writes (run_input_write writes none larger, and
 * says so) and reads (a larger one is refused before it is read): a variant of 200 scenarios
 * with 2,000 parent steps each is about 8 MiB */
#define BOUND_ANALYSIS_INPUT_BYTES (16u << 20)

#endif
