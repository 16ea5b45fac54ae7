#include "fsio.h"

#include "err.h"
#include "strbuf.h"

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

int fsio_sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* not fatal: the renames themselves are atomic */
	fsync(fd);
	close(fd);
	return 0;
}

static int fsync_parent(const char *path)
{
	char *copy = xstrdup(path);
	int rc = fsio_sync_dir(dirname(copy));
	free(copy);
	return rc;
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

int fsio_write_atomic(const char *path, const char *data, size_t len, int mode)
{
	struct strbuf tmp = STRBUF_INIT;
	strbuf_addf(&tmp, "%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0) {
		err_sys(ERR_IO, "cannot create %s", tmp.buf);
		strbuf_free(&tmp);
		return ERR_IO;
	}
	if (write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		err_sys(ERR_IO, "cannot write %s", tmp.buf);
		close(fd);
		unlink(tmp.buf);
		strbuf_free(&tmp);
		return ERR_IO;
	}
	close(fd);
	if (rename(tmp.buf, path) < 0) {
		err_sys(ERR_IO, "cannot rename %s to %s", tmp.buf, path);
		unlink(tmp.buf);
		strbuf_free(&tmp);
		return ERR_IO;
	}
	strbuf_free(&tmp);
	return fsync_parent(path);
}

int fsio_write_in(const char *dir, const char *rel, const char *data, size_t len, int mode)
{
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "%s/%s", dir, rel);
	char *slash = strrchr(path.buf, '/');
	*slash = '\0';
	int rc = fsio_mkdir_p(path.buf, 0755);
	*slash = '/';
	if (rc == 0)
		rc = fsio_write_atomic(path.buf, data ? data : "", len, mode);
	strbuf_free(&path);
	return rc;
}

int fsio_read(const char *path, size_t max, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_sys(errno == ENOENT ? ERR_NOTFOUND : ERR_IO, "cannot open %s", path);
	struct strbuf sb = STRBUF_INIT;
	char chunk[65536];
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
	char *data;
	size_t len;
	struct stat st;
	int rc = fsio_read(src, (size_t)1 << 30, &data, &len);
	if (rc < 0)
		return rc;
	int mode = stat(src, &st) == 0 ? (int)(st.st_mode & 0777) : 0644;
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
