/* SPDX-License-Identifier: MIT */
#include "analyzers/trace_files.h"

#include "analyzers/read/ranklines.h"
#include "analyzers/trace_names.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The one record of rank, or NULL (none, or several). */
static const struct rank_record *record_of(const struct rank_record *rec, size_t nrec, long rank)
{
	const struct rank_record *one = NULL;
	for (size_t k = 0; k < nrec; k++)
		if (rec[k].rank == rank) {
			if (one)
				return NULL;
			one = &rec[k];
		}
	return one;
}

void trace_files_rank_nodes(const char *job_dir, struct scenario_metrics *m)
{
	struct rank_record *rec;
	size_t nrec = ranklines_records(job_dir, &rec);
	for (size_t i = 0; i < m->n; i++) {
		const struct rank_record *r = record_of(rec, nrec, m->ranks[i].rank);
		/* a record names the world's rank when campaign started every rank (one
		 * record per rank) or a launcher's worker was recorded with its RANK */
		if (r && (nrec == m->n || r->worker) && !m->ranks[i].host[0])
			snprintf(m->ranks[i].host, sizeof m->ranks[i].host, "%.127s", r->node);
	}
	free(rec);
}

void trace_files_rank_hints(const char *dir, char *const *names, size_t n, int *hints)
{
	char *copy = xstrdup(dir), *slash = strrchr(copy, '/');
	if (slash)
		*slash = '\0';
	struct rank_record *rec;
	size_t nrec = ranklines_records(copy, &rec);
	free(copy);
	struct argv workers = { 0 }; /* distinct processes, in file order */
	long base = 0; /* processes no record names come after the recorded ranks */
	for (size_t k = 0; k < nrec; k++)
		if (rec[k].rank + 1 > base)
			base = rec[k].rank + 1;
	for (size_t i = 0; i < n; i++) {
		char worker[512], host[256];
		long pid = -1;
		hints[i] = -1;
		int named = trace_worker_of_name(names[i], worker, sizeof worker, host,
						      sizeof host, &pid);
		for (size_t k = 0; named && k < nrec && hints[i] < 0; k++)
			if (rec[k].pid == pid && !strcmp(rec[k].host, host))
				hints[i] = (int)rec[k].rank;
		if (hints[i] < 0)
			hints[i] = trace_rank_of_name(names[i]);
		if (hints[i] >= 0)
			continue;
		/* a file named after no process is a worker of its own */
		size_t w = named ? 0 : workers.n;
		while (w < workers.n && strcmp(workers.v[w], worker))
			w++;
		if (w == workers.n)
			argv_push(&workers, named ? worker : names[i]);
		hints[i] = (int)(base + (long)w);
	}
	argv_free(&workers);
	free(rec);
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	return n > k && !strcmp(s + n - k, tail);
}

static int is_trace_name(const char *name)
{
	return ends_with(name, ".json") || ends_with(name, ".json.gz");
}

static int is_nsys_name(const char *name)
{
	return ends_with(name, ".sqlite");
}

int trace_files_list(const char *dir, int nsys, char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	struct argv all;
	if (fsio_list(dir, &all) < 0) /* sorted: the same order whatever readdir says */
		return err_set(ERR_NOTFOUND, "no directory %s", dir);
	size_t cap = 0;
	for (size_t i = 0; i < all.n; i++)
		if (nsys ? is_nsys_name(all.v[i]) : is_trace_name(all.v[i])) {
			XGROW(*names, *n, cap, 16);
			(*names)[(*n)++] = xstrdup(all.v[i]);
		}
	argv_free(&all);
	return 0;
}

double trace_files_written(const char *dir)
{
	char **names;
	size_t n;
	double latest = 0;
	if (trace_files_list(dir, 0, &names, &n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct strbuf p = STRBUF_INIT;
		struct stat st;
		strbuf_addf(&p, "%s/%s", dir, names[i]);
		if (stat(p.buf, &st) == 0) {
			double t = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
			latest = t > latest ? t : latest;
		}
		strbuf_free(&p);
		free(names[i]);
	}
	free(names);
	return latest;
}
