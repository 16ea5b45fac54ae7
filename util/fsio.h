/* fsio: file-system primitives every writer of state and results uses:
 * atomic whole-file writes (temp file, fsync, rename, fsync of the folder),
 * bounded whole-file reads, mkdir -p, and locating the installed tree. */
#ifndef CAMPAIGN_FSIO_H
#define CAMPAIGN_FSIO_H

#include <stddef.h>

/* Writes data to path atomically; a reader sees the old or the new file. */
int fsio_write_atomic(const char *path, const char *data, size_t len, int mode);
/* Writes data to dir/rel atomically, creating rel's parent folders. */
int fsio_write_in(const char *dir, const char *rel, const char *data, size_t len, int mode);
/* Reads a whole file (at most max bytes, else an error); NUL-terminated. */
int fsio_read(const char *path, size_t max, char **out, size_t *len);
/* Opens (creating it) dir/name and takes an exclusive flock on it: waits
 * for it, or with nowait returns -1 at once when another process holds it.
 * Returns the fd (close it to release) or a negative err code. */
int fsio_lock(const char *dir, const char *name, int nowait);
/* Makes the renames inside dir durable (fsync of the folder). */
int fsio_sync_dir(const char *dir);
int fsio_mkdir_p(const char *path, int mode);
int fsio_exists(const char *path);
int fsio_is_dir(const char *path);
/* Copies src to dst atomically. */
int fsio_copy(const char *src, const char *dst);
/* Directory holding the running executable (from /proc/self/exe). */
char *fsio_self_dir(void);
/* Absolute form of path (need not exist); malloc'ed. */
char *fsio_abspath(const char *path);
/* Recursively removes a tree (used by tests and cleanups). */
int fsio_remove_tree(const char *path);

#endif
