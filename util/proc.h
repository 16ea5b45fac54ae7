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
/* Starts the program at path with argv detached: in a session of its own, a
 * grandchild (no zombie for the caller to reap), stdin /dev/null, stdout and
 * stderr appended to log. 0 once it runs; -1 when fork fails or path cannot
 * be run (a close-on-exec pipe tells the caller which). */
int proc_detach(const char *log, const char *path, char *const argv[]);

#endif
