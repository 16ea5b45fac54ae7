/* libFuzzer target, differential: a Chrome-trace JSON document read whole
 * and read in chunks (16 to 527 bytes, on 1 or 2 threads, from the input's
 * first byte and length) must give the same trace or the same error; any
 * difference aborts. The chunked reader's cuts are guesses the parse must
 * confirm (kineto_chunks.h); this is where a guess that parses differently
 * would show.
 * SPDX-License-Identifier: MIT */
#include "analyzers/read/kineto.h"
#include "tests/unit/trace_same.h"
#include "util/err.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	FILE *f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	struct gpu_trace whole, part;
	int rc = kineto_load_stream(f, "fuzz.json", 1, &whole);
	char msg[512];
	snprintf(msg, sizeof msg, "%s", rc < 0 ? err_last() : "");
	rewind(f);
	struct kineto_how how = { 1, 1 + (int)(size & 1), 16 + data[0] % 512 };
	int rc2 = kineto_load_stream_with(f, "fuzz.json", &how, &part);
	fclose(f);
	if ((rc < 0) != (rc2 < 0) || (rc < 0 && strcmp(msg, err_last())) ||
	    (rc == 0 && !trace_same(&whole, &part))) {
		fprintf(stderr, "fuzz_chunks: whole %d (%s), chunks of %zu on %d threads %d (%s)\n",
			rc, msg, how.chunk_bytes, how.threads, rc2, rc2 < 0 ? err_last() : "");
		abort();
	}
	if (rc == 0)
		gpu_trace_free(&whole);
	if (rc2 == 0)
		gpu_trace_free(&part);
	return 0;
}
