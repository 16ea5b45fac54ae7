/* SPDX-License-Identifier: MIT */
#include "fabric_probe.h"

#include "clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FABRIC_WARMUP 2 /* untimed all-reduces per size: connections and buffers warm */

size_t fabric_sizes(const struct trainer_opts *o, size_t *bytes, size_t cap, size_t *n)
{
	double max = o->probe_max_mb * 1048576.0;
	*n = 0;
	for (double b = 4096; b <= max && *n < cap; b *= 4)
		bytes[(*n)++] = (size_t)b;
	return *n ? bytes[*n - 1] / sizeof(float) : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The JSON of the probe into path, through a temporary file, fsync'd. */
static int write_result(const struct trainer_opts *o, const char *body)
{
	char path[4096], tmp[4200];
	snprintf(path, sizeof path, "%s/fabric.json", o->metrics_dir);
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "wx");
	int ok = f && fputs(body, f) >= 0 && fflush(f) == 0 && fsync(fileno(f)) == 0;
	if (f && fclose(f) != 0)
		ok = 0;
	if (ok && rename(tmp, path) == 0)
		return 0;
	fprintf(stderr, "campaign-trainer: cannot write %s: %s\n", path, strerror(errno));
	unlink(tmp);
	return -1;
}

int fabric_probe(const struct trainer_opts *o, fabric_allreduce op, void *ctx)
{
	size_t bytes[16], n;
	char err[512], row[256];
	double *t = calloc((size_t) o->probe_iters, sizeof *t),
	       factor = 2.0 * (o->world - 1) / o->world;
	size_t cap = 4096, len = 0;
	char *body = malloc(cap);
	fabric_sizes(o, bytes, 16, &n);
	if (!t || !body)
		return TRAINER_EXIT_IO;
	len = (size_t) snprintf(body, cap,
				"{\"backend\": \"%s\", \"ranks\": %d, \"iters\": %ld, \"sizes\": [",
				o->backend, o->world, o->probe_iters);
	for (size_t k = 0; k < n; k++) {
		for (long i = -FABRIC_WARMUP; i < o->probe_iters; i++) {
			double t0 = now_ms();
			if (op(ctx, bytes[k] / sizeof(float), err, sizeof err) < 0) {
				fprintf(stderr,
					"campaign-trainer: rank %d: fabric probe at %zu bytes: %s\n",
					o->rank, bytes[k], err);
				free(t);
				free(body);
				return TRAINER_EXIT_COMM;
			}
			if (i >= 0)
				t[i] = now_ms() - t0;
		}
		qsort(t, (size_t)o->probe_iters, sizeof *t, cmp_double);
		double med = t[o->probe_iters / 2],
		       alg = med > 0 ? (double) bytes[k] / (med / 1000) / 1e9 : 0;
		int w = snprintf(
			row, sizeof row,
			"%s\n  {\"bytes\": %zu, \"latency_ms\": {\"median\": %.4f, \"min\": %.4f}, \"algbw_gbps\": %.4f, \"busbw_gbps\": %.4f}",
			k ? "," : "", bytes[k], med, t[0], alg, alg * factor);
		if (o->rank == 0)
			printf("fabric probe: %zu bytes: %.4f ms, busbw %.4f GB/s\n", bytes[k], med,
			       alg * factor);
		if (len + (size_t)w + 8 < cap) {
			memcpy(body + len, row, (size_t)w + 1);
			len += (size_t)w;
		}
	}
	snprintf(body + len, cap - len, "\n]}\n");
	int rc = o->rank == 0 && write_result(o, body) < 0 ? TRAINER_EXIT_IO : TRAINER_EXIT_OK;
	free(t);
	free(body);
	return rc;
}
