/* backend_slurm: what the SLURM backend exposes beyond struct backend_ops:
 * the controller's address (for messages), a reachability probe, and the
 * pure decision of a job's true end state (unit-tested on its own).
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_BACKEND_SLURM_H
#define CAMPAIGN_BACKEND_SLURM_H

#include "orchestrator/store/jobstate.h"
#include "statusfile.h"
#include "util/slurmconf.h"

#include <stddef.h>
#include <stdint.h>

/* 1 when a TCP connection to the controller succeeds within timeout_ms. */
int slurm_controller_answers(const char *conf, int timeout_ms);

/* What the controller said of a job. */
struct slurm_seen {
	int found;           /* 0: unknown to the controller (purged) */
	uint32_t job_state;  /* with flags */
	uint32_t exit_code;  /* wait status */
	const char *reason;  /* pending reason, may be NULL */
	double limit_at;     /* when the time limit ends it (start + limit, epoch s); 0 unknown */
};

/* The job's state from the controller's view and the job's own job.status
 * (js NULL when absent). *exit_code is set when known (else -1); reason
 * says why, in words. */
enum job_state slurm_decide(const struct slurm_seen *seen, const struct status_file *js,
			    int *exit_code, char *reason, size_t n);

#endif
