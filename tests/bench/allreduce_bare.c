/* allreduce_bare: a bare gloo all-reduce loop of N floats through the
 * trainer's own shim (comm.h), for `make bench`; run under campaign launch.
 * Rank 0 prints the median time (ms) and GB/s (bytes / time).
 * usage: allreduce_bare FLOATS REPEATS RENDEZVOUS_DIR
 * SPDX-License-Identifier: MIT */
#include "../../trainer/comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	size_t n = strtoul(argv[1], NULL, 10);
	int reps = atoi(argv[2]);
	int rank = atoi(getenv("RANK") ? getenv("RANK") : "0"),
	    size = atoi(getenv("WORLD_SIZE") ? getenv("WORLD_SIZE") : "1");
	char err[256], prefix[64];
	snprintf(prefix, sizeof prefix, "bare-%s",
		 getenv("CAMPAIGN_LAUNCH_ID") ? getenv("CAMPAIGN_LAUNCH_ID") : "x");
	struct cgloo *g = cgloo_connect(argv[3], prefix, rank, size, NULL, "127.0.0.1", 60000, err,
					sizeof err);
	if (!g) {
		fprintf(stderr, "allreduce_bare: %s\n", err);
		return 3;
	}
	float *buf = calloc(n, sizeof(float));
	double *t = calloc((size_t)reps, sizeof(double));
	for (int r = 0; r < reps; r++) {
		double t0 = now_ms();
		if (cgloo_allreduce(g, buf, n, COMM_RING, err, sizeof err) < 0) {
			fprintf(stderr, "allreduce_bare: %s\n", err);
			return 3;
		}
		t[r] = now_ms() - t0;
	}
	qsort(t, (size_t)reps, sizeof *t, cmp);
	if (rank == 0)
		printf("%.3f %.3f\n", t[reps / 2],
		       (double) n * sizeof(float) / (t[reps / 2] / 1000) / 1e9);
	cgloo_free(g);
	return 0;
}
