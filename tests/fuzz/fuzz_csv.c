/* libFuzzer target: monitor CSVs. The first byte picks the reader:
 * campaign-monitor's cpu_monitor.csv (its utilisation, or with bit 2 its
 * foreign load over a window), or nvidia-smi --query-gpu CSV.
 * SPDX-License-Identifier: MIT */
#include "analyzers/read/monitor.h"

#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	FILE *f = fmemopen((void *)(data + 1), size > 1 ? size - 1 : 1, "r");
	if (!f)
		return 0;
	struct monitor_summary s = { 0 };
	struct monitor_foreign in = { 0 }, all = { 0 };
	if (data[0] & 1)
		monitor_add_gpu_csv(f, &s);
	else if (data[0] & 2)
		monitor_add_foreign_csv(f, 100, 200, &in, &all);
	else
		monitor_add_cpu_csv(f, &s);
	monitor_finish(&s);
	fclose(f);
	return 0;
}
