/* gpu: GPU samples for campaign-monitor: NVML loaded at run time
 * (libnvidia-ml.so.1, which the driver brings), else a streaming
 * `nvidia-smi --query-gpu ... -lms` read without blocking, else none.
 * SPDX-License-Identifier: MIT */
#ifndef MONITOR_GPU_H
#define MONITOR_GPU_H

#include <stdio.h>
#include <sys/types.h>

struct gpu_src {
	int mode;            /* 0 none, 1 NVML, 2 nvidia-smi */
	void *lib;
	unsigned count;
	void *fn[7];         /* NVML entry points */
	int fd;              /* nvidia-smi's stdout */
	pid_t pid;
	char pending[4096];  /* a partial line from nvidia-smi */
	size_t npending;
};

/* which: "auto", "nvml", "smi" or "off". Returns the mode; why says why
 * there is no GPU source when it is 0. */
int gpu_open(struct gpu_src *g, const char *which, int interval_ms, char *why, size_t n);
void gpu_csv_header(FILE *f);
/* Writes the samples available now. */
void gpu_sample(struct gpu_src *g, FILE *f, const char *node);
void gpu_close(struct gpu_src *g);

#endif
