/* share_text: how the tables, the sentences under them and report.txt print a scenario's
 * shares (on the basis its verdict uses: the host's step or the GPU's time; n/a when
 * unknown, never 0) and its rates (GFLOP/s, GB/s: never 0 when they are not).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_WRITE_SHARE_TEXT_H
#define ANALYZERS_WRITE_SHARE_TEXT_H

#include "analyzers/analysis.h"

#include <stddef.h>

/* The shares' columns, in the tables' order. */
enum share_col { COL_DATA, COL_COMPUTE, COL_COMM, COL_WAIT, COL_IO, COL_OTHER,
		 COL_COLS };

/* What s's shares are of: "the GPU's time" (the verdict's basis is the GPU timeline),
 * "the host's step", or NULL when they are not known (step times only). */
const char *share_text_basis(const struct ana_scenario *s);
/* s's share k in % of what share_text_basis says; -1 when that basis has no such share
 * (the GPU's time holds no waiting for peers or I/O of its own); NAN when unknown. On the
 * GPU data is the GPU idle while the host loaded data, other the rest (copies, other
 * kernels, the GPU waiting for the host), so that the six add up to 100. */
double share_text_pct(const struct ana_scenario *s, enum share_col k);
/* A table cell of share k: "%.1f", "–" (no such share on the basis) or "n/a" (unknown). */
void share_text_cell(const struct ana_scenario *s, enum share_col k, char *buf, size_t n);
/* The column's name in report.txt ("data", "waiting for peers", ...). */
const char *share_text_name(enum share_col k);
/* v with the given decimals, or to three significant digits when those would print a
 * nonzero v as 0 ("0.0372" rather than "0.0"); buf is returned. */
const char *share_text_rate(char *buf, size_t n, double v, int decimals);

#endif
