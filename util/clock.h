/* clock: the two times the tool reads: a monotonic clock for durations and
 * the wall clock as a progress line's [HH:MM:SS] stamp.
 * SPDX-License-Identifier: MIT */
#ifndef UTIL_CLOCK_H
#define UTIL_CLOCK_H

#include <stddef.h>

/* Seconds on the monotonic clock (for differences only). */
double clock_mono_s(void);
/* The local time as "HH:MM:SS" in buf (at least 9 bytes). */
void clock_hms(char *buf, size_t n);
/* The local time of t (Unix seconds) as "HH:MM:SS". */
void clock_hms_at(double t, char *buf, size_t n);

#endif
