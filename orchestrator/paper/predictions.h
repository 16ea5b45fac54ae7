/* paper/predictions: the paper's table of predictions checked by campaign try,
 * tables/checked_predictions.{tex,csv,md}. In a variant's paper its own
 * checks; in its parent's, those of every analysed variant of it in the
 * same campaign folder of the results, in run-id order. The numbers and
 * outcomes are the variants' summary.json's, never decided again.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_PAPER_CHECKED_H
#define CAMPAIGN_PAPER_CHECKED_H

#include "orchestrator/run.h"

#include <jansson.h>

/* Writes the table into out when r (whose summary.json is summary) is a
 * variant with checked predictions, or the parent of analysed variants;
 * nothing (0) otherwise. */
int paper_predictions(const char *out, const struct run *r, json_t *summary);

#endif
