/* SPDX-License-Identifier: MIT */
#include "cpu.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void read_stat(struct cpu_reading *r)
{
	FILE *f = fopen("/proc/stat", "r");
	unsigned long long v[10] = { 0 };
	if (f &&
	    fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) >= 4) {
		r->idle = v[3];
		r->iowait = v[4];
		/* guest time is inside user */
		r->total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
		r->busy = r->total - r->idle - r->iowait;
	}
	if (f)
		fclose(f);
}

static void read_mem(struct cpu_reading *r)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char key[64];
	unsigned long long kb, total = 0, avail = 0;
	while (f && fscanf(f, "%63s %llu kB\n", key, &kb) == 2) {
		if (!strcmp(key, "MemTotal:"))
			total = kb;
		else if (!strcmp(key, "MemAvailable:"))
			avail = kb;
	}
	if (f)
		fclose(f);
	r->mem_total_mib = (double)total / 1024;
	r->mem_used_mib = (double)(total - avail) / 1024;
	f = fopen("/proc/loadavg", "r");
	if (!f || fscanf(f, "%lf", &r->load1) != 1)
		r->load1 = 0;
	if (f)
		fclose(f);
}

/* Whole disks only (they have /sys/block/<name>), no loop or RAM devices. */
static void read_disks(struct cpu_reading *r)
{
	FILE *f = fopen("/proc/diskstats", "r");
	char line[512], name[64], sys[128];
	unsigned maj, min;
	unsigned long long rd, rs, wr, ws, x;
	while (f && fgets(line, sizeof line, f)) {
		if (sscanf(line, "%u %u %63s %llu %llu %llu %llu %llu %llu %llu", &maj, &min, name,
			   &x, &x, &rs, &x, &x, &x, &ws) != 10)
			continue;
		snprintf(sys, sizeof sys, "/sys/block/%s", name);
		if (!strncmp(name, "loop", 4) || !strncmp(name, "ram", 3) ||
		    !strncmp(name, "zram", 4) || access(sys, F_OK))
			continue;
		rd = rs * 512;
		wr = ws * 512;
		r->disk_read += rd;
		r->disk_write += wr;
	}
	if (f)
		fclose(f);
}

static void read_net(struct cpu_reading *r)
{
	FILE *f = fopen("/proc/net/dev", "r");
	char line[512];
	while (f && fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		char *name = line;
		while (*name == ' ')
			name++;
		unsigned long long rx, tx, x;
		if (!strcmp(name, "lo") ||
		    sscanf(colon + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu", &rx, &x, &x,
			   &x, &x, &x, &x, &x, &tx) != 9)
			continue;
		r->net_rx += rx;
		r->net_tx += tx;
	}
	if (f)
		fclose(f);
}

int cpu_read(struct cpu_reading *r)
{
	struct timespec ts;
	memset(r, 0, sizeof *r);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	r->t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	read_stat(r);
	read_mem(r);
	read_disks(r);
	read_net(r);
	return r->total > 0 ? 0 : -1;
}

void cpu_csv_header(FILE *f)
{
	static const char *const cols[] = {
		"timestamp",	    "node",	     "interval_s",	"cpu_util_pct",
		"iowait_pct",	    "load1",	     "mem_used_mib",	"mem_total_mib",
		"disk_read_bytes", "disk_write_bytes", "net_rx_bytes", "net_tx_bytes",
		"foreign_cpu_pct", "foreign_top",     "job_cpu_pct",
	};
	for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
		fprintf(f, "%s%s", i ? "," : "", cols[i]);
	fputc('\n', f);
}

static unsigned long long delta(unsigned long long a, unsigned long long b)
{
	return b >= a ? b - a : 0;
}

void cpu_csv_line(FILE *f, const char *node, double wall, const struct cpu_reading *a,
		  const struct cpu_reading *b, const double *foreign_pct, const char *foreign_top,
		  double job_pct)
{
	double tot = (double)delta(a->total, b->total);
	double util = tot > 0 ? 100.0 * (double)delta(a->busy, b->busy) / tot : 0;
	double iow = tot > 0 ? 100.0 * (double)delta(a->iowait, b->iowait) / tot : 0;
	fprintf(f, "%.3f,%s,%.3f,%.1f,%.1f,%.2f,%.1f,%.1f,%llu,%llu,%llu,%llu,", wall, node,
		b->t - a->t, util, iow, b->load1, b->mem_used_mib, b->mem_total_mib,
		delta(a->disk_read, b->disk_read), delta(a->disk_write, b->disk_write),
		delta(a->net_rx, b->net_rx), delta(a->net_tx, b->net_tx));
	if (foreign_pct) /* else unknown: the three fields empty */
		fprintf(f, "%.1f,%s,%.1f", *foreign_pct, foreign_top, job_pct);
	else
		fputs(",,", f);
	fputc('\n', f);
}
