/* SPDX-License-Identifier: MIT */
#include "analyzers/thresholds.h"

#include "analyzers/verdict.h"

#define AT(field) offsetof(struct ana_thresholds, field)

const struct ana_threshold_key ana_threshold_keys[ANA_THRESHOLDS] = {
	{ "communication_pct", 0, 100, 20, AT(comm_pct) },
	{ "data_loading_pct", 0, 100, 30, AT(data_pct) },
	{ "io_pct", 0, 100, 20, AT(io_pct) },
	{ "gpu_util_pct", 0, 100, 70, AT(gpu_util_pct) },
	{ "memory_pct", 0, 100, 90, AT(memory_pct) },
	{ "gpu_copy_pct", 0, 100, VERDICT_COPY_PCT, AT(gpu_copy_pct) },
};

double *ana_threshold_at(struct ana_thresholds *th, size_t k)
{
	return (double *)((char *)th + ana_threshold_keys[k].off);
}

void ana_thresholds_default(struct ana_thresholds *th)
{
	for (size_t k = 0; k < ANA_THRESHOLDS; k++)
		*ana_threshold_at(th, k) = ana_threshold_keys[k].def;
}
