/* SPDX-License-Identifier: MIT */
#include "analyzers/fabric_curve.h"
#include "util/run_layout.h"

#include "util/strbuf.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fabric_load(struct ana_probe *p)
{
	struct strbuf path = STRBUF_INIT;
	json_error_t e;
	strbuf_addf(&path, "%s/" JOB_METRICS "/fabric.json", p->job_dir);
	json_t *j = json_load_file(path.buf, 0, &e), *sizes = json_object_get(j, "sizes"), *row;
	size_t i;
	p->n = 0;
	p->problem[0] = '\0';
	if (!json_is_array(sizes)) {
		snprintf(p->problem, sizeof p->problem, "%s: %s", path.buf,
			 j ? "no \"sizes\" list" : e.text);
		json_decref(j);
		strbuf_free(&path);
		return -1;
	}
	p->pts = xcalloc(json_array_size(sizes) + 1, sizeof *p->pts);
	json_array_foreach(sizes, i, row) {
		double b = json_number_value(json_object_get(row, "bytes"));
		double bw = json_number_value(json_object_get(row, "busbw_gbps"));
		double lat = json_number_value(
			json_object_get(json_object_get(row, "latency_ms"), "median"));
		if (b > 0 && bw > 0 && isfinite(b) && isfinite(bw) &&
		    (!p->n || b > p->pts[p->n - 1].bytes))
			p->pts[p->n++] = (struct fabric_point){ b, bw, lat };
	}
	if (!p->n)
		snprintf(p->problem, sizeof p->problem,
			 "%s: no usable size (bytes and busbw_gbps above 0, sizes rising)",
			 path.buf);
	json_decref(j);
	strbuf_free(&path);
	return p->n ? 0 : -1;
}

double fabric_busbw_at(const struct ana_probe *p, double bytes)
{
	if (!p->n)
		return -1;
	if (bytes <= p->pts[0].bytes)
		return p->pts[0].busbw_gbps;
	for (size_t i = 1; i < p->n; i++)
		if (bytes <= p->pts[i].bytes) {
			const struct fabric_point *a = &p->pts[i - 1], *b = &p->pts[i];
			double f = log(bytes / a->bytes) / log(b->bytes / a->bytes);
			return a->busbw_gbps + f * (b->busbw_gbps - a->busbw_gbps);
		}
	return p->pts[p->n - 1].busbw_gbps;
}

const struct ana_probe *fabric_for(const struct ana_probe *probes, size_t n, const char *backend,
				   int nodes)
{
	for (size_t i = 0; i < n; i++)
		if (probes[i].n && probes[i].nodes == nodes && !strcmp(probes[i].backend, backend))
			return &probes[i];
	return NULL;
}

void ana_probe_free(struct ana_probe *p)
{
	free(p->name);
	free(p->backend);
	free(p->state);
	free(p->job_dir);
	free(p->pts);
	memset(p, 0, sizeof *p);
}
