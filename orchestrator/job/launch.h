/* launch: starting a job's ranks (local processes, or srun inside SLURM) and
 * deciding the job's exit status from them: the rank that failed first. The
 * `campaign launch` command is its command line. */
#ifndef CAMPAIGN_LAUNCH_H
#define CAMPAIGN_LAUNCH_H

#include <sys/types.h>

/* SIGTERM/SIGINT/SIGHUP stop every rank (forwarded, then SIGKILL after the grace). */
void launch_catch_signals(void);
/* One id per launch in CAMPAIGN_LAUNCH_ID, shared by its ranks (a unique rendezvous prefix). */
void launch_set_id(void);
/* N x T local processes of cmd; the status of the rank that failed first.
 * helper: a step beside the workload (--overlap, the node monitors), whose
 * stop by a signal is its normal end and is not announced. */
int launch_local(long nodes, long tpn, double grace_s, char **cmd, int helper);
/* srun over the allocation; each task wrapped by `campaign launch --rank-exit`. */
int launch_srun(long nodes, long tpn, int overlap, char **cmd, int ncmd);
/* Inside srun: runs cmd as one task, records its status and end time in dir. */
int launch_rank_exit(const char *dir, char **cmd);

#endif
