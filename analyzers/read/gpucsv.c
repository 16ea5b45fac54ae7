/* SPDX-License-Identifier: MIT */
#include "analyzers/read/gpucsv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gpucsv_value(const char *f, double *out)
{
	while (*f == ' ')
		f++;
	if (*f == '[' || !strncmp(f, "N/A", 3)) { /* [N/A], [Not Supported], [Unknown Error] */
		*out = NAN;
		return 0;
	}
	char *end;
	double v = strtod(f, &end);
	if (end == f)
		return -1;
	while (*end == ' ')
		end++;
	static const char *const units[] = { "", "%", "MiB", "W", "MHz", "GiB", NULL };
	for (int i = 0; units[i]; i++) {
		size_t n = strlen(units[i]);
		if (!strncmp(end, units[i], n) &&
		    (end[n] == '\0' || end[n] == ' ' || end[n] == '\n' || end[n] == '\r')) {
			*out = !strcmp(units[i], "GiB") ? v * 1024 : v;
			return 0;
		}
	}
	return -1;
}

int gpucsv_parse(const char *line, struct gpu_sample *out)
{
	char buf[512], *fields[8];
	int n = 0;
	snprintf(buf, sizeof buf, "%s", line);
	buf[strcspn(buf, "\r\n")] = '\0';
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && n < 8;
	     t = strtok_r(NULL, ",", &save))
		fields[n++] = t;
	if (n != 8)
		return -1;
	memset(out, 0, sizeof *out);
	while (*fields[0] == ' ')
		fields[0]++;
	snprintf(out->timestamp, sizeof out->timestamp, "%s", fields[0]);
	char *end;
	long idx = strtol(fields[1], &end, 10);
	if (end == fields[1])
		return -1; /* the header line */
	out->index = (int)idx;
	double *dst[] = { &out->util_gpu_pct,  &out->util_mem_pct, &out->mem_used_mib,
			  &out->mem_total_mib, &out->power_w,      &out->sm_clock_mhz };
	for (int i = 0; i < 6; i++)
		if (gpucsv_value(fields[2 + i], dst[i]) < 0)
			return -1;
	return 0;
}
