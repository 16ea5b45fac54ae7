/* verdict: what bounds a scenario's step, decided in one place from its
 * accounted shares: the verdict is the share whose removal would recover
 * the most step time; the seed thresholds are flags listed beside it; a
 * share that is unknown is no candidate. Sentences are the report's.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_VERDICT_H
#define ANALYZERS_VERDICT_H

#include <stddef.h>

enum verdict {
	VERDICT_UNDETERMINED, /* nothing known enough to decide */
	VERDICT_COMPUTE,      /* compute, GEMM-like work outweighing elementwise */
	VERDICT_MEMORY,       /* compute that is elementwise (bandwidth-bound), or, from the
			       * monitors alone, a memory peak */
	VERDICT_COMMUNICATION,
	VERDICT_DATA_LOADER,
	VERDICT_IO,
	VERDICT_HOST,         /* host overhead, or the GPU waiting for the host */
	VERDICT_STRAGGLER,    /* waiting for one slow rank */
	VERDICT_GPU_STARVED,  /* monitors alone: GPUs idle, cause unknown */
	VERDICT_CPU_SATURATED, /* monitors alone: CPUs busy (ANA_CPU_BUSY_PCT), cause unknown */
	VERDICT_COPY,         /* exposed host-device copies (the link, not the GPU's memory) */
	VERDICT_N
};

/* "compute-bound", "communication-bound", ... as summary.json writes them. */
const char *verdict_name(enum verdict v);

/* The shares a verdict can come from (one per removable part of a step). */
enum share_kind {
	SHARE_COMPUTE,       /* host: operators and model phases; GPU: compute kernels */
	SHARE_COMMUNICATION, /* exposed communication (+ waiting for peers without a straggler) */
	SHARE_PEER_WAIT,     /* waiting for a named straggler */
	SHARE_DATA,          /* data loading (GPU: idle while the host loaded data) */
	SHARE_IO,
	SHARE_HOST,          /* host: time under no operator; GPU: idle waiting for the host */
	SHARE_COPIES,        /* GPU: host-device copies hidden behind nothing */
	SHARE_N
};

/* "compute", "communication", ... (summary.json's flags and candidates). */
const char *share_kind_name(enum share_kind k);

/* Seed thresholds that are flags, never reasons to name a smaller share. */
enum flag_kind {
	FLAG_COMMUNICATION, /* exposed communication + peer wait > comm_pct */
	FLAG_DATA,          /* data loading > data_pct */
	FLAG_IO,            /* I/O > io_pct */
	FLAG_GPU_IDLE,      /* GPU busy < gpu_util_pct (idle over 100 - it) */
	FLAG_MEMORY,        /* memory peak > memory_pct */
	FLAG_COPIES,        /* exposed copies > gpu_copy_pct */
	FLAG_N
};

const char *flag_kind_name(enum flag_kind k);

/* Borderline: the runner-up within this share of the winner (relative), or
 * taking the larger share in at least VERDICT_FLIPS of the steps (the
 * verdict could go either way from step to step). */
#define VERDICT_NEAR 0.20
#define VERDICT_FLIPS 0.25
/* Default thresholds of the copies flag (% of the GPU region). */
#define VERDICT_COPY_PCT 20.0

struct candidate {
	enum share_kind share;
	enum verdict verdict; /* what the share names when it is the largest */
	double pct;           /* of the step (host) or of the GPU region */
};

struct flag {
	enum flag_kind kind;
	double pct, th;
};

/* Why a verdict is borderline (0: it is not). */
enum borderline { BORDERLINE_NEAR = 1, BORDERLINE_FLIPS };

struct verdict_out {
	enum verdict verdict, runner_up; /* runner_up VERDICT_UNDETERMINED: none */
	enum share_kind share, runner_share;
	double pct, runner_pct;
	/* each candidate's share by kind, as decided on; -1 for a kind no candidate had */
	double share_pct[SHARE_N];
	int borderline; /* enum borderline, 0 when sure */
	long flips, steps; /* steps in which the runner-up took the larger share, of steps */
	struct flag flags[FLAG_N];
	size_t nflags;
};

/* The largest candidate names the verdict (ties: the first in c); the
 * runner-up is the largest of another verdict, borderline when within
 * VERDICT_NEAR of it. n 0, or every share 0: undetermined. */
void verdict_decide(const struct candidate *c, size_t n, struct verdict_out *out);
/* Per step, the runner-up took the larger share in flips of steps: borderline
 * when that is VERDICT_FLIPS of them or more. */
void verdict_flips(struct verdict_out *out, long flips, long steps);
/* Adds a flag when pct exceeds th (th > 0). */
void verdict_flag(struct verdict_out *out, enum flag_kind kind, double pct, double th);

#endif
