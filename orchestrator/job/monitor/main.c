/* campaign-monitor: one per node of a job, started by the job script before
 * the workload and stopped (SIGTERM) after it, whatever the workload did.
 * Samples CPU, memory, disk and network every --interval-ms into
 * DIR/<node>/cpu_monitor.csv, with the CPU that processes outside the job
 * used (foreign.h), and GPUs into DIR/<node>/gpu_monitor.csv; every line
 * is flushed as it is written, so a killed job keeps its data.
 * SPDX-License-Identifier: MIT */
#include "cpu.h"
#include "foreign.h"
#include "gpu.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Set by SIGTERM/SIGINT: write what is there and stop. */
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static FILE *open_csv(const char *dir, const char *node, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, node);
	for (char *p = path + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	mkdir(path, 0755);
	snprintf(path + strlen(path), sizeof path - strlen(path), "/%s", name);
	/* no planted link */
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		fprintf(stderr, "campaign-monitor: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

static const char usage[] =
	"usage: campaign-monitor --dir DIR [--interval-ms N] [--node NAME] [--gpu auto|nvml|smi|off] [--duration S]\n"
	"Samples this node into DIR/<node>/cpu_monitor.csv (and gpu_monitor.csv) until SIGTERM.\n";

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dir", 1, 0, 'd' }, { "interval-ms", 1, 0, 'i' }, { "node", 1, 0, 'n' },
		{ "gpu", 1, 0, 'g' }, { "duration", 1, 0, 't' },    { "help", 0, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	const char *dir = NULL, *node = NULL, *gpu = "auto";
	long interval = 500;
	double duration = 0;
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'i': interval = atol(optarg); break;
		case 'n': node = optarg; break;
		case 'g': gpu = optarg; break;
		case 't': duration = atof(optarg); break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (!dir || interval < 10 || interval > 3600000 ||
	    (strcmp(gpu, "auto") && strcmp(gpu, "nvml") && strcmp(gpu, "smi") &&
	     strcmp(gpu, "off"))) {
		fputs(usage, stderr);
		return 2;
	}
	char host[256];
	if (!node)
		node = getenv("SLURMD_NODENAME");
	if (!node && gethostname(host, sizeof host) == 0)
		node = host;
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	FILE *cf = open_csv(dir, node, "cpu_monitor.csv");
	if (!cf)
		return 4;
	cpu_csv_header(cf);
	struct gpu_src g;
	char why[256];
	FILE *gf = NULL;
	if (gpu_open(&g, gpu, (int) interval, why, sizeof why) > 0 &&
	    (gf = open_csv(dir, node, "gpu_monitor.csv")))
		gpu_csv_header(gf);
	else
		fprintf(stderr, "campaign-monitor: %s: no GPU sampled (%s); no gpu_monitor.csv\n",
			node, why);
	struct cpu_reading prev, cur;
	struct foreign fo;
	char top[128];
	double fpct, jpct;
	int have_foreign = foreign_open(&fo) == 0;
	if (!have_foreign)
		fprintf(stderr,
			"campaign-monitor: %s: neither CAMPAIGN_JOB_TOKEN nor SLURM_JOB_ID is set: the load of other processes is not told apart (foreign_cpu_pct empty)\n",
			node);
	cpu_read(&prev);
	foreign_sample(&fo, &fpct, &jpct, top, sizeof top); /* the baseline */
	double start = prev.t;
	while (!stop && (duration <= 0 || prev.t - start < duration)) {
		struct timespec ts = { interval / 1000, (interval % 1000) * 1000000L };
		/* a signal cuts the wait short: the last interval is still written */
		nanosleep(&ts, NULL);
		if (cpu_read(&cur) == 0) {
			int known = have_foreign &&
				    foreign_sample(&fo, &fpct, &jpct, top, sizeof top) == 0;
			cpu_csv_line(cf, node, wall_now(), &prev, &cur, known ? &fpct : NULL, top,
				     jpct);
			fflush(cf);
			prev = cur;
		}
		if (gf) {
			gpu_sample(&g, gf, node);
			fflush(gf);
		}
	}
	gpu_close(&g);
	foreign_close(&fo);
	if (gf)
		fclose(gf);
	return fclose(cf) == 0 ? 0 : 4;
}
