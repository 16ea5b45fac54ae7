/* SPDX-License-Identifier: MIT */
#include "analyzers/phases.h"

#include "util/sort.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static const char *const names[PH_N] = { "forward", "backward",      "optimizer",
					  "data_loading", "communication", "io",
					  "compute",      "other" };

int phase_of_category(const char *category)
{
	for (int i = 0; i < PH_N; i++)
		if (!strcmp(names[i], category))
			return i;
	return -1;
}

const char *phase_name(int phase)
{
	return phase >= 0 && phase < PH_N ? names[phase] : "?";
}

/* What wins an instant when threads do different things: lower wins. A
 * compute phase's range with no operator running under it ("bare": the
 * thread runs Python, or blocks in a collective's wait()) loses to
 * communication on another thread: the collective is what the step waits for. */
enum { BARE = PH_N, SLOTS = 2 * PH_N }; /* BARE + phase: a bare range's time */
static const int rank_of[SLOTS] = {
	[PH_BACKWARD] = 0,	  [PH_FORWARD] = 1,	   [PH_OPTIMIZER] = 2,
	[PH_OPS] = 3,		  [PH_DATA] = 4,	   [PH_COMM] = 5,
	[BARE + PH_BACKWARD] = 6, [BARE + PH_FORWARD] = 7, [BARE + PH_OPTIMIZER] = 8,
	[PH_IO] = 9,		  [PH_OTHER] = 10, /* no other slot is ever active */
};

struct seg {
	double start, end;
	int phase, slot; /* slot: what its time counts as, rank_of's index */
	int op;          /* an operator runs: this range's or one around it */
};

struct segs {
	struct seg *v;
	size_t n, cap;
};

static void seg_add(struct segs *s, double a, double b, int slot, double lo, double hi)
{
	if (a < lo)
		a = lo;
	if (b > hi)
		b = hi;
	if (b <= a || slot < 0)
		return;
	XGROW(s->v, s->n, s->cap, 64);
	s->v[s->n++] = (struct seg){ .start = a, .end = b, .slot = slot };
}

static int by_thread_then_start(const void *pa, const void *pb)
{
	const struct phase_range *a = pa, *b = pb;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end > b->end ? -1 : a->end < b->end; /* the enclosing range first */
}

/* A range's own time: its phase, or BARE + its phase for a forward,
 * backward or optimizer range no operator runs under, on a thread whose
 * operators the profiler records (with none recorded, as from NVTX
 * annotations alone, the range stands for its work). */
static int slot_of(int phase, int op, int has_ops)
{
	int compute = phase == PH_FORWARD || phase == PH_BACKWARD || phase == PH_OPTIMIZER;
	return compute && !op && has_ops ? BARE + phase : phase;
}

/* One thread's ranges (sorted, enclosing first) as segments labelled with
 * the innermost range's slot (an operator's phase: its parent's, when it
 * has one); a range reaching past its parent is cut at the parent's end. */
static void thread_segments(const struct phase_range *r, size_t n, double lo, double hi,
			    struct segs *out)
{
	struct seg *stack = xcalloc(n + 1, sizeof *stack);
	size_t depth = 0;
	double cursor = lo;
	int has_ops = 0;
	for (size_t i = 0; i < n; i++)
		has_ops |= r[i].phase == PH_OPS;
	for (size_t i = 0; i < n; i++) {
		while (depth && stack[depth - 1].end <= r[i].start) {
			struct seg top = stack[--depth];
			seg_add(out, cursor, top.end, top.slot, lo, hi);
			if (top.end > cursor)
				cursor = top.end;
		}
		if (depth)
			seg_add(out, cursor, r[i].start, stack[depth - 1].slot, lo, hi);
		if (r[i].start > cursor)
			cursor = r[i].start;
		const struct seg *up = depth ? &stack[depth - 1] : NULL;
		double end = up && up->end < r[i].end ? up->end : r[i].end;
		int phase = r[i].phase == PH_OPS && up ? up->phase : r[i].phase,
		    op = r[i].phase == PH_OPS || (up && up->op);
		stack[depth++] = (struct seg){ r[i].start, end, phase,
					       slot_of(phase, op, has_ops), op };
	}
	while (depth) {
		struct seg top = stack[--depth];
		seg_add(out, cursor, top.end, top.slot, lo, hi);
		if (top.end > cursor)
			cursor = top.end;
	}
	free(stack);
}

struct edge {
	double at;
	int slot, delta;
};

static int by_time(const void *pa, const void *pb)
{
	const struct edge *a = pa, *b = pb;
	return a->at < b->at ? -1 : a->at > b->at;
}

void phases_of_step(struct phase_range *r, size_t n, double start, double end,
		    struct step_phases *out)
{
	memset(out, 0, sizeof *out);
	if (end <= start)
		return;
	sort_runs(r, n, sizeof *r, by_thread_then_start);
	struct segs s = { 0 };
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && r[j].tid == r[i].tid; j++)
			;
		thread_segments(r + i, j - i, start, end, &s);
	}
	struct edge *e = xcalloc(2 * s.n + 1, sizeof *e);
	for (size_t i = 0; i < s.n; i++) {
		e[2 * i] = (struct edge){ s.v[i].start, s.v[i].slot, 1 };
		e[2 * i + 1] = (struct edge){ s.v[i].end, s.v[i].slot, -1 };
	}
	sort_runs(e, 2 * s.n, sizeof *e, by_time);
	int active[SLOTS] = { 0 };
	double t = start;
	for (size_t i = 0; i <= 2 * s.n; i++) {
		double next = i < 2 * s.n ? e[i].at : end;
		if (next > t) {
			int win = PH_OTHER;
			for (int k = 0; k < SLOTS; k++)
				if (active[k] && rank_of[k] < rank_of[win])
					win = k;
			out->ms[win >= BARE ? win - BARE : win] += (next - t) / 1000.0;
			if (active[PH_COMM])
				out->comm_total_ms += (next - t) / 1000.0;
			t = next;
		}
		if (i < 2 * s.n)
			active[e[i].slot] += e[i].delta;
	}
	free(e);
	free(s.v);
}
