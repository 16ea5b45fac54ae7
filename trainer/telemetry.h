/* telemetry: the per-rank JSONL file metrics/rank_<r>.jsonl (docs/formats.md):
 * one meta line, then one line per step. Buffered; flushed at the end and
 * every 16 steps, so a killed rank leaves what it had measured.
 * SPDX-License-Identifier: MIT */
#ifndef TRAINER_TELEMETRY_H
#define TRAINER_TELEMETRY_H

#include <stdint.h>
#include <stdio.h>

struct step_times {
	long step;
	int active;
	double data_wait_ms, forward_ms, backward_ms, comm_ms, optimizer_ms, step_ms;
	double comm_exposed_ms, io_ms, overlap, gemm_ms, elementwise_ms;
	long samples;
	double loss;
	double bytes_allreduced;
	/* when the step's last all-reduce ended (now_ms's clock); 0: it ran none */
	double coll_end_ms;
	uint64_t checksum;
};

struct telemetry {
	FILE *f;
	long lines;
	int rank;
	long steps;
	/* Unix time less now_ms's clock (µs), taken once: a wall-clock step does not move
	 * the steps' times against one another */
	double unix_off_us;
};

int telemetry_open(struct telemetry *t, const char *dir, int rank, long steps);
void telemetry_meta(struct telemetry *t, const char *json_fields);
/* Writes the step's line; rank 0 also prints progress every 10 steps. */
void telemetry_step(struct telemetry *t, const struct step_times *s);
void telemetry_close(struct telemetry *t);

#endif
