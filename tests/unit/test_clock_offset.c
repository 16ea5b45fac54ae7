/* Unit tests for analyzers/clock_offset.c: a node's clock offset recovered
 * from the ends of matched collectives within the jitter put on them, its
 * uncertainty, a rank that disagrees with its node named, a node whose ranks
 * keep clocks of their own corrected rank by rank, too few instances or no
 * reference leaving ranks uncorrected.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "analyzers/clock_offset.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdlib.h>

/* A fixed sequence in [-1, 1): the same jitter on every run. */
static double jitter(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return ((*state >> 8) & 0xffff) / 32768.0 - 1.0;
}

/* ranks 0 .. nranks-1, ranks 0 and 1 on node 0 and the rest on node 1;
 * instances ending 10 ms apart; rank r's clock ahead by off_ms[r]; every end
 * jittered by up to jit_ms. */
static struct clock_end *ends_of(size_t instances, int nranks, const double *off_ms,
				 double jit_ms, size_t *n)
{
	struct clock_end *e = xcalloc(instances * (size_t)nranks, sizeof *e);
	unsigned st = 7;
	*n = 0;
	for (size_t i = 0; i < instances; i++)
		for (int r = 0; r < nranks; r++) {
			double at = 1e6 + (double)i * 10000.0 + jitter(&st) * jit_ms * 1000.0;
			e[(*n)++] = (struct clock_end){ 1000 + i, r, r < 2 ? 0 : 1,
							at + off_ms[r] * 1000.0 };
		}
	return e;
}

static void offset_recovered_within_jitter(void)
{
	size_t n;
	const double off[] = { 0, 0, 7.3, 7.3 };
	struct clock_end *e = ends_of(120, 4, off, 0.02, &n);
	struct clock_offsets c;
	clock_offsets_estimate(e, n, 2, CLOCK_COLLECTIVES, &c);
	CHECK(c.basis == CLOCK_COLLECTIVES && c.nnodes == 2 && c.nranks == 4 && c.ref_node == 0);
	CHECK(c.nodes[0].shared && c.nodes[1].shared && c.nodes[1].est.instances == 120);
	CHECK_NEAR(c.nodes[1].est.offset_ms, 7.3, 0.02);
	CHECK(c.nodes[1].est.uncertainty_ms > 0 && c.nodes[1].est.uncertainty_ms < 0.02);
	CHECK(clock_shift_ms(&c, 0) == 0 && clock_shift_ms(&c, 1) == 0);
	CHECK(clock_shift_ms(&c, 2) == c.nodes[1].est.offset_ms);
	CHECK(clock_shift_ms(&c, 3) == c.nodes[1].est.offset_ms);
	CHECK(!c.ranks[0].odd && !c.ranks[1].odd && !c.ranks[2].odd && !c.ranks[3].odd);
	clock_offsets_free(&c);
	free(e);
}

static void exact_ends_give_exact_offset(void)
{
	size_t n;
	const double off[] = { 0, 0, -2.5, -2.5 };
	struct clock_end *e = ends_of(6, 4, off, 0, &n);
	struct clock_offsets c;
	clock_offsets_estimate(e, n, 2, CLOCK_INSPECTOR, &c);
	CHECK(c.basis == CLOCK_INSPECTOR);
	CHECK(c.nodes[1].est.offset_ms == -2.5 && c.nodes[1].est.uncertainty_ms == 0);
	CHECK(clock_shift_ms(&c, 3) == -2.5 && clock_shift_ms(&c, 7) == 0);
	clock_offsets_free(&c);
	free(e);
}

static void disagreeing_rank_named(void)
{
	size_t n;
	const double off[] = { 0, 0, 7.3, 7.3, 7.8 }; /* rank 4 leaves 0.5 ms late */
	struct clock_end *e = ends_of(40, 5, off, 0.01, &n);
	struct clock_offsets c;
	clock_offsets_estimate(e, n, 2, CLOCK_COLLECTIVES, &c);
	/* node 1's end is the median of ranks 2, 3 and 4: 7.3 */
	CHECK(c.nodes[1].shared);
	CHECK_NEAR(c.nodes[1].est.offset_ms, 7.3, 0.01);
	CHECK(!c.ranks[2].odd && !c.ranks[3].odd && c.ranks[4].odd);
	CHECK_NEAR(c.ranks[4].est.offset_ms, 7.8, 0.01);
	/* its clock is its node's: the node's offset puts it right */
	CHECK(clock_shift_ms(&c, 4) == c.nodes[1].est.offset_ms);
	clock_offsets_free(&c);
	free(e);
}

static void own_clocks_corrected_rank_by_rank(void)
{
	size_t n;
	const double off[] = { 0, 44.1, -51.0, 12.5 }; /* each from its own start */
	struct clock_end *e = ends_of(12, 4, off, 0.05, &n);
	struct clock_offsets c;
	clock_offsets_estimate(e, n, 2, CLOCK_COLLECTIVES, &c);
	CHECK(!c.nodes[0].shared && !c.nodes[1].shared);
	for (int r = 1; r < 4; r++)
		CHECK_NEAR(clock_shift_ms(&c, r), off[r], 0.1);
	CHECK(clock_shift_ms(&c, 0) == 0);
	CHECK(!c.ranks[1].odd && !c.ranks[2].odd);
	clock_offsets_free(&c);
	free(e);
}

static void too_few_or_unmatched_uncorrected(void)
{
	size_t n;
	const double off[] = { 0, 0, 7.3, 7.3 };
	struct clock_end *e = ends_of(CLOCK_MIN_INSTANCES - 1, 4, off, 0.01, &n);
	struct clock_offsets c;
	clock_offsets_estimate(e, n, 2, CLOCK_COLLECTIVES, &c);
	CHECK(c.basis == CLOCK_NONE && !c.nodes[1].est.known && !c.nodes[1].shared);
	CHECK(c.nodes[1].est.instances == CLOCK_MIN_INSTANCES - 1 && clock_shift_ms(&c, 2) == 0);
	clock_offsets_free(&c);
	free(e);
	/* ranks without a node in range are left out; the first rank left is the reference */
	e = ends_of(20, 4, off, 0.01, &n);
	for (size_t i = 0; i < n; i++)
		if (e[i].node == 0)
			e[i].node = 5;
	clock_offsets_estimate(e, n, 2, CLOCK_COLLECTIVES, &c);
	CHECK(c.nranks == 2 && c.ranks[0].rank == 2 && c.ref_node == 1);
	CHECK(c.basis == CLOCK_COLLECTIVES && clock_shift_ms(&c, 3) == 0);
	clock_offsets_free(&c);
	clock_offsets_estimate(NULL, 0, 3, CLOCK_COLLECTIVES, &c);
	CHECK(c.basis == CLOCK_NONE && c.nnodes == 3 && c.nranks == 0 && !c.nodes[2].shared);
	clock_offsets_free(&c);
	free(e);
}

int main(void)
{
	RUN(offset_recovered_within_jitter);
	RUN(exact_ends_give_exact_offset);
	RUN(disagreeing_rank_named);
	RUN(own_clocks_corrected_rank_by_rank);
	RUN(too_few_or_unmatched_uncorrected);
	HARNESS_END();
}
