/* Unit tests of the fault points: CAMPAIGN_FAULT=POINT[:SCENARIO] ends the
 * process with SIGKILL exactly there, and nowhere else.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "util/fault.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs fault_point(point, scenario) in a child under CAMPAIGN_FAULT=want;
 * returns the signal that ended it, or 0 when it returned. */
static int outcome(const char *want, const char *point, const char *scenario)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (want)
			setenv("CAMPAIGN_FAULT", want, 1);
		else
			unsetenv("CAMPAIGN_FAULT");
		fault_point(point, scenario);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void test_points(void)
{
	CHECK(outcome(NULL, "after-plan", NULL) == 0);
	CHECK(outcome("", "after-plan", NULL) == 0);
	CHECK(outcome("after-plan", "after-plan", NULL) == SIGKILL);
	CHECK(outcome("after-plan", "after-planning", NULL) == 0);
	CHECK(outcome("after-submit", "after-submit", "s2") == SIGKILL);   /* any scenario */
	CHECK(outcome("after-submit:s2", "after-submit", "s2") == SIGKILL);
	CHECK(outcome("after-submit:s2", "after-submit", "s3") == 0);
	CHECK(outcome("after-submit:s2", "after-submit", "s20") == 0);
	CHECK(outcome("after-submit:s2", "after-submit", NULL) == 0);
	CHECK(outcome("after-submit:s2", "before-submit", "s2") == 0);
}

int main(void)
{
	RUN(test_points);
	HARNESS_END();
}
