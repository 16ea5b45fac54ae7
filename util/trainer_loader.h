/* trainer_loader: the reference trainer's data-loader options as its command line names
 * them, and their defaults. Shared by the trainer (trainer/options.c) and the orchestrator,
 * which reads them from a scenario's command for the replay's data-loading change.
 * SPDX-License-Identifier: MIT */
#ifndef UTIL_TRAINER_LOADER_H
#define UTIL_TRAINER_LOADER_H

#define TRAINER_PROGRAM "campaign-trainer"
#define TRAINER_WORKERS_OPT "--workers"   /* loader threads per rank */
#define TRAINER_PREFETCH_OPT "--prefetch" /* batches the loader may run ahead */
#define TRAINER_DEFAULT_WORKERS 2
#define TRAINER_DEFAULT_PREFETCH 4

#endif
