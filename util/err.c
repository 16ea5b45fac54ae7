/* SPDX-License-Identifier: MIT */
#include "err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_msg[2048];

static int err_vset(int code, int with_errno, const char *fmt, va_list ap)
{
	int saved = errno;
	int n = vsnprintf(last_msg, sizeof last_msg, fmt, ap);
	if (with_errno && n >= 0 && (size_t)n < sizeof last_msg)
		snprintf(last_msg + n, sizeof last_msg - (size_t)n, ": %s", strerror(saved));
	return code;
}

int err_set(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(code, 0, fmt, ap);
	va_end(ap);
	return code;
}

int err_sys(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(code, 1, fmt, ap);
	va_end(ap);
	return code;
}

const char *err_last(void)
{
	return last_msg[0] ? last_msg : "unknown error";
}

void err_clear(void)
{
	last_msg[0] = '\0';
}
