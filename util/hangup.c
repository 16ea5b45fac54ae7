/* SPDX-License-Identifier: MIT */
#include "hangup.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t hangup_seen;
/* the terminal is gone: the output goes to the log of each check */
static volatile sig_atomic_t hangup_detached;

static void on_hangup(int sig)
{
	if (sig == SIGHUP)
		hangup_seen = 1;
	/* SIGPIPE: nothing; the write that raised it fails with EPIPE */
}

void hangup_catch(void)
{
	struct sigaction sa = { .sa_handler = on_hangup };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
}

/* stream (fd) from now on into path (appended), or /dev/null */
static void redirect(FILE *stream, int fd, const char *path)
{
	int to = path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644)
		      : -1;
	if (to < 0)
		to = open("/dev/null", O_WRONLY | O_CLOEXEC);
	fflush(stream); /* what it held is lost either way: its reader is gone */
	clearerr(stream);
	if (to >= 0) {
		dup2(to, fd);
		close(to);
	}
}

/* Whether fd's reader is gone, seen without writing (a program started now
 * would inherit it, and die of SIGPIPE on its first line): the read end of a
 * pipe closed (POLLERR), a terminal hung up (POLLHUP). */
static int reader_gone(int fd)
{
	struct pollfd p = { .fd = fd, .events = 0 };
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

/* Whether fd is already the file at path. */
static int is_file(int fd, const char *path)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int hangup_check(const char *log)
{
	int moved = 0;
	if (hangup_seen || (hangup_detached && log && !is_file(1, log))) {
		/* a later run of the same command (try's next variant): its own log */
		int again = hangup_detached && !hangup_seen;
		hangup_seen = 0;
		hangup_detached = 1;
		redirect(stdout, 1, log);
		redirect(stderr, 2, log);
		fprintf(stderr, again ? "campaign: the terminal went away (SIGHUP) earlier; the run goes on, its output here\n"
				      : "campaign: the terminal went away (SIGHUP); the run goes on, its output here\n");
		return 1;
	}
	if (ferror(stdout) || fflush(stdout) == EOF || reader_gone(1)) {
		redirect(stdout, 1, NULL);
		moved = 1;
	}
	if (ferror(stderr) || reader_gone(2)) {
		redirect(stderr, 2, NULL);
		moved = 1;
	}
	return moved;
}
