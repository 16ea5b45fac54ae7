/* libFuzzer target: per-rank telemetry JSONL (the trainer's format and the
 * AORTA-style one), read as a stream like a rank file.
 * SPDX-License-Identifier: MIT */
#include "analyzers/read/metrics.h"

#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");
	if (!f)
		return 0;
	struct rank_metrics r;
	metrics_load_stream(f, &r, 0);
	rank_metrics_free(&r);
	fclose(f);
	return 0;
}
