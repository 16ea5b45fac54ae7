/* clock_text: the clocks of a scenario's nodes and ranks, in summary.json and in words. */
#include "analyzers/write/clock_text.h"

#include "analyzers/summary_keys.h"
#include "util/jsonio.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdlib.h>

enum tl_clocks { TL_ONE_NODE, TL_ONE_CLOCK, TL_CORRECTED, TL_PARTLY, TL_UNCORRECTED, TL_NA };

static const char *const tl_clocks_name[] = { "one node",	  "one clock",	 "corrected",
					      "partly corrected", "uncorrected", "n/a" };

/* The rank's times are put on the first rank's clock (its shift is known). */
static int shifted(const struct clock_offsets *c, const struct clock_rank *r)
{
	const struct clock_node *k = &c->nodes[r->node];
	return (k->shared && k->est.known) || r->est.known;
}

static enum tl_clocks timeline_clocks(const struct ana_clocks *k)
{
	const struct clock_offsets *c = &k->c;
	if (k->nnodes == 0)
		return TL_NA; /* not analysed: nothing known of its ranks */
	if (c->basis == CLOCK_NONE && (k->one_clock || k->nnodes < 2))
		return k->one_clock && k->nnodes > 1 ? TL_ONE_CLOCK : TL_ONE_NODE;
	if (k->nnodes < 2 && c->nodes[0].shared)
		return TL_ONE_NODE; /* one node, one clock: nothing to correct */
	size_t done = 0;
	for (size_t i = 0; i < c->nranks; i++)
		done += shifted(c, &c->ranks[i]);
	if (c->basis == CLOCK_NONE || done <= 1)
		return TL_UNCORRECTED;
	return done == c->nranks ? TL_CORRECTED : TL_PARTLY;
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

void clock_text_json(json_t *o, const struct ana_clocks *k)
{
	enum tl_clocks tl = timeline_clocks(k);
	int shown = tl != TL_ONE_NODE && tl != TL_ONE_CLOCK && tl != TL_NA;
	json_object_set_new(o, SK_CLOCK_OFFSETS,
			    shown && !k->per_rank ? nodes_json(k) : json_array());
	json_object_set_new(o, SK_CLOCK_RANKS, shown ? ranks_json(k) : json_array());
	json_object_set_new(o, SK_TIMELINE_CLOCKS, json_string(tl_clocks_name[tl]));
}

/* The least and greatest known offset of node's ranks. */
static void rank_range(const struct clock_offsets *c, int node, double *lo, double *hi)
{
	*lo = INFINITY, *hi = -INFINITY;
	for (size_t i = 0; i < c->nranks; i++)
		if (c->ranks[i].node == node && c->ranks[i].est.known) {
			*lo = fmin(*lo, c->ranks[i].est.offset_ms);
			*hi = fmax(*hi, c->ranks[i].est.offset_ms);
		}
}

/* "n2's clock is 7.31 ms ahead of rank 0's (± 0.04 ms, from 120 collectives)" */
static void node_sentence(struct strbuf *md, const struct ana_clocks *k, size_t i,
			  const char *ref)
{
	const struct clock_node *c = &k->c.nodes[i];
	double lo, hi;
	if (c->nranks > 0 && !c->shared) {
		rank_range(&k->c, (int)i, &lo, &hi);
		strbuf_addf(
			md,
			"the ranks of %s are not on one clock (their offsets to %s run from %.2f to %.2f ms: traces timed from each process's own start), so each is put on %s's by its own offset",
			k->node[i], ref, lo, hi, ref);
	} else if (!c->est.known) {
		strbuf_addf(
			md,
			"%s's clock could not be compared with %s's (%zu collective%s matched, fewer than %d)",
			k->node[i], ref, c->est.instances, c->est.instances == 1 ? "" : "s",
			CLOCK_MIN_INSTANCES);
	} else {
		if (fabs(c->est.offset_ms) < CLOCK_RESOLUTION_MS)
			strbuf_addf(md, "%s's clock agrees with %s's", k->node[i], ref);
		else
			strbuf_addf(md, "%s's clock is %.2f ms %s %s's", k->node[i],
				    fabs(c->est.offset_ms),
				    c->est.offset_ms > 0 ? "ahead of" : "behind", ref);
		strbuf_addf(md, " (± %.3f ms, from %zu collective%s)", c->est.uncertainty_ms,
			    c->est.instances, c->est.instances == 1 ? "" : "s");
	}
}

static void odd_sentences(struct strbuf *md, const struct ana_clocks *k)
{
	for (size_t i = 0; i < k->c.nranks; i++) {
		const struct clock_rank *r = &k->c.ranks[i];
		const struct clock_node *c = &k->c.nodes[r->node];
		if (r->odd)
			strbuf_addf(
				md,
				" Rank %d's own estimate (%.2f ms) disagrees with its node %s's (%.2f ± %.3f ms): it does not leave the collectives with the others, or it runs on another clock.",
				r->rank, r->est.offset_ms, k->node[r->node], c->est.offset_ms,
				c->est.uncertainty_ms);
	}
}

/* Traces timed from each process's own start: every rank's offset is its own. */
static void per_rank_sentence(struct strbuf *md, const struct ana_clocks *k, const char *ref)
{
	double lo = INFINITY, hi = -INFINITY, unc = 0;
	size_t least = 0, unknown = 0, known = 0, one = 0;
	for (size_t i = 1; i < k->c.nranks; i++) {
		const struct clock_est *e = &k->c.ranks[i].est;
		unknown += !e->known;
		if (!e->known)
			continue;
		lo = fmin(lo, e->offset_ms), hi = fmax(hi, e->offset_ms);
		unc = fmax(unc, e->uncertainty_ms);
		least = known++ && least < e->instances ? least : e->instances;
		one = i;
	}
	strbuf_adds(
		md,
		"the ranks' traces count each from its own process's start (the legacy profiler's array form), on no clock they share, so ");
	if (known == 1)
		strbuf_addf(
			md,
			"rank %d is put on %s's by its offset, %.2f ms (± %.3f ms, from %zu collectives)",
			k->c.ranks[one].rank, ref, lo, unc, least);
	else
		strbuf_addf(
			md,
			"each is put on %s's by its own offset, from %.2f to %.2f ms (± %.3f ms at most, from %zu collectives or more each)",
			ref, lo, hi, unc, least);
	if (unknown)
		strbuf_addf(
			md,
			"; %zu rank%s could not be compared (fewer than %d collectives matched)",
			unknown, unknown == 1 ? "" : "s", CLOCK_MIN_INSTANCES);
}

void clock_text_md(struct strbuf *md, const struct ana_clocks *k, int timeline)
{
	enum tl_clocks tl = timeline_clocks(k);
	if (tl == TL_ONE_NODE || tl == TL_ONE_CLOCK || tl == TL_NA)
		return;
	if (tl == TL_UNCORRECTED) {
		strbuf_addf(
			md,
			"Clocks: the ranks' clocks could not be compared (no blocking collective of the traces matched across them %d times or more): `timeline.json` shows each on its own clock, uncorrected, and nothing here rests on when ranks started something (stragglers and waits come from durations).\n\n",
			CLOCK_MIN_INSTANCES);
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
	if (!timeline)
		strbuf_adds(md,
			    " (the step data has no times for `timeline.json` to put on them).");
	else if (tl == TL_CORRECTED)
		strbuf_addf(
			md,
			". `timeline.json` is corrected: every rank's events are on %s's clock.",
			ref);
	else
		strbuf_addf(
			md,
			". `timeline.json` puts the ranks whose offset is known on %s's clock; the others stay on their own.",
			ref);
	odd_sentences(md, k);
	strbuf_adds(md, "\n\n");
}
