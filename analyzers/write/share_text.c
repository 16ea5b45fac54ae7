/* share_text: a scenario's shares on its verdict's basis, and rates, as printed.
 * SPDX-License-Identifier: MIT */
#include "analyzers/write/share_text.h"
#include "analyzers/read/metrics.h"
#include "util/jsonio.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

const char *share_text_basis(const struct ana_scenario *s)
{
	switch (s->outcome.basis) {
	case BASIS_GPU:
		return "the GPU's time";
	case BASIS_NONE:
	case BASIS_MONITORS:
	case BASIS_HOST:
		break;
	}
	return s->shares.shares_known ? "the host's step" : NULL;
}

double share_text_pct(const struct ana_scenario *s, enum share_col k)
{
	const double *g = s->gpu.gpu_pct;
	const double host[COL_COLS] = { s->shares.data_pct,	   s->shares.compute_pct,
					  s->shares.comm_pct,	   s->shares.sync_wait_pct,
					  s->shares.io_pct,	   s->shares.other_pct };
	/* on a GPU: its exposed communication in its transfer and the waiting for slower ranks,
	 * where two ranks share steps (accounting.h) */
	double wait = s->gpu.peer_wait_known ? s->gpu.peer_wait_pct : -1;
	const double gpu[COL_COLS] = { g[GPU_IDLE_DATA], g[GPU_COMPUTE],
				       g[GPU_COMM] - (wait > 0 ? wait : 0), wait, -1,
				       100 - g[GPU_IDLE_DATA] - g[GPU_COMPUTE] - g[GPU_COMM] };
	if (k < 0 || k >= COL_COLS || !share_text_basis(s))
		return NAN;
	return s->outcome.basis == BASIS_GPU ? gpu[k] : host[k];
}

void share_text_cell(const struct ana_scenario *s, enum share_col k, char *buf, size_t n)
{
	/* (from the value summary.json keeps, to 0.001, as the paper's table takes it: the same
	 * cell, not one rounded twice there) */
	double v = jsonio_round3(share_text_pct(s, k));
	if (isnan(v))
		snprintf(buf, n, "n/a");
	else if (v < 0)
		snprintf(buf, n, "–");
	else
		snprintf(buf, n, "%.1f", v < 0.05 ? 0 : v);
}

const char *share_text_name(enum share_col k)
{
	switch (k) {
	case COL_DATA:
		return "data";
	case COL_COMPUTE:
		return "compute";
	case COL_COMM:
		return "communication";
	case COL_WAIT:
		return "waiting for peers";
	case COL_IO:
		return "I/O";
	case COL_OTHER:
	case COL_COLS:
		break;
	}
	return "other";
}

const char *share_text_rate(char *buf, size_t n, double v, int decimals)
{
	snprintf(buf, n, "%.*f", decimals, v);
	if (v != 0 && isfinite(v) && strtod(buf, NULL) == 0)
		snprintf(buf, n, "%.3g", v);
	return buf;
}
