/* SPDX-License-Identifier: MIT */
#include "campaign.h"

#include "placeholder.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

int placeholder_splits(const struct argv *w, size_t i, char *name, size_t n)
{
	const char *open, *end, *word = w->v[i];
	if (w->quoted && w->quoted[i])
		return 0;
	long len = placeholder_next(word, &open, &end, name, n);
	return len >= 0 && (size_t)len < n && open == word && !*end && !strchr(name, '{') &&
	       !placeholder_is_builtin(name);
}

static int parse_uint(const char **p, long *out)
{
	if (**p < '0' || **p > '9')
		return -1;
	long v = 0;
	while (**p >= '0' && **p <= '9') {
		v = v * 10 + (**p - '0');
		if (v > 100000000L)
			return -1;
		(*p)++;
	}
	*out = v;
	return 0;
}

int slurm_time_parse(const char *s, long *seconds)
{
	if (!strcmp(s, "UNLIMITED") || !strcmp(s, "INFINITE")) {
		*seconds = 0;
		return 0;
	}
	long days = 0, f[3];
	int nf = 0, has_days = 0;
	const char *p = s;
	const char *dash = strchr(s, '-');
	if (dash) {
		if (parse_uint(&p, &days) < 0 || p != dash)
			return -1;
		p++;
		has_days = 1;
	}
	for (;;) {
		if (nf == 3 || parse_uint(&p, &f[nf]) < 0)
			return -1;
		nf++;
		if (*p == '\0')
			break;
		if (*p++ != ':')
			return -1;
	}
	long secs;
	if (has_days) /* D-H, D-H:M, D-H:M:S */
		secs = f[0] * 3600 + (nf > 1 ? f[1] * 60 : 0) + (nf > 2 ? f[2] : 0);
	else if (nf == 1) /* M */
		secs = f[0] * 60;
	else if (nf == 2) /* M:S */
		secs = f[0] * 60 + f[1];
	else /* H:M:S */
		secs = f[0] * 3600 + f[1] * 60 + f[2];
	secs += days * 86400;
	if (secs <= 0)
		return -1;
	*seconds = secs;
	return 0;
}

const struct scenario *campaign_find(const struct campaign *c, const char *name)
{
	for (size_t i = 0; i < c->n_scenarios; i++)
		if (!strcmp(c->scenarios[i].name, name))
			return &c->scenarios[i];
	return NULL;
}

static void scenario_free(struct scenario *s)
{
	free(s->name);
	free(s->backend);
	free(s->time);
	argv_free(&s->command);
	kvlist_free(&s->env);
	kvlist_free(&s->params);
}

void campaign_keep_scenario(struct campaign *c, size_t i)
{
	struct scenario one = c->scenarios[i];
	memset(&c->scenarios[i], 0, sizeof one); /* now one's */
	for (size_t k = 0; k < c->n_scenarios; k++)
		scenario_free(&c->scenarios[k]);
	c->scenarios[0] = one;
	c->n_scenarios = 1;
}

void campaign_free(struct campaign *c)
{
	free(c->path);
	free(c->origin);
	free(c->name);
	free(c->description);
	free(c->store_journal);
	free(c->slurm.account);
	free(c->slurm.partition);
	free(c->slurm.qos);
	free(c->slurm.time);
	free(c->slurm.constraint);
	argv_free(&c->slurm.extra);
	argv_free(&c->workload.command);
	kvlist_free(&c->workload.env);
	kvlist_free(&c->workload.params);
	for (size_t i = 0; i < c->workload.n_setup; i++)
		argv_free(&c->workload.setup[i]);
	free(c->workload.setup);
	for (size_t i = 0; i < c->n_scenarios; i++)
		scenario_free(&c->scenarios[i]);
	free(c->scenarios);
	for (size_t i = 0; i < c->n_knobs; i++)
		knob_free(&c->knobs[i]);
	free(c->knobs);
	knob_free(&c->variant);
	free(c->variant_of);
	free(c->bisect.of);
	free(c->bisect.commit);
	free(c->bisect.scenario);
	free(c->analysis.baseline);
	free(c->analysis.scaling);
	argv_free(&c->analysis.phase_names);
	argv_free(&c->analysis.phase_patterns);
	free(c->analysis.step_log);
	free(c->profile.nsys_trace);
	free(c->profile.nsys_capture_range);
	free(c->profile.inspector_plugin);
	argv_free(&c->profile.traces);
	memset(c, 0, sizeof *c);
}

const char *campaign_sbatch_env(const char *var, const char *value)
{
	const char *v = getenv(var);
	return v && *v ? v : value;
}

int campaign_has_env_from(const struct campaign *c)
{
	for (size_t i = 0; i < c->n_scenarios; i++)
		for (size_t k = 0; k < c->scenarios[i].env.n; k++)
			if (!c->scenarios[i].env.items[k].value)
				return 1;
	return 0;
}

char *campaign_env_missing(const struct campaign *c)
{
	struct strbuf sb = STRBUF_INIT;
	struct kvlist seen = { 0 };
	for (size_t i = 0; i < c->n_scenarios; i++) {
		const struct kvlist *env = &c->scenarios[i].env;
		for (size_t k = 0; k < env->n; k++) {
			const char *name = env->items[k].key;
			if (env->items[k].value || getenv(name) || kvlist_get(&seen, name))
				continue;
			kvlist_set(&seen, name, "");
			strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", name);
		}
	}
	kvlist_free(&seen);
	if (sb.len)
		return strbuf_detach(&sb);
	strbuf_free(&sb);
	return NULL;
}
