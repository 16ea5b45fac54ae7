/* checked_text: a variant run's checked predictions (checked.h) in words and JSON: the
 * outcomes' names, where a missed prediction's time went, summary.json's
 * checked_predictions and BOTTLENECK_ANALYSIS.md's "Predicted and measured". */
#ifndef ANALYZERS_WRITE_CHECKED_TEXT_H
#define ANALYZERS_WRITE_CHECKED_TEXT_H

#include "analyzers/checked.h"

#include <jansson.h>

struct strbuf;

/* "confirmed", "better than predicted", ... as summary.json writes them. */
const char *check_outcome_name(enum check_outcome o);
/* Where a missed prediction's time went, one sentence (c->missed). */
void checked_miss_write(struct strbuf *sb, const struct ana_check *c);
/* summary.json's checked_predictions (an array; empty when not a variant). */
json_t *checked_json(const struct ana_variant *v);
/* BOTTLENECK_ANALYSIS.md's "Predicted and measured" (nothing when not a variant). */
void checked_md(struct strbuf *md, const struct ana_variant *v);

#endif
