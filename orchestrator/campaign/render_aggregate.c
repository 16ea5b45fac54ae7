/* render_aggregate: the aggregation job's script from templates/aggregate.sbatch,
 * with the resources job_spec_aggregate gives (what the backend submits).
 * SPDX-License-Identifier: MIT */
#include "render.h"
#include "jobspec.h"

#include "util/err.h"
#include "util/fsio.h"

#include <stdio.h>
#include <stdlib.h>

static void aggregate_vars(const struct campaign *c, const struct render_aggregate_ctx *ctx,
			   const char *bin, struct render_vars *rv)
{
	render_var_scalar(rv, "run_id", ctx->run_id);
	render_var_scalar(rv, "campaign", c->name);
	render_var_scalar(rv, "job_name", ctx->job_name);
	render_var_scalar(rv, "comment", ctx->comment);
	render_var_scalar(rv, "output", ctx->output);
	render_var_scalar(rv, "dependency", ctx->dependency);
	struct job_spec js;
	job_spec_aggregate(c, &js);
	render_var_scalar(rv, "partition", js.partition);
	render_var_scalar(rv, "account", js.account);
	render_var_scalar(rv, "qos", js.qos);
	render_var_scalar(rv, "time", js.time);
	render_var_scalar(rv, "campaign_bin", bin);
	render_var_scalar(rv, "run_dir", ctx->run_dir);
	char nodes[24], cpus[24] = "";
	snprintf(nodes, sizeof nodes, "%d", js.nodes);
	if (js.cpus_per_task > 0)
		snprintf(cpus, sizeof cpus, "%d", js.cpus_per_task);
	render_var_scalar(rv, "analysis_nodes", nodes);
	render_var_scalar(rv, "analysis_cpus_per_task", cpus);
}

int render_aggregate(const struct campaign *c, const struct render_aggregate_ctx *ctx,
		     struct strbuf *out)
{
	char *tdir = render_templates_dir(ctx->bin_dir), *tmpl = NULL;
	struct strbuf tp = STRBUF_INIT, bin = STRBUF_INIT;
	struct render_vars rv = { 0 };
	int rc = tdir ? 0 : ERR_NOTFOUND;
	if (rc == 0) {
		strbuf_addf(&tp, "%s/aggregate.sbatch", tdir);
		rc = fsio_read(tp.buf, 1 << 20, &tmpl, NULL);
	}
	if (rc == 0) {
		strbuf_addf(&bin, "%s/campaign", ctx->bin_dir);
		aggregate_vars(c, ctx, bin.buf, &rv);
		rc = render_template(tp.buf, tmpl, &rv, out);
	}
	render_vars_free(&rv);
	free(tdir);
	free(tmpl);
	strbuf_free(&tp);
	strbuf_free(&bin);
	return rc;
}
