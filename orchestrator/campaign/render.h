/* render: job scripts from templates/ with {{placeholders}}. Values are lists
 * of items, each item a list of words. Outside #SBATCH lines every word is
 * shell-quoted (a campaign value can never run a command); in #SBATCH lines
 * words must be safe tokens and go in as they are. A line whose placeholder
 * has 0 items is dropped; with N items it is repeated N times.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_RENDER_H
#define CAMPAIGN_RENDER_H

#include "campaign.h"
#include "util/strbuf.h"
#include "util/words.h"

struct render_var {
	char *name;
	struct argv *items;
	size_t n;
	int expand_vars; /* $NAME / ${NAME} in its words expand when the job runs (env values) */
};

struct render_vars {
	struct render_var *v;
	size_t n;
};

/* Paths and names the orchestrator decided for one job. */
struct render_ctx {
	const char *run_id;
	const char *run_dir;      /* absolute */
	const char *job_dir;      /* absolute */
	const char *bin_dir;      /* where campaign and the trainers live */
	const char *templates_dir;
	const char *campaign_dir; /* absolute: the folder of the campaign file submitted */
};

void render_var_scalar(struct render_vars *rv, const char *name, const char *value);
void render_var_words(struct render_vars *rv, const char *name, const struct argv *words);
/* Adds an item to a list variable (creating it with 0 items if needed). */
void render_var_item(struct render_vars *rv, const char *name, const struct argv *words);
void render_vars_free(struct render_vars *rv);

/* Renders tmpl (named tmpl_name in messages) into out. */
int render_template(const char *tmpl_name, const char *tmpl, const struct render_vars *rv,
		    struct strbuf *out);

/* Renders templates/job.sbatch for scenario s of campaign c. */
int render_job(const struct campaign *c, const struct scenario *s, const struct render_ctx *ctx,
	       struct strbuf *out);

/* The words every rank of scenario s gets (each node's, with launcher: per-node):
 * workload.command, or a fabric probe's, with its placeholders expanded and a word that
 * is exactly {{param}} split into its value's words, as the job script passes them.
 * {{master_addr}}, {{master_port}} and {{node_rank}} stay %{NAME}: the node fills them
 * in. out is argv_free's; on error it holds nothing and err is set. */
int render_command(const struct campaign *c, const struct scenario *s,
		   const struct render_ctx *ctx, struct argv *out);

/* What the backend named the aggregation job of one run. */
struct render_aggregate_ctx {
	const char *run_id, *run_dir, *bin_dir;
	const char *job_name, *comment, *output, *dependency;
};

/* Renders templates/aggregate.sbatch for the aggregation job of a run of c
 * (render_aggregate.c), with job_spec_aggregate's resources. */
int render_aggregate(const struct campaign *c, const struct render_aggregate_ctx *ctx,
		     struct strbuf *out);

/* Directory of templates: $CAMPAIGN_TEMPLATES, BIN/../templates, or
 * BIN/../share/campaign/templates. malloc'ed; NULL with err set. */
char *render_templates_dir(const char *bin_dir);

#endif
