/* cmd_validate: `campaign validate FILE` checks a campaign and prints the
 * scenarios it expands to; exit 2 with every problem when it is invalid.
 * SPDX-License-Identifier: MIT */
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/campaign/program.h"
#include "cmd.h"

#include <stdio.h>

/* Loads FILE, printing every problem; shared by validate, render and submit. */
int cmd_load_campaign(const char *file, struct campaign *c)
{
	struct diags d;
	diags_init(&d, file);
	int rc = campaign_load(file, c, &d);
	if (rc < 0) {
		diags_print(&d, stderr);
		fprintf(stderr, "%s: %zu problem%s; nothing was done\n", file, d.n,
			d.n == 1 ? "" : "s");
	}
	diags_free(&d);
	return rc < 0 ? EXIT_USAGE : 0;
}

static int validate_exec(const struct cmd_entry *self, struct args *a)
{
	struct campaign c;
	(void)self;
	int rc = cmd_load_campaign(a->pos[0], &c);
	if (rc)
		return rc;
	printf("%s: campaign %s is valid: %zu scenario%s\n", a->pos[0], c.name, c.n_scenarios,
	       c.n_scenarios == 1 ? "" : "s");
	printf("%-28s %5s %6s %5s %6s %-6s %s\n", "SCENARIO", "NODES", "TASKS", "GPUS", "RANKS",
	       "COMM", "TIME");
	for (size_t i = 0; i < c.n_scenarios; i++) {
		const struct scenario *s = &c.scenarios[i];
		printf("%-28s %5d %6d %5d %6d %-6s %s\n", s->name, s->nodes, s->tasks_per_node,
		       s->gpus_per_node, s->nodes * s->tasks_per_node, s->backend, s->time);
	}
	program_check(&c, "campaign validate", stderr);
	campaign_free(&c);
	return EXIT_OK;
}

const struct cmd_entry cmd_validate_entry = {
	.name = "validate",
	.usage = "FILE",
	.summary = "check a campaign file and print the scenarios it expands to",
	.flags = 0,
	.min_pos = 1,
	.max_pos = 1,
	.exec = validate_exec,
};
