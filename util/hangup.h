/* hangup: a foreground command that outlives its terminal and the reader of
 * its output. SIGHUP (the terminal went away) is caught, and the output goes
 * on into a log file; SIGPIPE is caught, not ignored (a handler, unlike
 * SIG_IGN, is not inherited across exec: the jobs and tools started get the
 * default), so a write to a closed pipe fails with EPIPE and stops the
 * printing, never the work. The flag a signal sets is the one piece of state,
 * process-wide as signals are.
 * SPDX-License-Identifier: MIT */
#ifndef UTIL_HANGUP_H
#define UTIL_HANGUP_H

/* Catches SIGHUP and SIGPIPE from now on. */
void hangup_catch(void);
/* At a point where the command prints: after a SIGHUP, stdout and stderr go
 * on into log (appended; NULL: /dev/null), which says so once; a stream a
 * write to has failed (its reader gone: EPIPE, or EIO from a terminal hung
 * up) goes to /dev/null. 1 when the output moved, else 0. */
int hangup_check(const char *log);

#endif
