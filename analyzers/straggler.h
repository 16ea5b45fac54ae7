/* straggler: the rank that keeps the others waiting at the collectives.
 * Every rank's collective of a step ends at once, so the rank whose
 * collective took least arrived last (ranks close to it with it);
 * what the others spent beyond it is waiting it imposed. Its cause is the
 * phase in which it spent more than the other ranks' median over the same
 * steps.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_STRAGGLER_H
#define ANALYZERS_STRAGGLER_H

#include "analyzers/read/metrics.h"

#include <stddef.h>
#include <stdint.h>

#define STRAGGLER_MAX 8
/* A rank is named when it arrived last in most steps, more often than
 * chance would make it with STRAGGLER_CHANCE over all ranks (a binomial tail;
 * by chance a rank is among a step's last arrivers with the steps' mean share
 * of last arrivers, at least 1/n), or its node's ranks all did together, more
 * often than chance would make it with STRAGGLER_CHANCE over all nodes, and
 * the waiting it imposed is at least STRAGGLER_MIN_IMPACT_PCT of the median
 * step. */
#define STRAGGLER_MIN_IMPACT_PCT 5.0
#define STRAGGLER_CHANCE 0.01
/* Ranks whose collective took at most this share of the step's spread
 * (most - least over ranks) more than the shortest arrived last together, as
 * did those below the widest gap between the step's sorted collective times
 * when that gap spans STRAGGLER_GAP of the spread. */
#define STRAGGLER_TIE 0.25
#define STRAGGLER_GAP 0.5
/* A straggler's cause is the phase that explains at least this share of the
 * waiting it imposed; else its cause is unknown. */
#define STRAGGLER_CAUSE_SHARE 0.5

/* The phase in which a straggler outspends the others (STRAGGLER_UNKNOWN: none
 * explains half of the waiting it imposes). */
enum straggler_cause {
	STRAGGLER_COMPUTE,
	STRAGGLER_DATA,
	STRAGGLER_IO,
	STRAGGLER_OTHER,
	STRAGGLER_UNKNOWN
};

struct straggler {
	int rank;
	char node[128];          /* the node it ran on, from its telemetry ("" unknown) */
	enum straggler_cause cause_kind; /* write/evidence.h names it */
	double cause_ms;         /* per step, how much more than the others' median in that phase */
	/* the straggler impact: per step, the other ranks' waiting beyond its collective time,
	 * averaged over the other ranks, as a share of the median step (not the Wait share,
	 * every rank's waiting over every rank's step time, its own among them) */
	double impact_pct;
	double arrived_last_pct; /* of the steps with collectives */
	/* how likely chance alone gives it (or its node) so many last arrivals,
	 * times the ranks (nodes) tested: at most STRAGGLER_CHANCE */
	double chance_p;
	/* chance_p is its node's (every rank of its node arrived last together, so rarely by
	 * chance), not its own; rank_p is its own as a rank, times the ranks tested (at most 1) */
	int by_node;
	double rank_p;
	/* a fingerprint of the steps in which it arrived last (equal: the same steps) */
	uint64_t last_steps;
	/* it arrived last in the very steps the straggler before it in the list did
	 * (its impact is then that one's: one waiting, not two) */
	int together;
	/* of the stragglers before it in the list and not of its group, the rank with which it
	 * arrived last in the most steps, in shared_last of its last_n (shared_last 0: none):
	 * two impacts that count the same steps' waiting, which do not add */
	int shares_with;
	long shared_last, last_n;
	/* the rank not named that arrived last with it most often, in also_last of its last_n,
	 * where that is half of them or more (also_last 0: none): part of the waiting its impact
	 * counts is that rank's */
	int also_rank;
	long also_last;
	size_t unit; /* its index among the units judged (straggler.c's own) */
};

/* What the test could tell: the trials it judged (steps with collectives on record alike, or
 * collective instances) and the least chance_p any rank or node could have had over them (one
 * rank, or one node's ranks, last in every trial alone). Above STRAGGLER_CHANCE the test can
 * name no straggler, whatever the ranks did: too few trials for the ranks. */
struct straggler_test {
	long trials;
	double least_p;
};

/* How many stragglers from out[k] on arrived last together (out[k]'s group;
 * 1 when alone): a writer names them once, with one impact. */
size_t straggler_group_len(const struct straggler *out, size_t n, size_t k);

/* Stragglers of m (active steps of ranks aligned by position), sorted by
 * impact; how many into *n (at most STRAGGLER_MAX). slow_node: the node all of
 * whose ranks are stragglers, and no rank elsewhere, when there is one and other nodes too
 * ("" else). */
void straggler_find(const struct scenario_metrics *m, double step_med_ms, struct straggler *out,
		    size_t *n, char *slow_node, size_t slow_len, struct straggler_test *test);

/* The same test over instances given one by one (the NCCL Inspector's collectives, which
 * know no phases: a straggler's cause is unknown): n units, ranks[u] and hosts[u] ("":
 * unknown) naming each; both kept, not copied, until the judge is freed. */
struct straggler_judge;
struct straggler_judge *straggler_judge_new(size_t n, const char *const *hosts, const int *ranks);
/* One instance: each unit's time in it (ms). */
void straggler_judge_add(struct straggler_judge *j, const double *comm_ms);
/* The stragglers, their impact the waiting they imposed over all instances per `per` steps
 * as a share of step_med_ms; as straggler_find's. */
void straggler_judge_find(struct straggler_judge *j, double per, double step_med_ms,
			  struct straggler *out, size_t *n, char *slow_node, size_t slow_len,
			  struct straggler_test *test);
void straggler_judge_free(struct straggler_judge *j);

#endif
