/* trainer_options: the reference trainer's options that the orchestrator reads from a
 * scenario's command for the replay's changes (its data loader's, its checkpoints'), as its
 * command line names them, and their defaults. Shared with the trainer (trainer/options.c).
 * SPDX-License-Identifier: MIT */
#ifndef UTIL_TRAINER_OPTIONS_H
#define UTIL_TRAINER_OPTIONS_H

#define TRAINER_PROGRAM "campaign-trainer"
#define TRAINER_WORKERS_OPT "--workers"   /* loader threads per rank */
#define TRAINER_PREFETCH_OPT "--prefetch" /* batches the loader may run ahead */
#define TRAINER_DEFAULT_WORKERS 2
#define TRAINER_DEFAULT_PREFETCH 4
#define TRAINER_CKPT_EVERY_OPT "--checkpoint-every" /* a checkpoint every N steps, 0 none */
#define TRAINER_CKPT_ASYNC_OPT "--checkpoint-async" /* 1: written on a thread of its own */

#endif
