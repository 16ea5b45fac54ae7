/* SPDX-License-Identifier: MIT */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "analyzers/read/steplog.h"
#include "util/fsio.h"
#include "util/run_layout.h"

#include "analyzers/read/rules.h"
#include "util/err.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <jansson.h>
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

/* What reading a job's logs needs: the pattern, its groups, and each rank's
 * matching lines seen so far (the first `warmup` are warm-up). */
struct reading {
	pcre2_code *re;
	pcre2_match_data *md;
	pcre2_match_context *mctx;
	struct groups g;
	int warmup;
	struct scenario_metrics *out;
	int *seen; /* per rank of out */
	size_t seen_cap;
};

/* Matches one line of rank r under the rules' budget (well under a
 * millisecond); a line longer than STEPLOG_MAX_LINE, or one whose match runs
 * over the budget, is skipped and counted (bad_lines). */
static void match_line(struct reading *k, struct rank_metrics *r, int *seen, const char *line,
		       size_t len)
{
	int rc = len > STEPLOG_MAX_LINE ? PCRE2_ERROR_MATCHLIMIT :
		 pcre2_match(k->re, (PCRE2_SPTR)line, len, 0, 0, k->md, k->mctx);
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
	    rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT) {
		r->bad_lines++;
	}
	if (rc < 0)
		return;
	struct step_rec s = { 0 };
	s.step = (long)group_num(k->md, line, k->g.step, *seen);
	s.step_ms = group_num(k->md, line, k->g.step_ms, -1);
	s.loss = group_num(k->md, line, k->g.loss, 0);
	s.samples = (long)group_num(k->md, line, k->g.samples, 0);
	s.active = (*seen)++ >= k->warmup;
	metrics_add_step(r, &s);
}

/* The index in out of rank's lines, added when new. */
static size_t rank_index(struct reading *k, long rank)
{
	struct scenario_metrics *out = k->out;
	for (size_t i = out->n; i-- > 0;)
		if (out->ranks[i].rank == rank)
			return i;
	out->ranks = xrealloc(out->ranks, (out->n + 1) * sizeof *out->ranks);
	out->ranks[out->n] = (struct rank_metrics){ .rank = (int)rank, .format = METRICS_STEP_LOG };
	XGROW(k->seen, out->n, k->seen_cap, 16);
	k->seen[out->n] = 0;
	return out->n++;
}

/* The ranks of one log file's lines, the last few looked up kept (a node's
 * workers take turns line by line). */
struct file_ranks {
	long rank[8];
	size_t at[8], n;
};

static size_t file_rank_index(struct reading *k, struct file_ranks *fr, long rank)
{
	for (size_t i = 0; i < fr->n; i++)
		if (fr->rank[i] == rank)
			return fr->at[i];
	size_t at = rank_index(k, rank), slot = fr->n < 8 ? fr->n++ : (size_t)rank % 8;
	fr->rank[slot] = rank;
	fr->at[slot] = at;
	return at;
}

/* Reads logs/rank_<file>.out, each line its rank's (ranklines_of). Under a
 * per-node launcher the node's own lines count only when no line of the file
 * has a worker's prefix: the workers then wrote straight to the node's log,
 * and they are taken as its first worker's (exact when only it prints). */
static void read_log(struct reading *k, const struct ranklines *rl, long file, FILE *f)
{
	struct rank_metrics node = { .rank = -1, .format = METRICS_STEP_LOG };
	struct file_ranks fr = { .n = 0 };
	int node_seen = 0, prefixed = 0;
	char *line = NULL;
	size_t cap = 0, skip;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		long rank = ranklines_of(rl, file, line, (size_t)len, &skip);
		prefixed |= skip > 0;
		if (rank >= 0) {
			size_t i = file_rank_index(k, &fr, rank);
			match_line(k, &k->out->ranks[i], &k->seen[i], line + skip,
				   (size_t)len - skip);
		} else if (!skip) {
			match_line(k, &node, &node_seen, line, (size_t)len);
		}
	}
	free(line);
	long first = prefixed ? -1 : ranklines_rank(rl, file, 0);
	if ((node.n || node.bad_lines) && first >= 0) {
		size_t i = rank_index(k, first);
		if (k->out->ranks[i].n == 0) { /* a worker's lines are in its node's log only */
			node.rank = (int)first;
			rank_metrics_free(&k->out->ranks[i]);
			k->out->ranks[i] = node;
			k->seen[i] = node_seen;
			return;
		}
	}
	rank_metrics_free(&node);
}

static int rank_log(const char *name, int *rank)
{
	int n = 0;
	return sscanf(name, "rank_%d.out%n", rank, &n) == 1 && name[n] == '\0' && *rank >= 0;
}

/* Drops the ranks no line of which matched (their skipped lines too, as a
 * rank without step data has nothing to be counted against). */
static void drop_empty(struct scenario_metrics *out)
{
	size_t n = 0;
	for (size_t i = 0; i < out->n; i++) {
		if (out->ranks[i].n)
			out->ranks[n++] = out->ranks[i];
		else
			rank_metrics_free(&out->ranks[i]);
	}
	out->n = n;
}

int steplog_load(const char *job_dir, const struct ranklines *rl, const char *pattern,
		 int warmup, struct scenario_metrics *out)
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
	struct reading k = {
		.re = re, .md = pcre2_match_data_create_from_pattern(re, NULL),
		.mctx = rules_bounded_context(), .warmup = warmup, .out = out,
		.g = { pcre2_substring_number_from_name(re, (PCRE2_SPTR) "step"),
		       pcre2_substring_number_from_name(re, (PCRE2_SPTR) "step_ms"),
		       pcre2_substring_number_from_name(re, (PCRE2_SPTR) "loss"),
		       pcre2_substring_number_from_name(re, (PCRE2_SPTR) "samples") },
	};
	struct strbuf dir = STRBUF_INIT;
	struct argv names;
	strbuf_addf(&dir, "%s/" JOB_LOGS, job_dir);
	fsio_list(dir.buf, &names);
	for (size_t i = 0; i < names.n; i++) {
		int file;
		if (!rank_log(names.v[i], &file))
			continue;
		struct strbuf p = STRBUF_INIT;
		strbuf_addf(&p, "%s/%s", dir.buf, names.v[i]);
		FILE *f = fsio_fopen_or_warn(p.buf);
		strbuf_free(&p);
		if (!f)
			continue;
		read_log(&k, rl, file, f);
		fclose(f);
	}
	argv_free(&names);
	drop_empty(out);
	free(k.seen);
	rules_context_free(k.mctx);
	pcre2_match_data_free(k.md);
	pcre2_code_free(re);
	if (out->n == 0) {
		code = err_set(ERR_NOTFOUND,
			       "no line of %s/rank_<r>.out matches analysis.step_log.pattern",
			       dir.buf);
		strbuf_free(&dir);
		return code;
	}
	strbuf_free(&dir);
	metrics_sort_ranks(out);
	return 0;
}

double steplog_job_wall_s(const char *job_dir)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" JOB_STATUS, job_dir);
	json_t *j = json_load_file(p.buf, 0, NULL);
	strbuf_free(&p);
	json_t *a = json_object_get(j, "start"), *b = json_object_get(j, "end");
	double s = json_is_number(a) && json_is_number(b) && json_number_value(a) > 0 &&
			   json_number_value(b) >= json_number_value(a)
		? json_number_value(b) - json_number_value(a)
		: -1;
	json_decref(j);
	return s;
}
