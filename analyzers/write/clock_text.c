/* clock_text: the clocks of a scenario's nodes and ranks, in summary.json and in words.
 * SPDX-License-Identifier: MIT */
#include "analyzers/write/prose.h"
#include "analyzers/write/clock_text.h"

#include "analyzers/summary_keys.h"
#include "util/jsonio.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdlib.h>

enum tl_clocks {
	TL_ONE_NODE,
	TL_ONE_CLOCK,
	TL_CORRECTED,
	TL_PARTLY,
	TL_UNCORRECTED,
	TL_NO_TIMELINE,
	TL_NA,
};

static const char *const tl_clocks_name[] = { "one node",    "one clock",   "corrected",
					      "partly corrected", "uncorrected", "no timeline",
					      "n/a" };

static enum tl_clocks timeline_clocks(const struct ana_clocks *k, int timeline)
{
	const struct clock_offsets *c = &k->c;
	if (k->nnodes == 0)
		return TL_NA; /* not analysed: nothing known of its ranks */
	if (c->basis == CLOCK_NONE && (k->one_clock || k->nnodes < 2))
		return k->one_clock && k->nnodes > 1 ? TL_ONE_CLOCK : TL_ONE_NODE;
	if (k->nnodes < 2 && !k->per_rank && c->nodes[0].shared)
		return TL_ONE_NODE; /* one node, one clock: nothing to correct */
	if (!timeline)
		return TL_NO_TIMELINE;
	size_t done = 0, all = 0;
	for (int r = 0; r < k->nrank_node; r++)
		if (k->rank_node[r] >= 0) {
			all++;
			done += clocks_corrected(k, r);
		}
	if (c->basis == CLOCK_NONE || done <= 1)
		return TL_UNCORRECTED;
	return done == all ? TL_CORRECTED : TL_PARTLY;
}

static const char *basis_name(const struct ana_clocks *k, size_t node)
{
	const struct clock_node *c = &k->c.nodes[node];
	if ((int)node == k->c.ref_node && c->shared)
		return "reference";
	if (!c->est.known)
		return "none";
	return k->c.basis == CLOCK_INSPECTOR ? "nccl-inspector" : "collectives";
}

static json_t *est_json(const struct clock_est *e, int shown)
{
	return json_pack("{s:o, s:o, s:I}", SK_OFFSET_MS,
			 shown ? jsonio_real3(e->offset_ms) : json_null(), SK_UNCERTAINTY_MS,
			 shown ? jsonio_real3(e->uncertainty_ms) : json_null(), "instances",
			 (json_int_t)e->instances);
}

