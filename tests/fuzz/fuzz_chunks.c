/* libFuzzer target, differential: a Chrome-trace JSON document read whole
 * and read in chunks (16 to 527 bytes, on 1 or 2 threads, from the input's
 * first byte and length) must give the same trace or the same error; any
 * difference aborts. The chunked reader's cuts are guesses the parse must
 * confirm (kineto_chunks.h); this is where a guess that parses differently
 * would show. */
#include "analyzers/kineto.h"
#include "util/err.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same(const struct gpu_trace *a, const struct gpu_trace *b)
{
	int ok = a->n == b->n && a->nrt == b->nrt && a->ncpu == b->ncpu && a->ncomm == b->ncomm &&
		a->nnames == b->nnames && a->rank == b->rank && a->legacy == b->legacy &&
		a->steps == b->steps && a->malformed == b->malformed && a->dropped == b->dropped &&
		(a->last_step_ts == b->last_step_ts ||
		 (a->last_step_ts != a->last_step_ts && b->last_step_ts != b->last_step_ts));
	for (size_t i = 0; ok && i < a->nnames; i++)
		ok = !strcmp(a->names[i], b->names[i]);
	for (size_t i = 0; ok && i < a->n; i++)
		ok = a->ev[i].name == b->ev[i].name && a->ev[i].corr == b->ev[i].corr &&
			a->ev[i].stream == b->ev[i].stream &&
			!memcmp(&a->ev[i].start, &b->ev[i].start, sizeof(double)) &&
			!memcmp(&a->ev[i].end, &b->ev[i].end, sizeof(double));
	for (size_t i = 0; ok && i < a->nrt; i++)
		ok = a->rt[i].corr == b->rt[i].corr && a->rt[i].launch == b->rt[i].launch &&
			!memcmp(&a->rt[i].start, &b->rt[i].start, sizeof(double));
	for (size_t i = 0; ok && i < a->ncpu; i++)
		ok = a->cpu[i].name == b->cpu[i].name && a->cpu[i].tid == b->cpu[i].tid &&
			!memcmp(&a->cpu[i].start, &b->cpu[i].start, sizeof(double)) &&
			!memcmp(&a->cpu[i].end, &b->cpu[i].end, sizeof(double));
	for (size_t i = 0; ok && i < a->ncomm; i++)
		ok = a->comm[i].coll == b->comm[i].coll && a->comm[i].pg == b->comm[i].pg &&
			a->comm[i].group_size == b->comm[i].group_size;
	return ok;
}

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
	    (rc == 0 && !same(&whole, &part))) {
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
