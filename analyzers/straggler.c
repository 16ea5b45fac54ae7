/* SPDX-License-Identifier: MIT */
#include "analyzers/straggler.h"

#include "analyzers/stats.h"
#include "util/sort.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	P_COMPUTE = STRAGGLER_COMPUTE,
	P_DATA = STRAGGLER_DATA,
	P_IO = STRAGGLER_IO,
	P_OTHER = STRAGGLER_OTHER,
	P_N = STRAGGLER_UNKNOWN
};

static void phases_of(const struct step_rec *s, double *p)
{
	p[P_COMPUTE] = step_compute_ms(s);
	p[P_DATA] = s->data_ms;
	p[P_IO] = s->io_ms;
	p[P_OTHER] = s->step_ms - p[P_COMPUTE] - p[P_DATA] - p[P_IO] - s->comm_ms;
	if (p[P_OTHER] < 0)
		p[P_OTHER] = 0;
}

struct rank_sum {
	long last;       /* steps in which it arrived last */
	uint64_t steps;  /* a fingerprint of those steps (judge_one) */
	double imposed;  /* ms of waiting it imposed, per rank that waited, summed over steps */
	double margin[P_N];
};

/* The longest collective time of the ranks that arrived last in a step
 * (sorted: its n collective times in ascending order): any within
 * STRAGGLER_TIE of the step's spread of the shortest, and those below the
 * widest gap between two successive times when it spans STRAGGLER_GAP of the
 * spread (the group stands apart). */
static double last_group_top(const double *sorted, size_t n)
{
	double least = sorted[0], spread = sorted[n - 1] - least,
	       top = least + STRAGGLER_TIE * spread;
	size_t below = 0;
	for (size_t k = 1; k + 1 < n; k++)
		if (sorted[k + 1] - sorted[k] > sorted[below + 1] - sorted[below])
			below = k;
	if (sorted[below + 1] - sorted[below] < STRAGGLER_GAP * spread)
		return top;
	return sorted[below] > top ? sorted[below] : top;
}

/* One instance (a step, or a collective of the NCCL Inspector) every unit (rank) has:
 * comm[u] its time in the collectives, ph[u] its phases (NULL: unknown). Who arrived last
 * (the ranks whose collective took least, last_group_top: two equally slow ranks both
 * arrive last, whatever the noise of their transfers) and by how much it outspent the
 * others in each phase. Returns 0 when the instance has no collective time. */
static int one_instance(const double *comm, const double (*ph)[P_N], size_t n,
			struct rank_sum *sum, double *buf, unsigned char *late)
{
	size_t nlate = 0;
	memset(late, 0, n);
	double total = 0, waited = 0;
	for (size_t r = 0; r < n; r++) {
		buf[r] = comm[r];
		total += buf[r];
	}
	if (total <= 0)
		return 0;
	stats_sort(buf, n);
	double least = buf[0], top = last_group_top(buf, n);
	for (size_t r = 0; r < n; r++) {
		if (comm[r] <= top)
			nlate++;
		else
			waited += comm[r] - least;
	}
	if (nlate == n) /* all arrived together */
		return 1;
	for (size_t last = 0; last < n; last++) {
		if (comm[last] > top)
			continue;
		late[last] = 1;
		sum[last].last++;
		sum[last].imposed += waited / (double)(n - nlate); /* per rank that waited */
		for (int p = 0; ph && p < P_N; p++) {
			size_t k = 0;
			for (size_t r = 0; r < n; r++)
				if (r != last)
					buf[k++] = ph[r][p];
			sum[last].margin[p] += ph[last][p] - stats_percentile(buf, k, 50);
		}
	}
	return 1;
}

/* How many of rank r's collective records fall in step i (records sorted
 * by step; *pos a cursor, moved past them). */
static size_t colls_in(const struct rank_metrics *r, size_t i, size_t *pos)
{
	while (*pos < r->ncoll && (size_t)r->coll[*pos].step < i)
		(*pos)++;
	size_t k = 0;
	while (*pos + k < r->ncoll && (size_t)r->coll[*pos + k].step == i)
		k++;
	*pos += k;
	return k;
}

/* Whether step i's collectives are on record alike for every rank (steps
 * in order; pos the ranks' cursors). A rank whose trace lost one (PyTorch's
 * profiler can stop before a worker thread's range of the last step ends)
 * would seem to have arrived last without waiting; such a step is not
 * judged. Telemetry has no records: its steps all are. */
