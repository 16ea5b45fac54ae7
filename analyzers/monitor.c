#include "monitor.h"

#include "../orchestrator/err.h"
#include "../orchestrator/strbuf.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column index of name in a CSV header line, or -1. */
static int column(const char *header, const char *name)
{
	int i = 0;
	for (const char *p = header; p; p = strchr(p, ','), p = p ? p + 1 : NULL, i++) {
		size_t n = strcspn(p, ",\r\n");
		if (n == strlen(name) && !strncmp(p, name, n))
			return i;
	}
	return -1;
}

static double field(const char *line, int idx)
{
	const char *p = line;
	for (int i = 0; i < idx && p; i++) {
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return p ? atof(p) : 0;
}

static void add_file(const char *path, struct monitor_summary *s, double *cpu, double *iow)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int cu = -1, io = -1, mu = -1, mt = -1;
	if (f && getline(&line, &cap, f) > 0) {
		cu = column(line, "cpu_util_pct");
		io = column(line, "iowait_pct");
		mu = column(line, "mem_used_mib");
		mt = column(line, "mem_total_mib");
	}
	while (f && cu >= 0 && getline(&line, &cap, f) > 0) {
		double used = field(line, mu), total = field(line, mt);
		*cpu += field(line, cu);
		*iow += field(line, io);
		if (used > s->mem_peak_mib)
			s->mem_peak_mib = used;
		if (total > 0 && 100 * used / total > s->mem_peak_pct)
			s->mem_peak_pct = 100 * used / total;
		s->samples++;
	}
	free(line);
	if (f)
		fclose(f);
}

int monitor_summarise(const char *job_dir, struct monitor_summary *out)
{
	struct strbuf dir = STRBUF_INIT;
	double cpu = 0, iow = 0;
	memset(out, 0, sizeof *out);
	strbuf_addf(&dir, "%s/monitor", job_dir);
	DIR *d = opendir(dir.buf);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		struct strbuf f = STRBUF_INIT;
		strbuf_addf(&f, "%s/%s/cpu_monitor.csv", dir.buf, e->d_name);
		long before = out->samples;
		add_file(f.buf, out, &cpu, &iow);
		out->nodes += out->samples > before;
		strbuf_free(&f);
	}
	if (d)
		closedir(d);
	strbuf_free(&dir);
	if (!out->samples)
		return err_set(ERR_NOTFOUND, "no monitor data in %s/monitor", job_dir);
	out->cpu_util_mean_pct = cpu / (double)out->samples;
	out->iowait_mean_pct = iow / (double)out->samples;
	return 0;
}
