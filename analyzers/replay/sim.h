/* replay sim: the discrete-event simulation of a replay graph (graph.h; the model is
 * docs/analysis.md's "Replay model"). It owns a replay's results: each node's simulated start
 * and end, the makespan, the span of each rank's steps, and each host's use of its cores.
 * Hosts share their cores among their runnable CPU operations (processor sharing), a stream
 * runs its kernels one at a time, a collective instance starts at its last arrival. Times are
 * in ms from the replay's start, 0. It never changes the graph.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_REPLAY_SIM_H
#define ANALYZERS_REPLAY_SIM_H

#include "analyzers/replay/graph.h"

struct replay_sim;

/* Replays g into *out (replay_sim_free). A node that never becomes ready (a cycle of edges,
 * or of a collective's ranks waiting on each other) is an error naming it; so is a CPU
 * operation whose rank has no host. */
int replay_sim_run(struct replay_sim **out, const struct rgraph *g);
void replay_sim_free(struct replay_sim *s);
/* The graph s replayed (the caller keeps it alive as long as s). */
const struct rgraph *replay_sim_graph(const struct replay_sim *s);

double replay_sim_start(const struct replay_sim *s, int node);
double replay_sim_end(const struct replay_sim *s, int node);
/* The end of the last node: the replay's length. */
double replay_sim_makespan(const struct replay_sim *s);
/* The first start and last end of the nodes tagged (rank, step); rank -1: of every rank.
 * -1 when no node has that tag. */
double replay_sim_step_start(const struct replay_sim *s, int rank, int step);
double replay_sim_step_end(const struct replay_sim *s, int rank, int step);
/* Host h's cores in use over the replay (core-ms), and how long all of them were busy. */
double replay_sim_host_core_ms(const struct replay_sim *s, int host);
double replay_sim_host_saturated_ms(const struct replay_sim *s, int host);
/* The busiest host's cores in use over the replay, % of its cores over the replay's length
 * (one host saturated beside idle ones is saturated: an average would hide it); g: the
 * graph replayed. */
double replay_sim_busiest_pct(const struct replay_sim *s, const struct rgraph *g);

#endif
