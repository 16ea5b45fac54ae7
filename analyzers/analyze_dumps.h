/* analyze_dumps: campaign-analyze's NCCL Inspector mode (docs/formats.md, "campaign-analyze"):
 * which operands are dumps, and what they say.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_ANALYZE_DUMPS_H
#define ANALYZERS_ANALYZE_DUMPS_H

#include <stddef.h>

/* 1 when argv[first..argc) are NCCL Inspector dumps or folders of them (*rc < 0 after
 * err_set when some are and others are not), 0 when none is. */
int analyze_dumps_operands(int argc, char **argv, int first, int *rc);
/* The dumps of paths (files, or folders of them): the collectives matched across ranks by
 * communicator and coll_sn, the ranks the others wait for (their waiting as a share of the
 * ranks' time in those collectives), what was skipped; summary.json's objects (as_json) or
 * words. Negative after err_set. */
int analyze_dumps_run(char **paths, size_t n, int as_json);

#endif
