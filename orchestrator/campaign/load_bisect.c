/* load_bisect: the `bisect:` key campaign bisect writes into each tested
 * commit's campaign.yaml: its table, and the run it makes of the campaign
 * (the one scenario, its active steps, no fabric probes).
 * SPDX-License-Identifier: MIT */
#include "load_internal.h"

#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

const struct key_spec bisect_keys[] = {
	{ "of", KEY_STRING, .off = AT(bisect.of),
	  .doc = { "bisection id", NULL, "the bisection the run belongs to" } },
	{ "commit", KEY_STRING, .off = AT(bisect.commit),
	  .doc = { "commit hash", NULL, "the commit it runs" } },
	{ "scenario", KEY_STRING, .off = AT(bisect.scenario),
	  .need = "missing key 'scenario' (the one scenario a bisection runs)",
	  .doc = { "scenario name", NULL, "the one scenario the run keeps" } },
	{ "active_steps", KEY_INT, 1, BOUND_STEPS, 0, AT(bisect.active_steps),
	  .doc = { NULL, "the profile's", "the run's active steps (a rerun doubles them)" } },
	KEYS_END
};

/* The campaign reduced to bisect.scenario, its own baseline, with bisect.active_steps. */
void bisect_keep(struct loader *L, yaml_node_t *root)
{
	struct campaign *c = L->c;
	const struct scenario *keep = campaign_find(c, c->bisect.scenario);
	if (!keep || keep->probe) {
		problem(L, map_get(L, map_get(L, root, "bisect"), "scenario"), "bisect.scenario",
			"no scenario is named \"%.64s\"", c->bisect.scenario);
		return;
	}
	campaign_keep_scenario(c, (size_t)(keep - c->scenarios));
	c->analysis.fabric_probe = 0;
	free(c->analysis.baseline);
	c->analysis.baseline = xstrdup(c->scenarios[0].name);
	if (c->bisect.active_steps)
		c->profile.active_steps = c->bisect.active_steps;
}
