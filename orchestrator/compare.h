/* compare: a candidate run set against a reference, metric by metric, with
 * the 95 % bootstrap interval of each ratio deciding better, worse or within
 * noise (compare.c says how); what `campaign compare` prints and `campaign
 * bisect` reports.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_COMPARE_H
#define CAMPAIGN_COMPARE_H

#include <jansson.h>
#include <stddef.h>

/* Runs a (reference) and b (candidate), by id or folder under root: *out
 * {reference, candidate, caution, scenarios: {name: {verdict_reference,
 * verdict_candidate, stragglers_reference, stragglers_candidate, metrics:
 * {label: {reference, candidate, ratio, better, ratio_95ci, note}}}},
 * only_in_one, predicted_and_measured (a variant pair only)}. ERR_NOTFOUND
 * or ERR_IO, said so, when a run or its summary.json is missing or corrupt. */
int compare_runs(const char *root, const char *journal, const char *a, const char *b,
		 json_t **out);
/* The metrics compared, in the order they are printed. */
size_t compare_nmetrics(void);
const char *compare_metric_label(size_t k);

#endif
