/* SPDX-License-Identifier: MIT */
#include "clock.h"

#include <time.h>

double clock_mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void clock_hms(char *buf, size_t n)
{
	clock_hms_at((double)time(NULL), buf, n);
}

void clock_hms_at(double at, char *buf, size_t n)
{
	time_t t = (time_t)at;
	struct tm tm;
	if (!localtime_r(&t, &tm) || !strftime(buf, n, "%H:%M:%S", &tm))
		buf[0] = '\0';
}
