/* phases: where one training step's time goes, from host ranges of a trace
 * already classified into phases. On each thread the innermost classified
 * range wins (a c10d::allreduce_ inside a backward range is communication,
 * counted once), but an operator (PH_OPS: aten::*) takes the phase of the
 * classified range around it and is compute only under none; across
 * threads, at each instant, what the rank is doing beats what it waits for:
 * compute > data loading > communication > I/O, except that a forward,
 * backward or optimizer range with no operator running under it, on a thread
 * whose operators are recorded, yields to communication on another thread
 * (the thread waits for a collective that gloo runs on its worker: DDP's
 * buffer broadcast in forward); time no thread spends in a classified range
 * or an operator is other (host overhead). Pure: no I/O.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_PHASES_H
#define ANALYZERS_PHASES_H

#include <stddef.h>

enum phase {
	PH_FORWARD,
	PH_BACKWARD,
	PH_OPTIMIZER,
	PH_DATA,
	PH_COMM,
	PH_IO,
	PH_OPS, /* "compute": an operator under no phase range */
	PH_OTHER,
	PH_N
};

struct phase_range {
	double start, end; /* µs */
	int tid;           /* any id: ranges of one thread share it */
	int phase;         /* enum phase */
};

struct step_phases {
	double ms[PH_N];      /* adds up to the step's length; PH_COMM is the exposed part */
	double comm_total_ms; /* all communication, overlapped or not */
};

/* The phase a rules category names ("forward", "backward", "optimizer",
 * "data_loading", "communication", "io", "compute", "other"), or -1 for any other
 * category (transparent: the enclosing range decides). */
int phase_of_category(const char *category);
const char *phase_name(int phase);
/* Breaks [start, end) down; r (in any order) is reordered. */
void phases_of_step(struct phase_range *r, size_t n, double start, double end,
		    struct step_phases *out);

#endif
