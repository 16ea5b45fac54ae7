/* knob_loader: what a campaign's data_loading knob makes of the reference trainer's data
 * loader in a scenario (its threads and prefetch depth, read from the scenario's command
 * rendered with the knob applied), for the replay's data-loading change.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_KNOB_LOADER_H
#define CAMPAIGN_KNOB_LOADER_H

#include "render.h"

/* The loader threads (*workers) and prefetch depth (*prefetch) of the reference trainer in
 * s's command under c's data_loading knob (its params set over s's), rendered under ctx;
 * the trainer's defaults where the command names neither. Both 0 when c has no such knob
 * or the command does not run the trainer. */
void knob_loader(const struct campaign *c, const struct scenario *s,
		 const struct render_ctx *ctx, int *workers, int *prefetch);

#endif
