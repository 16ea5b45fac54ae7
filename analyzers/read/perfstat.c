/* SPDX-License-Identifier: MIT */
#include "analyzers/read/perfstat.h"
#include "util/run_layout.h"
#include "util/fsio.h"

#include "util/err.h"
#include "util/strbuf.h"
#include "util/words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_line(struct perf_summary *s, char *line)
{
	char *f[4] = { 0 };
	int n = 0;
	for (char *p = line; p && n < 4; n++) {
		f[n] = p;
		p = strchr(p, ',');
		if (p)
			*p++ = '\0';
	}
	if (n < 3 || !f[2][0])
		return;
	f[2][strcspn(f[2], "\r\n")] = '\0';
	struct perf_event *e = NULL;
	for (int i = 0; i < s->n && !e; i++)
		if (!strcmp(s->ev[i].name, f[2]))
			e = &s->ev[i];
	if (!e) {
		if (s->n == PERFSTAT_MAX)
			return;
		e = &s->ev[s->n++];
		snprintf(e->name, sizeof e->name, "%s", f[2]);
		snprintf(e->unit, sizeof e->unit, "%s", f[1]);
		e->supported = 1;
	}
	if (f[0][0] == '<')
		e->supported = 0; /* <not supported>, <not counted> */
	else
		e->value += atof(f[0]);
}

int perfstat_summarise(const char *job_dir, struct perf_summary *out)
{
	struct strbuf dir = STRBUF_INIT;
	memset(out, 0, sizeof *out);
	strbuf_addf(&dir, "%s/perf", job_dir);
	struct argv names;
	fsio_list(dir.buf, &names); /* in name order: the same sums on every file system */
	for (size_t i = 0; i < names.n; i++) {
		if (strncmp(names.v[i], "rank_", 5))
			continue;
		struct strbuf p = STRBUF_INIT;
		strbuf_addf(&p, "%s/%s", dir.buf, names.v[i]);
		FILE *f = fsio_fopen_or_warn(p.buf);
		char line[512];
		while (f && fgets(line, sizeof line, f))
			if (line[0] != '#' && line[0] != '\n')
				add_line(out, line);
		if (f) {
			fclose(f);
			out->ranks++;
		}
		strbuf_free(&p);
	}
	argv_free(&names);
	strbuf_free(&dir);
	return out->ranks ? 0 : err_set(ERR_NOTFOUND, "no perf output in %s/perf", job_dir);
}

int nsys_exports(const char *job_dir)
{
	struct strbuf dir = STRBUF_INIT;
	strbuf_addf(&dir, "%s/" JOB_NSYS, job_dir);
	struct argv names;
	fsio_list(dir.buf, &names);
	int n = 0;
	for (size_t i = 0; i < names.n; i++) {
		size_t len = strlen(names.v[i]);
		n += !strncmp(names.v[i], "rank_", 5) && len > 7 &&
			!strcmp(names.v[i] + len - 7, ".sqlite");
	}
	argv_free(&names);
	strbuf_free(&dir);
	return n;
}
