/* steplog: step times a workload prints, read from its rank logs
 * (<job>/logs/rank_<r>.out, written by `campaign launch`) with the
 * campaign's PCRE2 pattern: named groups step and step_ms, optionally loss
 * and samples. Everything else of a step is unknown (its time is "other").
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_STEPLOG_H
#define ANALYZERS_STEPLOG_H

#include "analyzers/read/metrics.h"
#include "analyzers/read/ranklines.h"

/* Reads every logs/rank_<f>.out of job_dir, each line as the rank's whose
 * it is (rl: under a per-node launcher a node's log holds its workers'
 * lines); the first `warmup` matching lines of each rank are warm-up
 * (inactive). ERR_NOTFOUND when no line matches. */
int steplog_load(const char *job_dir, const struct ranklines *rl, const char *pattern,
		 int warmup, struct scenario_metrics *out);
/* The job's wall time in s from job_dir/job.status (the job script's start and end), -1
 * unknown: step lines are what the workload printed, and their sum cannot exceed it. */
double steplog_job_wall_s(const char *job_dir);

#endif
