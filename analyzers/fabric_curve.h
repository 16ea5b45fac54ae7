/* fabric_curve: the fabric probes of a run (analysis.fabric_probe): what the
 * reference trainer's all-reduce reached per message size on each node count
 * and backend (<probe job>/metrics/fabric.json, written by
 * campaign-trainer --fabric-probe), and the bus bandwidth they give at a
 * size, for the training's collectives to be measured against.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_FABRIC_CURVE_H
#define ANALYZERS_FABRIC_CURVE_H

#include <stddef.h>

/* A collective at this share of what the fabric gives or more is limited
 * by the fabric itself. */
#define FABRIC_LIMIT_PCT 70.0

struct fabric_point {
	double bytes, busbw_gbps, latency_ms;
};

struct ana_probe {
	char *name, *backend, *state, *job_dir;
	int nodes, ranks;
	struct fabric_point *pts; /* by size */
	size_t n;
	char problem[256];        /* why there are no points ("" when there are) */
};

/* Reads p->job_dir/metrics/fabric.json into p->pts; 0, or -1 with p->problem set. */
int fabric_load(struct ana_probe *p);
/* The bus bandwidth p gives at bytes: log-linear between its sizes, its
 * smallest's below them and its largest's above; -1 when p has no points. */
double fabric_busbw_at(const struct ana_probe *p, double bytes);
/* The probe of backend on nodes among probes[0, n) that has points, or NULL. */
const struct ana_probe *fabric_for(const struct ana_probe *probes, size_t n, const char *backend,
				   int nodes);
void ana_probe_free(struct ana_probe *p);

#endif
