/* SPDX-License-Identifier: MIT */
#include "analyzers/replay_proto.h"

#include "util/strbuf.h"

int replay_proto_add(struct builder *b, const struct proto *p)
{
	XGROW(b->p, b->np, b->pcap, 256);
	b->p[b->np] = *p;
	return (int)b->np++;
}

void replay_proto_edge(struct builder *b, int from, int to, double delay_us)
{
	XGROW(b->e, b->ne, b->ecap, 256);
	b->e[b->ne++] = (struct pedge){ from, to, delay_us > 0 ? delay_us : 0 };
}
