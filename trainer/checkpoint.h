/* checkpoint: the I/O-bound knob. Every --checkpoint-every steps each rank
 * writes its parameters to <dir>/ckpt_rank<r>.bin (temp file, fsync,
 * rename), as sharded checkpointing does; the time goes to io_ms. */
#ifndef TRAINER_CHECKPOINT_H
#define TRAINER_CHECKPOINT_H

#include <stddef.h>

/* 0, or -1 with errno set. */
int checkpoint_write(const char *dir, int rank, long step, const float *params, size_t n);

#endif
