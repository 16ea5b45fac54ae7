/* clock_text: the node clocks of a scenario, in summary.json and in words. */
#include "analyzers/write/clock_text.h"

#include "analyzers/summary_keys.h"
#include "util/jsonio.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdlib.h>

enum tl_clocks { TL_ONE_NODE, TL_ONE_CLOCK, TL_CORRECTED, TL_PARTLY, TL_UNCORRECTED };

static enum tl_clocks timeline_clocks(const struct ana_clocks *k)
{
	if (k->nnodes < 2)
		return TL_ONE_NODE;
	size_t known = 0;
	for (size_t i = 1; i < k->c.nnodes; i++)
		known += k->c.nodes[i].known;
	if (known == 0 && k->one_clock)
		return TL_ONE_CLOCK;
	return known == 0 ? TL_UNCORRECTED : known + 1 < k->nnodes ? TL_PARTLY : TL_CORRECTED;
}

static const char *const tl_clocks_name[] = { "one node", "one clock", "corrected",
					      "partly corrected", "uncorrected" };

static const char *basis_name(const struct ana_clocks *k, size_t node)
{
	if (node == 0)
		return "reference";
	if (!k->c.nodes[node].known)
		return "none";
	return k->c.basis == CLOCK_INSPECTOR ? "nccl-inspector" : "collectives";
}

void clock_text_json(json_t *o, const struct ana_clocks *k)
{
	json_t *nodes = json_array(), *odd = json_array();
	enum tl_clocks tl = timeline_clocks(k);
	for (size_t i = 0; tl != TL_ONE_NODE && tl != TL_ONE_CLOCK && i < k->c.nnodes; i++) {
		const struct clock_node *c = &k->c.nodes[i];
		json_t *off = c->known ? jsonio_real3(c->offset_ms) : json_null();
		json_t *unc = c->known ? jsonio_real3(c->uncertainty_ms) : json_null();
		json_array_append_new(nodes, json_pack("{s:s, s:o, s:o, s:I, s:s}", SK_NODE,
						       k->node[i], SK_OFFSET_MS, off,
						       SK_UNCERTAINTY_MS, unc, "instances",
						       (json_int_t)c->instances, "basis",
						       basis_name(k, i)));
	}
	for (size_t i = 0; i < k->c.nodd; i++)
		json_array_append_new(odd, json_pack("{s:i, s:s, s:o}", SK_RANK, k->c.odd[i].rank,
						     SK_NODE, k->node[k->c.odd[i].node],
						     SK_OFFSET_MS,
						     jsonio_real3(k->c.odd[i].offset_ms)));
	json_object_set_new(o, SK_CLOCK_OFFSETS, nodes);
	json_object_set_new(o, SK_CLOCK_ODD_RANKS, odd);
	json_object_set_new(o, SK_TIMELINE_CLOCKS, json_string(tl_clocks_name[tl]));
}

/* "n2's clock is 7.31 ms ahead of n1 (± 0.04 ms, from 120 collectives)" */
static void node_sentence(struct strbuf *md, const struct ana_clocks *k, size_t i)
{
	const struct clock_node *c = &k->c.nodes[i];
	if (!c->known) {
		strbuf_addf(md, "%s's clock could not be compared with %s's (%zu collective%s matched, fewer than %d)",
			    k->node[i], k->node[0], c->instances, c->instances == 1 ? "" : "s",
			    CLOCK_MIN_INSTANCES);
		return;
	}
	if (fabs(c->offset_ms) < CLOCK_RESOLUTION_MS)
		strbuf_addf(md, "%s's clock agrees with %s's", k->node[i], k->node[0]);
	else
		strbuf_addf(md, "%s's clock is %.2f ms %s of %s's", k->node[i], fabs(c->offset_ms),
			    c->offset_ms > 0 ? "ahead" : "behind", k->node[0]);
	strbuf_addf(md, " (± %.3f ms, from %zu collective%s)", c->uncertainty_ms, c->instances,
		    c->instances == 1 ? "" : "s");
}

static void odd_sentences(struct strbuf *md, const struct ana_clocks *k)
{
	for (size_t i = 0; i < k->c.nodd; i++) {
		const struct clock_rank *r = &k->c.odd[i];
		const struct clock_node *c = &k->c.nodes[r->node];
		strbuf_addf(md, " Rank %d's own estimate (%.2f ms) disagrees with its node %s's (%.2f ± %.3f ms): it does not leave the collectives with the others, or it runs on another clock.",
			    r->rank, r->offset_ms, k->node[r->node], c->offset_ms,
			    c->uncertainty_ms);
	}
}

void clock_text_md(struct strbuf *md, const struct ana_clocks *k)
{
	enum tl_clocks tl = timeline_clocks(k);
	if (tl == TL_ONE_NODE || tl == TL_ONE_CLOCK)
		return;
	if (tl == TL_UNCORRECTED) {
		strbuf_addf(md, "Clocks: the nodes' clocks could not be compared (no blocking collective of the traces matched across nodes %d times or more): `timeline.json` shows each node on its own clock, uncorrected, and nothing here rests on when ranks started something (stragglers and waits come from durations).\n\n",
			    CLOCK_MIN_INSTANCES);
		return;
	}
	strbuf_adds(md, "Clocks: ");
	for (size_t i = 1; i < k->c.nnodes; i++) {
		strbuf_adds(md, i == 1 ? "" : "; ");
		node_sentence(md, k, i);
	}
	strbuf_adds(md, tl == TL_CORRECTED
				? ". `timeline.json` is corrected: every node's events are on the first node's clock."
				: ". `timeline.json` is corrected where the offset is known; the other nodes stay on their own clocks.");
	odd_sentences(md, k);
	strbuf_adds(md, "\n\n");
}
