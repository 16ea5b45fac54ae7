/* gemm_bare: the GEMMs of one trainer step (forward, dW, dX for every
 * layer, same shapes and layouts as trainer/model.c) with bare
 * cblas_sgemm, for `make bench`: prints GFLOP/s.
 * usage: gemm_bare ROWS INPUT HIDDEN DEPTH OUTPUT REPEATS
 * SPDX-License-Identifier: MIT */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr, "usage: gemm_bare ROWS INPUT HIDDEN DEPTH OUTPUT REPEATS\n");
		return 2;
	}
	int rows = atoi(argv[1]), in = atoi(argv[2]), hid = atoi(argv[3]), depth = atoi(argv[4]),
	    out = atoi(argv[5]);
	int reps = atoi(argv[6]);
	int widest = in > hid ? in : hid;
	float *a = calloc((size_t) rows * widest, sizeof(float)),
	      *b = calloc((size_t) widest * widest, sizeof(float));
	float *c = calloc((size_t) rows * widest, sizeof(float)),
	      *d = calloc((size_t) widest * widest, sizeof(float));
	double flops = 0, best = 1e30;
	for (int r = 0; r < reps; r++) {
		double t0 = now_ms();
		flops = 0;
		for (int l = 0; l < depth; l++) {
			int i = l == 0 ? in : hid, o = l + 1 == depth ? out : hid;
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, o, i, 1.0f, a, i,
				    b, i, 1.0f, c, o);
			cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, o, i, rows, 1.0f, c, o,
				    a, i, 0.0f, d, i);
			flops += 4.0 * rows * i * o;
			if (l > 0) {
				cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, i, o,
					    1.0f, c, o, b, i, 0.0f, a, i);
				flops += 2.0 * rows * i * o;
			}
		}
		double t = now_ms() - t0;
		if (t < best)
			best = t;
	}
	printf("%.1f\n", flops / best / 1e6);
	return 0;
}
