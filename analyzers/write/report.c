/* report: writes what ana_run_analyse found: BOTTLENECK_ANALYSIS.md and
 * summary.json for the run, analysis.json and report.txt per scenario.
 * Output is deterministic (fixed order and number formatting) so that the
 * same results give the same bytes.
 * SPDX-License-Identifier: MIT */
#include "analyzers/analysis.h"
#include "analyzers/write/report.h"
#include "util/run_layout.h"
#include "analyzers/advice.h"
#include "analyzers/write/data_text.h"
#include "analyzers/write/evidence.h"
#include "analyzers/write/share_text.h"
#include "analyzers/read/metrics.h"
#include "analyzers/summary_keys.h"
#include "analyzers/torchtrace.h"

#include "util/err.h"
#include "analyzers/write/figures.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzers/write/report_parts.h"

/* report.txt's line of the step times; n/a when there are no steps. */
static void txt_steps(struct strbuf *txt, const struct ana_scenario *s)
{
	if (s->steps.no_steps)
		strbuf_addf(
			txt,
			"no step boundaries: shares from the %s over a %.2f ms profiled window; median step, p95 and throughput: n/a\n",
			s->gpu.gpu_basis ? "GPU timeline" : "host's operators",
			s->steps.step_med_ms);
	else
		strbuf_addf(txt, "median step %.2f ms, p95 %.2f ms%s, %.*f %s\n",
			    s->steps.step_med_ms, s->steps.step_p95_ms,
			    s->steps.active_steps < STATS_P95_MIN_N
				    ? " (" DATA_TEXT_P95_ROUGH ")"
				    : "",
			    stats_rate_decimals(s->steps.throughput), s->steps.throughput,
			    data_text_throughput_unit(s));
}

/* report.txt's line of the shares, every one the table gives, on the verdict's basis. */
static void txt_shares(struct strbuf *txt, const struct ana_scenario *s)
{
	const char *basis = share_text_basis(s);
	if (!basis) {
		strbuf_adds(
			txt,
			"data, compute, communication, waiting for peers, I/O, other: n/a (step times only)\n");
		return;
	}
	strbuf_addf(txt, "shares of %s:", basis);
	for (int k = 0, n = 0; k < COL_COLS; k++) {
		char cell[16];
		share_text_cell(s, k, cell, sizeof cell);
		if (share_text_pct(s, k) >= 0) /* not the ones the basis has none of */
			strbuf_addf(txt, "%s %s %s %%", n++ ? "," : "", share_text_name(k), cell);
	}
	if (s->outcome.basis == BASIS_GPU)
		strbuf_adds(
			txt,
			" (data: the GPU idle while the host loaded data; other: exposed copies, other kernels and the GPU waiting for the host)");
	strbuf_adds(txt, "\n");
}

static int write_scenario_files(const struct ana_scenario *s, const struct ana_run *run)
{
	struct strbuf p = STRBUF_INIT, txt = STRBUF_INIT;
	json_t *j = scenario_json(s, run);
	strbuf_addf(&p, "%s/" JOB_ANALYSIS, s->in.job_dir);
	int rc = jsonio_write(p.buf, j);
	json_decref(j);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/" JOB_REPORT, s->in.job_dir);
	if (s->data.analysed) {
		char *ev = evidence_of(s, run);
		strbuf_addf(&txt, "scenario %s: %s%s\n%s\n", s->in.name,
			    verdict_name(s->outcome.v.verdict),
			    s->outcome.v.borderline ? " (borderline)" : "", ev);
		free(ev);
		txt_steps(&txt, s);
		txt_shares(&txt, s);
	} else {
		char *why = data_text_problem(s, run);
		strbuf_addf(&txt, "scenario %s: %s, not analysed: %s\n", s->in.name, s->in.state,
			    why);
		free(why);
	}
	if (rc == 0)
		rc = fsio_write_atomic(p.buf, txt.buf, txt.len, 0644);
	strbuf_free(&p);
	strbuf_free(&txt);
	return rc;
}

int ana_run_write(const struct ana_run *run)
{
	int rc = 0;
	for (size_t i = 0; i < run->n && rc == 0; i++)
		if (fsio_is_dir(run->sc[i].in.job_dir))
			rc = write_scenario_files(&run->sc[i], run);
	if (rc == 0) {
		struct strbuf p = STRBUF_INIT, figs = STRBUF_INIT;
		json_t *j = summary_json(run);
		strbuf_addf(&p, "%s/" RUN_SUMMARY, run->run_dir);
		rc = jsonio_write(p.buf, j);
		strbuf_addf(&figs, "%s/" RUN_FIGURES, run->run_dir);
		if (rc == 0 &&
		    figures_draw(run->run_dir, j, figs.buf, run->epoch, FIG_SVG) < 0)
			fprintf(stderr, "campaign: warning: the figures were not drawn: %s\n",
				err_last());
		if (rc == 0)
			rc = timeline_write(run);
		json_decref(j);
		strbuf_free(&p);
		strbuf_free(&figs);
	}
	return rc == 0 ? write_markdown(run) : rc;
}

int ana_run_analyse_write(struct ana_run *run, const struct trace_source *map)
{
	struct strbuf part = STRBUF_INIT, tl = STRBUF_INIT;
	strbuf_addf(&part, "%s/" RUN_PARTIAL, run->run_dir);
	strbuf_addf(&tl, "%s/" RUN_PARTIAL_TIMELINE, part.buf);
	fsio_remove_tree(tl.buf); /* an interrupted aggregation's */
	struct trace_source src = { map ? map->part : NULL, map ? map->ctx : NULL,
				    fsio_mkdir_p(tl.buf, 0755) == 0 ? tl.buf : NULL };
	run->src = &src;
	int rc = ana_run_analyse(run);
	if (rc == 0)
		rc = ana_run_write(run);
	run->src = NULL;
	fsio_remove_tree(tl.buf);
	rmdir(part.buf); /* when no map step left its results there */
	strbuf_free(&tl);
	strbuf_free(&part);
	return rc;
}
