/* requeue: what ended an attempt of a job that SLURM requeued, and the
 * sentence that tells a scenario's requeues. Pure: no controller, no store.
 * Once a requeued job pends again the controller shows only its restart
 * count; slurmstepd wrote the cause into the job log ("*** JOB 12 ON n1
 * CANCELLED AT 2026-01-02T03:04:05 DUE TO NODE FAILURE ... ***").
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_REQUEUE_H
#define CAMPAIGN_REQUEUE_H

#include "orchestrator/store/store.h"
#include "util/strbuf.h"

#include <stddef.h>
#include <stdint.h>

/* The end state slurmstepd's last cancel line for job job_id in log says:
 * NODE_FAIL, PREEMPTED, REQUEUED (a requeue request), CANCELLED (no cause
 * given) or TIMEOUT; -1 when log has no such line. */
int requeue_cause_from_log(const char *log, const char *job_id);

/* The previous attempt's end state: the log's cause (-1: none), else the
 * controller's state (JOB_REQUEUE with NODE_FAIL or PREEMPTED), else
 * NODE_FAIL when some of its nodes failed, else REQUEUED; reason says it
 * in words, naming failed nodes (NULL: none known). */
enum job_state requeue_decide(int log_cause, uint32_t job_state, const char *failed_nodes,
			      char *reason, size_t n);

/* 1 when requeue_decide told ended as REQUEUED with no cause (status polled
 * before slurmstepd wrote its cancel line): its log may give one later. */
int requeue_unexplained(const struct job_row *ended);

/* "requeued after NODE_FAIL on n2; measured on n[3-4]" for rows[last],
 * from the earlier attempts rows[first..last) run under its job id;
 * nothing when none was. */
void requeue_sentence(const struct job_row *rows, size_t first, size_t last,
		      struct strbuf *out);

#endif
