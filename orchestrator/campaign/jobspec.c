/* SPDX-License-Identifier: MIT */
#include "jobspec.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name; /* with its '=' when it takes a value */
	enum job_extra kind;
} extras[] = {
	{ "--exclusive", JX_EXCLUSIVE },
	{ "--mem=", JX_MEM },
	{ "--mem-per-cpu=", JX_MEM_PER_CPU },
	{ "--cpus-per-task=", JX_CPUS_PER_TASK },
	{ "--gres=", JX_GRES },
	{ "--reservation=", JX_RESERVATION },
	{ "--nodelist=", JX_NODELIST },
	{ "--exclude=", JX_EXCLUDE },
	{ "--requeue", JX_REQUEUE },
	{ "--no-requeue", JX_NO_REQUEUE },
};

int job_spec_extra(const char *opt, const char **value)
{
	for (size_t i = 0; i < sizeof extras / sizeof *extras; i++) {
		size_t n = strlen(extras[i].name);
		int valued = extras[i].name[n - 1] == '=';
		if (valued ? !strncmp(opt, extras[i].name, n) && opt[n]
			   : !strcmp(opt, extras[i].name)) {
			*value = valued ? opt + n : "";
			return (int)extras[i].kind;
		}
	}
	return -1;
}

const char *job_spec_extras(char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof extras / sizeof *extras && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", extras[i].name);
	return buf;
}

/* The environment's SBATCH_<X> over the campaign's value, as sbatch takes it. */
static void common(const struct campaign *c, struct job_spec *out)
{
	out->partition = campaign_sbatch_env("SBATCH_PARTITION", c->slurm.partition);
	out->account = campaign_sbatch_env("SBATCH_ACCOUNT", c->slurm.account);
	out->qos = campaign_sbatch_env("SBATCH_QOS", c->slurm.qos);
}

void job_spec_scenario(const struct campaign *c, const struct scenario *s, struct job_spec *out)
{
	memset(out, 0, sizeof *out);
	common(c, out);
	out->constraint = campaign_sbatch_env("SBATCH_CONSTRAINT", c->slurm.constraint);
	out->nodes = s->nodes;
	out->tasks_per_node = s->tasks_per_node;
	out->gpus_per_node = s->gpus_per_node;
	out->time = s->time;
	out->time_limit_s = s->time_limit_s;
	out->exclusive = c->slurm.exclusive || argv_has(&c->slurm.extra, "--exclusive");
	out->extra = &c->slurm.extra;
}

void job_spec_aggregate(const struct campaign *c, struct job_spec *out)
{
	memset(out, 0, sizeof *out);
	common(c, out);
	out->nodes = c->analysis.nodes > 0 ? c->analysis.nodes : 1;
	out->tasks_per_node = 1;
	out->time = "00:30:00";
	out->time_limit_s = 1800;
	out->cpus_per_task = c->analysis.cpus_per_task;
}
