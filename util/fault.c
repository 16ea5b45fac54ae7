/* SPDX-License-Identifier: MIT */
#include "fault.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int matches(const char *want, const char *point, const char *scenario)
{
	size_t n = strlen(point);
	if (strncmp(want, point, n))
		return 0;
	if (want[n] == '\0')
		return 1;
	return want[n] == ':' && scenario && !strcmp(want + n + 1, scenario);
}

void fault_point(const char *point, const char *scenario)
{
	const char *want = getenv("CAMPAIGN_FAULT");
	if (!want || !*want || !matches(want, point, scenario))
		return;
	fprintf(stderr, "campaign: CAMPAIGN_FAULT=%s: killed at %s%s%s\n", want, point,
		scenario ? " of " : "", scenario ? scenario : "");
	fflush(NULL);
	raise(SIGKILL);
}
