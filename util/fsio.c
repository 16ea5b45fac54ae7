/* SPDX-License-Identifier: MIT */
#include "fsio.h"

#include "err.h"
#include "fault.h"
#include "strbuf.h"
#include "tempname.h"
#include "words.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int fsio_lock(const char *dir, const char *name, int nowait)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/%s", dir, name);
	int fd = open(p.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0 && flock(fd, LOCK_EX | (nowait ? LOCK_NB : 0)) < 0) {
		close(fd);
		fd = -1;
	}
	if (fd < 0 && !nowait)
		fd = err_sys(ERR_IO, "cannot lock %s", p.buf);
	strbuf_free(&p);
	return fd;
}

int fsio_lock_shared(const char *dir, const char *name)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/%s", dir, name);
	int fd = open(p.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) < 0) {
		close(fd);
		fd = -1;
	}
	strbuf_free(&p);
	return fd;
}

int fsio_sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* not fatal: the renames themselves are atomic */
	fsync(fd);
	close(fd);
	return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The name part of path (after the last slash). */
static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Opens the folder that holds path; its last component must not be a
 * symbolic link (a link planted in a run would send the write elsewhere). */
static int open_parent(const char *path)
{
	char *copy = xstrdup(path);
	const char *dir = strrchr(path, '/') ? dirname(copy) : ".";
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ELOOP)
		fd = err_set(
			ERR_IO,
			"%s is a symbolic link: campaign does not write through links (remove it; was it made by the workload?)",
			dir);
	else if (fd < 0)
		fd = err_sys(ERR_IO, "cannot open directory %s", dir);
	free(copy);
	return fd;
}

/* A link or a folder where campaign writes a file is named, never followed
 * or replaced. */
static int check_target(int dfd, const char *name, const char *shown)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (S_ISLNK(st.st_mode))
		return err_set(
			ERR_IO,
			"%s is a symbolic link: campaign does not write through links (remove it; was it made by the workload?)",
			shown);
	if (!S_ISREG(st.st_mode))
		return err_set(
			ERR_IO,
			"%s exists and is not a regular file: campaign will not replace it (remove it)",
			shown);
	return 0;
}

/* Creates a fresh temporary file next to name in dfd: O_EXCL, so neither a
 * planted link nor another writer's file is ever opened. */
