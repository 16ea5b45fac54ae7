/* program: where the workload's program will resolve in the job, checked
 * before anything is submitted: the first word of workload.command looked
 * up on the PATH the job will have (its env's PATH, $NAME expanded from
 * here; else this shell's, which sbatch and the local executor pass on),
 * against where it resolves in this shell. Warnings only: a program that is
 * missing, that resolves elsewhere, or that is a version manager's shim
 * (pyenv, asdf: it picks the interpreter per directory and environment).
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_PROGRAM_H
#define CAMPAIGN_PROGRAM_H

#include "campaign.h"

#include <stdio.h>

/* Prints "<who>: warning: ..." lines to out; returns how many. */
int program_check(const struct campaign *c, const char *who, FILE *out);
/* The executable file name resolves to on path (a name with a '/' is taken
 * as it is), into buf; 0, or -1 when none. */
int program_resolve(const char *name, const char *path, char *buf, size_t n);

#endif
