/* knob: applying a knob (campaign.h) to a campaign's scenarios, and telling
 * whether it changes anything; loading knobs lives in load_knobs.c.
 * SPDX-License-Identifier: MIT */
#include "campaign.h"

#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

const struct knob *campaign_knob(const struct campaign *c, const char *kind)
{
	for (size_t i = 0; i < c->n_knobs; i++)
		if (!strcmp(c->knobs[i].kind, kind))
			return &c->knobs[i];
	return NULL;
}

/* Whether have lacks one of want's keys or holds another value (NULL: passed
 * through from the submitting environment, env's { from_env: true }). */
static int kv_differs(const struct kvlist *have, const struct kvlist *want)
{
	for (size_t i = 0; i < want->n; i++) {
		const struct kv *w = &want->items[i], *h = kvlist_find(have, w->key);
		if (!h || !h->value != !w->value || (w->value && strcmp(h->value, w->value)))
			return 1;
	}
	return 0;
}

static int scenario_changes(const struct campaign *c, const struct scenario *s,
			    const struct knob *k)
{
	int batch = s->batch_per_rank ? s->batch_per_rank : c->analysis.batch_per_rank;
	return kv_differs(&s->params, &k->params) || kv_differs(&s->env, &k->env) ||
	       (k->tasks_per_node && k->tasks_per_node != s->tasks_per_node) ||
	       (k->batch_per_rank && (k->batch_per_rank != batch || s->global_batch));
}

int knob_changes(const struct campaign *c, const struct knob *k)
{
	for (size_t i = 0; i < c->n_scenarios; i++)
		if (!c->scenarios[i].probe && scenario_changes(c, &c->scenarios[i], k))
			return 1;
	return 0;
}

void knob_apply(struct campaign *c, const struct knob *k)
{
	for (size_t i = 0; i < c->n_scenarios; i++) {
		struct scenario *s = &c->scenarios[i];
		if (s->probe)
			continue;
		for (size_t j = 0; j < k->params.n; j++)
			kvlist_set(&s->params, k->params.items[j].key, k->params.items[j].value);
		for (size_t j = 0; j < k->env.n; j++)
			kvlist_set(&s->env, k->env.items[j].key, k->env.items[j].value);
		if (k->tasks_per_node)
			s->tasks_per_node = k->tasks_per_node;
		if (k->batch_per_rank) {
			s->batch_per_rank = k->batch_per_rank;
			s->global_batch = 0;
		}
	}
}

void knob_free(struct knob *k)
{
	free(k->kind);
	kvlist_free(&k->params);
	kvlist_free(&k->env);
	memset(k, 0, sizeof *k);
}
