/* SPDX-License-Identifier: MIT */
#include "render.h"
#include "builtins.h"
#include "util/run_layout.h"
#include "jobspec.h"

#include "util/err.h"
#include "util/fsio.h"
#include "placeholder.h"
#include "util/quote.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct render_var *var_get(struct render_vars *rv, const char *name, int create)
{
	for (size_t i = 0; i < rv->n; i++)
		if (!strcmp(rv->v[i].name, name))
			return &rv->v[i];
	if (!create)
		return NULL;
	rv->v = xrealloc(rv->v, (rv->n + 1) * sizeof *rv->v);
	struct render_var *v = &rv->v[rv->n++];
	memset(v, 0, sizeof *v);
	v->name = xstrdup(name);
	return v;
}

void render_var_item(struct render_vars *rv, const char *name, const struct argv *words)
{
	struct render_var *v = var_get(rv, name, 1);
	if (!words)
		return;
	v->items = xrealloc(v->items, (v->n + 1) * sizeof *v->items);
	argv_copy(&v->items[v->n++], words);
}

void render_var_words(struct render_vars *rv, const char *name, const struct argv *words)
{
	render_var_item(rv, name, words);
}

void render_var_scalar(struct render_vars *rv, const char *name, const char *value)
{
	struct argv a = { 0 };
	if (value && *value)
		argv_push(&a, value);
	render_var_item(rv, name, a.n ? &a : NULL);
	argv_free(&a);
}

void render_vars_free(struct render_vars *rv)
{
	for (size_t i = 0; i < rv->n; i++) {
		for (size_t j = 0; j < rv->v[i].n; j++)
			argv_free(&rv->v[i].items[j]);
		free(rv->v[i].items);
		free(rv->v[i].name);
	}
	free(rv->v);
	rv->v = NULL;
	rv->n = 0;
}

/* ---- template expansion ----------------------------------------------- */

struct line_ctx {
	struct render_vars *rv;
	int sbatch;          /* inside a #SBATCH line */
	const char *list;    /* the list placeholder of this line, if any */
	size_t item;         /* which item of it this copy renders */
	char bad[256];       /* what went wrong */
};

/* What an #SBATCH value may hold inside double quotes: printable
 * characters (and UTF-8) but no quote, backslash, $ or backquote. */