static int step_on_record(const struct scenario_metrics *m, size_t i, size_t *pos)
{
	size_t first = colls_in(&m->ranks[0], i, &pos[0]);
	int same = 1;
	for (size_t r = 1; r < m->n; r++)
		same &= colls_in(&m->ranks[r], i, &pos[r]) == first;
	return same;
}

/* By chance a unit (rank or node) is among a step's last arrivers with the
 * steps' mean share of such units (ties make that more than 1 / units), at
 * least 1 / units. */
static double chance_share(long lasts, long counted, size_t units)
{
	double share = counted > 0 ? (double)lasts / ((double)counted * (double)units) : 1;
	return share > 1.0 / (double)units ? share : 1.0 / (double)units;
}

/* P(X >= k) for X ~ Binomial(n, p), summed in log space. */
static double binomial_tail(long n, long k, double p)
{
	double sum = 0;
	for (long i = k; i <= n; i++)
		sum += exp(lgamma((double) n + 1) - lgamma((double) i + 1) -
			   lgamma((double) (n - i) + 1) + (double) i * log(p) +
			   (double) (n - i) * log1p(-p));
	return sum;
}

/* A node's own test: its ranks, and only they, arrived last together in most
 * steps, more often than chance would make it. Per step, when g of n ranks
 * arrived last, they are a given set of m ranks with probability 1 / C(n, m)
 * where g = m (else 0) if no rank were special; summed over the steps that is
 * the node's expected count. Two slow ranks of four the last two in 8 of 8
 * steps are a slow node (p = (1/6)^8 of two nodes, node_test_p) though
 * neither alone is beyond chance (two of four ranks last per step). A node
 * whose ranks were last beside a rank of another node is not: three of four
 * ranks last in every step say the fourth is early, not that a node is slow. */
struct node_test {
	size_t nnodes, *of, *size, *cnt; /* of: rank -> node (SIZE_MAX: no host) */
	long *all_late;                  /* steps in which every rank of it arrived last */
	double *expected;                /* of such steps, by chance */
	double share; /* of nodes all last per step, by chance (node_test_end) */
};

struct host_idx {
	const char *host;
	size_t r;
};

static int by_host(const void *a, const void *b)
{
	const struct host_idx *x = a, *y = b;
	int c = strcmp(x->host, y->host);
	return c ? c : (x->r > y->r) - (x->r < y->r);
}

static void node_test_init(struct node_test *t, const char *const *hosts, size_t n)
{
	struct host_idx *h = xcalloc(n, sizeof *h);
	t->of = xcalloc(n, sizeof *t->of);
	t->size = xcalloc(n, sizeof *t->size);
	t->cnt = xcalloc(n, sizeof *t->cnt);
	t->all_late = xcalloc(n, sizeof *t->all_late);
	t->expected = xcalloc(n, sizeof *t->expected);
	t->nnodes = 0;
	for (size_t r = 0; r < n; r++)
		h[r] = (struct host_idx){ hosts[r], r };
	sort_runs(h, n, sizeof *h, by_host);
	for (size_t k = 0; k < n; k++) {
		if (!h[k].host[0]) {
			t->of[h[k].r] = SIZE_MAX;
			continue;
		}
		if (k == 0 || strcmp(h[k].host, h[k - 1].host) || !h[k - 1].host[0])
			t->nnodes++;
		t->of[h[k].r] = t->nnodes - 1;
		t->size[t->nnodes - 1]++;
	}
	free(h);
}

static void node_test_step(struct node_test *t, const unsigned char *late, size_t n)
{
	size_t g = 0;
	memset(t->cnt, 0, t->nnodes * sizeof *t->cnt);
	for (size_t r = 0; r < n; r++) {
		g += late[r];
		if (late[r] && t->of[r] != SIZE_MAX)
			t->cnt[t->of[r]]++;
	}
	/* its ranks, and only they, last: C(n, m) sets of m ranks were as likely */
	for (size_t k = 0; k < t->nnodes; k++) {
		double p = g == t->size[k];
		for (size_t j = 0; j < t->size[k] && p > 0; j++)
			p *= (double)(j + 1) / (double)(n - j);
		t->expected[k] += p;
		t->all_late[k] += g == t->size[k] && t->cnt[k] == t->size[k];
	}
}

/* Were nodes rather than ranks what is late by chance (jitter shared by a
 * node's ranks), a node would be all last with this share, once all steps
 * are counted. */
