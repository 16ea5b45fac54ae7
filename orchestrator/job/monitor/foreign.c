/* foreign: see foreign.h.
 * SPDX-License-Identifier: MIT */
#include "foreign.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PF_KTHREAD_FLAG 0x00200000u
#define ENVIRON_MAX (1 << 20)
#define TOP_NAMES 3
#define NAME_SLOTS 64
#define RECHECK_EVERY 8

int foreign_open(struct foreign *f)
{
	const char *token = getenv("CAMPAIGN_JOB_TOKEN"), *job = getenv("SLURM_JOB_ID");
	const char *name = token && *token ? "CAMPAIGN_JOB_TOKEN" : "SLURM_JOB_ID";
	const char *value = token && *token ? token : job;
	memset(f, 0, sizeof *f);
	if (!value || !*value)
		return -1;
	size_t len = strlen(name) + strlen(value) + 2;
	f->marker = malloc(len);
	if (!f->marker)
		return -1;
	snprintf(f->marker, len, "%s=%s", name, value);
	return 0;
}

void foreign_close(struct foreign *f)
{
	free(f->marker);
	free(f->v);
	memset(f, 0, sizeof *f);
}

static double read_uptime(void)
{
	double up = 0;
	FILE *u = fopen("/proc/uptime", "r");
	if (u && fscanf(u, "%lf", &up) != 1)
		up = 0;
	if (u)
		fclose(u);
	return up;
}

/* The command's name, with what could break a CSV field or the "name:pct;"
 * list replaced. */
static void clean_comm(char *dst, size_t n, const char *src, size_t len)
{
	size_t k = 0;
	for (size_t i = 0; i < len && k + 1 < n; i++) {
		char c = src[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' || c == '-';
		dst[k++] = ok ? c : '_';
	}
	dst[k] = '\0';
}

/* One /proc/<pid>/stat; 0, or -1 when the process is gone or unreadable. */
static int read_proc(int pid, struct foreign_proc *p)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t len = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	char *lp = strchr(buf, '('), *rp = strrchr(buf, ')');
	unsigned flags = 0;
	char state;
	memset(p, 0, sizeof *p);
	if (!lp || !rp || rp < lp ||
	    sscanf(rp + 2,
		   "%c %d %*d %*d %*d %*d %u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d %*d %llu",
		   &state, &p->ppid, &flags, &p->ticks, &p->delta, &p->start) != 6)
		return -1;
	p->ticks += p->delta; /* utime + stime */
	p->delta = 0;
	p->pid = pid;
	p->own = (flags & PF_KTHREAD_FLAG) || pid == 2 || p->ppid == 2 ? 2 : -1;
	clean_comm(p->comm, sizeof p->comm, lp + 1, (size_t)(rp - lp - 1));
	return 0;
}

/* Whether the process's environment holds marker as one whole entry (a
 * process of another user cannot be read: it is not the job's). */
static int has_marker(int pid, const char *marker)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/environ", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t cap = 65536, len = 0; /* most environments fit: no mmap per process */
	char *env = malloc(cap + 1);
	ssize_t r;
	while (env && (r = read(fd, env + len, cap - len)) > 0) {
		len += (size_t)r;
		if (len == cap && cap < ENVIRON_MAX) {
			char *more = realloc(env, 2 * cap + 1);
			if (!more)
				break;
			env = more;
			cap *= 2;
		} else if (len == cap) {
			break;
		}
	}
	close(fd);
	int yes = 0;
	size_t ml = strlen(marker);
	if (env) {
		env[len] = '\0';
		for (size_t i = 0; i < len && !yes; i += strlen(env + i) + 1)
			yes = !strncmp(env + i, marker, ml) && env[i + ml] == '\0';
	}
	free(env);
	return yes;
}

