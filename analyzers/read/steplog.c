#define PCRE2_CODE_UNIT_WIDTH 8
#include "analyzers/read/steplog.h"
#include "util/fsio.h"

#include "analyzers/read/rules.h"
#include "util/err.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEPLOG_MAX_LINE 65536 /* bytes: a step line is short; longer lines are skipped, counted */

struct groups {
	int step, step_ms, loss, samples;
};

/* The number a named group matched, or def when it did not take part. */
static double group_num(pcre2_match_data *md, const char *line, int g, double def)
{
	if (g < 0)
		return def;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
	if (ov[2 * g] == PCRE2_UNSET)
		return def;
	char buf[64];
	size_t n = ov[2 * g + 1] - ov[2 * g];
	if (n >= sizeof buf)
		return def;
	memcpy(buf, line + ov[2 * g], n);
	buf[n] = '\0';
	char *end;
	double v = strtod(buf, &end);
	return end != buf ? v : def;
}

/* Each line is matched under the rules' budget (well under a millisecond);
 * a line longer than STEPLOG_MAX_LINE, or one whose match runs over the
 * budget, is skipped and counted (bad_lines). */
static void read_rank(FILE *f, pcre2_code *re, const struct groups *g, int warmup,
		      struct rank_metrics *r)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	pcre2_match_context *mctx = rules_bounded_context();
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int seen = 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		int rc = len > STEPLOG_MAX_LINE ? PCRE2_ERROR_MATCHLIMIT :
			 pcre2_match(re, (PCRE2_SPTR)line, (size_t)len, 0, 0, md, mctx);
		if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
		    rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT) {
			r->bad_lines++;
		}
		if (rc < 0)
			continue;
		struct step_rec s = { 0 };
		s.step = (long)group_num(md, line, g->step, seen);
		s.step_ms = group_num(md, line, g->step_ms, -1);
		s.loss = group_num(md, line, g->loss, 0);
		s.samples = (long)group_num(md, line, g->samples, 0);
		s.active = seen++ >= warmup;
		metrics_add_step(r, &s);
	}
	free(line);
	pcre2_match_context_free(mctx);
	pcre2_match_data_free(md);
}

static int rank_log(const char *name, int *rank)
{
	int n = 0;
	return sscanf(name, "rank_%d.out%n", rank, &n) == 1 && name[n] == '\0' && *rank >= 0;
}

int steplog_load_dir(const char *dir, const char *pattern, int warmup, struct scenario_metrics *out)
{
	memset(out, 0, sizeof *out);
	int code;
	PCRE2_SIZE off;
	pcre2_code *re =
		pcre2_compile((PCRE2_SPTR) pattern, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
	if (!re)
		return err_set(ERR_USAGE,
			       "analysis.step_log.pattern does not compile at offset %zu",
			       (size_t) off);
	/* where the library has a JIT; the budget applies either way */
	pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	struct groups g = { pcre2_substring_number_from_name(re, (PCRE2_SPTR) "step"),
			    pcre2_substring_number_from_name(re, (PCRE2_SPTR) "step_ms"),
			    pcre2_substring_number_from_name(re, (PCRE2_SPTR) "loss"),
			    pcre2_substring_number_from_name(re, (PCRE2_SPTR) "samples") };
	struct argv names;
	fsio_list(dir, &names);
	for (size_t i = 0; i < names.n; i++) {
		int rank;
		if (!rank_log(names.v[i], &rank))
			continue;
		struct strbuf p = STRBUF_INIT;
		strbuf_addf(&p, "%s/%s", dir, names.v[i]);
		FILE *f = fsio_fopen_or_warn(p.buf);
		strbuf_free(&p);
		if (!f)
			continue;
		struct rank_metrics r = { .rank = rank, .format = METRICS_STEP_LOG };
		read_rank(f, re, &g, warmup, &r);
		fclose(f);
		if (r.n == 0) {
			rank_metrics_free(&r);
			continue;
		}
		out->ranks = xrealloc(out->ranks, (out->n + 1) * sizeof *out->ranks);
		out->ranks[out->n++] = r;
	}
	argv_free(&names);
	pcre2_code_free(re);
	if (out->n == 0)
		return err_set(ERR_NOTFOUND,
			       "no line of %s/rank_<r>.out matches analysis.step_log.pattern", dir);
	metrics_sort_ranks(out);
	return 0;
}
