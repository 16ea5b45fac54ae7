/* clock_text: a scenario's node clocks in summary.json (clock_offsets,
 * clock_odd_ranks, timeline_clocks) and in a sentence of the report: how
 * far each node's clock is from the first's, how sure, whether the timeline
 * is corrected. The model (clock_offset.h) holds the numbers.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_WRITE_CLOCK_TEXT_H
#define ANALYZERS_WRITE_CLOCK_TEXT_H

#include "analyzers/clock_offset.h"

#include <jansson.h>

struct strbuf;

/* Sets the three keys of k in the scenario object o; timeline as for clock_text_md. */
void clock_text_json(json_t *o, const struct ana_clocks *k, int timeline);
/* The report's paragraph on the clocks (nothing for one node or one machine); timeline:
 * timeline.json shows the scenario's steps with their times (not from step logs). */
void clock_text_md(struct strbuf *md, const struct ana_clocks *k, int timeline);

#endif
