/* clock_offset: how far each node's clock is from the first node's, from
 * blocking collectives matched across ranks: every rank leaves one at nearly
 * the same instant, so the difference of their end times is the difference
 * of their clocks. Per node the median over instances, its uncertainty half
 * the interquartile range; ranks of a node share its offset, and a rank
 * whose own estimate disagrees beyond the uncertainties is named. Numbers
 * only: the words are write/'s. */
#ifndef ANALYZERS_CLOCK_OFFSET_H
#define ANALYZERS_CLOCK_OFFSET_H

#include <stddef.h>

/* Fewer matched instances than this give no offset: the node stays uncorrected. */
#define CLOCK_MIN_INSTANCES 5
/* Below this an offset or a disagreement is under the traces' resolution (1 µs). */
#define CLOCK_RESOLUTION_MS 0.001

/* One rank's end of one blocking collective instance. */
struct clock_end {
	unsigned long long instance; /* the same on every rank for one instance */
	int rank;
	int node;      /* the index of the rank's node; 0 is the reference (first) node */
	double end_us; /* on its node's clock */
};

enum clock_basis {
	CLOCK_NONE,        /* nothing could be matched: uncorrected */
	CLOCK_COLLECTIVES, /* the ends of blocking collectives (traces' kernels or ranges) */
	CLOCK_INSPECTOR,   /* NCCL Inspector's verbose kernel stop times */
};

struct clock_node {
	int node;
	double offset_ms;      /* its clock minus the reference's; 0 for the reference */
	double uncertainty_ms; /* half the interquartile range over instances */
	size_t instances;      /* matched with the reference node; < CLOCK_MIN_INSTANCES: unknown */
	int known;             /* offset_ms holds (the reference node always) */
};

/* A rank whose own estimate is off its node's by more than the node's
 * uncertainty and its own (half its interquartile range) together. */
struct clock_rank {
	int rank, node;
	double offset_ms; /* its own estimate against the reference node */
};

struct clock_offsets {
	enum clock_basis basis; /* CLOCK_NONE when no node other than the reference is known */
	struct clock_node *nodes; /* nnodes, by node index */
	size_t nnodes;
	struct clock_rank *odd; /* by rank */
	size_t nodd;
};

/* A scenario's nodes and their clocks. */
struct ana_clocks {
	struct clock_offsets c;
	size_t nnodes;
	char (*node)[128];  /* node names by index: in the order of their lowest rank */
	int *rank_node;     /* by rank number (< nranks); -1 unknown */
	int nranks;
	/* every node is one machine (the local executor): nothing to correct when nothing
	 * could be compared (the traces, if any, may still come from elsewhere) */
	int one_clock;
};

struct scenario_metrics;
/* The clocks of m's nodes (its ranks' hosts) from the ends of its blocking
 * collectives; one_clock: the nodes share one clock. */
void clocks_of_scenario(const struct scenario_metrics *m, int one_clock, struct ana_clocks *out);
/* What to subtract from rank's times to put them on the first node's clock (µs). */
double clocks_shift_us(const struct ana_clocks *k, int rank);
void clocks_free(struct ana_clocks *k);

/* Estimates the offsets of nodes [0, nnodes) from ends (reordered), taking
 * basis as what they came from. out is zeroed first; free with clock_offsets_free. */
void clock_offsets_estimate(struct clock_end *ends, size_t n, int nnodes,
			    enum clock_basis basis, struct clock_offsets *out);
/* The offset to subtract from a node's times (ms; 0 when not known). */
double clock_offset_of(const struct clock_offsets *c, int node);
void clock_offsets_free(struct clock_offsets *c);

#endif
