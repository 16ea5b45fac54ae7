/* bisection: bisect.json, the next commits, the answer.
 * SPDX-License-Identifier: MIT */
#include "bisection.h"
#include "orchestrator/run.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/jsonio.h"
#include "util/strbuf.h"

#include <math.h>
#include <string.h>

static json_t *commit_json(const struct bisect_commit *c)
{
	return json_pack("{s:s, s:s, s:s, s:s}", "commit", c->hash, "subject", c->subject,
			 "author", c->author, "date", c->date);
}

json_t *bisection_new(const char *id, const struct bisect_range *r, const char *campaign_file,
		      const char *campaign, const char *scenario, double threshold_pct,
		      int parallel, const char *backend)
{
	json_t *commits = json_array();
	for (size_t i = 0; i < r->n; i++)
		json_array_append_new(commits, commit_json(&r->v[i]));
	return json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:f, s:i, s:s, s:o, s:o, s:o, s:[], s:[], s:s, s:n, s:n, s:n}",
		"bisection", id, "repo", r->workdir, "campaign_file", campaign_file, "campaign",
		campaign, "scenario", scenario, "threshold_pct", threshold_pct, "parallel",
		parallel, "backend", backend, "good", commit_json(&r->v[0]), "bad",
		commit_json(&r->v[r->n - 1]), "commits", commits, "tested", "pending", "state",
		"running", "first_bad", "reason", "repeat");
}

int bisection_save(const char *dir, json_t *state)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/" BISECT_STATE, dir);
	int rc = jsonio_write(p.buf, state);
	strbuf_free(&p);
	return rc;
}

/* Whether s is n to m characters of set (a hash, an id). */
static int made_of(const char *s, const char *set, size_t n, size_t m)
{
	size_t len = s ? strlen(s) : 0;
	return len >= n && len <= m && strspn(s, set) == len;
}

/* What bisect.json must hold for its ids and hashes to go into paths and YAML: NULL, or
 * what is wrong (a hand-edited or damaged file). */
static const char *state_problem(json_t *st)
{
	const char *hex = "0123456789abcdef";
	size_t i, n = json_array_size(json_object_get(st, "commits"));
	json_t *e;
	if (!made_of(jsonio_str(st, "bisection"), "0123456789abcdef-", 1, 64))
		return "its bisection id is not one campaign makes";
	if (n < 2)
		return "it holds fewer than two commits";
	for (i = 0; i < n; i++)
		if (!made_of(bisection_commit(st, i), hex, 40, 40))
			return "a commit there is no full hash";
	const char *lists[] = { "tested", "pending" };
	for (int l = 0; l < 2; l++)
		json_array_foreach(json_object_get(st, lists[l]), i, e)
			if (!made_of(jsonio_str(e, "commit"), hex, 40, 40) ||
			    !made_of(jsonio_str(e, "run"), "0123456789abcdef-", 0, 64))
				return "a run it lists names no commit or run campaign makes";
	return NULL;
}

int bisection_load(const char *dir, json_t **out)
{
	struct strbuf p = STRBUF_INIT;
	const char *problem;
	json_error_t e;
	int rc = 0;
	strbuf_addf(&p, "%s/" BISECT_STATE, dir);
	*out = NULL;
	if (!fsio_exists(p.buf))
		rc = err_set(ERR_NOTFOUND, "%s holds no bisection (no %s)", dir, BISECT_STATE);
	else if (!(*out = json_load_file(p.buf, 0, &e)))
		rc = err_set(ERR_IO, "%s is corrupt (line %d: %s)", p.buf, e.line, e.text);
	else if ((problem = state_problem(*out)) != NULL)
		rc = err_set(ERR_IO, "%s is corrupt: %s", p.buf, problem);
	if (rc < 0) {
		json_decref(*out);
		*out = NULL;
	}
	strbuf_free(&p);
	return rc;
}

void bisection_list(const char *root, struct argv *out)
{
	memset(out, 0, sizeof *out);
	run_list_holding(root, BISECT_STATE, out);
}

int bisection_find(const char *root, const char *ref, int prefix, char **dir)
{
	struct strbuf p = STRBUF_INIT;
	struct argv all;
	size_t hits = 0;
	strbuf_addf(&p, "%s/" BISECT_STATE, ref);
	*dir = fsio_exists(p.buf) ? fsio_abspath(ref) : NULL;
	bisection_list(root, &all);
	for (size_t i = 0; !*dir && i < all.n; i++) {
		const char *id = strchr(all.v[i], '/') + 1;
		if ((prefix ? strncmp(id, ref, strlen(ref)) : strcmp(id, ref)) || hits++)
			continue;
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", root, all.v[i]);
	}
	if (!*dir && hits == 1)
		*dir = fsio_abspath(p.buf);
	argv_free(&all);
	strbuf_free(&p);
	if (hits > 1)
		return err_set(ERR_USAGE,
			       "%zu bisections under %s start with %s: give more of the id", hits,
			       root, ref);
	return *dir ? 0
		    : err_set(ERR_NOTFOUND, "no bisection %s under %s (`campaign ls` lists them)",
			      ref, root);
}

