/* workers: the ranks a per-node launcher (torchrun) starts itself. The
 * launcher is recorded apart (<job>/ranks/launcher_<n>.json); while it runs,
 * its descendants are looked for in /proc, and each worker (the topmost
 * descendant whose environment gives it a RANK of its own) is recorded as the
 * rank it is: <job>/ranks/rank_<RANK>.json. It only reads /proc: it never
 * signals, waits for or reaps a process, and runs no other program.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_WORKERS_H
#define CAMPAIGN_WORKERS_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* How often the launchers' descendants are looked at while workers are missing. */
#define WORKERS_POLL_MS 200

/* One launcher and the workers of it recorded so far. */
struct worker_watch {
	pid_t launcher;
	long index;     /* the launcher's rank as campaign started it: its node's rank */
	char node[64];  /* "" : SLURMD_NODENAME, else the host */
	pid_t *seen;    /* the workers recorded (per_node at most) */
	long found;
	int done;       /* every worker found, or the launcher ended */
};

struct workers {
	const char *job_dir;
	long per_node;  /* the workers each launcher starts (nproc_per_node) */
	struct worker_watch *v;
	size_t n;
	struct timespec next; /* CLOCK_MONOTONIC: the next look */
};

void workers_init(struct workers *w, const char *job_dir, long per_node);
/* Records launcher (the index-th launcher, on node; NULL: as ranklog_record
 * names it) and watches for its workers. */
void workers_add(struct workers *w, long index, pid_t launcher, const char *node);
/* At most every WORKERS_POLL_MS, records the workers that appeared under the
 * launchers still watched. Returns how many are still watched. */
size_t workers_poll(struct workers *w);
/* The launcher pid has ended: its watch stops. */
void workers_ended(struct workers *w, pid_t launcher);
void workers_free(struct workers *w);

/* The launch variables of a process's environment (/proc/<pid>/environ's
 * NUL-separated text of len bytes); -1 for one absent or not a number. */
struct worker_env {
	long rank, local_rank, world_size, local_world_size;
};
void workers_parse_env(const char *text, size_t len, struct worker_env *e);
/* Whether a process with env e, under a launcher with env l starting
 * per_node workers, is a worker: it has a RANK, and one of its own (not the
 * launcher's, inherited by a helper or by a child not yet exec'd). With one
 * worker per node the two cannot be told apart, and it is taken. */
int workers_is_worker(const struct worker_env *e, const struct worker_env *l, long per_node);

#endif
