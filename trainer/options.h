/* options: campaign-trainer's command line (docs/trainer.md), with the
 * defaults, and the rank/size it finds in the launcher's environment.
 * SPDX-License-Identifier: MIT */
#ifndef TRAINER_OPTIONS_H
#define TRAINER_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

enum { TRAINER_EXIT_OK = 0, TRAINER_EXIT_USAGE = 2, TRAINER_EXIT_COMM = 3, TRAINER_EXIT_IO = 4,
       TRAINER_EXIT_NO_GPU = 69 };

enum ddp_mode { DDP_SYNC, DDP_BUCKETED, DDP_PER_PARAM };

struct trainer_opts {
	const char *backend;   /* gloo | nccl */
	enum ddp_mode ddp;
	const char *ddp_name;
	long steps, warmup_steps;
	const char *metrics_dir;
	long batch;            /* global batch */
	int input, hidden, depth, output;
	double lr, momentum, clip;
	uint64_t seed;
	int workers, prefetch;
	long decode_us, read_us;
	int gloo_algo;
	const char *gloo_algo_name;
	const char *rendezvous;
	long timeout_s;
	double bucket_mb;      /* bucketed: bucket size */
	long checkpoint_every; /* 0: never */
	const char *checkpoint_dir;
	double checkpoint_extra_mb; /* further state per checkpoint */
	int checkpoint_async;  /* 1: written by a thread of its own */
	int elementwise;       /* extra elementwise passes per activation */
	const char *dataset;   /* file-backed data, or NULL */
	const char *make_dataset; /* write a dataset of --samples and exit */
	long samples;
	int telemetry;         /* 0: --no-telemetry (overhead measurements) */
	long die_at_step;      /* fault injection: SIGKILL self at this step (-1: never) */
	int die_rank;
	int slow_rank[16];     /* straggler knob: these ranks compute slow_ms more per step */
	int n_slow;
	double slow_ms;
	/* --fabric-probe: measure all-reduce bandwidth over sizes instead of training */
	int fabric_probe;
	double probe_max_mb;   /* the largest message of the probe */
	long probe_iters;      /* timed all-reduces per size */
	int rank, world, local_rank;
};

/* 1 when o's straggler knob slows this rank. */
int options_is_slow(const struct trainer_opts *o);
/* Parses argv; prints usage or the error. Returns 0, or an exit code
 * (TRAINER_EXIT_USAGE, or -1 after --help). */
int options_parse(int argc, char **argv, struct trainer_opts *o);
/* Learning rate of a step (linear warm-up) and the clipping norm (warm-up only). */
float options_lr(const struct trainer_opts *o, long step, float *clip);
/* Whether step (from 0) writes a checkpoint: one in checkpoint_every, the steps whose number
 * plus one it divides (the CPU trainer's first ones written before step 0: ckpt_prewarm). */
int options_checkpoint_due(const struct trainer_opts *o, long step);

/* Where checkpoints go: --checkpoint-dir, else $CAMPAIGN_JOB_DIR/checkpoints, else
 * ./checkpoints. */
void options_checkpoint_dir(const struct trainer_opts *o, char *buf, size_t n);
/* The meta line's fields (JSON object members) for this rank. */
void options_meta_json(const struct trainer_opts *o, size_t nparams, char *buf, size_t n);

#endif
