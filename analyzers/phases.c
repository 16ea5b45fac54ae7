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

/* What wins an instant when threads do different things: lower wins. */
static const int rank_of[PH_N] = {
	[PH_BACKWARD] = 0, [PH_FORWARD] = 1, [PH_OPTIMIZER] = 2, [PH_OPS] = 3,
	[PH_DATA] = 4,	   [PH_COMM] = 5,    [PH_IO] = 6,	 [PH_OTHER] = 7,
};

struct seg {
	double start, end;
	int phase;
};

struct segs {
	struct seg *v;
	size_t n, cap;
};

static void seg_add(struct segs *s, double a, double b, int phase, double lo, double hi)
{
	if (a < lo)
		a = lo;
	if (b > hi)
		b = hi;
	if (b <= a || phase < 0)
		return;
	XGROW(s->v, s->n, s->cap, 64);
	s->v[s->n++] = (struct seg){ a, b, phase };
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

/* One thread's ranges (sorted, enclosing first) as segments labelled with
 * the innermost phase (an operator's: its parent's, when it has one); a
 * range reaching past its parent is cut at the parent's end. */
static void thread_segments(const struct phase_range *r, size_t n, double lo, double hi,
			    struct segs *out)
{
	struct seg *stack = xcalloc(n + 1, sizeof *stack);
	size_t depth = 0;
	double cursor = lo;
	for (size_t i = 0; i < n; i++) {
		while (depth && stack[depth - 1].end <= r[i].start) {
			struct seg top = stack[--depth];
			seg_add(out, cursor, top.end, top.phase, lo, hi);
			if (top.end > cursor)
				cursor = top.end;
		}
		if (depth)
			seg_add(out, cursor, r[i].start, stack[depth - 1].phase, lo, hi);
		if (r[i].start > cursor)
			cursor = r[i].start;
		double end =
			depth && stack[depth - 1].end < r[i].end ? stack[depth - 1].end : r[i].end;
		int phase = r[i].phase == PH_OPS && depth ? stack[depth - 1].phase : r[i].phase;
		stack[depth++] = (struct seg){ r[i].start, end, phase };
	}
	while (depth) {
		struct seg top = stack[--depth];
		seg_add(out, cursor, top.end, top.phase, lo, hi);
		if (top.end > cursor)
			cursor = top.end;
	}
	free(stack);
}

struct edge {
	double at;
	int phase, delta;
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
		e[2 * i] = (struct edge){ s.v[i].start, s.v[i].phase, 1 };
		e[2 * i + 1] = (struct edge){ s.v[i].end, s.v[i].phase, -1 };
	}
	sort_runs(e, 2 * s.n, sizeof *e, by_time);
	int active[PH_N] = { 0 };
	double t = start;
	for (size_t i = 0; i <= 2 * s.n; i++) {
		double next = i < 2 * s.n ? e[i].at : end;
		if (next > t) {
			int win = PH_OTHER;
			for (int p = 0; p < PH_N; p++)
				if (active[p] && rank_of[p] < rank_of[win])
					win = p;
			out->ms[win] += (next - t) / 1000.0;
			if (active[PH_COMM])
				out->comm_total_ms += (next - t) / 1000.0;
			t = next;
		}
		if (i < 2 * s.n)
			active[e[i].phase] += e[i].delta;
	}
	free(e);
	free(s.v);
}
