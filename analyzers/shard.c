/* SPDX-License-Identifier: MIT */
#include "analyzers/shard.h"
#include "analyzers/shard_result.h"
#include "util/clock.h"
#include "util/run_layout.h"

#include "analyzers/pool.h"
#include "analyzers/timeline_fragment.h"
#include "util/err.h"
#include "util/fsio.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the map: one shard ---- */

struct shard_job {
	const struct shard_plan *p;
	size_t *items; /* plan indexes of this shard */
	const struct rules *phases, *kernels;
	const char *host;
	int *rc;       /* per item */
	double *bytes;
};

static void result_path(struct strbuf *sb, const struct shard_plan *p, size_t k)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "%s/%zu.json", p->dir, k);
}

/* 1 when plan item k is among the first TIMELINE_FRAGMENT_RANKS files of its folder
 * (the plan lists a folder's files together, by name): the timeline shows it. */
static int shown_in_timeline(const struct shard_plan *p, size_t k)
{
	return k < TIMELINE_FRAGMENT_RANKS ||
		strcmp(p->v[k - TIMELINE_FRAGMENT_RANKS].dir, p->v[k].dir) != 0;
}

static void shard_job_one(void *ctx, size_t i)
{
	struct shard_job *j = ctx;
	size_t k = j->items[i];
	const struct shard_item *it = &j->p->v[k];
	struct trace_set part;
	struct strbuf path = STRBUF_INIT, frag = STRBUF_INIT;
	struct stat st;
	if (shown_in_timeline(j->p, k)) {
		shard_timeline_dir(j->p, &path);
		timeline_fragment_path(&frag, path.buf, it->dir, it->name);
	}
	torchtrace_load_file(it->dir, it->name, it->nsys, it->order, j->phases, j->kernels,
			     frag.len ? frag.buf : NULL, &part);
	strbuf_free(&frag);
	result_path(&path, j->p, k);
	j->rc[i] = shard_json_write(path.buf, shard_result_json(it, &part, j->host));
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/%s", it->dir, it->name);
	j->bytes[i] = stat(path.buf, &st) == 0 ? (double)st.st_size : 0;
	trace_set_free(&part);
	strbuf_free(&path);
}

static void host_name(char *buf, size_t n)
{
	const char *node = getenv("SLURMD_NODENAME");
	if (node && *node)
		snprintf(buf, n, "%s", node);
	else if (gethostname(buf, n) != 0)
		snprintf(buf, n, "unknown");
	buf[n - 1] = '\0';
}

static int load_rules(const struct shard_plan *p, struct rules *phases, struct rules *kernels,
		      int *have_kernels)
{
	struct ana_run run = { .phase_names = p->phase_names.v,
			       .phase_patterns = p->phase_patterns.v,
			       .n_phase_rules = p->phase_names.n };
	int rc = ana_phase_rules_load(&run, phases);
	if (rc < 0)
		return rc;
	char *kpath = rules_default_path();
	/* as ana_run_analyse: no kernel rules, no GPU breakdown */
	*have_kernels = rules_load(kpath, kernels) == 0;
	free(kpath);
	return 0;
}

static int write_done(const struct shard_plan *p, const struct shard_done *d)
{
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "%s/shard-%d.done", p->dir, d->index);
	int rc = shard_json_write(path.buf,
			    json_pack("{s:i, s:i, s:i, s:s, s:I, s:f, s:f}", "index", d->index,
				      "count", d->count, "attempt", d->attempt, "host", d->host,
				      "files", (json_int_t) d->files, "bytes", d->bytes, "seconds",
				      d->seconds));
	strbuf_free(&path);
	return rc;
}

int shard_run(const struct shard_plan *p, int index, int count, int attempt, int jobs,
	      struct shard_done *done)
{
	memset(done, 0, sizeof *done);
	*done = (struct shard_done){ .index = index, .count = count, .attempt = attempt };
	host_name(done->host, sizeof done->host);
	double t0 = clock_mono_s();
	struct rules phases, kernels;
	int have_kernels, rc = load_rules(p, &phases, &kernels, &have_kernels);
	if (rc < 0)
		return rc;
	struct shard_job j = { p,          xcalloc(p->n + 1, sizeof *j.items),
			       &phases,    have_kernels ? &kernels : NULL,
			       done->host, NULL,
			       NULL };
	for (size_t k = (size_t)index; k < p->n; k += (size_t)count)
		j.items[done->files++] = k;
	struct strbuf tl = STRBUF_INIT;
	shard_timeline_dir(p, &tl);
	fsio_mkdir_p(tl.buf, 0755); /* else no fragment: the timeline reads those files itself */
	strbuf_free(&tl);
	j.rc = xcalloc(done->files + 1, sizeof *j.rc);
	j.bytes = xcalloc(done->files + 1, sizeof *j.bytes);
	pool_run(done->files, jobs, shard_job_one, &j);
	for (size_t i = 0; i < done->files; i++) {
		done->bytes += j.bytes[i];
		if (rc == 0 && j.rc[i] < 0)
			rc = err_set(j.rc[i], "shard %d/%d: cannot write the result of %s/%s",
				     index, count, p->v[j.items[i]].dir, p->v[j.items[i]].name);
	}
	done->seconds = clock_mono_s() - t0;
	if (rc == 0)
		rc = write_done(p, done);
	rules_free(&phases);
	if (have_kernels)
		rules_free(&kernels);
	free(j.items);
	free(j.rc);
	free(j.bytes);
	return rc;
}

int shard_done_read(const struct shard_plan *p, int index, struct shard_done *done)
{
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "%s/shard-%d.done", p->dir, index);
	json_t *j = json_load_file(path.buf, 0, NULL);
	const char *host = "";
	json_int_t files = 0;
	memset(done, 0, sizeof *done);
	int ok = j &&
		!json_unpack(j, "{s:i, s:i, s:i, s:s, s:I, s:F, s:F}", "index", &done->index,
			     "count", &done->count, "attempt", &done->attempt, "host", &host,
			     "files", &files, "bytes", &done->bytes, "seconds", &done->seconds);
	snprintf(done->host, sizeof done->host, "%s", host);
	done->files = (size_t)files;
	json_decref(j);
	strbuf_free(&path);
	return ok;
}

/* ---- the reduce's source ---- */

int shard_part(void *plan, const char *dir, const char *name, struct trace_set *out)
{
	const struct shard_plan *p = plan;
	/* a linear search: 10^6 comparisons for 1,000 files, nothing beside reading them */
	size_t k = 0;
	while (k < p->n && (strcmp(p->v[k].name, name) || strcmp(p->v[k].dir, dir)))
		k++;
	if (k == p->n)
		return 0; /* not in the plan (added since): read it here */
	struct strbuf path = STRBUF_INIT;
	result_path(&path, p, k);
	json_t *j = json_load_file(path.buf, 0, NULL);
	int ok = j && shard_result_read(j, &p->v[k], out) == 0;
	json_decref(j);
	strbuf_free(&path);
	if (!ok) {
		trace_set_free(out);
		out->not_analysed = 1;
		out->not_analysed_names = xstrdup(name);
	}
	return 1;
}
