/* SPDX-License-Identifier: MIT */
#include "snapshot.h"

#include "util/strbuf.h"

#include <stdlib.h>

void snapshot_free(struct snapshot *js)
{
	job_rows_free(js->all, js->n_all);
	free(js->latest);
	*js = (struct snapshot)SNAPSHOT_INIT;
}

int snapshot_load(struct store *st, struct snapshot *js)
{
	snapshot_free(js);
	int rc = store_jobs_all(st, &js->all, &js->n_all);
	if (rc < 0) {
		js->all = NULL;
		js->n_all = 0;
		return rc;
	}
	js->latest = xcalloc(js->n_all + 1, sizeof *js->latest);
	for (size_t first = 0, end; first < js->n_all; first = end) {
		end = job_rows_scenario_end(js->all, js->n_all, first);
		js->latest[js->n++] = &js->all[end - 1];
	}
	return 0;
}

int run_is_done(const struct snapshot *js, int *failed)
{
	int done = 1;
	*failed = 0;
	for (size_t i = 0; i < js->n; i++) {
		if (!job_state_is_final(js->latest[i]->state))
			done = 0;
		else if (js->latest[i]->state != JS_COMPLETED)
			(*failed)++;
	}
	return done;
}
