/* SPDX-License-Identifier: MIT */
#include "gpu.h"

#include "analyzers/read/gpucsv.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The few NVML types and calls used (stable C ABI; nvml.h is not needed). */
typedef struct { unsigned int gpu, memory; } nvml_util;
typedef struct { unsigned long long total, free, used; } nvml_mem;
enum { F_INIT, F_COUNT, F_HANDLE, F_UTIL, F_MEM, F_POWER, F_CLOCK };
static const char *const names[] = { "nvmlInit_v2",
				     "nvmlDeviceGetCount_v2",
				     "nvmlDeviceGetHandleByIndex_v2",
				     "nvmlDeviceGetUtilizationRates",
				     "nvmlDeviceGetMemoryInfo",
				     "nvmlDeviceGetPowerUsage",
				     "nvmlDeviceGetClockInfo" };

static int open_nvml(struct gpu_src *g, char *why, size_t n)
{
	g->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!g->lib) {
		snprintf(why, n, "NVML not found (libnvidia-ml.so.1)");
		return -1;
	}
	for (int i = 0; i < 7; i++)
		if (!(g->fn[i] = dlsym(g->lib, names[i]))) {
			snprintf(why, n, "NVML lacks %s", names[i]);
			return -1;
		}
	int (*init)(void) = (int (*)(void))g->fn[F_INIT];
	int (*count)(unsigned *) = (int (*)(unsigned *))g->fn[F_COUNT];
	if (init() != 0 || count(&g->count) != 0 || g->count == 0) {
		snprintf(why, n, "NVML found no GPU");
		return -1;
	}
	return 0;
}

static int open_smi(struct gpu_src *g, int interval_ms, char *why, size_t n)
{
	int p[2];
	char lms[32];
	snprintf(lms, sizeof lms, "%d", interval_ms);
	if (pipe(p) < 0)
		return -1;
	g->pid = fork();
	if (g->pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		int nul = open("/dev/null", O_WRONLY);
		dup2(nul, 2);
		execlp("nvidia-smi", "nvidia-smi", "--query-gpu=" GPUCSV_FIELDS,
		       "--format=csv,noheader", "-lms", lms, (char *) NULL);
		_exit(127);
	}
	close(p[1]);
	g->fd = p[0];
	fcntl(g->fd, F_SETFL, O_NONBLOCK);
	/* nvidia-smi absent or GPU-less ends at once: give it a moment to say so */
	struct timespec ts = { 0, 300 * 1000000L };
	nanosleep(&ts, NULL);
	int st;
	if (g->pid < 0 || waitpid(g->pid, &st, WNOHANG) == g->pid) {
		close(g->fd);
		g->pid = 0;
		snprintf(why, n, "no NVML and no working nvidia-smi");
		return -1;
	}
	return 0;
}

int gpu_open(struct gpu_src *g, const char *which, int interval_ms, char *why, size_t n)
{
	memset(g, 0, sizeof *g);
	g->fd = -1;
	snprintf(why, n, "GPU sampling is off");
	if (!strcmp(which, "off"))
		return 0;
	if (strcmp(which, "smi") && open_nvml(g, why, n) == 0)
		return g->mode = 1;
	if (g->lib) {
		dlclose(g->lib);
		g->lib = NULL;
	}
	if (strcmp(which, "nvml") && open_smi(g, interval_ms, why, n) == 0)
		return g->mode = 2;
	return 0;
}

void gpu_csv_header(FILE *f)
{
	fputs("timestamp, index, utilization.gpu [%], utilization.memory [%], memory.used [MiB], memory.total [MiB], power.draw [W], clocks.sm [MHz], node\n",
	      f);
}

static void put_num(FILE *f, double v)
{
	if (isnan(v))
		fputs(", [N/A]", f);
	else
		fprintf(f, ", %.2f", v);
}

static void write_sample(FILE *f, const struct gpu_sample *s, const char *node)
{
	fprintf(f, "%s, %d", s->timestamp, s->index);
	put_num(f, s->util_gpu_pct);
	put_num(f, s->util_mem_pct);
	put_num(f, s->mem_used_mib);
	put_num(f, s->mem_total_mib);
	put_num(f, s->power_w);
	put_num(f, s->sm_clock_mhz);
	fprintf(f, ", %s\n", node);
}

static void now_stamp(char *buf, size_t n)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, n, "%Y/%m/%d %H:%M:%S", &tm);
	snprintf(buf + strlen(buf), n - strlen(buf), ".%03ld", ts.tv_nsec / 1000000);
}

static void sample_nvml(struct gpu_src *g, FILE *f, const char *node)
{
	int (*handle)(unsigned, void **) = (int (*)(unsigned, void **))g->fn[F_HANDLE];
	int (*util)(void *, nvml_util *) = (int (*)(void *, nvml_util *))g->fn[F_UTIL];
	int (*mem)(void *, nvml_mem *) = (int (*)(void *, nvml_mem *))g->fn[F_MEM];
	int (*power)(void *, unsigned *) = (int (*)(void *, unsigned *))g->fn[F_POWER];
	int (*clock)(void *, int, unsigned *) = (int (*)(void *, int, unsigned *))g->fn[F_CLOCK];
	for (unsigned i = 0; i < g->count; i++) {
		void *d;
		nvml_util u;
		nvml_mem m;
		unsigned mw, mhz;
		struct gpu_sample s = { .index = (int)i };
		now_stamp(s.timestamp, sizeof s.timestamp);
		if (handle(i, &d) != 0)
			continue;
		s.util_gpu_pct = util(d, &u) == 0 ? u.gpu : NAN;
		s.util_mem_pct = util(d, &u) == 0 ? u.memory : NAN;
		int mok = mem(d, &m) == 0;
		s.mem_used_mib = mok ? (double)m.used / 1048576.0 : NAN;
		s.mem_total_mib = mok ? (double)m.total / 1048576.0 : NAN;
		s.power_w = power(d, &mw) == 0 ? mw / 1000.0 : NAN;
		s.sm_clock_mhz = clock(d, 1 /* NVML_CLOCK_SM */, &mhz) == 0 ? mhz : NAN;
		write_sample(f, &s, node);
	}
}

static void sample_smi(struct gpu_src *g, FILE *f, const char *node)
{
	for (;;) {
		ssize_t k =
			read(g->fd, g->pending + g->npending, sizeof g->pending - 1 - g->npending);
		if (k <= 0)
			break;
		g->npending += (size_t)k;
		g->pending[g->npending] = '\0';
		char *nl;
		while ((nl = strchr(g->pending, '\n'))) {
			*nl = '\0';
			struct gpu_sample s;
			if (gpucsv_parse(g->pending, &s) == 0)
				write_sample(f, &s, node);
			size_t used = (size_t)(nl + 1 - g->pending);
			memmove(g->pending, nl + 1, g->npending - used + 1);
			g->npending -= used;
		}
		if (g->npending == sizeof g->pending - 1)
			g->npending = 0; /* a line that long is not nvidia-smi's */
	}
}

void gpu_sample(struct gpu_src *g, FILE *f, const char *node)
{
	if (g->mode == 1)
		sample_nvml(g, f, node);
	else if (g->mode == 2)
		sample_smi(g, f, node);
}

void gpu_close(struct gpu_src *g)
{
	if (g->pid > 0) {
		kill(g->pid, SIGTERM);
		waitpid(g->pid, NULL, 0);
	}
	if (g->fd >= 0)
		close(g->fd);
	if (g->lib)
		dlclose(g->lib);
	memset(g, 0, sizeof *g);
	g->fd = -1;
}
