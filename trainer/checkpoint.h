/* checkpoint: the I/O-bound knob. Every --checkpoint-every steps each rank
 * writes its parameters and optimizer state (momentum) to
 * <dir>/ckpt_rank<r>.bin (temp file, fsync, rename), as sharded
 * checkpointing does; the time goes to io_ms.
 * SPDX-License-Identifier: MIT */
#ifndef TRAINER_CHECKPOINT_H
#define TRAINER_CHECKPOINT_H

#include <stddef.h>

/* 0, or -1 with errno set. */
/* extra_bytes of further state (zeros) follow: larger optimizer states or
 * data-loader state, an I/O-intensity control independent of the model. */
int checkpoint_write(const char *dir, int rank, long step, const float *params,
		     const float *momentum, size_t n, size_t extra_bytes);

#endif
