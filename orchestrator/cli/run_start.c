/* run_start: what submit and try do with a run they have created: submit
 * its scenarios, say how to follow it or wait for its end, and when the
 * submission fails, say what was kept and how to go on. Output that has
 * lost its terminal or reader does not stop them (util/hangup.h).
 * SPDX-License-Identifier: MIT */
#include "cmd.h"
#include "orchestrator/submission.h"
#include "util/err.h"

#include <stdio.h>

int cmd_start_run(const char *who, const struct args *a, struct run *r,
		  const struct backend_ops *be, int wait)
{
	/* --no-aggregation-job concerns the scheduler's aggregation job only: the
	 * local executor's supervisor always runs. */
	struct submission_opts so = { .wait = wait, .no_aggregation_job = args_has(a, 'n') };
	run_follow_output(r);
	int rc = submission_run(r, be, &so);
	run_follow_output(r);
	if (rc == 0 && so.wait)
		rc = submission_wait(r, be, stdout);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\nWhat was recorded is kept. Once the cause is fixed, `",
			who, err_last());
		cmd_print_run_command(stderr, a, "resume", r->id);
		fputs("` submits what is missing and `", stderr);
		cmd_print_run_command(stderr, a, "resubmit --failed", r->id);
		fputs("` retries refused scenarios.\n", stderr);
		return rc;
	}
	if (!so.wait) {
		printf("submitted %zu job%s to %s; follow it with: ", r->c.n_scenarios,
		       r->c.n_scenarios == 1 ? "" : "s", be->name);
		cmd_print_run_command(stdout, a, "watch", r->id);
		putchar('\n');
	}
	return rc;
}
