/* builtins: the built-in placeholders' one table.
 * SPDX-License-Identifier: MIT */
#include "builtins.h"
#include "util/run_layout.h"
#include "orchestrator/campaign/prose.h"

#include <string.h>

typedef void builtin_fn(const struct builtin_ctx *x, struct strbuf *o);

static void run_id(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_adds(o, x->ctx->run_id);
}
static void run_dir(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_adds(o, x->ctx->run_dir);
}
static void job_dir(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_adds(o, x->ctx->job_dir);
}
static void campaign_dir(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_adds(o, x->ctx->campaign_dir);
}
static void metrics_dir(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_addf(o, "%s/" JOB_METRICS, x->ctx->job_dir);
}
static void scenario(const struct builtin_ctx *x, struct strbuf *o) { strbuf_adds(o, x->s->name); }
static void campaign(const struct builtin_ctx *x, struct strbuf *o) { strbuf_adds(o, x->c->name); }
static void nodes(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_addf(o, "%d", x->s->nodes);
}
static void tasks_per_node(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_addf(o, "%d", x->s->tasks_per_node);
}
static void gpus_per_node(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_addf(o, "%d", x->s->gpus_per_node);
}
static void ntasks(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_addf(o, "%d", x->s->nodes * x->s->tasks_per_node);
}
static void backend(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_adds(o, x->s->backend);
}
static void warmup_steps(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_addf(o, "%d", x->c->profile.warmup_steps);
}
static void active_steps(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_addf(o, "%d", x->c->profile.active_steps);
}
static void steps(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_addf(o, "%d", x->c->profile.warmup_steps + x->c->profile.active_steps);
}
static void monitor_interval_ms(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_addf(o, "%d", x->c->profile.monitor_interval_ms);
}
static void trainer(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_addf(o, "%s/%s", x->ctx->bin_dir,
		    strcmp(x->s->backend, "nccl") ? "campaign-trainer" : "campaign-trainer-gpu");
}
static void rdzv_id(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_addf(o, "%s-%s", x->ctx->run_id, x->s->name);
}
/* known only on the node, per task: `campaign launch` puts them in */
static void master_addr(const struct builtin_ctx *x, struct strbuf *o)
{
	(void)x;
	strbuf_adds(o, "%{MASTER_ADDR}");
}
static void master_port(const struct builtin_ctx *x, struct strbuf *o)
{
	(void)x;
	strbuf_adds(o, "%{MASTER_PORT}");
}
static void node_rank(const struct builtin_ctx *x, struct strbuf *o)
{
	(void)x;
	strbuf_adds(o, "%{NODE_RANK}");
}
static void campaign_bin(const struct builtin_ctx *x, struct strbuf *o)
{
	strbuf_addf(o, "%s/campaign", x->ctx->bin_dir);
}

/* In the docs' order; doc NULL: the name shares the row of the one before. */
static const struct builtin {
	const char *name, *doc;
	builtin_fn *expand;
} builtins[] = {
	{ "run_id", "the run's id and absolute directories (jobs start in `job_dir`)", run_id },
	{ "run_dir", NULL, run_dir },
	{ "job_dir", NULL, job_dir },
	{ "campaign_dir", PROSE_BUILTIN_CAMPAIGN_DIR, campaign_dir },
	{ "metrics_dir", "`<job_dir>/metrics`, where the trainer writes `rank_<r>.jsonl`",
	  metrics_dir },
	{ "scenario", "names", scenario },
	{ "campaign", NULL, campaign },
	{ "nodes", "the scenario's", nodes },
	{ "tasks_per_node", NULL, tasks_per_node },
	{ "gpus_per_node", NULL, gpus_per_node },
	{ "ntasks", NULL, ntasks },
	{ "backend", NULL, backend },
	{ "warmup_steps",
	  "from `profile` (`steps` = warm-up + active); jobs also see `CAMPAIGN_WARMUP_STEPS` and `CAMPAIGN_ACTIVE_STEPS`",
	  warmup_steps },
	{ "active_steps", NULL, active_steps },
	{ "steps", NULL, steps },
	{ "monitor_interval_ms", "from `profile.monitor`", monitor_interval_ms },
	{ "trainer", "`bin/campaign-trainer`, or `bin/campaign-trainer-gpu` for nccl scenarios",
	  trainer },
	{ "nnodes", "the scenario's nodes and tasks_per_node (for torchrun-style launchers)",
	  nodes },
	{ "nproc_per_node", NULL, tasks_per_node },
	{ "rdzv_id", "`<run-id>-<scenario>`, unique per job", rdzv_id },
	{ "master_addr", PROSE_BUILTIN_RENDEZVOUS, master_addr },
	{ "master_port", NULL, master_port },
	{ "node_rank", NULL, node_rank },
	{ "campaign_bin", "`bin/campaign`", campaign_bin },
};
#define NBUILTINS (sizeof builtins / sizeof *builtins)

static const struct builtin *find(const char *name)
{
	for (size_t i = 0; i < NBUILTINS; i++)
		if (!strcmp(builtins[i].name, name))
			return &builtins[i];
	return NULL;
}

int placeholder_is_builtin(const char *name)
{
	return find(name) != NULL;
}

int builtin_expand(const struct builtin_ctx *x, const char *name, struct strbuf *out)
{
	const struct builtin *b = find(name);
	if (!b)
		return -1;
	b->expand(x, out);
	return 0;
}

void builtins_doc(FILE *out)
{
	fputs("<!-- generated by `campaign help --placeholders` from the table of orchestrator/campaign/builtins.c; edit it, then `make docs-keys` -->\n"
	      "| placeholder | value |\n|---|---|\n",
	      out);
	for (size_t i = 0; i < NBUILTINS; i++) {
		fprintf(out, "| `%s`", builtins[i].name);
		for (; i + 1 < NBUILTINS && !builtins[i + 1].doc; i++)
			fprintf(out, ", `%s`", builtins[i + 1].name);
		size_t first = i;
		while (first > 0 && !builtins[first].doc)
			first--;
		fprintf(out, " | %s |\n", builtins[first].doc);
	}
	fputs("<!-- end of the generated placeholder table -->\n", out);
}
