/* fabric_probe: the fabric probe (--fabric-probe): all-reduce bus bandwidth over a
 * range of message sizes, in the style of nccl-tests' all_reduce_perf, with
 * the all-reduce the binary has (gloo in campaign-trainer, NCCL in
 * campaign-trainer-gpu); rank 0 writes <metrics_dir>/fabric.json atomically
 * (docs/formats.md).
 * SPDX-License-Identifier: MIT */
#ifndef TRAINER_FABRIC_PROBE_H
#define TRAINER_FABRIC_PROBE_H

#include "options.h"

#include <stddef.h>

/* One in-place all-reduce (sum) of nfloats floats over every rank, finished
 * when it returns; 0, or -1 with the reason in err. */
typedef int (*fabric_allreduce)(void *ctx, size_t nfloats, char *err, size_t n);

/* The sizes of the probe: 4 KiB, x4 ..., up to o->probe_max_mb; how many
 * into *n, the largest in floats returned. */
size_t fabric_sizes(const struct trainer_opts *o, size_t *bytes, size_t cap, size_t *n);
/* Runs the probe; an exit code (TRAINER_EXIT_OK, _COMM, _IO). */
int fabric_probe(const struct trainer_opts *o, fabric_allreduce op, void *ctx);

#endif
