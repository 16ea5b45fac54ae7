/* SPDX-License-Identifier: MIT */
#include "analyzers/replay_proto.h"
#include "analyzers/gpu_breakdown.h"

#include "util/strbuf.h"

int replay_proto_add(struct builder *b, const struct proto *p)
{
	XGROW(b->p, b->np, b->pcap, 256);
	b->p[b->np] = *p;
	return (int)b->np++;
}

int replay_window_at(const double (*win)[2], int n, double x)
{
	size_t k = gpu_breakdown_window_at(win, (size_t)n, x);
	return k < (size_t)n && x < win[k][1] ? (int)k : -1;
}

void replay_proto_edge(struct builder *b, int from, int to, double delay_us)
{
	XGROW(b->e, b->ne, b->ecap, 256);
	b->e[b->ne++] = (struct pedge){ from, to, delay_us > 0 ? delay_us : 0 };
}
