/* clock: the monotonic clock every phase of the trainers is timed with.
 * SPDX-License-Identifier: MIT */
#ifndef TRAINER_CLOCK_H
#define TRAINER_CLOCK_H

#include <time.h>

static inline double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

#endif
