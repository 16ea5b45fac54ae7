/* libFuzzer target: Kineto Chrome-trace JSON (streamed with yajl), then the
 * HTA breakdown, idle split and launch statistics on what was read. */
#include "analyzers/hta.h"
#include "analyzers/kineto.h"
#include "analyzers/rules.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rules r;
	static int loaded;
	if (!loaded) {
		char *path = rules_default_path();
		if (rules_load(path, &r) < 0)
			abort();
		free(path);
		loaded = 1;
	}
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");
	if (!f)
		return 0;
	struct gpu_trace t;
	if (kineto_load_stream(f, "fuzz.json", 1, &t) == 0) {
		struct hta_rank h;
		hta_analyse(&t, &r, 3, &h);
		json_decref(hta_json(&h, "fuzz.json"));
		hta_rank_free(&h);
		gpu_trace_free(&t);
	}
	fclose(f);
	return 0;
}
