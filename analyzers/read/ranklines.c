/* SPDX-License-Identifier: MIT */
#include "analyzers/read/ranklines.h"

#include "util/fsio.h"
#include "util/run_layout.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* A prefix is short: "[" role digits "]:"; a role ("default", torchrun's --role) is a word. */
#define RANKLINES_MAX_PREFIX 64

size_t ranklines_prefix(const char *line, size_t len, long *local)
{
	size_t i = 1, digits = 0;
	if (len < 4 || line[0] != '[')
		return 0;
	while (i < len && i < RANKLINES_MAX_PREFIX &&
	       (isalnum((unsigned char)line[i]) || (line[i] && strchr("_-.", line[i]))))
		i++;
	while (digits < i - 1 && isdigit((unsigned char)line[i - 1 - digits]))
		digits++;
	/* a role before the digits, at most 7 of them, then "]:" */
	if (!digits || digits > 7 || digits == i - 1 || i + 1 >= len || line[i] != ']' ||
	    line[i + 1] != ':')
		return 0;
	*local = strtol(line + i - digits, NULL, 10);
	return i + 2;
}

/* One record, of job_dir/ranks/<name>, into rec; 0, or -1 when it is no rank's. */
static int load_record(const char *job_dir, const char *name, struct rank_record *rec)
{
	struct strbuf p = STRBUF_INIT;
	json_int_t rank = -1, pid = -1, local = -1, node_rank = -1;
	const char *host = NULL, *node = NULL;
	strbuf_addf(&p, "%s/" JOB_RANKS "/%s", job_dir, name);
	json_t *j = json_load_file(p.buf, JSON_DISABLE_EOF_CHECK, NULL);
	strbuf_free(&p);
	int ok = j &&
		 !json_unpack(j, "{s:I, s:I, s:s, s?s, s?I, s?I}", "rank", &rank, "pid", &pid,
			      "host", &host, "node", &node, "local_rank", &local, "node_rank",
			      &node_rank) &&
		 rank >= 0;
	if (ok) {
		*rec = (struct rank_record){ .rank = (long)rank, .pid = (long)pid,
					     .local_rank = (long)local,
					     .node_rank = (long)node_rank, .worker = local >= 0 };
		snprintf(rec->node, sizeof rec->node, "%s", node ? node : host);
		snprintf(rec->host, sizeof rec->host, "%s", host);
	}
	json_decref(j);
	return ok ? 0 : -1;
}

/* The names of job_dir/ranks/ starting with prefix. */
static void record_names(const char *job_dir, const char *prefix, struct argv *out)
{
	struct strbuf p = STRBUF_INIT;
	struct argv names;
	*out = (struct argv){ 0 };
	strbuf_addf(&p, "%s/" JOB_RANKS, job_dir);
	fsio_list(p.buf, &names);
	strbuf_free(&p);
	for (size_t i = 0; i < names.n; i++)
		if (!strncmp(names.v[i], prefix, strlen(prefix)))
			argv_push(out, names.v[i]);
	argv_free(&names);
}

size_t ranklines_records(const char *job_dir, struct rank_record **out)
{
	struct argv names;
	size_t n = 0, cap = 0;
	*out = NULL;
	record_names(job_dir, "rank_", &names);
	for (size_t i = 0; i < names.n; i++) {
		XGROW(*out, n, cap, 8);
		n += load_record(job_dir, names.v[i], &(*out)[n]) == 0;
	}
	argv_free(&names);
	return n;
}

void ranklines_load(const char *job_dir, long world, struct ranklines *rl)
{
	struct rank_record *rec;
	struct argv launchers;
	size_t nrec = ranklines_records(job_dir, &rec), cap = 0;
	memset(rl, 0, sizeof *rl);
	record_names(job_dir, "launcher_", &launchers);
	rl->launchers = (long)launchers.n;
	argv_free(&launchers);
	for (size_t i = 0; i < nrec; i++) {
		const struct rank_record *r = &rec[i];
		if (!r->worker || r->node_rank < 0)
			continue;
		XGROW(rl->w, rl->n, cap, 8);
		rl->w[rl->n++] = (struct ranklines_worker){ r->node_rank, r->local_rank, r->rank };
	}
	free(rec);
	rl->per_node = rl->launchers > 0;
	if (rl->per_node && world > 0 && world % rl->launchers == 0)
		rl->workers = world / rl->launchers;
}

void ranklines_free(struct ranklines *rl)
{
	free(rl->w);
	memset(rl, 0, sizeof *rl);
}

long ranklines_rank(const struct ranklines *rl, long node, long local)
{
	for (size_t i = 0; i < rl->n; i++)
		if (rl->w[i].node == node && rl->w[i].local == local)
			return rl->w[i].rank;
	return rl->workers > 0 && local < rl->workers ? node * rl->workers + local : -1;
}

int ranklines_where(const struct ranklines *rl, long rank, long *node, long *local)
{
	for (size_t i = 0; i < rl->n; i++)
		if (rl->w[i].rank == rank) {
			*node = rl->w[i].node;
			*local = rl->w[i].local;
			return 0;
		}
	if (rl->workers <= 0 || (rl->launchers && rank / rl->workers >= rl->launchers))
		return -1;
	*node = rank / rl->workers;
	*local = rank % rl->workers;
	/* that place is a recorded worker's: rank is none of the launched */
	return ranklines_rank(rl, *node, *local) == rank ? 0 : -1;
}

long ranklines_of(const struct ranklines *rl, long file, const char *line, size_t len,
		  size_t *skip)
{
	long local;
	*skip = 0;
	if (!rl->per_node)
		return file;
	size_t n = ranklines_prefix(line, len, &local);
	*skip = n;
	return n ? ranklines_rank(rl, file, local) : -1;
}
