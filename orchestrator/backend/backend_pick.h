/* backend_pick: which backend a run goes to (by name, or auto: SLURM when a
 * controller answers), and which one an existing run was submitted to. The
 * backends know nothing of it.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_BACKEND_PICK_H
#define CAMPAIGN_BACKEND_PICK_H

#include "backend.h"

/* The backend named, or NULL with err set for an unknown one. "auto" picks
 * slurm when a controller answers, else local; *why says why. */
const struct backend_ops *backend_pick(const char *name, const char **why);
const struct backend_ops *backend_for_run(const struct run *r);

#endif
