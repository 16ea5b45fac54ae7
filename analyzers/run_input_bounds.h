/* run_input_bounds: every value of RUN/analysis_input.json against bounds.h
 * (and the thresholds' ranges, thresholds.h), the table the campaign loader
 * checks the campaign file with: each string's length (a name's characters
 * too), each number's range, each list's length. run_input.c checks what it
 * is about to write and what it reads with it; the types are its own check.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_RUN_INPUT_BOUNDS_H
#define ANALYZERS_RUN_INPUT_BOUNDS_H

#include <jansson.h>
#include <stddef.h>

/* 0 when every value of doc is within its bound; else -1, with why set to
 * the first one that is not, by its key ("scenarios[0].reason: ..."). */
int run_input_bounds(json_t *doc, char *why, size_t n);

#endif