static void node_test_end(struct node_test *t, long counted)
{
	long lasts = 0;
	for (size_t k = 0; k < t->nnodes; k++)
		lasts += t->all_late[k];
	t->share = t->nnodes ? chance_share(lasts, counted, t->nnodes) : 1;
}

/* How likely chance alone makes node k's ranks all arrive last together in
 * so many steps, times the nodes (1 when not a node of several ranks, or not
 * in most steps): the larger of the chance that its ranks are all among the
 * last and the nodes' share. */
static double node_test_p(const struct node_test *t, size_t k, long counted)
{
	if (k == SIZE_MAX || t->nnodes < 2 || t->size[k] < 2 || 2 * t->all_late[k] <= counted)
		return 1;
	double p = t->expected[k] / (double)counted;
	p = p > t->share ? p : t->share;
	return p < 1 ? binomial_tail(counted, t->all_late[k], p) * (double)t->nnodes : 1;
}

static void node_test_free(struct node_test *t)
{
	free(t->of);
	free(t->size);
	free(t->cnt);
	free(t->all_late);
	free(t->expected);
}

/* By impact, the larger first; those that arrived last in the same steps (the same impact)
 * side by side. */
static int by_impact(const void *a, const void *b)
{
	const struct straggler *x = a, *y = b;
	if (x->impact_pct != y->impact_pct)
		return x->impact_pct < y->impact_pct ? 1 : -1;
	if (x->last_steps != y->last_steps)
		return x->last_steps < y->last_steps ? -1 : 1;
	return x->rank - y->rank;
}

/* Marks each straggler that arrived last in the very steps the one before it did. */
static void mark_together(struct straggler *s, size_t n)
{
	for (size_t k = 1; k < n; k++)
		s[k].together = s[k].last_steps == s[k - 1].last_steps &&
				s[k].arrived_last_pct == s[k - 1].arrived_last_pct &&
				s[k].impact_pct == s[k - 1].impact_pct;
}

size_t straggler_group_len(const struct straggler *out, size_t n, size_t k)
{
	size_t e = k + 1;
	while (e < n && out[e].together)
		e++;
	return k < n ? e - k : 0;
}

/* The node all of whose ranks are stragglers, when some other node has ranks that are not
 * and no straggler is on another node. */
static void slow_node_of(const char *const *hosts, const int *ranks, size_t nr,
			 const struct straggler *s, size_t n, char *out, size_t len)
{
	out[0] = '\0';
	for (size_t k = 0; k < n && !out[0]; k++) {
		int all = s[k].node[0] != '\0', others = 0;
		for (size_t r = 0; r < nr; r++) {
			int same = !strcmp(hosts[r], s[k].node), listed = 0;
			for (size_t j = 0; j < n; j++)
				listed |= s[j].rank == ranks[r];
			all &= !same || listed;
			others |= !same;
		}
		for (size_t j = 0; j < n; j++) /* (a straggler elsewhere: not the node alone) */
			all &= !strcmp(s[j].node, s[k].node);
		if (all && others)
			snprintf(out, len, "%s", s[k].node);
	}
}

/* The judging of instances: per unit (rank) its name, node and sums, the node test. */
struct straggler_judge {
	size_t n;
	const char *const *hosts;
	const int *ranks;
	struct rank_sum *sum;
	struct node_test nt;
	long counted;
	double *buf;
	unsigned char *late;
	/* the instances each unit arrived last in: bit i % 64 of bits[(i / 64) * n + unit],
	 * words of them */
	uint64_t *bits;
	size_t words;
};

struct straggler_judge *straggler_judge_new(size_t n, const char *const *hosts, const int *ranks)
{
	struct straggler_judge *j = xcalloc(1, sizeof *j);
	j->n = n;
	j->hosts = hosts;
	j->ranks = ranks;
	j->sum = xcalloc(n + 1, sizeof *j->sum);
	j->buf = xcalloc(n + 1, sizeof *j->buf);
	j->late = xcalloc(n + 1, 1);
	node_test_init(&j->nt, hosts, n);
	return j;
}

