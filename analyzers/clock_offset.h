/* clock_offset: how far each rank's and each node's clock is from the first
 * rank's, from blocking collectives matched across ranks: every rank leaves
 * one at nearly the same instant, so the difference of their end times is
 * the difference of their clocks. Per rank and per node (its ranks' median
 * end) the median over instances, the uncertainty half the interquartile
 * range. A node's ranks share its offset when most of them agree with it
 * (a rank that does not is named); when they do not (traces timed from each
 * process's own start, as the legacy profiler's are) each rank keeps its
 * own. Numbers only: the words are write/'s.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_CLOCK_OFFSET_H
#define ANALYZERS_CLOCK_OFFSET_H

#include <stddef.h>

/* Fewer matched instances than this give no offset: the rank or node stays uncorrected. */
#define CLOCK_MIN_INSTANCES 5
/* Below this an offset or a disagreement is under the traces' resolution (1 µs). */
#define CLOCK_RESOLUTION_MS 0.001

/* One rank's end of one blocking collective instance. */
struct clock_end {
	unsigned long long instance; /* the same on every rank for one instance */
	int rank;
	int node;      /* the index of the rank's node; 0 is the first rank's */
	double end_us; /* on the rank's clock */
};

enum clock_basis {
	CLOCK_NONE,        /* nothing could be matched: uncorrected */
	CLOCK_COLLECTIVES, /* the ends of blocking collectives (traces' kernels or ranges) */
	CLOCK_INSPECTOR,   /* NCCL Inspector's verbose kernel stop times */
};

/* An offset against the first rank's clock (ms), how sure, from how many instances. */
struct clock_est {
	double offset_ms, uncertainty_ms;
	size_t instances;
	int known; /* instances >= CLOCK_MIN_INSTANCES (the first rank always) */
};

struct clock_node {
	struct clock_est est; /* of its ranks' median end */
	int shared;           /* most of its ranks agree with est: one clock */
	int nranks;           /* its ranks with an estimate */
};

struct clock_rank {
	int rank, node;
	struct clock_est est;
	int odd; /* its node shares a clock but it disagrees beyond both uncertainties */
};

struct clock_offsets {
	enum clock_basis basis; /* CLOCK_NONE when no rank but the first could be compared */
	struct clock_node *nodes; /* nnodes, by node index */
	size_t nnodes;
	struct clock_rank *ranks; /* by rank */
	size_t nranks;
	int ref_node; /* the first rank's node */
};

/* Estimates the clocks of the ranks of ends (reordered) and of nodes
 * [0, nnodes), taking basis as what the ends came from. out is zeroed first;
 * free with clock_offsets_free. */
void clock_offsets_estimate(struct clock_end *ends, size_t n, int nnodes,
			    enum clock_basis basis, struct clock_offsets *out);
/* What to subtract from rank's times (ms) to put them on the first rank's
 * clock: its node's offset when the node shares a clock, else its own; 0
 * when not known. */
double clock_shift_ms(const struct clock_offsets *c, int rank);
void clock_offsets_free(struct clock_offsets *c);

/* A scenario's nodes and their clocks. */
struct ana_clocks {
	struct clock_offsets c;
	size_t nnodes;
	char (*node)[128]; /* node names by index: in the order of their lowest rank */
	/* a rank's trace counts from its own start (the legacy profiler): each rank is an
	 * index of its own (node[i] the host of the i-th rank), no clock is shared */
	int per_rank;
	/* every rank of the scenario (by rank number < nrank_node): its node index, -1 none;
	 * a rank without matched ends still takes its node's shared offset */
	int *rank_node;
	int nrank_node;
	/* every node is one machine (the local executor): nothing to correct when nothing
	 * could be compared (the traces, if any, may still come from elsewhere) */
	int one_clock;
};

struct scenario_metrics;
/* The clocks of m's ranks and nodes (its ranks' hosts) from the ends of its
 * blocking collectives; one_clock: the nodes share one clock. */
void clocks_of_scenario(const struct scenario_metrics *m, int one_clock, struct ana_clocks *out);
struct insp_summary;
/* When the traces gave no offset: the clocks from the NCCL Inspector's verbose dumps (the
 * stop times of each instance's kernels), basis CLOCK_INSPECTOR. */
void clocks_from_inspector(const struct insp_summary *in, struct ana_clocks *k);
/* What to subtract from rank's times to put them on the first rank's clock (µs). */
double clocks_shift_us(const struct ana_clocks *k, int rank);
/* Whether rank's times are put on the first rank's clock (its offset, or its node's, is known). */
int clocks_corrected(const struct ana_clocks *k, int rank);
void clocks_free(struct ana_clocks *k);

#endif