const char *bisection_commit(json_t *state, size_t i)
{
	return jsonio_str(json_array_get(json_object_get(state, "commits"), i), "commit");
}

size_t bisection_ncommits(json_t *state)
{
	return json_array_size(json_object_get(state, "commits"));
}

int bisection_runs_of(json_t *state, size_t i)
{
	const char *h = bisection_commit(state, i);
	size_t k;
	json_t *t;
	int n = 0;
	json_array_foreach(json_object_get(state, "tested"), k, t)
		n += !strcmp(jsonio_str(t, "commit"), h);
	return n;
}

double bisection_spread(json_t *state)
{
	json_t *r = json_object_get(json_object_get(state, "repeat"), "ratio");
	return json_is_number(r) ? fabs(json_number_value(r) - 1) : 0;
}

json_t *bisection_last_test(json_t *state, const char *hash)
{
	json_t *last = NULL, *t;
	size_t k;
	json_array_foreach(json_object_get(state, "tested"), k, t)
		if (!strcmp(jsonio_str(t, "commit"), hash))
			last = t;
	return last;
}

long bisection_index(json_t *state, const char *hash)
{
	for (size_t i = 0; i < bisection_ncommits(state); i++)
		if (!strcmp(bisection_commit(state, i), hash))
			return (long)i;
	return -1;
}

int bisection_outcome(json_t *state, size_t i)
{
	json_t *t = bisection_last_test(state, bisection_commit(state, i));
	int last = t ? judge_outcome_parse(jsonio_str(t, "outcome")) : -1;
	if (last == BISECT_UNCLEAR && bisection_runs_of(state, i) > 1)
		return BISECT_SKIP;
	return last;
}

/* The last good before the first bad: *lo, *hi (GOOD and BAD when nothing else is known). */
static void bounds(json_t *state, long *lo, long *hi)
{
	long n = (long)bisection_ncommits(state);
	*lo = 0;
	*hi = n - 1;
	for (long i = 1; i < n - 1; i++)
		if (bisection_outcome(state, (size_t)i) == BISECT_BAD) {
			*hi = i;
			break;
		}
	for (long i = *hi - 1; i > 0; i--)
		if (bisection_outcome(state, (size_t)i) == BISECT_GOOD) {
			*lo = i;
			break;
		}
}

size_t bisection_next(json_t *state, size_t k, long *out)
{
	long lo, hi, m = 0;
	size_t got = 0;
	bounds(state, &lo, &hi);
	long *cand = xcalloc((size_t)(hi - lo) + 1, sizeof *cand);
	for (long i = lo + 1; i < hi; i++) {
		int o = bisection_outcome(state, (size_t)i);
		if (o == BISECT_UNCLEAR && got < k)
			out[got++] = i; /* its rerun */
		else if (o < 0)
			cand[m++] = i;
	}
	/* the rest a K-ary split: the j-th of k points at j/(k+1) of the candidates */
	size_t want = k - got;
	for (size_t j = 1; m > 0 && j <= want; j++) {
		long at = cand[(long)((double)j * (double)m / (double)(want + 1))];
		if (!got || out[got - 1] != at)
			out[got++] = at;
	}
	free(cand);
	return got;
}

/* Commit i as the answer names it: hash, subject and its last test's figures. */
static json_t *answer_row(json_t *state, size_t i)
{
	json_t *c = json_array_get(json_object_get(state, "commits"), i);
	json_t *last = bisection_last_test(state, jsonio_str(c, "commit"));
	json_t *row = json_pack("{s:s, s:s, s:s, s:s}", "commit", jsonio_str(c, "commit"),
				"subject", jsonio_str(c, "subject"), "author",
				jsonio_str(c, "author"), "date", jsonio_str(c, "date"));
	const char *keys[] = { "ratio", "ratio_interval", "median_step_ms", "run" };
	for (size_t j = 0; last && j < sizeof keys / sizeof *keys; j++)
		json_object_set(row, keys[j], json_object_get(last, keys[j]));
	return row;
}

void bisection_answer(json_t *state)
{
	long lo, hi;
	bounds(state, &lo, &hi);
	json_t *row = json_null();
	struct strbuf why = STRBUF_INIT;
	json_object_set_new(state, "last_good", answer_row(state, (size_t)lo));
	if (hi == lo + 1) {
		row = answer_row(state, (size_t)hi);
	} else {
		strbuf_addf(
			&why,
			"commits between the last good %.12s and the first bad %.12s were skipped (they did not run, or their step times stayed unclear): the first bad is one of",
			bisection_commit(state, (size_t) lo), bisection_commit(state, (size_t) hi));
		for (long i = lo + 1; i <= hi; i++)
			strbuf_addf(&why, "%s %.12s", i > lo + 1 ? "," : "",
				    bisection_commit(state, (size_t)i));
	}
	json_object_set_new(state, "first_bad", row);
	json_object_set_new(state, "reason", why.len ? json_string(why.buf) : json_null());
	json_object_set_new(state, "state", json_string("done"));
	strbuf_free(&why);
}
