/* libFuzzer target: RUN/analysis_input.json as campaign-analyze RUN reads it
 * (run_input_parse: the JSON, its bounds, its job folders below the run).
 * SPDX-License-Identifier: MIT */
#include "analyzers/run_input.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ana_run run;
	run_input_parse("/nonexistent-run", (const char *)data, size, &run);
	ana_run_free(&run);
	return 0;
}
