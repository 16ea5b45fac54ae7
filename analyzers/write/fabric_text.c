/* SPDX-License-Identifier: MIT */
#include "analyzers/write/report_parts.h"

#include "analyzers/collective.h"
#include "analyzers/write/share_text.h"

#include <stdio.h>
#include <string.h>

/* How the costliest collective of known size compares with what the fabric
 * probe gave at its size, as a sentence into buf ("" without a probe). */
void fabric_clause(const struct ana_scenario *s, char *buf, size_t n)
{
	buf[0] = '\0';
	for (size_t k = 0; k < s->comm.ncolls; k++) {
		const struct collective *c = &s->comm.colls[k];
		char label[48], bw[24];
		if (c->size_class < 0 || c->fabric_busbw_gbps <= 0)
			continue;
		share_text_rate(bw, sizeof bw, c->fabric_busbw_gbps, 3);
		double pct = 100 * c->busbw_gbps / c->fabric_busbw_gbps;
		coll_size_label(c->size_class, label, sizeof label);
		if (pct >= FABRIC_LIMIT_PCT)
			snprintf(
				buf, n,
				"Its %s messages of %s reach %.0f %% of the %s GB/s bus bandwidth the fabric gives at that size (fabric probe on %d node%s): the fabric itself is the limit; send fewer bytes (bf16 gradients, compression) or use a faster interconnect.",
				coll_op_name(c->op), label, pct, bw, s->in.nodes,
				s->in.nodes == 1 ? "" : "s");
		else
			snprintf(
				buf, n,
				"Its %s messages of %s reach only %.0f %% of the %s GB/s bus bandwidth the fabric gives at that size (fabric probe on %d node%s): not the fabric; look at message sizes (larger buckets), overlap with compute and waiting for peers.",
				coll_op_name(c->op), label, pct, bw, s->in.nodes,
				s->in.nodes == 1 ? "" : "s");
		return;
	}
}

void fabric_probe_problem(struct strbuf *sb, const struct ana_probe *p)
{
	if (strcmp(p->state, "COMPLETED"))
		strbuf_addf(sb, "the probe job ended %s", p->state);
	else
		strbuf_adds(sb, p->problem);
}
