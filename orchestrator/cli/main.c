/* main: the command table, global --help/--version, and dispatch.
 * Adding a command means one cmd_<name>.c and one line below.
 * SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "docgen.h"
#include "orchestrator/campaign/builtins.h"
#include "orchestrator/campaign/campaign.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CAMPAIGN_VERSION
#define CAMPAIGN_VERSION "0.1.0"
#endif

extern const struct cmd_entry cmd_validate_entry, cmd_render_entry, cmd_submit_entry,
	cmd_status_entry, cmd_aggregate_entry, cmd_launch_entry, cmd_cancel_entry,
	cmd_supervise_entry, cmd_watch_entry, cmd_paper_entry, cmd_profile_rank_entry,
	cmd_collect_entry, cmd_compare_entry, cmd_resume_entry, cmd_resubmit_entry,
	cmd_analyze_shard_entry, cmd_ls_entry, cmd_logs_entry, cmd_try_entry, cmd_bisect_entry,
	cmd_archive_attempt_entry;

static const struct cmd_entry *const commands[] = {
	&cmd_validate_entry,
	&cmd_render_entry,
	&cmd_submit_entry,
	&cmd_status_entry,
	&cmd_watch_entry,
	&cmd_cancel_entry,
	&cmd_resume_entry,
	&cmd_resubmit_entry,
	&cmd_aggregate_entry,
	&cmd_compare_entry,
	&cmd_try_entry,
	&cmd_bisect_entry,
	&cmd_ls_entry,
	&cmd_logs_entry,
	&cmd_paper_entry,
	&cmd_launch_entry,
	&cmd_supervise_entry,
	&cmd_profile_rank_entry,
	&cmd_collect_entry,
	&cmd_analyze_shard_entry,
	&cmd_archive_attempt_entry,
	NULL,
};

static void usage(FILE *out, int all)
{
	docgen_usage(out, commands, all);
}

static const struct cmd_entry *find(const char *name)
{
	for (int i = 0; commands[i]; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

/* `campaign help [--all | --man | --completion bash|zsh | --keys | --placeholders | COMMAND]` */
static int help(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[2], "--man")) {
		docgen_man(stdout, commands, CAMPAIGN_VERSION);
		return EXIT_OK;
	}
	if (argc >= 3 && !strcmp(argv[2], "--keys")) { /* docs/campaign-format.md's key tables */
		campaign_keys_doc(stdout);
		return EXIT_OK;
	}
	if (argc >= 3 && !strcmp(argv[2], "--placeholders")) { /* and its placeholder table */
		builtins_doc(stdout);
		return EXIT_OK;
	}
	if (argc >= 3 && !strcmp(argv[2], "--completion")) {
		if (argc < 4 || docgen_completion(stdout, commands, argv[3]) < 0) {
			fprintf(stderr, "campaign help: --completion takes bash or zsh\n");
			return EXIT_USAGE;
		}
		return EXIT_OK;
	}
	if (argc >= 3 && strcmp(argv[2], "--all")) {
		const struct cmd_entry *e = find(argv[2]);
		if (!e) {
			fprintf(stderr,
				"campaign help: '%s' is not a command. See 'campaign help --all'.\n",
				argv[2]);
			return EXIT_USAGE;
		}
		cmd_usage(e, stdout);
		return EXIT_OK;
	}
	usage(stdout, argc >= 3);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr, 0);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
		return help(argc, argv);
	if (!strcmp(argv[1], "--version")) {
		printf("campaign %s\n", CAMPAIGN_VERSION);
		return EXIT_OK;
	}
	const struct cmd_entry *e = find(argv[1]);
	if (e)
		return cmd_dispatch(e, argc - 1, argv + 1);
	fprintf(stderr, "campaign: '%s' is not a command. See 'campaign --help'.\n", argv[1]);
	return EXIT_USAGE;
}
