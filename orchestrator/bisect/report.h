/* report: a bisection's answer for people: BISECT.md (the first bad commit
 * with its step time before and after and their intervals, what changed in
 * the analysis between the last good and the first bad run as `campaign
 * compare` gives it, every commit tested, the runs and node-hours it took),
 * the totals added to bisect.json, and the few lines said at the end.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_BISECT_REPORT_H
#define CAMPAIGN_BISECT_REPORT_H

#include "util/strbuf.h"

#include <jansson.h>
#include <stdio.h>

/* Why BAD (its tested entry in st) resolves no regression: no interval, not
 * slower, or the noise hiding it, with the active steps that would resolve it. */
void report_noise_reason(json_t *st, struct strbuf *why);
/* st's totals (runs, node_hours) set, and dir/BISECT.md written atomically. */
int report_write(const char *dir, const char *root, const char *journal, json_t *st);
/* The answer in a few lines, and where BISECT.md is. */
void report_say(const char *dir, json_t *st, FILE *out);

#endif
