/* harness: a minimal unit-test harness. Each TEST prints "PASS name" or
 * "FAIL name: file:line: what"; tests/run.sh counts those lines.
 * SPDX-License-Identifier: MIT */
#ifndef TESTS_HARNESS_H
#define TESTS_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int harness_failed_now;
static int harness_failures;

#define CHECK(cond)                                                                   \
	do {                                                                              \
		if (!(cond)) {                                                                \
			printf("    %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);        \
			harness_failed_now = 1;                                                   \
		}                                                                             \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *x_ = (a), *y_ = (b);                                                   \
		if (!x_ || !y_ || strcmp(x_, y_)) {                                                \
			printf("    %s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__,                \
			       x_ ? x_ : "(null)", y_ ? y_ : "(null)");                            \
			harness_failed_now = 1;                                                    \
		}                                                                                  \
	} while (0)

#define CHECK_NEAR(a, b, eps)                                                                      \
	do {                                                                                       \
		double x_ = (a), y_ = (b);                                                         \
		if (!(x_ - y_ <= (eps) && y_ - x_ <= (eps))) {                                     \
			printf("    %s:%d: %.9g != %.9g (eps %g)\n", __FILE__, __LINE__, x_, y_,   \
			       (double) (eps));                                                    \
			harness_failed_now = 1;                                                    \
		}                                                                                  \
	} while (0)

#define RUN(fn)                                                                       \
	do {                                                                              \
		harness_failed_now = 0;                                                       \
		fn();                                                                         \
		printf("%s %s\n", harness_failed_now ? "FAIL" : "PASS", #fn);                 \
		harness_failures += harness_failed_now;                                       \
	} while (0)

#define HARNESS_END() return harness_failures ? 1 : 0

#endif
