/* SPDX-License-Identifier: MIT */
#include "analyzers/trace_names.h"

#include "analyzers/phases.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int is_step_name(const char *name, long *n)
{
	if (strncmp(name, "ProfilerStep#", 13))
		return 0;
	char *end;
	*n = strtol(name + 13, &end, 10);
	return end != name + 13 && !*end && *n >= 0;
}

/* NVTX step ranges as people name them: "step", "step 12", "iteration_3",
 * "train_step#4" (any case), besides ProfilerStep#N; *n is -1 without a number. */
static int is_loose_step_name(const char *name, long *n)
{
	static const char *const words[] = { "train_step", "iteration", "step", "iter", NULL };
	if (is_step_name(name, n))
		return 1;
	for (int i = 0; words[i]; i++) {
		size_t k = strlen(words[i]);
		if (strncasecmp(name, words[i], k))
			continue;
		const char *p = name + k;
		while (*p == ' ' || *p == '_' || *p == '#' || *p == ':')
			p++;
		if (!*p && p == name + k) {
			*n = -1;
			return 1;
		}
		char *end;
		*n = strtol(p, &end, 10);
		return end != p && !*end && *n >= 0;
	}
	return 0;
}

int trace_step_name(const char *name, long *n, int loose)
{
	return loose ? is_loose_step_name(name, n) : is_step_name(name, n);
}

int *trace_name_phases(const struct gpu_trace *t, const struct rules *phases, int loose_steps)
{
	int *ph = xcalloc(t->nnames + 1, sizeof *ph);
	for (size_t i = 0; i < t->nnames; i++) {
		long n;
		ph[i] = trace_step_name(t->names[i], &n, loose_steps) ? TRACE_NAME_STEP :
			phase_of_category(rules_classify(phases, t->names[i]));
	}
	return ph;
}

int trace_rank_of_name(const char *name)
{
	static const char *const keys[] = { "rank", "worker", NULL };
	for (int k = 0; keys[k]; k++) {
		const char *p = strstr(name, keys[k]);
		if (!p)
			continue;
		p += strlen(keys[k]);
		while (*p == '_' || *p == '-' || *p == '.')
			p++;
		if (isdigit((unsigned char)*p)) {
			long r = strtol(p, NULL, 10);
			return r >= 0 && r < 1000000 ? (int)r : -1;
		}
	}
	return -1;
}

int trace_rank_for(int trace_rank, const char *name, int hint)
{
	(void)name;
	return trace_rank >= 0 ? trace_rank : hint;
}

int trace_worker_of_name(const char *name, char *worker, size_t n, char *host, size_t hn,
			      long *pid)
{
	static const char *const tails[] = { ".pt.trace.json.gz", ".pt.trace.json", NULL };
	size_t len = strlen(name), k;
	for (k = 0; tails[k]; k++)
		if (len > strlen(tails[k]) && !strcmp(name + len - strlen(tails[k]), tails[k]))
			break;
	if (!tails[k])
		return 0;
	len -= strlen(tails[k]);
	const char *dot = memrchr(name, '.', len); /* <worker>.<timestamp> */
	if (!dot || dot == name || dot + 1 == name + len ||
	    strspn(dot + 1, "0123456789") < (size_t) (name + len - dot - 1))
		return 0;
	size_t wlen = (size_t)(dot - name);
	const char *us = memrchr(name, '_', wlen); /* <host>_<pid> */
	if (!us || us == name || us + 1 == dot ||
	    strspn(us + 1, "0123456789") < (size_t) (dot - us - 1) || wlen >= n)
		return 0;
	snprintf(worker, n, "%.*s", (int)wlen, name);
	snprintf(host, hn, "%.*s", (int)(us - name), name);
	*pid = strtol(us + 1, NULL, 10);
	return 1;
}
