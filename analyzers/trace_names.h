/* trace_names: what a trace's names say. Which ranges are steps (ProfilerStep#N; with
 * loose names, NVTX's "step 12", "iteration_3" ...) and which phase each range is (the
 * phase rules); which rank a trace file is, from the trace, its file name or a hint.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_TRACE_NAMES_H
#define ANALYZERS_TRACE_NAMES_H

#include "analyzers/read/kineto.h"
#include "analyzers/read/rules.h"

#include <stddef.h>

/* Whether name is a step range's (ProfilerStep#N; with loose, also NVTX step names in any
 * case: "step", "step 12", "iteration_3", "train_step#4"); *n its number, -1 without one. */
int trace_step_name(const char *name, long *n, int loose);
/* Per name of t: its phase (enum phase), -1 when no rule names one
 * (transparent), TRACE_NAME_STEP for a step range; classified once per name. */
#define TRACE_NAME_STEP (-2)
int *trace_name_phases(const struct gpu_trace *t, const struct rules *phases, int loose_steps);
/* The rank a file name says (rank3, rank_3, worker3 ...), or -1. */
int trace_rank_of_name(const char *name);
/* A file's rank: the trace's own (>= 0), else its hint (trace_files_rank_hints). */
int trace_rank_for(int trace_rank, const char *name, int hint);
/* "<host>_<pid>" of a torch.profiler trace name into worker (size n), with
 * host and pid; 0 when name is not of that form. */
int trace_worker_of_name(const char *name, char *worker, size_t n, char *host, size_t hn,
			 long *pid);

#endif