/* One instance: each unit's time in its collectives and phases (NULL: unknown). */
static void judge_one(struct straggler_judge *j, const double *comm, const double (*ph)[P_N])
{
	if (one_instance(comm, ph, j->n, j->sum, j->buf, j->late)) {
		size_t w = (size_t)j->counted / 64;
		if (w >= j->words) {
			j->bits = xrealloc(j->bits, (w + 1) * j->n * sizeof *j->bits);
			memset(j->bits + j->words * j->n, 0, j->n * sizeof *j->bits);
			j->words = w + 1;
		}
		/* FNV-style, over the (1-based) instances it arrived last in */
		for (size_t r = 0; r < j->n; r++)
			if (j->late[r]) {
				j->sum[r].steps = (j->sum[r].steps ^ (uint64_t)(j->counted + 1)) *
						  UINT64_C(0x100000001b3);
				j->bits[w * j->n + r] |= UINT64_C(1) << (j->counted % 64);
			}
		j->counted++;
		node_test_step(&j->nt, j->late, j->n);
	}
}

void straggler_judge_add(struct straggler_judge *j, const double *comm_ms)
{
	judge_one(j, comm_ms, NULL);
}

void straggler_judge_free(struct straggler_judge *j)
{
	if (!j)
		return;
	node_test_free(&j->nt);
	free(j->sum);
	free(j->buf);
	free(j->late);
	free(j->bits);
	free(j);
}

/* Every step judged (active, on record alike, with a collective) into j. */
static void judge_steps(const struct scenario_metrics *m, struct straggler_judge *j)
{
	size_t steps = m->ranks[0].n;
	for (size_t r = 1; r < m->n; r++)
		steps = m->ranks[r].n < steps ? m->ranks[r].n : steps;
	size_t *pos = xcalloc(m->n, sizeof *pos);
	double *comm = xcalloc(m->n, sizeof *comm), (*ph)[P_N] = xcalloc(m->n, sizeof *ph);
	int records = 0;
	for (size_t r = 0; r < m->n; r++)
		records |= m->ranks[r].ncoll > 0;
	for (size_t i = 0; i < steps; i++) {
		if ((records && !step_on_record(m, i, pos)) || !m->ranks[0].steps[i].active)
			continue;
		for (size_t r = 0; r < m->n; r++) {
			comm[r] = m->ranks[r].steps[i].comm_ms;
			phases_of(&m->ranks[r].steps[i], ph[r]);
		}
		judge_one(j, comm, (const double(*)[P_N])ph);
	}
	free(pos);
	free(comm);
	free(ph);
}

/* The straggler record of rank k, with its cause: the phase in which it
 * outspent the others most, when that explains half of the waiting it imposed. */
static void straggler_of(struct straggler *s, int rank, const char *host,
			 const struct rank_sum *sum, long counted, double impact, double prank,
			 double pnode)
{
	memset(s, 0, sizeof *s);
	s->rank = rank;
	snprintf(s->node, sizeof s->node, "%s", host);
	s->impact_pct = impact;
	s->arrived_last_pct = 100.0 * (double)sum->last / (double)counted;
	s->rank_p = prank < 1 ? prank : 1;
	s->by_node = pnode < prank;
	s->chance_p = s->by_node ? (pnode < 1 ? pnode : 1) : s->rank_p;
	s->last_steps = sum->steps;
	int best = 0;
	for (int ph = 1; ph < P_N; ph++)
		best = sum->margin[ph] > sum->margin[best] ? ph : best;
	int known = sum->margin[best] >= STRAGGLER_CAUSE_SHARE * sum->imposed;
	s->cause_kind = known ? (enum straggler_cause)best : STRAGGLER_UNKNOWN;
	s->cause_ms = sum->margin[best] / (double)counted;
}

/* The instances units a and b both arrived last in. */
static long shared_lasts(const struct straggler_judge *j, size_t a, size_t b)
{
	long k = 0;
	for (size_t w = 0; w < j->words; w++)
		k += __builtin_popcountll(j->bits[w * j->n + a] & j->bits[w * j->n + b]);
	return k;
}

/* Each straggler's overlap with those before it outside its group: the one with which it
 * arrived last most often (shares_with). */
static void mark_shared(const struct straggler_judge *j, struct straggler *s, size_t n)
{
	for (size_t k = 0, first = 0; k < n; k++) {
		first = s[k].together ? first : k;
		s[k].shares_with = -1, s[k].shared_last = 0;
		s[k].last_n = j->sum[s[k].unit].last;
		for (size_t i = 0; i < first; i++) {
			long c = shared_lasts(j, s[i].unit, s[k].unit);
			if (c > s[k].shared_last)
				s[k].shares_with = s[i].rank, s[k].shared_last = c;
		}
	}
}

/* Each straggler's unnamed companion: the rank not listed that arrived last with it in the
 * most of its steps, half of them or more. */
