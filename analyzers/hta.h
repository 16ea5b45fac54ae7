/* hta: per-rank GPU time breakdown with Holistic Trace Analysis's exact
 * definitions (see ../shared/traces/README.md): kernel time, idle,
 * compute, non-compute, communication/computation overlap, and the top
 * kernels per category. */
#ifndef ANALYZERS_HTA_H
#define ANALYZERS_HTA_H

#include "kineto.h"
#include "rules.h"

#include <jansson.h>

struct hta_rank {
	int rank;
	size_t events;
	double kernel_time, idle, compute, non_compute;
	double comm_union, overlap; /* overlap: |U(COMP) n U(COMM)| */
	int has_comm;
	json_t *top; /* per category: the top kernels */
};

/* Classifies t's events with r and computes the breakdown. */
void hta_analyse(struct gpu_trace *t, const struct rules *r, int top_n, struct hta_rank *out);
json_t *hta_json(const struct hta_rank *h, const char *file);

#endif
