/* Unit tests for the phase classifier (analyzers/phases.c): nesting counted
 * once, threads overlapping, a collective nested in forward, unclassified
 * time as other.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "analyzers/phases.h"

static double total(const struct step_phases *p)
{
	double t = 0;
	for (int i = 0; i < PH_N; i++)
		t += p->ms[i];
	return t;
}

static void innermost_range_wins_and_counts_once(void)
{
	/* backward 0-10 ms holding an allreduce 4-5 ms and an optimizer step
	 * 8-12 ms that reaches past it (cut at 10 ms); forward 12-15 ms. */
	struct phase_range r[] = {
		{ 12000, 15000, 1, PH_FORWARD },
		{ 4000, 5000, 1, PH_COMM },
		{ 0, 10000, 1, PH_BACKWARD },
		{ 8000, 12000, 1, PH_OPTIMIZER },
	};
	struct step_phases p;
	phases_of_step(r, 4, 0, 20000, &p);
	CHECK_NEAR(p.ms[PH_BACKWARD], 7, 1e-9);
	CHECK_NEAR(p.ms[PH_COMM], 1, 1e-9);
	CHECK_NEAR(p.ms[PH_OPTIMIZER], 2, 1e-9);
	CHECK_NEAR(p.ms[PH_FORWARD], 3, 1e-9);
	/* 10-12 (the optimizer range was cut at 10) and 15-20 */
	CHECK_NEAR(p.ms[PH_OTHER], 7, 1e-9);
	CHECK_NEAR(p.comm_total_ms, 1, 1e-9);
	CHECK_NEAR(total(&p), 20, 1e-9);
}

static void threads_overlap_compute_first(void)
{
	/* main thread: backward 0-8 ms then waits 8-10 in communication; the
	 * comm thread runs an allreduce 3-10 ms; a data range 10-12 ms. No
	 * operator is recorded (NVTX annotations alone): a range is its work. */
	struct phase_range r[] = {
		{ 0, 8000, 1, PH_BACKWARD },
		{ 8000, 10000, 1, PH_COMM },
		{ 3000, 10000, 7, PH_COMM },
		{ 10000, 12000, 1, PH_DATA },
	};
	struct step_phases p;
	phases_of_step(r, 4, 0, 12000, &p);
	CHECK_NEAR(p.ms[PH_BACKWARD], 8, 1e-9);
	CHECK_NEAR(p.ms[PH_COMM], 2, 1e-9);  /* exposed: only where nothing computes */
	CHECK_NEAR(p.comm_total_ms, 7, 1e-9);
	CHECK_NEAR(p.ms[PH_DATA], 2, 1e-9);
	CHECK_NEAR(p.ms[PH_OTHER], 0, 1e-9);
	CHECK_NEAR(total(&p), 12, 1e-9);
}

static void collective_in_forward_is_communication(void)
{
	/* DDP's buffer broadcast (issue 45): on the main thread a forward range
	 * 0-10 ms with an operator 0.5-2, the broadcast's c10d::broadcast_
	 * 2-2.1 and, once it has returned, the wait() (no range) until gloo's
	 * worker (thread 7) has run gloo:broadcast 2.2-6; an operator 6-9. */
	struct phase_range r[] = {
		{ 0, 10000, 1, PH_FORWARD }, { 500, 2000, 1, PH_OPS },
		{ 2000, 2100, 1, PH_COMM },  { 2200, 6000, 7, PH_COMM },
		{ 6000, 9000, 1, PH_OPS },
	};
	struct step_phases p;
	phases_of_step(r, 5, 0, 10000, &p);
	/* the collective and its wait: 2-2.1 and 2.2-6 */
	CHECK_NEAR(p.ms[PH_COMM], 3.9, 1e-9);
	CHECK_NEAR(p.comm_total_ms, 3.9, 1e-9);
	/* the operators, and the forward's own time with no collective in flight */
	CHECK_NEAR(p.ms[PH_FORWARD], 6.1, 1e-9);
	CHECK_NEAR(p.ms[PH_OPS], 0, 1e-9);
	CHECK_NEAR(total(&p), 10, 1e-9);
}

static void operators_hide_a_collective(void)
{
	/* backward 0-10 ms running operators 0-4 and 4-8 while gloo's worker
	 * all-reduces 2-10: hidden under the operators, exposed 8-10 where the
	 * backward range runs none; an optimizer step's operator 10-12. */
	struct phase_range r[] = {
		{ 0, 10000, 1, PH_BACKWARD },	{ 0, 4000, 1, PH_OPS },
		{ 4000, 8000, 1, PH_OPS },	{ 2000, 10000, 7, PH_COMM },
		{ 10000, 12000, 1, PH_OPTIMIZER }, { 10000, 12000, 1, PH_OPS },
	};
	struct step_phases p;
	phases_of_step(r, 6, 0, 12000, &p);
	CHECK_NEAR(p.ms[PH_BACKWARD], 8, 1e-9);
	CHECK_NEAR(p.ms[PH_COMM], 2, 1e-9);
	CHECK_NEAR(p.comm_total_ms, 8, 1e-9);
	CHECK_NEAR(p.ms[PH_OPTIMIZER], 2, 1e-9);
	CHECK_NEAR(total(&p), 12, 1e-9);
}

static void ranges_outside_the_step_are_cut(void)
{
	struct phase_range r[] = {
		{ -5000, 2000, 1, PH_DATA },
		{ 9000, 30000, 1, PH_FORWARD },
	};
	struct step_phases p;
	phases_of_step(r, 2, 0, 10000, &p);
	CHECK_NEAR(p.ms[PH_DATA], 2, 1e-9);
	CHECK_NEAR(p.ms[PH_FORWARD], 1, 1e-9);
	CHECK_NEAR(p.ms[PH_OTHER], 7, 1e-9);
	phases_of_step(r, 0, 0, 10000, &p); /* nothing classified: all other */
	CHECK_NEAR(p.ms[PH_OTHER], 10, 1e-9);
}

static void categories_name_phases(void)
{
	CHECK(phase_of_category("data_loading") == PH_DATA);
	CHECK(phase_of_category("communication") == PH_COMM);
	CHECK(phase_of_category("other") == PH_OTHER);
	CHECK(phase_of_category("COMPUTATION") == -1); /* unknown: transparent */
	CHECK_STR(phase_name(PH_OPTIMIZER), "optimizer");
}

int main(void)
{
	RUN(innermost_range_wins_and_counts_once);
	RUN(threads_overlap_compute_first);
	RUN(collective_in_forward_is_communication);
	RUN(operators_hide_a_collective);
	RUN(ranges_outside_the_step_are_cut);
	RUN(categories_name_phases);
	HARNESS_END();
}
