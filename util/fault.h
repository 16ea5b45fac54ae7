/* fault: named points where a test may kill the orchestrator. With
 * CAMPAIGN_FAULT=POINT or CAMPAIGN_FAULT=POINT:SCENARIO in the environment,
 * reaching that point ends the process with SIGKILL, as a crash would; the
 * crash-safety tests of submit, resume, resubmit and the atomic writes use it.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_FAULT_H
#define CAMPAIGN_FAULT_H

/* The points, in the order submission passes them. */
#define FAULT_POINTS "after-create after-plan before-submit after-submit after-record " \
	"before-aggregate-submit after-aggregate-submit after-archive " \
	"analyze-shard analyze-shard-first" /* :I, the shard index (every attempt / the first) */ \
	" before-rename" /* :NAME, an atomic write of the file NAME (fsio.h) before its rename */

/* Ends the process with SIGKILL when CAMPAIGN_FAULT names this point (and
 * scenario, when given with ':'); returns otherwise. scenario may be NULL. */
void fault_point(const char *point, const char *scenario);

#endif
