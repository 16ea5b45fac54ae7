/* proc: child processes: start one, wait for it, and its status as a shell
 * gives it ($?: the exit code, or 128 + the signal that ended it).
 * SPDX-License-Identifier: MIT */
#ifndef UTIL_PROC_H
#define UTIL_PROC_H

#include <sys/types.h>

/* The shell's $? for a waitpid status. */
int proc_status_code(int wait_status);
/* Starts argv (searched on PATH); -1 when fork fails. A child that cannot
 * run argv[0] says so on its stderr ("cannot run 'X': why") and exits 127. */
pid_t proc_spawn(char *const argv[]);
/* Waits for pid (through interruptions): its status code; 127 for pid < 0
 * or when it cannot be waited for. */
int proc_wait(pid_t pid);

#endif
