/* cmd_submit: `campaign submit FILE` validates the campaign, creates the
 * run (frozen campaign, rendered scripts, store), records the intent for
 * every scenario, submits them, and starts what drives the run to its end.
 * SPDX-License-Identifier: MIT */
#include "orchestrator/backend/backend_pick.h"
#include "orchestrator/campaign/campaign.h"
#include "cmd.h"
#include "orchestrator/campaign/program.h"
#include "util/err.h"
#include "util/fault.h"
#include "orchestrator/provenance.h"
#include "orchestrator/submission.h"

#include "util/fsio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int submit_exec(const struct cmd_entry *self, struct args *a)
{
	(void)self;
	struct campaign c;
	int rc = cmd_load_campaign(a->pos[0], &c);
	if (rc)
		return rc;
	const char *why;
	const struct backend_ops *be = backend_pick(args_get(a, 'b'), &why);
	if (!be) {
		campaign_free(&c);
		return ERR_USAGE;
	}
	if (*why)
		fprintf(stderr, "campaign submit: %s\n", why);
	program_check(&c, "campaign submit", stderr);
	if ((rc = submission_check_env(&c)) < 0) {
		campaign_free(&c);
		return rc;
	}
	struct provenance prov;
	char *bin = fsio_self_dir();
	provenance_collect(a->pos[0], bin, cmd_results_root(a), &prov);
	free(bin);
	char *dirty = provenance_dirty_list(&prov);
	if (dirty && args_has(a, 'c')) {
		fprintf(stderr,
			"campaign submit: --require-clean: the working tree is not clean: %s\n"
			"Commit or stash these changes (or drop --require-clean); nothing was submitted.\n",
			dirty);
		free(dirty);
		provenance_free(&prov);
		campaign_free(&c);
		return EXIT_USAGE;
	}
	free(dirty);
	struct run *r = NULL;
	rc = run_create(&c, cmd_results_root(a), be->name, cmd_journal(a), &r);
	campaign_free(&c);
	if (rc == 0 && (rc = provenance_write(r, &prov)) < 0)
		fprintf(stderr, "campaign submit: warning: provenance incomplete: %s\n",
			err_last());
	if (prov.not_git)
		fprintf(stderr, "campaign submit: %s\n", prov.not_git);
	provenance_free(&prov);
	if (rc < 0 && !r)
		return rc;
	printf("run %s\n%s\n", r->id, r->dir);
	fflush(stdout);
	fault_point("after-create", NULL);
	rc = cmd_start_run("campaign submit", a, r, be, args_has(a, 'w'));
	run_free(r);
	return rc < 0 ? cmd_exit_of(rc) : rc;
}

const struct cmd_entry cmd_submit_entry = {
	.name = "submit",
	.usage = "[--wait] [--backend auto|local|slurm] [--require-clean] [--no-aggregation-job] [--results DIR] FILE",
	.summary = "validate, render and submit every scenario of a campaign",
	.flags = CMD_RESULTS | CMD_OUTLIVES_OUTPUT,
	.min_pos = 1,
	.max_pos = 1,
	.exec = submit_exec,
	.opts = (const struct optdef[]){
		OPT_WAIT,
		OPT_BACKEND,
		{ 'c', "require-clean", NULL,
		  "refuse to submit from a work tree with uncommitted or untracked files" },
		OPT_NO_AGGREGATION_JOB,
		OPT_END },
};
