/* hostlock: the machine-wide lock the local executor holds around each job,
 * so that the jobs of different runs queue for this machine instead of
 * measuring each other. It lives in a per-user run-time folder:
 * CAMPAIGN_LOCK_DIR when set, else $XDG_RUNTIME_DIR/campaign, else
 * /tmp/campaign-<uid>; a folder that is a link, that another user owns, or
 * that group or others may use is refused. The lock is an flock on a file
 * there, released when the process holding it ends, however it ends; beside
 * it, `holder` names the run and scenario whose job holds it (written
 * atomically while the lock is held, removed before it is released), and
 * want.<pid> that a process waits for it, so that a holder with more jobs
 * lets it go to a waiter before taking it again (runs take turns).
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_HOSTLOCK_H
#define CAMPAIGN_HOSTLOCK_H

#include <stddef.h>

#define HOSTLOCK_DIR_ENV "CAMPAIGN_LOCK_DIR"

struct hostlock {
	char *dir;   /* the folder, checked */
	int fd;      /* the lock file, open (not held until hostlock_try says so) */
	int held;
	int wants;   /* want.<pid> is there */
};

/* Finds and checks the folder (creating it 0700 where missing) and opens the
 * lock file; a negative err code saying what to do when it is unsafe. */
int hostlock_open(struct hostlock *h);
/* Takes the lock without waiting, recording run/scenario as its holder: 1 taken,
 * 0 another process holds it, or a negative err code. */
int hostlock_try(struct hostlock *h, const char *run_id, const char *scenario);
/* Says that this process waits for it (want.<pid>, removed when it is taken or
 * closed). */
void hostlock_want(struct hostlock *h);
/* Another live process waits for it (stale want files are removed). */
int hostlock_others_wait(const struct hostlock *h);
/* "RUN/SCENARIO" of the job that holds it, into buf ("" when not said). */
void hostlock_holder(const struct hostlock *h, char *buf, size_t n);
/* Lets it go (its holder file first); nothing when not held. */
void hostlock_release(struct hostlock *h);
void hostlock_close(struct hostlock *h);

#endif
