/* gpucsv: one line of nvidia-smi --query-gpu CSV, with or without units
 * ("45 %", "1024 MiB", "75.23 W", "1410 MHz") and with "[N/A]" or
 * "[Not Supported]" for values a GPU does not report (NaN then). Used by
 * campaign-monitor's nvidia-smi fallback and by the monitor ingest.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_GPUCSV_H
#define ANALYZERS_GPUCSV_H

#define GPUCSV_FIELDS                                                                              \
	"timestamp,index,utilization.gpu,utilization.memory,memory.used,memory.total,power.draw,"  \
	"clocks.sm"

struct gpu_sample {
	char timestamp[40];
	int index;
	double util_gpu_pct, util_mem_pct, mem_used_mib, mem_total_mib, power_w, sm_clock_mhz;
};

/* Parses a line with the columns of GPUCSV_FIELDS in that order; 0, or -1
 * for a header or a malformed line. */
int gpucsv_parse(const char *line, struct gpu_sample *out);
/* A number with an optional unit, or NaN for [N/A]-like values; -1 when the
 * text is neither. */
int gpucsv_value(const char *field, double *out);

#endif
