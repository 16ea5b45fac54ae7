/* SPDX-License-Identifier: MIT */
#include "analyzers/shard_plan.h"
#include "analyzers/trace_files.h"

#include "util/err.h"
#include "util/fsio.h"
#include "util/run_layout.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PARTIAL_FLAGS (JSON_COMPACT | JSON_ENSURE_ASCII) /* reals: 17 digits, jansson's default */

static void add_item(struct shard_plan *p, const char *dir, const char *name, int nsys, int order)
{
	XGROW(p->v, p->n, p->cap, 64);
	p->v[p->n++] = (struct shard_item){ xstrdup(dir), xstrdup(name), nsys, order };
}

static void add_dir(struct shard_plan *p, const char *job_dir, const char *sub, int nsys)
{
	struct strbuf dir = STRBUF_INIT;
	char **names;
	size_t n;
	strbuf_addf(&dir, "%s/%s", job_dir, sub);
	if (trace_files_list(dir.buf, nsys, &names, &n) == 0) {
		int *hints = xcalloc(n + 1, sizeof *hints);
		trace_files_rank_hints(dir.buf, names, n, hints);
		for (size_t i = 0; i < n; i++) {
			add_item(p, dir.buf, names[i], nsys, hints[i]);
			free(names[i]);
		}
		free(hints);
		free(names);
	}
	strbuf_free(&dir);
}

void shard_plan_build(const struct ana_run *run, const char *dir, struct shard_plan *p)
{
	memset(p, 0, sizeof *p);
	p->dir = xstrdup(dir);
	for (size_t i = 0; i < run->n_phase_rules; i++) {
		argv_push(&p->phase_names, run->phase_names[i]);
		argv_push(&p->phase_patterns, run->phase_patterns[i]);
	}
	for (size_t i = 0; i < run->n; i++)
		if (run->sc[i].in.completed) {
			add_dir(p, run->sc[i].in.job_dir, JOB_TRACES, 0);
			add_dir(p, run->sc[i].in.job_dir, JOB_NSYS, 1);
		}
}

static json_t *str_array(const struct argv *v)
{
	json_t *a = json_array();
	for (size_t i = 0; i < v->n; i++)
		json_array_append_new(a, json_string(v->v[i]));
	return a;
}

/* Removes the results of an earlier map step (k.json, shard-*.done, plan.json). */
static void clear_dir(const char *dir)
{
	struct argv names;
	struct strbuf p = STRBUF_INIT;
	fsio_list(dir, &names);
	for (size_t i = 0; i < names.n; i++) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", dir, names.v[i]);
		unlink(p.buf);
	}
	argv_free(&names);
	strbuf_free(&p);
}

int shard_json_write(const char *path, json_t *j)
{
	char *s = json_dumps(j, PARTIAL_FLAGS);
	json_decref(j);
	if (!s)
		return err_set(ERR_IO, "cannot encode %s (a number that is not finite?)", path);
	int rc = fsio_write_atomic(path, s, strlen(s), 0644);
	free(s);
	return rc;
}

int shard_plan_write(const struct shard_plan *p)
{
	int rc = fsio_mkdir_p(p->dir, 0755);
	if (rc < 0)
		return rc;
	clear_dir(p->dir);
	struct strbuf tl = STRBUF_INIT;
	shard_timeline_dir(p, &tl);
	fsio_remove_tree(tl.buf);
	/* there before any shard starts: the reduce marks a failed shard's files there */
	fsio_mkdir_p(tl.buf, 0755);
	strbuf_free(&tl);
	json_t *files = json_array();
	for (size_t i = 0; i < p->n; i++)
		json_array_append_new(files,
				      json_pack("[s, s, b, i]", p->v[i].dir, p->v[i].name,
						p->v[i].nsys, p->v[i].order));
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "%s/plan.json", p->dir);
	rc = shard_json_write(path.buf,
			json_pack("{s:o, s:o, s:o}", "phase_names", str_array(&p->phase_names),
				  "phase_patterns", str_array(&p->phase_patterns), "files", files));
	strbuf_free(&path);
	return rc;
}

static int read_strings(json_t *a, struct argv *v)
{
	for (size_t i = 0; i < json_array_size(a); i++) {
		const char *s = json_string_value(json_array_get(a, i));
		if (!s)
			return -1;
		argv_push(v, s);
	}
	return 0;
}

int shard_plan_read(const char *dir, struct shard_plan *p)
{
	memset(p, 0, sizeof *p);
	p->dir = xstrdup(dir);
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "%s/plan.json", dir);
	json_error_t je;
	json_t *j = json_load_file(path.buf, 0, &je), *names = json_object_get(j, "phase_names"),
	       *pats = json_object_get(j, "phase_patterns"), *files = json_object_get(j, "files");
	int rc = 0;
	if (!j)
		rc = err_set(fsio_exists(path.buf) ? ERR_IO : ERR_NOTFOUND, "%s: %s", path.buf,
			     je.text);
	else if (!json_is_array(names) || !json_is_array(files) ||
		 json_array_size(pats) != json_array_size(names))
		rc = err_set(ERR_IO, "%s: not a map-step plan", path.buf);
	if (rc == 0 &&
	    (read_strings(names, &p->phase_names) || read_strings(pats, &p->phase_patterns)))
		rc = err_set(ERR_IO, "%s: a phase rule is not a string", path.buf);
	for (size_t i = 0; rc == 0 && i < json_array_size(files); i++) {
		const char *d = NULL, *n = NULL;
		int nsys = 0, order = 0;
		if (json_unpack(json_array_get(files, i), "[s, s, b, i]", &d, &n, &nsys, &order))
			rc = err_set(ERR_IO, "%s: file %zu is not [dir, name, nsys, order]",
				     path.buf, i);
		else
			add_item(p, d, n, nsys, order);
	}
	json_decref(j);
	strbuf_free(&path);
	return rc;
}

void shard_plan_free(struct shard_plan *p)
{
	argv_free(&p->phase_names);
	argv_free(&p->phase_patterns);
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].dir);
		free(p->v[i].name);
	}
	free(p->v);
	free(p->dir);
	memset(p, 0, sizeof *p);
}

void shard_timeline_dir(const struct shard_plan *p, struct strbuf *out)
{
	strbuf_reset(out);
	strbuf_addf(out, "%s/" RUN_PARTIAL_TIMELINE, p->dir);
}