static int create_temp(int dfd, const char *name, int mode, struct strbuf *tmp)
{
	for (unsigned k = 0; k < 100; k++) {
		char suffix[16];
		snprintf(suffix, sizeof suffix, "%u", k);
		tempname_make(tmp, name, suffix);
		int fd = openat(dfd, tmp->buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				mode);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

int fsio_write_at(int dfd, const char *name, const char *shown, const char *data, size_t len,
		  int mode)
{
	struct strbuf tmp = STRBUF_INIT;
	int rc = check_target(dfd, name, shown);
	int fd = rc < 0 ? -1 : create_temp(dfd, name, mode, &tmp);
	if (rc == 0 && fd < 0)
		rc = err_sys(ERR_IO, "cannot create a temporary file next to %s", shown);
	/* a private file (no bits for group or others) is exactly its mode
	 * whatever the umask, set before it has its name */
	if (fd >= 0 && !(mode & 077) && fchmod(fd, (mode_t)mode) < 0)
		rc = err_sys(ERR_IO, "cannot set the mode of %s", shown);
	if (fd >= 0 && (write_all(fd, data, len) < 0 || fsync(fd) < 0))
		rc = err_sys(ERR_IO, "cannot write %s", shown);
	if (fd >= 0)
		close(fd);
	if (rc == 0)
		fault_point("before-rename", name);
	if (rc == 0 && renameat(dfd, tmp.buf, dfd, name) < 0)
		rc = err_sys(ERR_IO, "cannot rename %s into place as %s", tmp.buf, shown);
	if (fd >= 0 && rc < 0)
		unlinkat(dfd, tmp.buf, 0);
	if (rc == 0) {
		fsync(dfd);
		fsio_sweep_temps(dfd, NULL, name); /* what a killed writer of name left */
	}
	strbuf_free(&tmp);
	return rc;
}

int fsio_write_temp(char *tmpl, int suffixlen, const char *data, size_t len, int *made)
{
	int fd = mkstemps(tmpl, suffixlen);
	*made = fd >= 0;
	int rc = fd < 0 || write_all(fd, data, len) < 0 ? err_sys(ERR_IO, "cannot write %s", tmpl)
						       : 0;
	if (fd >= 0)
		close(fd);
	return rc;
}

int fsio_write_atomic(const char *path, const char *data, size_t len, int mode)
{
	int dfd = open_parent(path);
	if (dfd < 0)
		return dfd;
	int rc = fsio_write_at(dfd, base_of(path), path, data, len, mode);
	close(dfd);
	return rc;
}

int fsio_replace(const char *src, const char *dst)
{
	int dfd = open_parent(dst);
	if (dfd < 0)
		return dfd;
	int rc = check_target(dfd, base_of(dst), dst);
	if (rc == 0 && renameat(AT_FDCWD, src, dfd, base_of(dst)) < 0)
		rc = err_sys(ERR_IO, "cannot rename %s to %s", src, dst);
	close(dfd);
	return rc;
}

int fsio_open_dir_in(const char *dir, const char *rel, int create)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_sys(errno == ENOENT ? ERR_NOTFOUND : ERR_IO, "cannot open directory %s",
			       dir);
	char *copy = xstrdup(rel), *save = NULL;
	struct strbuf shown = STRBUF_INIT;
	strbuf_adds(&shown, dir);
	for (char *c = strtok_r(copy, "/", &save); c && fd >= 0; c = strtok_r(NULL, "/", &save)) {
		strbuf_addf(&shown, "/%s", c);
		if (!strcmp(c, ".."))
			fd = err_set(ERR_IO, "%s: '..' is not allowed here", shown.buf);
		if (fd >= 0 && create && mkdirat(fd, c, 0755) < 0 && errno != EEXIST)
			fd = err_sys(ERR_IO, "cannot create directory %s", shown.buf);
		int next = fd < 0 ? -1
				  : openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && next < 0) {
			int e = errno;
			close(fd);
			struct stat st;
			if (e == ELOOP ||
			    (e == ENOTDIR && lstat(shown.buf, &st) == 0 && S_ISLNK(st.st_mode)))
				fd = err_set(
					ERR_IO,
					"%s is a symbolic link: campaign does not write through links (remove it; was it made by the workload?)",
					shown.buf);
			else {
				errno = e;
				fd = err_sys(e == ENOENT ? ERR_NOTFOUND : ERR_IO,
					     "cannot open directory %s", shown.buf);
			}
		} else if (fd >= 0) {
			close(fd);
			fd = next;
		}
	}
	free(copy);
	strbuf_free(&shown);
	return fd;
}

int fsio_mkdir_in(const char *dir, const char *rel)
{
	int fd = fsio_open_dir_in(dir, rel, 1);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int fsio_write_in(const char *dir, const char *rel, const char *data, size_t len, int mode)
{
	struct strbuf sub = STRBUF_INIT, shown = STRBUF_INIT;
	const char *name = base_of(rel);
	strbuf_add(&sub, rel, (size_t)(name - rel));
	strbuf_addf(&shown, "%s/%s", dir, rel);
	int dfd = fsio_open_dir_in(dir, sub.buf, 1), rc = dfd;
	if (dfd >= 0) {
		rc = fsio_write_at(dfd, name, shown.buf, data ? data : "", len, mode);
		close(dfd);
	}
	strbuf_free(&sub);
	strbuf_free(&shown);
	return rc;
}

int fsio_open_input(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return err_sys(errno == ENOENT ? ERR_NOTFOUND : ERR_IO, "cannot open %s", path);
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(ERR_IO, "%s is not a regular file (%s): not read", path,
			       S_ISFIFO(st.st_mode)                                 ? "a FIFO"
				       : S_ISDIR(st.st_mode)                        ? "a directory"
				       : S_ISSOCK(st.st_mode)                       ? "a socket"
				       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
										    : "not a file");
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

FILE *fsio_fopen_input(const char *path)
{
	int fd = fsio_open_input(path);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
	if (fd >= 0 && !f)
		close(fd);
	return f;
}

FILE *fsio_fopen_or_warn(const char *path)
{
	FILE *f = fsio_fopen_input(path);
	struct stat st;
	if (!f && stat(path, &st) == 0)
		fprintf(stderr, "campaign: warning: %s\n", err_last());
	return f;
}

int fsio_read(const char *path, size_t max, char **out, size_t *len)
{
	int fd = fsio_open_input(path);
	if (fd < 0)
		return fd;
	struct strbuf sb = STRBUF_INIT;
	char chunk[65536];
	struct stat st;
	/* a file already over max is refused before a byte of it is read */
	if (fstat(fd, &st) == 0 && (unsigned long long)st.st_size > max) {
		err_set(ERR_IO, "%s: file larger than %zu bytes", path, max);
		goto fail;
	}
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err_sys(ERR_IO, "cannot read %s", path);
			goto fail;
		}
		if (n == 0)
			break;
		if (sb.len + (size_t)n > max) {
			err_set(ERR_IO, "%s: file larger than %zu bytes", path, max);
			goto fail;
		}
		strbuf_add(&sb, chunk, (size_t)n);
	}
	close(fd);
	if (len)
		*len = sb.len;
	*out = strbuf_detach(&sb);
	return 0;
fail:
	close(fd);
	strbuf_free(&sb);
	return ERR_IO;
}

