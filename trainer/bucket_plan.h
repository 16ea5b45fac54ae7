/* bucket_plan: which layers form each gradient bucket, shared by the CPU
 * (communication thread) and GPU (communication stream) trainers. Buckets
 * are built from the last layer to the first, each closed once it holds at
 * least limit_bytes; bucket 0 also carries the loss slot after the last
 * layer.
 * SPDX-License-Identifier: MIT */
#ifndef TRAINER_BUCKET_PLAN_H
#define TRAINER_BUCKET_PLAN_H

#include <stddef.h>

struct bucket_plan {
	int nb;
	size_t *begin, *end; /* flat ranges in the parameter buffer, per bucket */
	int *closes;         /* per layer: 1 when backward of it completes a bucket */
};

/* layer_begin/layer_end: each layer's [begin, end) in the flat buffer of
 * nparams (+1 loss slot). Returns 0, or -1 when out of memory. */
int bucket_plan_make(struct bucket_plan *p, int nlayers, const size_t *layer_begin,
		     const size_t *layer_end, size_t nparams, double limit_bytes);
void bucket_plan_free(struct bucket_plan *p);

#endif
