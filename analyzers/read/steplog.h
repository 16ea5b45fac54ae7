/* steplog: step times a workload prints, read from its rank logs
 * (<job>/logs/rank_<r>.out, written by `campaign launch`) with the
 * campaign's PCRE2 pattern: named groups step and step_ms, optionally loss
 * and samples. Everything else of a step is unknown (its time is "other"). */
#ifndef ANALYZERS_STEPLOG_H
#define ANALYZERS_STEPLOG_H

#include "analyzers/read/metrics.h"

/* Reads every rank_<r>.out of dir; the first `warmup` matching lines of
 * each rank are warm-up (inactive). ERR_NOTFOUND when no line matches. */
int steplog_load_dir(const char *dir, const char *pattern, int warmup,
		     struct scenario_metrics *out);

#endif
