/* knob_loader: what a campaign's data_loading knob makes of the reference trainer's data
 * loader in a scenario (its threads and prefetch depth, read from the scenario's command
 * rendered with the knob applied), for the replay's data-loading change.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_KNOB_LOADER_H
#define CAMPAIGN_KNOB_LOADER_H

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

#endif
