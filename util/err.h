/* err: the one error-reporting path of campaign (libgit2 style).
 * A failing function calls err_set() once and returns a negative code;
 * callers propagate the code and the top level prints err_last().
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_ERR_H
#define CAMPAIGN_ERR_H

enum {
	ERR_OK = 0,
	ERR_GENERIC = -1,   /* anything else */
	ERR_USAGE = -2,     /* bad command line or campaign file: exit 2 */
	ERR_NOTFOUND = -3,  /* run, scenario or file does not exist */
	ERR_IO = -4,        /* file system or store failure */
	ERR_BACKEND = -5,   /* scheduler or executor failure */
};

/* Sets the message of the last error (thread-local) and returns code. */
int err_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Like err_set, appending ": strerror(errno)". */
int err_sys(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *err_last(void);
void err_clear(void);

#endif
