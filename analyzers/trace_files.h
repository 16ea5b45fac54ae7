/* trace_files: which files of a scenario's folder are its traces (Kineto JSON, plain or
 * gzip; or Nsight Systems exports), and which rank and node each belongs to when the trace
 * does not say (the launcher's records, the file's name, the order of its process).
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_TRACE_FILES_H
#define ANALYZERS_TRACE_FILES_H

#include "analyzers/read/metrics.h"

#include <stddef.h>

/* The trace files (nsys: the *.sqlite exports) of dir, sorted by name. */
int trace_files_list(const char *dir, int nsys, char ***names, size_t *n);
/* The latest modification time of the trace files of dir (Unix seconds; 0: none): a
 * trace is written after its steps (campaign collect keeps the time it was written). */
double trace_files_written(const char *dir);
/* The rank each file of dir (names from trace_files_list) belongs to when
 * the trace does not say: the launcher's record (<job>/ranks/rank_<r>.json:
 * host and pid) of the process a torch.profiler name carries
 * (<host>_<pid>.<time>.pt.trace.json), else a rank-like name (rank3,
 * worker_3), else the order of its process among the files': the files
 * of one process (profiler cycles) get one rank. */
void trace_files_rank_hints(const char *dir, char *const *names, size_t n, int *hints);
/* Ranks of m without a host get the node of the launcher's record of them
 * (<job_dir>/ranks/rank_<r>.json): when there is one record per rank, or
 * for a per-node launcher's worker recorded with its RANK (the record has
 * local_rank; the launchers' own launcher_<n>.json are no ranks). */
void trace_files_rank_nodes(const char *job_dir, struct scenario_metrics *m);

#endif