static int by_pid(const void *a, const void *b)
{
	const struct foreign_proc *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static struct foreign_proc *find(struct foreign_proc *v, size_t n, int pid)
{
	struct foreign_proc key = { .pid = pid };
	return n ? bsearch(&key, v, n, sizeof *v, by_pid) : NULL;
}

/* Whether p is the job's: its marker, or a parent that is the job's. */
static int classify(const struct foreign *f, struct foreign_proc *v, size_t n,
		    struct foreign_proc *p, int depth)
{
	if (p->own >= 0)
		return p->own;
	if (has_marker(p->pid, f->marker)) {
		p->own = 1;
	} else {
		struct foreign_proc *parent = find(v, n, p->ppid);
		p->own = parent && parent != p && depth < 64 &&
			 classify(f, v, n, parent, depth + 1) == 1;
	}
	return p->own;
}

/* Every process now, by pid. A kernel thread the last scan found is taken as it
 * was (its CPU is nobody's concern) but on every RECHECK_EVERY-th scan: reading
 * /proc/<pid>/stat is most of the monitor's cost. The job's own are read every
 * time (job_pct counts their CPU), their classification kept (foreign_sample). */
static struct foreign_proc *scan(const struct foreign *f, size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t cap = 256;
	struct foreign_proc *v = malloc(cap * sizeof *v);
	*n = 0;
	while (v && d && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		if (*n == cap) {
			struct foreign_proc *w = realloc(v, 2 * cap * sizeof *v);
			if (!w)
				break;
			v = w;
			cap *= 2;
		}
		int pid = atoi(e->d_name);
		struct foreign_proc *was = f->scans % RECHECK_EVERY ? find(f->v, f->n, pid) : NULL;
		if (was && was->own == 2) {
			v[*n] = *was;
			v[(*n)++].delta = 0;
		} else if (read_proc(pid, &v[*n]) == 0) {
			(*n)++;
		}
	}
	if (d)
		closedir(d);
	if (v)
		qsort(v, *n, sizeof *v, by_pid);
	return v;
}

struct name_sum {
	const char *name;
	unsigned long long ticks;
};

/* The foreign commands that used most, "name:pct;..." into top. */
static void top_names(const struct foreign_proc *v, size_t n, double per_tick, char *top,
		      size_t size)
{
	struct name_sum s[NAME_SLOTS];
	size_t k = 0, used = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].own != 0 || !v[i].delta)
			continue;
		size_t j = 0;
		while (j < k && strcmp(s[j].name, v[i].comm))
			j++;
		if (j == k && k < NAME_SLOTS)
			s[k++] = (struct name_sum){ v[i].comm, 0 };
		if (j < k)
			s[j].ticks += v[i].delta;
	}
	top[0] = '\0';
	for (int t = 0; t < TOP_NAMES; t++) {
		size_t best = k;
		for (size_t j = 0; j < k; j++)
			if (s[j].ticks && (best == k || s[j].ticks > s[best].ticks))
				best = j;
		if (best == k)
			break;
		int w = snprintf(top + used, size - used, "%s%s:%.1f", t ? ";" : "", s[best].name,
				 (double)s[best].ticks * per_tick);
		if (w < 0 || (size_t)w >= size - used) {
			top[used] = '\0';
			break;
		}
		used += (size_t)w;
		s[best].ticks = 0;
	}
}

int foreign_sample(struct foreign *f, double *pct, double *job_pct, char *top, size_t size)
{
	double up = read_uptime(), hz = (double)sysconf(_SC_CLK_TCK);
	size_t n;
	*pct = *job_pct = 0;
	top[0] = '\0';
	if (!f->marker)
		return -1;
	struct foreign_proc *v = scan(f, &n);
	if (!v)
		return -1;
	unsigned long long ticks = 0, job = 0;
	for (size_t i = 0; i < n; i++) {
		struct foreign_proc *p = &v[i], *was = find(f->v, f->n, p->pid);
		if (was && was->start == p->start) {
			p->own = was->own;
			p->delta = p->ticks > was->ticks ? p->ticks - was->ticks : 0;
		} else if (f->uptime > 0 && (double)p->start / hz >= f->uptime) {
			p->delta = p->ticks; /* started since the last scan */
		}
	}
	for (size_t i = 0; i < n; i++) {
		int own = classify(f, v, n, &v[i], 0);
		if (own == 0)
			ticks += v[i].delta;
		else if (own == 1)
			job += v[i].delta;
	}
	double dt = up - f->uptime;
	int first = f->uptime <= 0 || dt <= 0;
	if (!first) {
		*pct = 100.0 * (double)ticks / hz / dt;
		*job_pct = 100.0 * (double)job / hz / dt;
		top_names(v, n, 100.0 / hz / dt, top, size);
	}
	free(f->v);
	f->v = v;
	f->n = n;
	f->uptime = up;
	f->scans++;
	return first ? -1 : 0;
}
