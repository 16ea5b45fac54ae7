/* fsio: file-system primitives every writer of state and results uses:
 * atomic whole-file writes (temp file, fsync, rename, fsync of the folder),
 * bounded whole-file reads, mkdir -p, and locating the installed tree.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_FSIO_H
#define CAMPAIGN_FSIO_H

#include <stddef.h>
#include <stdio.h>

/* Every write is atomic and follows no planted link: the data goes to a
 * fresh temporary file (O_EXCL, O_NOFOLLOW) that is fsynced and renamed over
 * the target; a target that is a symbolic link or not a regular file, and a
 * folder that is a link, are named and refused (ERR_IO). */
/* Writes data to path atomically; a reader sees the old or the new file.
 * path's folder must not itself be a symbolic link. mode is masked by the
 * umask, except a private one (no bits for group or others: 0600, 0700),
 * which the file has exactly, from its creation on. */
int fsio_write_atomic(const char *path, const char *data, size_t len, int mode);
/* Writes data to dir/rel atomically, creating rel's parent folders; dir is
 * trusted, no component of rel may be a link. */
int fsio_write_in(const char *dir, const char *rel, const char *data, size_t len, int mode);
/* Writes data atomically as name in the open folder dfd (shown in messages). */
int fsio_write_at(int dfd, const char *name, const char *shown, const char *data, size_t len,
		  int mode);
/* Writes data to a new file named from tmpl, a mkstemps(3) template whose last
 * suffixlen characters are kept (its XXXXXX become the name, in place; mode
 * 0600). 0, or ERR_IO said so; *made is 1 once the file exists (remove it). */
int fsio_write_temp(char *tmpl, int suffixlen, const char *data, size_t len, int *made);
/* Renames the file src over dst, refusing a dst that is a link or not a
 * regular file, or whose folder is a link. */
int fsio_replace(const char *src, const char *dst);
/* Opens the folder dir/rel (creating what is missing with create), never
 * following a link in rel. Returns the fd or a negative err code. */
int fsio_open_dir_in(const char *dir, const char *rel, int create);
/* Creates dir/rel and its parents, refusing links in rel. */
int fsio_mkdir_in(const char *dir, const char *rel);
/* Opens an input file for reading without blocking on a FIFO or a device:
 * anything but a regular file is refused with a message naming what it is.
 * Returns the fd (blocking again) or a negative err code. */
int fsio_open_input(const char *path);
/* The same as a stdio stream ("r"); NULL with err_last() set. */
FILE *fsio_fopen_input(const char *path);
/* The same for an input that is skipped when it cannot be read: one that
 * exists but is not a regular file is named on stderr as skipped. */
FILE *fsio_fopen_or_warn(const char *path);
/* Reads a whole regular file (at most max bytes, else an error, before a
 * byte is read when its size says so);
 * NUL-terminated. */
int fsio_read(const char *path, size_t max, char **out, size_t *len);
/* The last max bytes of a regular file (all of it when shorter), as
 * fsio_read gives them: a log's end, whatever its size. */
int fsio_read_tail(const char *path, size_t max, char **out, size_t *len);
/* Opens (creating it) dir/name and takes an exclusive flock on it: waits
 * for it, or with nowait returns -1 at once when another process holds it.
 * Returns the fd (close it to release) or a negative err code. */
int fsio_lock(const char *dir, const char *name, int nowait);
/* fsio_lock's shared flock, never waited for: the fd, or -1 while another
 * process holds dir/name exclusively (or it cannot be opened). */
int fsio_lock_shared(const char *dir, const char *name);
/* Removes the temporaries of name in the open folder dfd whose writer died
 * on this host (tempname.h): files and links, and with dir (dfd's path)
 * folders too, whole. Best effort: what cannot be removed stays. Every
 * atomic write of name does this once name is in place. */
void fsio_sweep_temps(int dfd, const char *dir, const char *name);
/* Makes the renames inside dir durable (fsync of the folder). */
int fsio_sync_dir(const char *dir);
int fsio_mkdir_p(const char *path, int mode);
int fsio_exists(const char *path);
int fsio_is_dir(const char *path);
/* Copies src to dst atomically, with src's mode. */
int fsio_copy(const char *src, const char *dst);
/* The same with the given mode (-1: src's). */
int fsio_copy_mode(const char *src, const char *dst, int mode);
/* Directory holding the running executable (from /proc/self/exe). */
char *fsio_self_dir(void);
/* Absolute form of path (need not exist); malloc'ed. */
char *fsio_abspath(const char *path);
/* Recursively removes a tree (used by tests and cleanups). */
int fsio_remove_tree(const char *path);
struct argv;
/* The names in dir that do not start with '.', sorted (strcmp): the same
 * order whatever the file system's readdir gives; 0, or -1 (errno set) when
 * dir cannot be read (out is then empty). */
int fsio_list(const char *dir, struct argv *out);
/* The same with the names that start with '.' (not "." and ".."). */
int fsio_list_all(const char *dir, struct argv *out);

#endif
