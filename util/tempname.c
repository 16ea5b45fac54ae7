/* SPDX-License-Identifier: MIT */
#include "tempname.h"

#include "strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* This host's short name, reduced to [A-Za-z0-9_-] so that it holds no dot. */
static void host_part(char *out, size_t n)
{
	char h[256] = "";
	if (gethostname(h, sizeof h - 1) < 0 || !*h)
		strcpy(h, "host");
	size_t i = 0;
	for (; h[i] && h[i] != '.' && i + 1 < n; i++)
		out[i] = isalnum((unsigned char)h[i]) || h[i] == '-' ? h[i] : '_';
	out[i] = '\0';
}

void tempname_make(struct strbuf *out, const char *name, const char *suffix)
{
	char host[128];
	host_part(host, sizeof host);
	strbuf_reset(out);
	strbuf_addf(out, "%s.tmp.%s.%ld.%s", name, host, (long)getpid(), suffix);
}

static int all_digits(const char *s, size_t n)
{
	if (n == 0 || n > 10)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Whether a process with this id runs here (EPERM: it runs as another user). */
static int pid_alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

int tempname_is_stale(const char *entry, const char *name)
{
	size_t nl = strlen(name);
	if (strncmp(entry, name, nl) || strncmp(entry + nl, ".tmp.", 5))
		return 0;
	const char *s = entry + nl + 5, *last = strrchr(s, '.');
	if (!last || !last[1])
		return 0;
	const char *pid = last;
	while (pid > s && pid[-1] != '.')
		pid--;
	if (!all_digits(pid, (size_t)(last - pid)))
		return 0;
	if (pid > s) { /* "<host>.<pid>.<k>": ours only */
		char host[128];
		host_part(host, sizeof host);
		if (strlen(host) != (size_t)(pid - 1 - s) || strncmp(s, host, strlen(host)))
			return 0;
	} else if (!all_digits(last + 1, strlen(last + 1))) {
		return 0; /* the older "<pid>.<k>" */
	}
	return !pid_alive(strtol(pid, NULL, 10));
}
