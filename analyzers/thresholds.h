/* thresholds: the analysis's seed thresholds (a campaign's analysis.thresholds),
 * declared once: each key, its range, its default and where it lands in struct
 * ana_thresholds. The campaign loader's keys, checks and defaults and the
 * analyzers' input come from this table, and docs/campaign-format.md's row is
 * checked against it (tests/unit/test_campaign.c). No flag is decided here.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_THRESHOLDS_H
#define ANALYZERS_THRESHOLDS_H

#include <stddef.h>

/* Percent; a share past one is flagged beside the verdict (verdict.h's flag_kind). */
struct ana_thresholds {
	double comm_pct, data_pct, gpu_util_pct, memory_pct, io_pct;
	double gpu_copy_pct; /* exposed host-device copies (GPU verdicts); 0: VERDICT_COPY_PCT */
};

struct ana_threshold_key {
	const char *key; /* under analysis.thresholds: "communication_pct" */
	double min, max; /* the values a campaign may give */
	double def;      /* when it gives none */
	size_t off;      /* where it lands: an offset of a double in struct ana_thresholds */
};

#define ANA_THRESHOLDS 6
/* In the order docs/campaign-format.md lists them. */
extern const struct ana_threshold_key ana_threshold_keys[ANA_THRESHOLDS];

/* Every threshold at its default. */
void ana_thresholds_default(struct ana_thresholds *th);
/* The value of th that ana_threshold_keys[k] sets. */
double *ana_threshold_at(struct ana_thresholds *th, size_t k);

#endif
