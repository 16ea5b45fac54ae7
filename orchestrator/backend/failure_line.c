/* failure_line: see failure_line.h.
 * SPDX-License-Identifier: MIT */
#include "failure_line.h"

#include "analyzers/read/ranklines.h"
#include "util/fsio.h"
#include "util/quote.h"
#include "util/run_layout.h"
#include "util/words.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A log's tail is read whole; without the launch's record every rank's
 * log may be looked at, so less of each. */
#define FAILURE_SCAN_TAIL (64 * 1024)

struct span {
	const char *p;
	size_t n;
};

struct spans {
	struct span *v;
	size_t n, cap;
};

static int blank(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t')
			return 0;
	return 1;
}

/* Each piece of line (n bytes) between carriage returns that holds more
 * than white space, its trailing white space off. */
static void add_pieces(struct spans *s, const char *p, size_t n)
{
	while (n > 0) {
		const char *cr = memchr(p, '\r', n);
		size_t k = cr ? (size_t)(cr - p) : n;
		size_t t = k;
		while (t > 0 && (p[t - 1] == ' ' || p[t - 1] == '\t'))
			t--;
		if (!blank(p, t)) {
			XGROW(s->v, s->n, s->cap, 64);
			s->v[s->n++] = (struct span){ p, t };
		}
		p += cr ? k + 1 : k;
		n -= cr ? k + 1 : k;
	}
}

/* The lines of text that which selects (failure_line.h), prefixes taken off. */
static void lines_of(const char *text, size_t len, long which, struct spans *s)
{
	*s = (struct spans){ 0 };
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - text) - at : len - at;
		long local = -1;
		size_t skip = ranklines_prefix(text + at, n, &local);
		if (which == FAILURE_ALL || (which == FAILURE_UNPREFIXED && !skip) ||
		    (which >= 0 && skip && local == which))
			add_pieces(s, text + at + skip, n - skip);
		at += n + 1;
	}
}

static int span_is(const struct span *s, const char *what)
{
	return s->n == strlen(what) && !memcmp(s->p, what, s->n);
}

static int span_has(const struct span *s, const char *what)
{
	return memmem(s->p, s->n, what, strlen(what)) != NULL;
}

