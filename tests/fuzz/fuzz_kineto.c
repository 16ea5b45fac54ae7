/* libFuzzer target: Chrome-trace JSON (Kineto objects or the legacy array,
 * streamed with yajl), then the HTA breakdown, idle split and launch
 * statistics, and the steps with their phases and operators' self times.
 * SPDX-License-Identifier: MIT */
#include "analyzers/gpu_breakdown.h"
#include "analyzers/read/kineto.h"
#include "analyzers/read/rules.h"
#include "analyzers/torchtrace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rules r, phases;
	static int loaded;
	if (!loaded) {
		char *path = rules_default_path(), *ppath = rules_phase_path();
		if (rules_load(path, &r) < 0 || rules_load(ppath, &phases) < 0)
			abort();
		free(path);
		free(ppath);
		loaded = 1;
	}
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");
	if (!f)
		return 0;
	struct gpu_trace t;
	if (kineto_load_stream(f, "fuzz.json", 1, &t) == 0) {
		struct gpu_breakdown_rank h;
		gpu_breakdown_analyse(&t, &r, 3, &h);
		json_decref(gpu_breakdown_json(&h));
		gpu_breakdown_rank_free(&h);
		struct rank_metrics m = { 0 };
		struct op_table ops = { 0 };
		trace_reduce_rank(&t, &phases, (int)(size & 1), &m, &ops);
		op_table_sort(&ops);
		for (size_t i = 0; i < ops.n; i++)
			free(ops.v[i].name);
		free(ops.v);
		rank_metrics_free(&m);
		gpu_trace_free(&t);
	}
	fclose(f);
	return 0;
}