static json_t *nodes_json(const struct ana_clocks *k)
{
	json_t *a = json_array();
	for (size_t i = 0; i < k->c.nnodes; i++) {
		const struct clock_node *c = &k->c.nodes[i];
		struct clock_est e = c->est;
		if ((int)i == k->c.ref_node && c->shared)
			e.offset_ms = e.uncertainty_ms = 0; /* its clock is the reference */
		json_t *o = est_json(&e, e.known && c->shared);
		json_object_set_new(o, SK_NODE, json_string(k->node[i]));
		json_object_set_new(o, "basis", json_string(basis_name(k, i)));
		json_object_set_new(o, "shared", json_boolean(c->shared));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *ranks_json(const struct ana_clocks *k)
{
	json_t *a = json_array();
	for (size_t i = 0; i < k->c.nranks; i++) {
		const struct clock_rank *r = &k->c.ranks[i];
		json_t *o = est_json(&r->est, r->est.known);
		json_object_set_new(o, SK_RANK, json_integer(r->rank));
		json_object_set_new(o, SK_NODE, json_string(k->node[r->node]));
		json_object_set_new(o, "odd", json_boolean(r->odd));
		json_array_append_new(a, o);
	}
	return a;
}

void clock_text_json(json_t *o, const struct ana_clocks *k, int timeline)
{
	enum tl_clocks tl = timeline_clocks(k, timeline);
	int shown = tl != TL_ONE_NODE && tl != TL_ONE_CLOCK && tl != TL_NA;
	json_object_set_new(o, SK_CLOCK_OFFSETS,
			    shown && !k->per_rank ? nodes_json(k) : json_array());
	json_object_set_new(o, SK_CLOCK_RANKS, shown ? ranks_json(k) : json_array());
	json_object_set_new(o, SK_TIMELINE_CLOCKS, json_string(tl_clocks_name[tl]));
}

/* The least and greatest known offset of node's ranks (every rank's: node < 0). */
static void rank_range(const struct clock_offsets *c, int node, double *lo, double *hi)
{
	*lo = INFINITY, *hi = -INFINITY;
	for (size_t i = 0; i < c->nranks; i++)
		if ((node < 0 || c->ranks[i].node == node) && c->ranks[i].est.known) {
			*lo = fmin(*lo, c->ranks[i].est.offset_ms);
			*hi = fmax(*hi, c->ranks[i].est.offset_ms);
		}
}

/* "the median of 20 collectives, which scatter ± 0.009 ms, half their interquartile range" */
static void median_of(struct strbuf *md, const struct clock_est *e, int at_most)
{
	strbuf_addf(md, "the median of %zu collective%s, which scatter ", e->instances,
		    e->instances == 1 ? "" : "s");
	if (e->uncertainty_ms < CLOCK_RESOLUTION_MS / 2)
		strbuf_adds(md, "by under 1 µs");
	else
		strbuf_addf(md, "± %.3f ms%s, half their interquartile range", e->uncertainty_ms,
			    at_most ? " at most" : "");
}

/* "n2's clock is 7.30 ms ahead of n1's (the median of ...)" */
static void node_sentence(struct strbuf *md, const struct ana_clocks *k, size_t i,
			  const char *ref)
{
	const struct clock_node *c = &k->c.nodes[i];
	const struct clock_est *e = &c->est;
	double lo, hi;
	if (c->nranks > 0 && !c->shared) {
		rank_range(&k->c, (int)i, &lo, &hi);
		strbuf_addf(
			md,
			PROSE_CLOCK_RANKS_DISAGREE_WITH,
			k->node[i], lo, hi, ref);
	} else if (!e->known) {
		strbuf_addf(
			md,
			"%s's clock could not be compared with %s's (%zu collective%s matched, fewer than %d)",
			k->node[i], ref, e->instances, e->instances == 1 ? "" : "s",
			CLOCK_MIN_INSTANCES);
	} else {
		int agrees = fabs(e->offset_ms) < 0.005; /* "0.00 ms" as printed */
		if (agrees)
			strbuf_addf(md, "%s's clock agrees with %s's (", k->node[i], ref);
		else
			strbuf_addf(md, "%s's clock is %.2f ms %s %s's (", k->node[i],
				    fabs(e->offset_ms), e->offset_ms > 0 ? "ahead of" : "behind",
				    ref);
		median_of(md, e, 0);
		strbuf_adds(md, !agrees && fabs(e->offset_ms) <= e->uncertainty_ms
					? ", so within their scatter)"
					: ")");
	}
}

/* Traces timed from each profiler's start: every rank's offset is its own. */
static void per_rank_sentence(struct strbuf *md, const struct ana_clocks *k, const char *ref)
{
	struct clock_est worst = { 0, 0, 0, 1 };
	size_t unknown = 0, known = 0, one = 0;
	for (size_t i = 1; i < k->c.nranks; i++) {
		const struct clock_est *e = &k->c.ranks[i].est;
		if (!e->known) {
			unknown++;
			continue;
		}
		worst.uncertainty_ms = fmax(worst.uncertainty_ms, e->uncertainty_ms);
		worst.instances = known++ && worst.instances < e->instances ? worst.instances
									      : e->instances;
		one = i;
	}
	double lo, hi;
	rank_range(&k->c, -1, &lo, &hi);
	strbuf_adds(
		md,
		PROSE_CLOCK_RANKS_TRACES_COUNT);
	if (known == 1)
		strbuf_addf(md, "rank %d's offset to %s is %.2f ms (", k->c.ranks[one].rank, ref,
			    k->c.ranks[one].est.offset_ms);
	else
		strbuf_addf(md, "the ranks' offsets to %s run from %.2f to %.2f ms (each ", ref,
			    fmin(lo, 0), fmax(hi, 0));
	median_of(md, &worst, known > 1);
	/* (the sign said only where one is negative: "0.00 to 9.77 ms" has none) */
	if (known == 1 ? k->c.ranks[one].est.offset_ms < 0 : lo < 0)
		strbuf_adds(md, "; negative: the profiler started later");
	strbuf_addf(md, "), and each rank is put on %s's time by its own", ref);
	if (unknown)
		strbuf_addf(
			md,
			"; %zu rank%s could not be compared (fewer than %d collectives matched)",
			unknown, unknown == 1 ? "" : "s", CLOCK_MIN_INSTANCES);
}

static void odd_sentences(struct strbuf *md, const struct ana_clocks *k)
{
	for (size_t i = 0; i < k->c.nranks; i++) {
		const struct clock_rank *r = &k->c.ranks[i];
		const struct clock_node *c = &k->c.nodes[r->node];
		if (r->odd)
			strbuf_addf(
				md,
				PROSE_CLOCK_RANK_OWN_ESTIMATE,
				r->rank, r->est.offset_ms, k->node[r->node], c->est.offset_ms);
	}
}

static void uncorrected(struct strbuf *md, int timeline)
{
	strbuf_addf(
		md,
		PROSE_CLOCK_CLOCKS_RANKS_CLOCKS,
		CLOCK_MIN_INSTANCES,
		timeline ? ": `timeline.json` shows each on its own clock, uncorrected" : "");
}

static void ending(struct strbuf *md, enum tl_clocks tl, const char *ref, int per_rank)
{
	const char *what = per_rank ? "time" : "clock";
	if (tl == TL_NO_TIMELINE)
		strbuf_adds(md, "; the step data has no times for `timeline.json` to put on them.");
	else if (tl == TL_CORRECTED)
		strbuf_addf(md,
			    ". `timeline.json` is corrected: every rank's events are on %s's %s.",
			    ref, what);
	else
		strbuf_addf(
			md,
			". `timeline.json` puts the ranks whose offset is known on %s's %s; the others stay on their own.",
			ref, what);
}

void clock_text_md(struct strbuf *md, const struct ana_clocks *k, int timeline)
{
	enum tl_clocks tl = timeline_clocks(k, timeline);
	if (tl == TL_ONE_NODE || tl == TL_ONE_CLOCK || tl == TL_NA)
		return;
	if (tl == TL_UNCORRECTED || k->c.basis == CLOCK_NONE) {
		uncorrected(md, timeline);
		return;
	}
	char ref[160]; /* the reference clock: the first rank's node's when it has one */
	if (k->c.nodes[k->c.ref_node].shared && !k->per_rank)
		snprintf(ref, sizeof ref, "%s", k->node[k->c.ref_node]);
	else
		snprintf(ref, sizeof ref, "rank %d", k->c.nranks ? k->c.ranks[0].rank : 0);
	strbuf_adds(md, "Clocks: ");
	size_t said = 0;
	if (k->per_rank)
		per_rank_sentence(md, k, ref);
	for (size_t i = 0; !k->per_rank && i < k->c.nnodes; i++) {
		const struct clock_node *c = &k->c.nodes[i];
		if ((int)i == k->c.ref_node && (c->shared || c->nranks == 0))
			continue; /* the reference clock */
		strbuf_adds(md, said++ ? "; " : "");
		node_sentence(md, k, i, ref);
	}
	ending(md, tl, ref, k->per_rank);
	odd_sentences(md, k);
	strbuf_adds(md, "\n\n");
}
