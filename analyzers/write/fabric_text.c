/* SPDX-License-Identifier: MIT */
#include "analyzers/write/prose.h"
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
				PROSE_FABRIC_MESSAGES_REACH_BUS,
				coll_op_name(c->op), label, pct, bw, s->in.nodes,
				s->in.nodes == 1 ? "" : "s");
		else
			snprintf(
				buf, n,
				PROSE_FABRIC_MESSAGES_REACH_ONLY,
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
