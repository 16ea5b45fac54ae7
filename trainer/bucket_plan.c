/* SPDX-License-Identifier: MIT */
#include "bucket_plan.h"

#include <stdlib.h>
#include <string.h>

int bucket_plan_make(struct bucket_plan *p, int nlayers, const size_t *layer_begin,
		     const size_t *layer_end, size_t nparams, double limit_bytes)
{
	memset(p, 0, sizeof *p);
	p->begin = calloc((size_t)nlayers, sizeof *p->begin);
	p->end = calloc((size_t)nlayers, sizeof *p->end);
	p->closes = calloc((size_t)nlayers, sizeof *p->closes);
	if (!p->begin || !p->end || !p->closes) {
		bucket_plan_free(p);
		return -1;
	}
	double size = 0;
	p->end[0] = nparams + 1; /* the loss rides with the last layers */
	for (int l = nlayers - 1; l >= 0; l--) {
		size += (double)(layer_end[l] - layer_begin[l]) * sizeof(float);
		if (size >= limit_bytes || l == 0) {
			p->begin[p->nb] = layer_begin[l];
			p->closes[l] = 1;
			p->nb++;
			if (l > 0)
				p->end[p->nb] = layer_begin[l];
			size = 0;
		}
	}
	return 0;
}

void bucket_plan_free(struct bucket_plan *p)
{
	free(p->begin);
	free(p->end);
	free(p->closes);
	memset(p, 0, sizeof *p);
}
