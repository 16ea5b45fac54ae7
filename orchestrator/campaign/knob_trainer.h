/* knob_trainer: what a campaign's knobs make of the reference trainer in a scenario, read from
 * the scenario's command rendered with the knob applied: the data_loading knob's loader (its
 * threads and prefetch depth) and the io knob's checkpoints (how often, whether written on a
 * thread of their own), for the replay's data-loading and I/O changes.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_KNOB_TRAINER_H
#define CAMPAIGN_KNOB_TRAINER_H

#include "render.h"

/* A DataLoader's prefetch_factor where a knob's loader: does not say (PyTorch's default). */
#define KNOB_LOADER_PREFETCH 2

/* The loader threads (*workers) and prefetch depth (*prefetch, batches in flight) that c's
 * data_loading knob makes: the reference trainer's in s's command under the knob (its params
 * set over s's), rendered under ctx, with the trainer's defaults where the command names
 * neither; else its loader: key's (a user's DataLoader: workers x prefetch factor in
 * flight). Both 0 when c has no such knob, or neither says. */
void knob_loader(const struct campaign *c, const struct scenario *s,
		 const struct render_ctx *ctx, int *workers, int *prefetch);
/* The checkpoints that c's io knob makes in s's command (rendered as above): a checkpoint
 * every *every steps (0: the command does not say), written asynchronously (*async 1: the
 * trainer's --checkpoint-async 1). Both 0 when c has no io knob or it does not run the
 * reference trainer. */
void knob_checkpoints(const struct campaign *c, const struct scenario *s,
		      const struct render_ctx *ctx, int *every, int *async);

#endif
