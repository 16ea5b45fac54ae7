/* ranklog: each rank's stdout and stderr, copied as they come to the job's
 * own output (so slurm-<id>.out keeps everything) and to the rank's file
 * <job>/logs/rank_<r>.out, and the records of which process each rank is
 * (<job>/ranks/). The launcher and the per-task wrapper pump the logs; a
 * rank's output is never held back waiting for another's.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_RANKLOG_H
#define CAMPAIGN_RANKLOG_H

#include <stddef.h>

#include "util/strbuf.h"

/* The job's own output gets whole lines only: a rank's partial line is held
 * until its newline (or the rank's end, or RANKLOG_MAX_LINE bytes), so lines
 * of different ranks never interleave mid-line. */
#define RANKLOG_MAX_LINE (1 << 20)

struct ranklog {
	int in;   /* read end of the rank's pipe; -1 once closed */
	int file; /* logs/rank_<r>.out; -1 when it could not be opened */
	struct strbuf partial; /* the rank's unfinished line, not yet in the job's output */
};

/* Creates the pipe and opens job_dir/logs/rank_<rank>.out (truncated).
 * *child_fd is the write end the rank gets as stdout and stderr. Returns 0,
 * or -1 (with a message on stderr) when no pipe could be made: the rank then
 * writes to the job's output directly. */
int ranklog_open(const char *job_dir, long rank, struct ranklog *rl, int *child_fd);
/* Records which process rank is: job_dir/ranks/rank_<rank>.json holds
 * {"rank", "host", "node", "pid"}, so that a trace named after its process
 * (torch.profiler's <host>_<pid>.<time>.pt.trace.json, host as gethostname
 * gives it) finds its rank, and the rank its node (the scheduler's name:
 * node, else SLURMD_NODENAME, else the host). */
void ranklog_record(const char *job_dir, long rank, long pid, const char *node);
/* A process as a record names it; a field < 0 is left out of the record. */
struct rank_proc {
	long rank, local_rank, node_rank, pid, launcher_pid;
};
/* Writes job_dir/ranks/<name>.json (atomically): p's fields, "host" and
 * "node" as ranklog_record has them. */
void ranklog_record_proc(const char *job_dir, const char *name, const char *node,
			 const struct rank_proc *p);
/* The task that failed first, the one the job's status is from: a rank, or
 * under a per-node launcher its node's launcher (the job's ranks/ says which
 * it is). job_dir/ranks/failed.json holds {"task", "exit_code", "signal"}
 * (signal 0: it exited), for the reader of failures
 * (orchestrator/backend/failure_line.h). Written atomically, by the launch
 * that decided the job's status; ranklog_forget_failure removes one left by
 * an earlier launch in the same folder. */
void ranklog_record_failure(const char *job_dir, long task, int exit_code, int signal);
void ranklog_forget_failure(const char *job_dir);
/* In the rank's child process, before exec: stdout and stderr to the pipe. */
void ranklog_child(int child_fd);
/* Copies what is ready on the open logs, waiting at most timeout_ms.
 * Returns how many are still open. */
size_t ranklog_pump(struct ranklog *rl, size_t n, int timeout_ms);
/* Copies what is left (until EOF, or for at most linger_ms once the ranks
 * are gone: a grandchild may hold a pipe open), then closes everything. */
void ranklog_finish(struct ranklog *rl, size_t n, int linger_ms);

#endif
