/* cmd_resubmit: `campaign resubmit RUN --failed | SCENARIO...` runs
 * scenarios again in the same run as new attempts. Each earlier attempt's
 * outputs move to <scenario>/attempts/<n>/ and its row stays in the store;
 * the analysis uses each scenario's latest successful attempt.
 * SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "orchestrator/backend/backend_pick.h"
#include "util/err.h"
#include "util/fault.h"
#include "orchestrator/store/snapshot.h"
#include "orchestrator/submission.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pick {
	int failed;   /* --failed */
	char **names; /* named scenarios */
	int nnames;
	int planned;  /* attempts planned */
};

static int named(const struct pick *p, const char *scenario)
{
	for (int i = 0; i < p->nnames; i++)
		if (!strcmp(p->names[i], scenario))
			return 1;
	return 0;
}

/* Named scenarios must exist and have ended. */
static int check_names(const struct pick *p, const struct snapshot *js)
{
	for (int i = 0; i < p->nnames; i++) {
		const struct job_row *j = NULL;
		for (size_t k = 0; k < js->n && !j; k++)
			if (!strcmp(js->latest[k]->scenario, p->names[i]))
				j = js->latest[k];
		if (!j)
			return err_set(ERR_NOTFOUND, "the run has no scenario '%s'", p->names[i]);
		if (!job_state_is_final(j->state))
			return err_set(ERR_USAGE,
				       "scenario %s is %s (attempt %d): only ended scenarios can be resubmitted; cancel it first with `campaign cancel RUN %s`",
				       j->scenario, job_state_name(j->state), j->attempt,
				       j->scenario);
	}
	return 0;
}

static int plan_again(struct run *r, const struct job_row *j)
{
	int attempt;
	int rc = run_archive_attempt(r, j->scenario, j->attempt);
	if (rc == 0) {
		fault_point("after-archive", j->scenario);
		rc = store_job_plan(r->st, j->scenario, j->nodes, j->ntasks, &attempt);
	}
	if (rc == 0)
		printf("%s: attempt %d planned; attempt %d (%s%s%s) is kept in %s/attempts/%d/\n",
		       j->scenario, attempt, j->attempt, job_state_name(j->state),
		       j->reason && *j->reason ? ": " : "", j->reason ? j->reason : "", j->scenario,
		       j->attempt);
	return rc;
}

/* Under the submission lock: archive and plan every chosen scenario. */
static int prepare(struct run *r, void *ctx)
{
	struct pick *p = ctx;
	struct snapshot js = SNAPSHOT_INIT;
	int rc = snapshot_load(r->st, &js);
	if (rc == 0)
		rc = check_names(p, &js);
	for (size_t i = 0; rc == 0 && i < js.n; i++) {
		const struct job_row *j = js.latest[i];
		int failed = job_state_is_final(j->state) && j->state != JS_COMPLETED;
		if (!(p->failed && failed) && !named(p, j->scenario))
			continue;
		/* A new attempt makes the analysis due again (the store counts attempts). */
		if ((rc = plan_again(r, j)) == 0)
			p->planned++;
	}
	snapshot_free(&js);
	return rc;
}

static int resubmit_exec(const struct cmd_entry *self, struct args *a)
{
	struct pick p = { .failed = args_has(a, 'f'), .names = a->pos + 1, .nnames = a->npos - 1 };
	if (!p.failed && !p.nnames) {
		fprintf(stderr,
			"campaign resubmit: say what to run again: --failed, or scenario names\n");
		cmd_usage(self, stderr);
		return EXIT_USAGE;
	}
	struct run *r = a->run;
	const struct backend_ops *be = backend_for_run(r);
	struct snapshot js = SNAPSHOT_INIT;
	struct submission_opts so = { .wait = args_has(a, 'w'),
				      .no_aggregation_job = args_has(a, 'n'),
				      .prepare = prepare,
				      .ctx = &p };
	/* Which jobs failed is the controller's to say: refresh first. */
	int rc = backend_refresh(be, r, &js);
	snapshot_free(&js);
	if (rc == 0)
		rc = submission_run(r, be, &so);
	if (rc < 0)
		return rc;
	if (!p.planned) {
		printf("run %s: nothing to resubmit: no scenario has failed\n", r->id);
	} else if (so.wait) {
		return submission_wait(r, be, stdout);
	} else {
		printf("resubmitted %d scenario%s to %s; follow it with: ", p.planned,
		       p.planned == 1 ? "" : "s", be->name);
		cmd_print_run_command(stdout, a, "watch", r->id);
		putchar('\n');
	}
	return EXIT_OK;
}

const struct cmd_entry cmd_resubmit_entry = {
	.name = "resubmit",
	.usage = "[--failed] [--wait] [--no-aggregation-job] [--results DIR] RUN [SCENARIO...]",
	.summary = "run failed (or named) scenarios again in the same run, keeping every attempt",
	.flags = CMD_RUN | CMD_OUTLIVES_OUTPUT,
	.min_pos = 1,
	.max_pos = -1,
	.exec = resubmit_exec,
	.opts = (const struct optdef[]){
		{ 'f', "failed", NULL,
		  "every scenario whose latest attempt ended other than COMPLETED" },
		OPT_WAIT,
		OPT_NO_AGGREGATION_JOB,
		OPT_END },
};