static int sbatch_quotable(const char *v)
{
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\' || *p == '$' || *p == '`')
			return 0;
	return *v != '\0';
}

static int emit_item(struct line_ctx *x, const struct argv *it, int expand_vars, struct strbuf *out)
{
	for (size_t w = 0; w < it->n; w++) {
		if (w)
			strbuf_addch(out, ' ');
		if (!x->sbatch && expand_vars) {
			shell_quote_vars(out, it->v[w]);
		} else if (!x->sbatch) {
			shell_quote(out, it->v[w]);
		} else if (is_safe_token(it->v[w])) {
			strbuf_adds(out, it->v[w]);
		/* a path with spaces: sbatch reads "..." as one value */
		} else if (sbatch_quotable(it->v[w])) {
			strbuf_addf(out, "\"%s\"", it->v[w]);
		} else {
			snprintf(x->bad, sizeof x->bad,
				 "value \"%.100s\" has characters not allowed in an #SBATCH line",
				 it->v[w]);
			return -1;
		}
	}
	return 0;
}

static int line_lookup(void *vctx, const char *name, struct strbuf *out)
{
	struct line_ctx *x = vctx;
	struct render_var *v = var_get(x->rv, name, 0);
	if (!v) {
		snprintf(x->bad, sizeof x->bad, "unknown placeholder {{%s}}", name);
		return -1;
	}
	if (v->n == 1)
		return emit_item(x, &v->items[0], v->expand_vars, out);
	if (x->list && strcmp(x->list, name)) {
		snprintf(x->bad, sizeof x->bad,
			 "two list placeholders ({{%s}}, {{%s}}) on one line", x->list, name);
		return -1;
	}
	return x->item < v->n ? emit_item(x, &v->items[x->item], v->expand_vars, out) : 0;
}

/* Finds the (single) placeholder of the line whose value is not one item. */
static int line_list_count(struct render_vars *rv, const char *line, const char **list)
{
	const char *open, *p = line;
	char name[128];
	long len;
	*list = NULL;
	for (; (len = placeholder_next(p, &open, &p, name, sizeof name)) >= 0;) {
		if ((size_t)len >= sizeof name)
			continue;
		struct render_var *v = var_get(rv, name, 0);
		if (v && v->n != 1) {
			*list = v->name;
			return (int)v->n;
		}
	}
	return 1;
}

int render_template(const char *tmpl_name, const char *tmpl, const struct render_vars *crv,
		    struct strbuf *out)
{
	struct render_vars *rv = (struct render_vars *)crv;
	const char *p = tmpl;
	int lineno = 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xmalloc(len + 1);
		memcpy(line, p, len);
		line[len] = '\0';
		lineno++;
		struct line_ctx x = { .rv = rv, .sbatch = !strncmp(line, "#SBATCH", 7) };
		int copies = line_list_count(rv, line, &x.list);
		for (x.item = 0; x.item < (size_t)copies; x.item++) {
			char bad[256];
			if (placeholder_expand(line, line_lookup, &x, out, bad, sizeof bad) < 0) {
				free(line);
				return err_set(ERR_USAGE, "%s:%d: %s", tmpl_name, lineno,
					       x.bad[0] ? x.bad : "unterminated {{ placeholder");
			}
			strbuf_addch(out, '\n');
		}
		free(line);
		p += len + (nl ? 1 : 0);
	}
	return 0;
}

/* ---- job scripts ------------------------------------------------------ */

static int builtin_value(void *vctx, const char *name, struct strbuf *out)
{
	struct builtin_ctx *x = vctx;
	const char *pv;
	if (builtin_expand(x, name, out) == 0)
		return 0;
	if (!(pv = kvlist_get(&x->s->params, name)))
		return -1;
	strbuf_adds(out, pv);
	return 0;
}

/* Expands the placeholders of every word (values are not quoted here: the
 * template quotes whole words). A word that is exactly {{param}}
 * (placeholder_splits: unquoted, a list item, not a built-in) becomes the
 * words of the parameter's value (none when it is empty), split as
 * words_split does, with no expansion; inside a longer word the value is
 * inserted as it is (as "$VAR" and $VAR in a shell). */
static int expand_words(struct builtin_ctx *x, const struct argv *in, struct argv *out,
			const char *what)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < in->n; i++) {
		char name[128];
		const char *val = placeholder_splits(in, i, name, sizeof name)
			? kvlist_get(&x->s->params, name)
			: NULL;
		if (val) {
			struct argv split;
			const char *why;
			/* the loader refuses such a value where it is written; a caller's own
			 * campaign may still hold one */
			if (words_split(val, &split, &why) < 0) {
				argv_free(out);
				return err_set(
					ERR_USAGE,
					"%s: the value of {{%s}} (scenario %s) does not split into words: %s",
					what, name, x->s->name, why);
			}
			for (size_t k = 0; k < split.n; k++)
				argv_push(out, split.v[k]);
			argv_free(&split);
			continue;
		}
		struct strbuf w = STRBUF_INIT;
		char bad[128];
		if (placeholder_expand(in->v[i], builtin_value, x, &w, bad, sizeof bad) < 0) {
			strbuf_free(&w);
			argv_free(out);
			return err_set(ERR_USAGE, "%s: unknown placeholder {{%s}}", what, bad);
		}
		argv_push(out, strbuf_str(&w));
		strbuf_free(&w);
	}
	return 0;
}

/* A per-node launcher's workers, for `campaign launch` to record them as
 * the ranks: --workers-per-node N (an item of no words otherwise, so the
 * launch line stays). */
static void launch_workers(struct render_vars *rv, const struct campaign *c,
			   const struct scenario *s)
{
	struct argv w = { 0 };
	char buf[32];
	if (c->workload.per_node && !s->probe) {
		snprintf(buf, sizeof buf, "%d", s->tasks_per_node);
		argv_push(&w, "--workers-per-node");
		argv_push(&w, buf);
	}
	render_var_words(rv, "launch_workers", &w);
	argv_free(&w);
}

static void add_sbatch_vars(struct render_vars *rv, const struct campaign *c,
			    const struct scenario *s, const struct render_ctx *ctx)
{
	char buf[64];
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "campaign-%s-%s", ctx->run_id, s->name);
	render_var_scalar(rv, "job_name", strbuf_str(&sb));
	strbuf_reset(&sb);
	strbuf_addf(&sb, "campaign:%s/%s/%s", c->name, ctx->run_id, s->name);
	render_var_scalar(rv, "comment", strbuf_str(&sb));
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s/slurm-%%j.out", ctx->job_dir);
	render_var_scalar(rv, "output", strbuf_str(&sb));
	strbuf_free(&sb);
	struct job_spec js;
	job_spec_scenario(c, s, &js); /* what backend_slurm.c submits, too */
	snprintf(buf, sizeof buf, "%d", js.nodes);
	render_var_scalar(rv, "nodes", buf);
	snprintf(buf, sizeof buf, "%d", js.tasks_per_node);
	render_var_scalar(rv, "tasks_per_node", buf);
	/* processes campaign starts */
	snprintf(buf, sizeof buf, "%d", c->workload.per_node && !s->probe ? 1 : s->tasks_per_node);
	render_var_scalar(rv, "launch_tasks_per_node", buf);
	launch_workers(rv, c, s);
	snprintf(buf, sizeof buf, "%d", js.nodes * js.tasks_per_node);
	render_var_scalar(rv, "ntasks", buf);
	snprintf(buf, sizeof buf, "%d", js.gpus_per_node);
	render_var_scalar(rv, "gpus_per_node", js.gpus_per_node ? buf : NULL);
	render_var_scalar(rv, "time", js.time);
	render_var_scalar(rv, "partition", js.partition);
	render_var_scalar(rv, "account", js.account);
	render_var_scalar(rv, "qos", js.qos);
	render_var_scalar(rv, "constraint", js.constraint);
	render_var_item(rv, "slurm_extra", NULL);
	if (js.exclusive && !argv_has(js.extra, "--exclusive")) {
		struct argv one = { 0 };
		argv_push(&one, "--exclusive");
		render_var_item(rv, "slurm_extra", &one);
		argv_free(&one);
	}
	for (size_t i = 0; i < js.extra->n; i++) {
		struct argv one = { 0 };
		argv_push(&one, js.extra->v[i]);
		render_var_item(rv, "slurm_extra", &one);
		argv_free(&one);
	}
}

/* The words put before every rank's command when profilers are on (an
 * item of no words otherwise, so the launch line stays). */
static void profile_wrap(struct render_vars *rv, struct builtin_ctx *x)
{
	const struct campaign *c = x->c;
	struct argv w = { 0 };
	int probe = x->s->probe; /* a fabric probe runs bare: no profiler, no traces */
	if ((c->profile.nsys || c->profile.perf || c->profile.inspector) && !probe) {
		struct strbuf bin = STRBUF_INIT;
		strbuf_addf(&bin, "%s/campaign", x->ctx->bin_dir);
		argv_push(&w, bin.buf);
		strbuf_free(&bin);
		argv_push(&w, "profile-rank");
		argv_push(&w, "--dir");
		argv_push(&w, x->ctx->job_dir);
		if (c->profile.nsys) {
			argv_push(&w, "--nsys");
			if (c->profile.nsys_trace) {
				argv_push(&w, "--trace");
				argv_push(&w, c->profile.nsys_trace);
			}
			if (c->profile.nsys_capture_range &&
			    strcmp(c->profile.nsys_capture_range, "none")) {
				argv_push(&w, "--capture-range");
				argv_push(&w, c->profile.nsys_capture_range);
			}
		}
		if (c->profile.perf)
			argv_push(&w, "--perf");
		if (c->profile.inspector)
			argv_push(&w, "--nccl-inspector");
		if ((c->profile.nsys && c->profile.nsys_required) ||
		    (c->profile.perf && c->profile.perf_required) ||
		    (c->profile.inspector && c->profile.inspector_required))
			argv_push(&w, "--required");
		argv_push(&w, "--");
	}
	render_var_words(rv, "profile_wrap", &w);
	argv_free(&w);
	/* the workload's own traces, collected after it (no line without globs) */
	render_var_item(rv, "collect_traces", NULL);
	if (c->profile.traces.n && !probe) {
		struct argv t = { 0 };
		struct strbuf bin = STRBUF_INIT;
		strbuf_addf(&bin, "%s/campaign", x->ctx->bin_dir);
		argv_push(&t, bin.buf);
		argv_push(&t, "collect");
		argv_push(&t, "--dir");
		argv_push(&t, x->ctx->job_dir);
		for (size_t i = 0; i < c->profile.traces.n; i++)
			argv_push(&t, c->profile.traces.v[i]);
		render_var_item(rv, "collect_traces", &t);
		argv_free(&t);
		strbuf_free(&bin);
	}
}

/* profile.nccl_inspector: the plugin's variables (its README names them), before the
 * scenario's env so that a value the campaign sets itself wins; dumps go to the job's
 * folder (expanded when the job runs, from the variable the script exports). */
static int inspector_env(struct render_vars *rv, struct builtin_ctx *x)
{
	const struct campaign *c = x->c;
	char interval[32];
	if (!c->profile.inspector || x->s->probe)
		return 0;
	snprintf(interval, sizeof interval, "%d", c->profile.inspector_interval_us);
	const char *kv[][2] = {
		{ "NCCL_INSPECTOR_ENABLE", "1" },
		{ "NCCL_INSPECTOR_DUMP_DIR", "$CAMPAIGN_JOB_DIR/" JOB_NCCL_INSPECTOR },
		{ "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", interval },
		{ "NCCL_INSPECTOR_DUMP_VERBOSE", c->profile.inspector_verbose ? "1" : "0" },
		{ "NCCL_PROFILER_PLUGIN", c->profile.inspector_plugin },
	};
	for (size_t i = 0; i < sizeof kv / sizeof *kv; i++) {
		struct argv in = { 0 }, words, one = { 0 };
		struct strbuf item = STRBUF_INIT;
		if (!kv[i][1])
			continue;
		argv_push_quoted(&in, kv[i][1], 1); /* one value: never split */
		int rc = expand_words(x, &in, &words, "profile.nccl_inspector");
		argv_free(&in);
		if (rc < 0)
			return rc;
		strbuf_addf(&item, "%s=%s", kv[i][0], words.n ? words.v[0] : "");
		argv_push(&one, item.buf);
		render_var_item(rv, "env", &one);
		argv_free(&one);
		argv_free(&words);
		strbuf_free(&item);
	}
	return 0;
}

static int add_body_vars(struct render_vars *rv, struct builtin_ctx *x)
{
	const struct campaign *c = x->c;
	const struct scenario *s = x->s;
	struct argv words;
	char buf[64];
	int rc;
	render_var_scalar(rv, "run_id", x->ctx->run_id);
	render_var_scalar(rv, "run_dir", x->ctx->run_dir);
	render_var_scalar(rv, "job_dir", x->ctx->job_dir);
	render_var_scalar(rv, "campaign_dir", x->ctx->campaign_dir);
	render_var_scalar(rv, "scenario", s->name);
	render_var_scalar(rv, "campaign", c->name);
	render_var_scalar(rv, "comm_backend", s->backend);
	snprintf(buf, sizeof buf, "%d", c->profile.warmup_steps);
	render_var_scalar(rv, "warmup_steps", buf);
	snprintf(buf, sizeof buf, "%d", c->profile.active_steps);
	render_var_scalar(rv, "active_steps", buf);
	snprintf(buf, sizeof buf, "%d", c->profile.monitor ? c->profile.monitor_interval_ms : 0);
	render_var_scalar(rv, "monitor_interval_ms", buf);
	struct strbuf bin = STRBUF_INIT;
	strbuf_addf(&bin, "%s/campaign", x->ctx->bin_dir);
	render_var_scalar(rv, "campaign_bin", strbuf_str(&bin));
	strbuf_reset(&bin);
	strbuf_addf(&bin, "%s/campaign-monitor", x->ctx->bin_dir);
	render_var_scalar(rv, "monitor_bin", strbuf_str(&bin));
	strbuf_free(&bin);
	render_var_item(rv, "env", NULL);
	/* PATH: "/opt/venv/bin:$PATH" extends the node's PATH */
	var_get(rv, "env", 1)->expand_vars = 1;
	if ((rc = inspector_env(rv, x)) < 0)
		return rc;
	/* passed through: the job inherits them, the script checks they came */
	render_var_item(rv, "env_from", NULL);
	for (size_t i = 0; i < s->env.n; i++) {
		struct strbuf kv = STRBUF_INIT;
		struct argv one = { 0 }, tmp = { 0 };
		if (!s->env.items[i].value) {
			argv_push(&one, s->env.items[i].key);
			render_var_item(rv, "env_from", &one);
			argv_free(&one);
			continue;
		}
		/* one value, as "{{x}}" in a shell: a param's spaces stay, an empty one is "" */
		argv_push_quoted(&tmp, s->env.items[i].value, 1);
		if ((rc = expand_words(x, &tmp, &words, "env")) < 0) {
			argv_free(&tmp);
			return rc;
		}
		strbuf_addf(&kv, "%s=%s", s->env.items[i].key, words.v[0]);
		argv_push(&one, strbuf_str(&kv));
		render_var_item(rv, "env", &one);
		argv_free(&one);
		argv_free(&tmp);
		argv_free(&words);
		strbuf_free(&kv);
	}
	render_var_item(rv, "setup", NULL);
	for (size_t i = 0; i < c->workload.n_setup; i++) {
		if ((rc = expand_words(x, &c->workload.setup[i], &words, "workload.setup")) < 0)
			return rc;
		render_var_item(rv, "setup", &words);
		argv_free(&words);
	}
	if ((rc = render_command(c, s, x->ctx, &words)) < 0)
		return rc;
	render_var_words(rv, "command", &words);
	argv_free(&words);
	profile_wrap(rv, x);
	return 0;
}

int render_command(const struct campaign *c, const struct scenario *s,
		   const struct render_ctx *ctx, struct argv *out)
{
	struct builtin_ctx x = { c, s, ctx };
	return expand_words(&x, s->command.n ? &s->command : &c->workload.command, out,
			    "workload.command");
}

char *render_templates_dir(const char *bin_dir)
{
	const char *env = getenv("CAMPAIGN_TEMPLATES");
	if (env && *env)
		return xstrdup(env);
	const char *rel[] = { "/../templates", "/../share/campaign/templates", NULL };
	for (int i = 0; rel[i]; i++) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s%s", bin_dir, rel[i]);
		strbuf_adds(&sb, "/job.sbatch");
		if (fsio_exists(sb.buf)) {
			sb.len -= strlen("/job.sbatch");
			sb.buf[sb.len] = '\0';
			return strbuf_detach(&sb);
		}
		strbuf_free(&sb);
	}
	err_set(ERR_NOTFOUND,
		"cannot find templates/job.sbatch next to %s (set CAMPAIGN_TEMPLATES)", bin_dir);
	return NULL;
}

int render_job(const struct campaign *c, const struct scenario *s, const struct render_ctx *ctx,
	       struct strbuf *out)
{
	struct render_vars rv = { 0 };
	struct builtin_ctx x = { c, s, ctx };
	struct strbuf path = STRBUF_INIT;
	char *tmpl = NULL;
	strbuf_addf(&path, "%s/job.sbatch", ctx->templates_dir);
	int rc = fsio_read(path.buf, 1 << 20, &tmpl, NULL);
	if (rc == 0) {
		add_sbatch_vars(&rv, c, s, ctx);
		rc = add_body_vars(&rv, &x);
	}
	if (rc == 0)
		rc = render_template(path.buf, tmpl, &rv, out);
	free(tmpl);
	strbuf_free(&path);
	render_vars_free(&rv);
	return rc;
}
