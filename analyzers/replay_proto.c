/* SPDX-License-Identifier: MIT */
#include "analyzers/replay_proto.h"

#include "util/strbuf.h"

int replay_proto_add(struct builder *b, const struct proto *p)
{
	XGROW(b->p, b->np, b->pcap, 256);
	b->p[b->np] = *p;
	return (int)b->np++;
}

int replay_window_at(const double (*win)[2], int n, double x)
{
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (win[mid][0] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && x < win[lo - 1][1] ? lo - 1 : -1;
}

void replay_proto_edge(struct builder *b, int from, int to, double delay_us)
{
	XGROW(b->e, b->ne, b->ecap, 256);
	b->e[b->ne++] = (struct pedge){ from, to, delay_us > 0 ? delay_us : 0 };
}