/* Appends the span cleaned; 0 (out as it was) when nothing but white space is left. */
static int add_clean(struct strbuf *out, const char *p, size_t n)
{
	size_t was = out->len;
	while (n > 0 && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	display_clean(out, p, n, FAILURE_LINE_MAX);
	if (!blank(out->buf ? out->buf + was : "", out->len - was))
		return 1;
	if (out->buf)
		out->buf[out->len = was] = '\0';
	return 0;
}

/* A traceback torchrun's agent raised itself (its ChildFailedError, or a
 * failure of the launcher's own code), not a worker's. */
static int torchrun_own(const struct span *v, size_t header, size_t exc)
{
	if (span_has(&v[exc], "torch.distributed.elastic."))
		return 1;
	for (size_t i = header + 1; i < exc; i++)
		if (span_has(&v[i], "torch/distributed/run.py") ||
		    span_has(&v[i], "torch/distributed/launcher/"))
			return 1;
	return 0;
}

static int chain_sentence(const struct span *s)
{
	return span_is(s, "During handling of the above exception, another exception occurred:") ||
	       span_is(s, "The above exception was the direct cause of the following exception:");
}

/* The exception line of the traceback whose header is v[i]: its index, or
 * 0 when the traceback has no frame or no end in v. */
static size_t exception_at(const struct spans *s, size_t i)
{
	size_t j = i + 1;
	while (j < s->n && (s->v[j].p[0] == ' ' || s->v[j].p[0] == '\t'))
		j++;
	return j > i + 1 && j < s->n ? j : 0;
}

int failure_line_exception(const char *text, size_t len, long which, struct strbuf *out)
{
	struct spans s;
	size_t first = 0, last = 0, chains = 0;
	lines_of(text, len, which, &s);
	for (size_t i = 0; i < s.n; i++) {
		size_t e;
		if (!span_is(&s.v[i], "Traceback (most recent call last):") ||
		    !(e = exception_at(&s, i)) ||
		    (which == FAILURE_UNPREFIXED && torchrun_own(s.v, i, e)))
			continue;
		chains += !(i > 0 && chain_sentence(&s.v[i - 1]));
		if (chains <= 1)
			first = e; /* the first chain, to its end */
		last = e;
	}
	size_t at = which == FAILURE_UNPREFIXED ? first : last;
	int found = at && add_clean(out, s.v[at].p, s.v[at].n);
	free(s.v);
	return found;
}

int failure_line_last(const char *text, size_t len, struct strbuf *out)
{
	struct spans s;
	int found = 0;
	lines_of(text, len, FAILURE_ALL, &s);
	for (size_t i = s.n; i-- > 0 && !found;)
		found = add_clean(out, s.v[i].p, s.v[i].n);
	free(s.v);
	return found;
}

int failure_line_root_cause(const char *text, size_t len, long *rank, long *local,
			    int *exit_code)
{
	struct spans s;
	int found = 0;
	lines_of(text, len, FAILURE_UNPREFIXED, &s);
	for (size_t i = 0; i < s.n; i++) {
		if (!span_has(&s.v[i], "Root Cause (first observed failure)"))
			continue;
		long r = -1, l = -1;
		int code = 0, have_code = 0;
		for (size_t j = i + 1; j < s.n && !span_has(&s.v[j], "====="); j++) {
			char line[160];
			snprintf(line, sizeof line, "%.*s", (int)s.v[j].n, s.v[j].p);
			if (sscanf(line, " rank : %ld (local_rank: %ld)", &r, &l) == 2)
				continue;
			have_code |= sscanf(line, " exitcode : %d", &code) == 1;
		}
		if (r >= 0 && l >= 0) { /* the last root cause said */
			*rank = r;
			*local = l;
			*exit_code = have_code ? code : 1;
			found = 1;
		}
	}
	free(s.v);
	return found;
}

/* ---- a job's logs ------------------------------------------------------ */

/* The launch's record of the task that failed first (ranklog.h). */
struct failed_task {
	long task;
	int exit_code, signal;
};

static int failed_read(const char *job_dir, struct failed_task *f)
{
	struct strbuf p = STRBUF_INIT;
	json_int_t task = -1, code = 0, sig = 0;
	strbuf_addf(&p, "%s/" JOB_RANKS "/" JOB_FAILED_RANK, job_dir);
	json_t *j = json_load_file(p.buf, 0, NULL);
	strbuf_free(&p);
	int ok = j && !json_unpack(j, "{s:I, s:I, s?I}", "task", &task, "exit_code", &code,
				   "signal", &sig) && task >= 0;
	json_decref(j);
	*f = (struct failed_task){ (long)task, (int)code, (int)sig };
	return ok;
}

/* The last max bytes of logs/rank_<n>.out ("" when it cannot be read). */
static char *log_tail(const char *job_dir, long n, size_t max, size_t *len)
{
	struct strbuf p = STRBUF_INIT;
	char *text = NULL;
	strbuf_addf(&p, "%s/" JOB_LOGS "/rank_%ld.out", job_dir, n);
	if (fsio_read_tail(p.buf, max, &text, len) < 0) {
		text = xstrdup("");
		*len = 0;
	}
	strbuf_free(&p);
	return text;
}

/* What ended a process that left no exception line: its signal, its last
 * line, else its exit status. */
static void plain_end(const char *text, size_t len, const struct failed_task *f,
		      struct strbuf *out)
{
	if (f->signal > 0) {
		strbuf_addf(out, "killed by signal %d (%s)", f->signal, strsignal(f->signal));
		size_t was = out->len;
		strbuf_adds(out, "; last line: ");
		if (!failure_line_last(text, len, out))
			out->buf[out->len = was] = '\0';
	} else if (!failure_line_last(text, len, out)) {
		strbuf_addf(out, "exit status %d, no output", f->exit_code);
	}
}

/* A rank campaign started itself: its own log. */
static void rank_failure(const char *job_dir, const struct failed_task *f, size_t max,
			 struct strbuf *out)
{
	size_t len;
	char *text = log_tail(job_dir, f->task, max, &len);
	strbuf_addf(out, "rank %ld: ", f->task);
	if (!failure_line_exception(text, len, FAILURE_ALL, out))
		plain_end(text, len, f, out);
	free(text);
}

/* The worker torchrun names as the root cause in its node's log text, or
 * (none named) the launcher that failed by itself. */
static void node_failure(const char *text, size_t len, const struct failed_task *f,
			 struct strbuf *out)
{
	long rank, local;
	int code;
	if (!failure_line_root_cause(text, len, &rank, &local, &code)) {
		strbuf_addf(out, "launcher on node %ld: ", f->task);
		if (!failure_line_exception(text, len, FAILURE_ALL, out))
			plain_end(text, len, f, out);
		return;
	}
	strbuf_addf(out, "rank %ld: ", rank);
	if (failure_line_exception(text, len, local, out) ||
	    failure_line_exception(text, len, FAILURE_UNPREFIXED, out))
		return;
	if (code < 0)
		strbuf_addf(out, "killed by signal %d (%s)", -code, strsignal(-code));
	else
		strbuf_addf(out, "exit status %d (no error line in its node's log)", code);
}

/* The ranks (or nodes) with a log, lowest first. */
static size_t logged(const char *job_dir, long **out)
{
	struct strbuf p = STRBUF_INIT;
	struct argv names;
	size_t n = 0;
	strbuf_addf(&p, "%s/" JOB_LOGS, job_dir);
	fsio_list(p.buf, &names);
	*out = xcalloc(names.n + 1, sizeof **out);
	for (size_t i = 0; i < names.n; i++) {
		char end[8] = "";
		long r;
		if (sscanf(names.v[i], "rank_%ld%7s", &r, end) == 2 && !strcmp(end, ".out") &&
		    r >= 0)
			(*out)[n++] = r;
	}
	for (size_t i = 1; i < n; i++) /* few: insertion */
		for (size_t k = i; k > 0 && (*out)[k - 1] > (*out)[k]; k--) {
			long t = (*out)[k];
			(*out)[k] = (*out)[k - 1];
			(*out)[k - 1] = t;
		}
	argv_free(&names);
	strbuf_free(&p);
	return n;
}

/* No record of the launch: the lowest rank whose log holds a traceback
 * (under a per-node launcher, the lowest node whose log names a root cause). */
static int first_traceback(const char *job_dir, int per_node, struct strbuf *out)
{
	long *ranks, r, l;
	int code, found = 0;
	size_t n = logged(job_dir, &ranks);
	for (size_t i = 0; i < n && !found; i++) {
		size_t len, was = out->len;
		char *text = log_tail(job_dir, ranks[i], FAILURE_SCAN_TAIL, &len);
		struct failed_task f = { ranks[i], 1, 0 };
		if (per_node && (found = failure_line_root_cause(text, len, &r, &l, &code))) {
			node_failure(text, len, &f, out);
		} else if (!per_node) {
			strbuf_addf(out, "rank %ld: ", ranks[i]);
			if (!(found = failure_line_exception(text, len, FAILURE_ALL, out)))
				out->buf[out->len = was] = '\0';
		}
		free(text);
	}
	free(ranks);
	return found;
}

int failure_line_read(const char *job_dir, struct strbuf *out)
{
	struct failed_task f;
	struct ranklines rl;
	ranklines_load(job_dir, 0, &rl);
	int per_node = rl.per_node;
	ranklines_free(&rl);
	if (!failed_read(job_dir, &f))
		return first_traceback(job_dir, per_node, out);
	if (!per_node) {
		rank_failure(job_dir, &f, FAILURE_TAIL, out);
		return 1;
	}
	size_t len;
	char *text = log_tail(job_dir, f.task, FAILURE_TAIL, &len);
	node_failure(text, len, &f, out);
	free(text);
	return 1;
}