static void mark_also(const struct straggler_judge *j, struct straggler *s, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		s[k].also_rank = -1, s[k].also_last = 0;
		for (size_t u = 0; u < j->n; u++) {
			int listed = 0;
			for (size_t i = 0; i < n; i++)
				listed |= s[i].unit == u;
			long c = listed ? 0 : shared_lasts(j, s[k].unit, u);
			if (2 * c >= s[k].last_n && c > s[k].also_last)
				s[k].also_rank = j->ranks[u], s[k].also_last = c;
		}
	}
}

/* The least p j's test could give any unit over its trials (straggler_test's): a rank alone
 * last in every one (chance 1 / ranks), or a node's m ranks alone (chance the larger of
 * 1 / C(ranks, m) and 1 / nodes), times the units tested. */
static double least_p(const struct straggler_judge *j)
{
	const struct node_test *t = &j->nt;
	double least = pow(1.0 / (double)j->n, (double)j->counted) * (double)j->n;
	for (size_t k = 0; k < t->nnodes && t->nnodes >= 2; k++) {
		if (t->size[k] < 2)
			continue;
		double p = 1;
		for (size_t i = 0; i < t->size[k]; i++)
			p *= (double)(i + 1) / (double)(j->n - i);
		p = p > 1.0 / (double)t->nnodes ? p : 1.0 / (double)t->nnodes;
		double node = pow(p, (double)j->counted) * (double)t->nnodes;
		least = node < least ? node : least;
	}
	return j->counted > 0 && least < 1 ? least : 1;
}

/* The stragglers of what j judged: impact the waiting imposed per `per` (the steps
 * judged, or those of the run) as a share of step_med_ms; what the test could tell into
 * *test (NULL: not asked). */
void straggler_judge_find(struct straggler_judge *j, double per, double step_med_ms,
			  struct straggler *out, size_t *n, char *slow_node, size_t slow_len,
			  struct straggler_test *test)
{
	*n = 0;
	slow_node[0] = '\0';
	long counted = j->counted, lasts = 0;
	if (test)
		*test = (struct straggler_test){ counted, j->n >= 2 ? least_p(j) : 1 };
	if (j->n < 2 || step_med_ms <= 0 || per <= 0)
		return;
	node_test_end(&j->nt, counted);
	for (size_t r = 0; r < j->n; r++)
		lasts += j->sum[r].last;
	double chance = chance_share(lasts, counted, j->n);
	for (size_t r = 0; r < j->n && counted > 0; r++) {
		double impact = 100 * j->sum[r].imposed / per / step_med_ms;
		/* chance alone would rarely give it (or its node) so many last
		 * arrivals: 1 % over all ranks (over all nodes) */
		double p = chance >= 1
			? 1
			: binomial_tail(counted, j->sum[r].last, chance) * (double) j->n,
		       pn = node_test_p(&j->nt, j->nt.of[r], counted);
		if (2 * j->sum[r].last > counted && impact >= STRAGGLER_MIN_IMPACT_PCT &&
		    (p < pn ? p : pn) <= STRAGGLER_CHANCE && *n < STRAGGLER_MAX)
		{
			straggler_of(&out[*n], j->ranks[r], j->hosts[r], &j->sum[r], counted,
				     impact, p, pn);
			out[(*n)++].unit = r;
		}
	}
	sort_runs(out, *n, sizeof *out, by_impact);
	mark_together(out, *n);
	mark_shared(j, out, *n);
	mark_also(j, out, *n);
	slow_node_of(j->hosts, j->ranks, j->n, out, *n, slow_node, slow_len);
}

void straggler_find(const struct scenario_metrics *m, double step_med_ms, struct straggler *out,
		    size_t *n, char *slow_node, size_t slow_len, struct straggler_test *test)
{
	*n = 0;
	slow_node[0] = '\0';
	if (test)
		*test = (struct straggler_test){ 0, 1 };
	if (m->n < 2 || step_med_ms <= 0)
		return;
	const char **hosts = xcalloc(m->n, sizeof *hosts);
	int *ranks = xcalloc(m->n, sizeof *ranks);
	for (size_t r = 0; r < m->n; r++) {
		hosts[r] = m->ranks[r].host;
		ranks[r] = m->ranks[r].rank;
	}
	struct straggler_judge *j = straggler_judge_new(m->n, hosts, ranks);
	judge_steps(m, j);
	straggler_judge_find(j, (double)j->counted, step_med_ms, out, n, slow_node, slow_len,
			     test);
	straggler_judge_free(j);
	free(hosts);
	free(ranks);
}
