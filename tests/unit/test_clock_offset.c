/* Unit tests for analyzers/clock_offset.c: a node's clock offset recovered
 * from the ends of matched collectives within the jitter put on them, its
 * uncertainty, a rank that disagrees with its node named, too few instances
 * or no reference leaving a node uncorrected. */
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

/* 2 nodes x 2 ranks (ranks 0, 1 on node 0; 2, 3 on node 1), instances
 * ending at 10 ms apart; node 1's clock ahead by shift_ms, rank 3's by
 * shift_ms + extra_ms; every end jittered by up to jit_ms. */
static struct clock_end *ends_of(size_t instances, double shift_ms, double extra_ms,
				 double jit_ms, size_t *n)
{
	struct clock_end *e = xcalloc(instances * 4, sizeof *e);
	unsigned st = 7;
	*n = 0;
	for (size_t i = 0; i < instances; i++)
		for (int r = 0; r < 4; r++) {
			double at = 1e6 + (double)i * 10000.0 + jitter(&st) * jit_ms * 1000.0;
			if (r >= 2)
				at += shift_ms * 1000.0;
			if (r == 3)
				at += extra_ms * 1000.0;
			e[(*n)++] = (struct clock_end){ 1000 + i, r, r / 2, at };
		}
	return e;
}

static void offset_recovered_within_jitter(void)
{
	size_t n;
	struct clock_end *e = ends_of(120, 7.3, 0, 0.02, &n);
	struct clock_offsets c;
	clock_offsets_estimate(e, n, 2, CLOCK_COLLECTIVES, &c);
	CHECK(c.basis == CLOCK_COLLECTIVES && c.nnodes == 2);
	CHECK(c.nodes[0].known && c.nodes[0].offset_ms == 0);
	CHECK(c.nodes[1].known && c.nodes[1].instances == 120);
	CHECK_NEAR(c.nodes[1].offset_ms, 7.3, 0.02);
	CHECK(c.nodes[1].uncertainty_ms > 0 && c.nodes[1].uncertainty_ms < 0.02);
	CHECK_NEAR(clock_offset_of(&c, 1), c.nodes[1].offset_ms, 0);
	CHECK(c.nodd == 0);
	clock_offsets_free(&c);
	free(e);
}

static void exact_ends_give_exact_offset(void)
{
	size_t n;
	struct clock_end *e = ends_of(6, -2.5, 0, 0, &n);
	struct clock_offsets c;
	clock_offsets_estimate(e, n, 2, CLOCK_INSPECTOR, &c);
	CHECK(c.basis == CLOCK_INSPECTOR);
	CHECK(c.nodes[1].offset_ms == -2.5 && c.nodes[1].uncertainty_ms == 0);
	clock_offsets_free(&c);
	free(e);
}

static void disagreeing_rank_named(void)
{
	size_t n;
	struct clock_end *e = ends_of(40, 7.3, 0.5, 0.01, &n);
	struct clock_offsets c;
	clock_offsets_estimate(e, n, 2, CLOCK_COLLECTIVES, &c);
	/* node 1's end is the median of ranks 2 and 3: 7.3 + 0.25 */
	CHECK_NEAR(c.nodes[1].offset_ms, 7.55, 0.01);
	CHECK(c.nodd == 2);
	CHECK(c.nodd == 2 && c.odd[0].rank == 2 && c.odd[1].rank == 3 && c.odd[1].node == 1);
	CHECK(c.nodd == 2 && fabs(c.odd[1].offset_ms - 7.8) < 0.01);
	clock_offsets_free(&c);
	free(e);
}

static void too_few_or_unmatched_uncorrected(void)
{
	size_t n;
	struct clock_end *e = ends_of(CLOCK_MIN_INSTANCES - 1, 7.3, 0, 0.01, &n);
	struct clock_offsets c;
	clock_offsets_estimate(e, n, 2, CLOCK_COLLECTIVES, &c);
	CHECK(c.basis == CLOCK_NONE && !c.nodes[1].known);
	CHECK(c.nodes[1].instances == CLOCK_MIN_INSTANCES - 1 && clock_offset_of(&c, 1) == 0);
	clock_offsets_free(&c);
	free(e);
	/* node 0 has no end of any instance: nothing to measure against */
	e = ends_of(20, 7.3, 0, 0.01, &n);
	for (size_t i = 0; i < n; i++)
		if (e[i].node == 0)
			e[i].node = 5; /* out of range: ignored */
	clock_offsets_estimate(e, n, 2, CLOCK_COLLECTIVES, &c);
	CHECK(c.basis == CLOCK_NONE && c.nodes[1].instances == 0 && c.nodd == 0);
	clock_offsets_free(&c);
	clock_offsets_estimate(NULL, 0, 3, CLOCK_COLLECTIVES, &c);
	CHECK(c.basis == CLOCK_NONE && c.nnodes == 3 && !c.nodes[2].known);
	clock_offsets_free(&c);
	free(e);
}

int main(void)
{
	RUN(offset_recovered_within_jitter);
	RUN(exact_ends_give_exact_offset);
	RUN(disagreeing_rank_named);
	RUN(too_few_or_unmatched_uncorrected);
	HARNESS_END();
}
