/* replay cycle: why some nodes of a replay never became ready, for the error the replay
 * returns. Among the nodes left unfinished it follows what each waits for (a dependency not
 * done, a collective's rank not arrived, the node holding its stream) until that comes back
 * round, and names the cycle's first node. It owns nothing past the call.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_REPLAY_CYCLE_H
#define ANALYZERS_REPLAY_CYCLE_H

#include "analyzers/replay/graph.h"

/* start[v] / end[v] < 0: v never started / ended. Sets the error, returns its code. */
int replay_cycle_error(const struct rgraph *g, const double *start, const double *end);

#endif
