/* SPDX-License-Identifier: MIT */
#include "analyzers/verdict.h"

#include <string.h>

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_UNDETERMINED:
		return "undetermined";
	case VERDICT_COMPUTE:
		return "compute-bound";
	case VERDICT_MEMORY:
		return "memory-bound";
	case VERDICT_COMMUNICATION:
		return "communication-bound";
	case VERDICT_DATA_LOADER:
		return "data-loader-bound";
	case VERDICT_IO:
		return "io-bound";
	case VERDICT_HOST:
		return "host-bound";
	case VERDICT_STRAGGLER:
		return "straggler-bound";
	case VERDICT_GPU_STARVED:
		return "gpu-starved";
	case VERDICT_CPU_SATURATED:
		return "cpu-saturated";
	case VERDICT_COPY:
		return "copy-bound";
	case VERDICT_N:
		break;
	}
	return "undetermined";
}

const char *share_kind_name(enum share_kind k)
{
	switch (k) {
	case SHARE_COMPUTE:
		return "compute";
	case SHARE_COMMUNICATION:
		return "communication";
	case SHARE_PEER_WAIT:
		return "peer_wait";
	case SHARE_DATA:
		return "data_loading";
	case SHARE_IO:
		return "io";
	case SHARE_HOST:
		return "host";
	case SHARE_COPIES:
		return "copies";
	case SHARE_N:
		break;
	}
	return "?";
}

const char *flag_kind_name(enum flag_kind k)
{
	switch (k) {
	case FLAG_COMMUNICATION:
		return "communication";
	case FLAG_DATA:
		return "data_loading";
	case FLAG_IO:
		return "io";
	case FLAG_GPU_IDLE:
		return "gpu_idle";
	case FLAG_MEMORY:
		return "memory";
	case FLAG_COPIES:
		return "copies";
	case FLAG_N:
		break;
	}
	return "?";
}

void verdict_decide(const struct candidate *c, size_t n, struct verdict_out *out)
{
	memset(out, 0, sizeof *out);
	out->verdict = out->runner_up = VERDICT_UNDETERMINED;
	for (int k = 0; k < SHARE_N; k++)
		out->share_pct[k] = -1;
	for (size_t i = 0; i < n; i++)
		out->share_pct[c[i].share] = c[i].pct;
	size_t best = n, second = n;
	for (size_t i = 0; i < n; i++)
		if (best == n || c[i].pct > c[best].pct)
			best = i;
	if (best == n || c[best].pct <= 0)
		return; /* nothing measured: no verdict from zeros */
	for (size_t i = 0; i < n; i++)
		if (c[i].verdict != c[best].verdict && (second == n || c[i].pct > c[second].pct))
			second = i;
	out->verdict = c[best].verdict;
	out->share = c[best].share;
	out->pct = c[best].pct;
	if (second == n || c[second].pct <= 0)
		return;
	out->runner_up = c[second].verdict;
	out->runner_share = c[second].share;
	out->runner_pct = c[second].pct;
	out->borderline = c[second].pct >= (1 - VERDICT_NEAR) * c[best].pct ? BORDERLINE_NEAR : 0;
}

void verdict_flips(struct verdict_out *out, long flips, long steps)
{
	out->flips = flips;
	out->steps = steps;
	if (out->runner_up != VERDICT_UNDETERMINED && steps > 0 && !out->borderline &&
	    (double)flips >= VERDICT_FLIPS * (double)steps)
		out->borderline = BORDERLINE_FLIPS;
}

void verdict_flag(struct verdict_out *out, enum flag_kind kind, double pct, double th)
{
	if (th <= 0 || !(pct > th) || out->nflags >= FLAG_N)
		return;
	out->flags[out->nflags++] = (struct flag){ kind, pct, th };
}
