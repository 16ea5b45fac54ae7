/* hostlock: see hostlock.h.
 * SPDX-License-Identifier: MIT */
#include "hostlock.h"

#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCK_FILE "local-executor.lock"
#define HOLDER_FILE "local-executor.holder"

/* dir, where from (the words that say why it is this folder): created 0700
 * when missing; refused unless a folder of this user that no one else may use. */
static int private_dir(const char *dir, const char *from)
{
	struct stat st;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return err_sys(ERR_IO, "cannot create the local executor's lock folder %s (%s)",
			       dir, from);
	if (lstat(dir, &st) < 0)
		return err_sys(ERR_IO, "cannot read the local executor's lock folder %s (%s)", dir,
			       from);
	const char *what = "set " HOSTLOCK_DIR_ENV " to a folder of yours with mode 0700";
	if (!S_ISDIR(st.st_mode))
		return err_set(ERR_IO,
			       "the local executor's lock folder %s (%s) is not a folder (a link?): remove it, or %s",
			       dir, from, what);
	if (st.st_uid != geteuid())
		return err_set(ERR_IO,
			       "the local executor's lock folder %s (%s) belongs to uid %u, not to you (uid %u): another user could hold or fake the lock; remove it, or %s",
			       dir, from, (unsigned)st.st_uid, (unsigned)geteuid(), what);
	if (st.st_mode & 077)
		return err_set(ERR_IO,
			       "the local executor's lock folder %s (%s) has mode %04o: group or others may use it; `chmod 700 %s`, or %s",
			       dir, from, (unsigned)(st.st_mode & 07777), dir, what);
	return 0;
}

/* XDG_RUNTIME_DIR when it is an absolute path to a folder of this user. */
static const char *runtime_dir(void)
{
	const char *x = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	if (!x || x[0] != '/' || stat(x, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid())
		return NULL;
	return x;
}

/* The folder and why it is that one. */
static int pick_dir(struct strbuf *dir, const char **from)
{
	const char *env = getenv(HOSTLOCK_DIR_ENV), *x = runtime_dir();
	if (env && *env) {
		if (env[0] != '/')
			return err_set(ERR_USAGE,
				       HOSTLOCK_DIR_ENV " is '%s': it must be an absolute path (the local executor's supervisor may run from another folder)",
				       env);
		strbuf_adds(dir, env);
		*from = HOSTLOCK_DIR_ENV;
	} else if (x) {
		strbuf_addf(dir, "%s/campaign", x);
		*from = "under XDG_RUNTIME_DIR";
	} else {
		strbuf_addf(dir, "/tmp/campaign-%u", (unsigned)geteuid());
		*from = "no XDG_RUNTIME_DIR";
	}
	return 0;
}

int hostlock_open(struct hostlock *h)
{
	struct strbuf dir = STRBUF_INIT, p = STRBUF_INIT;
	const char *from = "";
	*h = (struct hostlock){ NULL, -1, 0, 0 };
	int rc = pick_dir(&dir, &from);
	if (rc == 0)
		rc = private_dir(dir.buf, from);
	if (rc == 0) {
		strbuf_addf(&p, "%s/" LOCK_FILE, dir.buf);
		h->fd = open(p.buf, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (h->fd < 0)
			rc = err_sys(ERR_IO, "cannot open the local executor's lock %s", p.buf);
	}
	strbuf_free(&p);
	if (rc < 0) {
		strbuf_free(&dir);
		return rc;
	}
	h->dir = strbuf_detach(&dir);
	return 0;
}

/* dir/want.<pid> into p. */
static void want_path(const struct hostlock *h, long pid, struct strbuf *p)
{
	strbuf_addf(p, "%s/want.%ld", h->dir, pid);
}

void hostlock_want(struct hostlock *h)
{
	if (h->wants)
		return;
	struct strbuf p = STRBUF_INIT;
	want_path(h, (long)getpid(), &p);
	int fd = open(p.buf, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		close(fd);
		h->wants = 1;
	}
	strbuf_free(&p);
}

static void unwant(struct hostlock *h)
{
	if (!h->wants)
		return;
	struct strbuf p = STRBUF_INIT;
	want_path(h, (long)getpid(), &p);
	unlink(p.buf);
	strbuf_free(&p);
	h->wants = 0;
}

int hostlock_others_wait(const struct hostlock *h)
{
	struct argv names;
	int others = 0;
	fsio_list(h->dir, &names);
	for (size_t i = 0; i < names.n; i++) {
		char *end;
		if (strncmp(names.v[i], "want.", 5))
			continue;
		long pid = strtol(names.v[i] + 5, &end, 10);
		if (*end || pid <= 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno == EPERM) {
			others = 1;
		} else { /* its waiter died without a word */
			struct strbuf p = STRBUF_INIT;
			want_path(h, pid, &p);
			unlink(p.buf);
			strbuf_free(&p);
		}
	}
	argv_free(&names);
	return others;
}

int hostlock_try(struct hostlock *h, const char *run_id, const char *scenario)
{
	if (flock(h->fd, LOCK_EX | LOCK_NB) < 0)
		return errno == EWOULDBLOCK || errno == EINTR
			? 0
			: err_sys(ERR_IO, "cannot take the local executor's lock in %s", h->dir);
	h->held = 1;
	unwant(h);
	struct strbuf p = STRBUF_INIT, who = STRBUF_INIT;
	strbuf_addf(&p, "%s/" HOLDER_FILE, h->dir);
	strbuf_addf(&who, "%s/%s\n", run_id, scenario);
	/* only words for `status`: a holder that cannot be said holds the lock all the same */
	if (fsio_write_atomic(p.buf, who.buf, who.len, 0600) < 0)
		fprintf(stderr, "campaign: warning: %s\n", err_last());
	strbuf_free(&p);
	strbuf_free(&who);
	return 1;
}

void hostlock_holder(const struct hostlock *h, char *buf, size_t n)
{
	struct strbuf p = STRBUF_INIT;
	char *text = NULL;
	size_t k = 0;
	strbuf_addf(&p, "%s/" HOLDER_FILE, h->dir);
	if (fsio_read(p.buf, 4096, &text, NULL) == 0)
		for (const char *c = text; *c && *c != '\n' && k + 1 < n; c++)
			buf[k++] = (unsigned char)*c >= 0x20 && *c != 0x7f ? *c : '?';
	if (n)
		buf[k < n ? k : n - 1] = '\0';
	free(text);
	strbuf_free(&p);
}

void hostlock_release(struct hostlock *h)
{
	if (!h->held)
		return;
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" HOLDER_FILE, h->dir);
	unlink(p.buf); /* before the lock goes: the next holder's name is never removed */
	strbuf_free(&p);
	flock(h->fd, LOCK_UN);
	h->held = 0;
}

void hostlock_close(struct hostlock *h)
{
	hostlock_release(h);
	unwant(h);
	if (h->fd >= 0)
		close(h->fd);
	free(h->dir);
	*h = (struct hostlock){ NULL, -1, 0, 0 };
}
