/* nolocks: LD_PRELOAD fault injection for tests/e2e/store_shared.sh: every
 * POSIX record lock fails with ENOLCK, as on an NFS mount without lockd.
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

int fcntl(int fd, int cmd, ...)
{
	static int (*real)(int, int, ...);
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (cmd == F_SETLK || cmd == F_SETLKW || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW) {
		errno = ENOLCK;
		return -1;
	}
	if (!real)
		real = (int (*)(int, int, ...))dlsym(RTLD_NEXT, "fcntl");
	return real(fd, cmd, arg);
}