int fsio_read_tail(const char *path, size_t max, char **out, size_t *len)
{
	int fd = fsio_open_input(path);
	if (fd < 0)
		return fd;
	struct stat st;
	off_t from = fstat(fd, &st) == 0 && (size_t)st.st_size > max ? st.st_size - (off_t)max : 0;
	char *buf = xmalloc(max + 1);
	size_t n = 0;
	while (n < max) {
		ssize_t r = pread(fd, buf + n, max - n, from + (off_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			close(fd);
			free(buf);
			return err_sys(ERR_IO, "cannot read %s", path);
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

int fsio_mkdir_p(const char *path, int mode)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST) {
			err_sys(ERR_IO, "cannot create directory %s", p);
			free(p);
			return ERR_IO;
		}
		*s = '/';
	}
	int rc = 0;
	if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST)
		rc = err_sys(ERR_IO, "cannot create directory %s", p);
	free(p);
	return rc;
}

int fsio_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

int fsio_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int fsio_copy(const char *src, const char *dst)
{
	return fsio_copy_mode(src, dst, -1);
}

int fsio_copy_mode(const char *src, const char *dst, int mode)
{
	char *data;
	size_t len;
	struct stat st;
	int rc = fsio_read(src, (size_t)1 << 30, &data, &len);
	if (rc < 0)
		return rc;
	if (mode < 0)
		mode = stat(src, &st) == 0 ? (int)(st.st_mode & 0777) : 0644;
	rc = fsio_write_atomic(dst, data, len, mode);
	free(data);
	return rc;
}

char *fsio_self_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n <= 0)
		return xstrdup(".");
	buf[n] = '\0';
	return xstrdup(dirname(buf));
}

char *fsio_abspath(const char *path)
{
	if (path[0] == '/')
		return xstrdup(path);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd))
		return xstrdup(path);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s/%s", cwd, path);
	return strbuf_detach(&sb);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

int fsio_remove_tree(const char *path)
{
	if (!fsio_exists(path))
		return 0;
	if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		return err_sys(ERR_IO, "cannot remove %s", path);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list(const char *dir, int dots, struct argv *out)
{
	memset(out, 0, sizeof *out);
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' ||
		    (dots && strcmp(e->d_name, ".") && strcmp(e->d_name, "..")))
			argv_push(out, e->d_name);
	closedir(d);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof *out->v, cmp_name);
	return 0;
}

int fsio_list(const char *dir, struct argv *out)
{
	return list(dir, 0, out);
}

int fsio_list_all(const char *dir, struct argv *out)
{
	return list(dir, 1, out);
}

static void remove_stale(int dfd, const char *dir, const char *entry)
{
	struct stat st;
	if (fstatat(dfd, entry, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlinkat(dfd, entry, 0);
		return;
	}
	if (!dir)
		return;
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/%s", dir, entry);
	fsio_remove_tree(p.buf);
	strbuf_free(&p);
}

void fsio_sweep_temps(int dfd, const char *dir, const char *name)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)))
		if (tempname_is_stale(e->d_name, name))
			remove_stale(dfd, dir, e->d_name);
	closedir(d);
}
