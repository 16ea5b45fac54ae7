/* launch: starting a job's ranks (local processes, or srun inside SLURM) and
 * deciding the job's exit status from them: the rank that failed first. The
 * `campaign launch` command is its command line.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_LAUNCH_H
#define CAMPAIGN_LAUNCH_H

#include <sys/types.h>

/* SIGTERM/SIGINT/SIGHUP stop every rank (forwarded, then SIGKILL after the grace). */
void launch_catch_signals(void);
/* One id per launch in CAMPAIGN_LAUNCH_ID, shared by its ranks (a unique rendezvous prefix). */
void launch_set_id(void);
/* N x T local processes of cmd; the status of the rank that failed first.
 * helper: a step beside the workload (--overlap, the node monitors), whose
 * stop by a signal is its normal end and is not announced. workers > 0:
 * each process is a per-node launcher (torchrun) starting that many workers,
 * which are recorded as the ranks (orchestrator/job/workers.h). */
int launch_local(long nodes, long tpn, double grace_s, char **cmd, int helper, long workers);
/* srun over the allocation; each task wrapped by `campaign launch --rank-exit`
 * (told workers, as launch_local is). */
int launch_srun(long nodes, long tpn, int overlap, char **cmd, int ncmd, long workers);
/* Inside srun: runs cmd as one task, records its status and end time in dir;
 * workers > 0: the task is its node's launcher, and its workers are recorded. */
int launch_rank_exit(const char *dir, char **cmd, long workers);

#endif
