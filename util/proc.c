/* SPDX-License-Identifier: MIT */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int proc_status_code(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

pid_t proc_spawn(char *const argv[])
{
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "campaign: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

int proc_wait(pid_t pid)
{
	int st = 0;
	pid_t w;
	if (pid < 0)
		return 127;
	while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	return w == pid ? proc_status_code(st) : 127;
}

/* The grandchild's side of proc_detach: a byte on report when it cannot exec. */
static void detached(const char *log, const char *path, char *const argv[], int report)
{
	setsid();
	if (fork() != 0)
		_exit(0);
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0644);
	int nul = open("/dev/null", O_RDONLY);
	if (fd >= 0 && nul >= 0) {
		dup2(nul, 0);
		dup2(fd, 1);
		dup2(fd, 2);
	}
	execv(path, argv);
	if (write(report, "x", 1) < 0)
		_exit(127);
	_exit(127);
}

int proc_detach(const char *log, const char *path, char *const argv[])
{
	int pipefd[2] = { -1, -1 };
	char x;
	pid_t pid = pipe2(pipefd, O_CLOEXEC) == 0 ? fork() : -1;
	if (pid == 0)
		detached(log, path, argv, pipefd[1]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	int started = pid > 0 && read(pipefd[0], &x, 1) == 0; /* EOF: the exec closed it */
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	return started ? 0 : -1;
}
