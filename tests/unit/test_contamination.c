/* contamination: the decision on recorded cpu_monitor.csv samples (the foreign
 * columns campaign-monitor writes): a quiet job is not contaminated, a hog beside
 * it is, and named; samples outside the active steps do not count unless none is
 * inside; a monitor without the columns says nothing.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "analyzers/analysis.h"
#include "analyzers/contamination.h"
#include "analyzers/read/monitor.h"

#include "util/err.h"
#include "util/fsio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAD                                                                                       \
	"timestamp,node,interval_s,cpu_util_pct,iowait_pct,load1,mem_used_mib,mem_total_mib,disk_read_bytes,disk_write_bytes,net_rx_bytes,net_tx_bytes,foreign_cpu_pct,foreign_top\n"
#define ROW(t, pct, top) #t ",local1,0.500,99.0,0.0,2.10,2100.0,24105.1,0,0,0,0," pct "," top "\n"

/* The decision on a recorded stream over [from, to]; n: the samples with the columns. */
static long decide(const char *csv, double from, double to, struct ana_foreign *out)
{
	struct monitor_foreign in = { 0 }, all = { 0 };
	FILE *f = fmemopen((void *)csv, strlen(csv), "r");
	long n = monitor_add_foreign_csv(f, from, to, &in, &all);
	fclose(f);
	contamination_decide(in.samples ? &in : &all, out);
	return n;
}

/* a job measured alone: its own monitors and the system's odd process, 1-3 % */
static void quiet_job(void)
{
	struct ana_foreign f;
	CHECK(decide(HEAD ROW(100.5, "2.0", "systemd-journal:2.0") ROW(101.0, "0.0", "")
			     ROW(101.5, "3.4", "sshd:2.0;cron:1.4"),
		     0, 0, &f) == 3);
	CHECK(f.known && !f.contaminated);
	CHECK_NEAR(f.cpu_pct, 5.4 / 3, 1e-9);
}

/* `yes >/dev/null` beside it: most of a core, named first */
static void hog_beside(void)
{
	struct ana_foreign f;
	decide(HEAD ROW(100.5, "97.5", "yes:95.0;bash:2.5") ROW(101.0, "99.0", "yes:99.0")
		       ROW(101.5, "101.2", "yes:96.0;python3:4.0;bash:1.2"),
	       100, 102, &f);
	CHECK(f.known && f.contaminated);
	CHECK_NEAR(f.cpu_pct, 297.7 / 3, 1e-9);
	CHECK(f.n_what == 3);
	CHECK_STR(f.what[0], "yes");
	CHECK_STR(f.what[1], "python3"); /* 4.0 in one sample against 2.5 + 1.2 */
	CHECK_STR(f.what[2], "bash");
}

/* the threshold: above 10 % of a core, not at it */
static void threshold(void)
{
	struct ana_foreign f;
	decide(HEAD ROW(100.5, "10.0", "make:10.0"), 0, 0, &f);
	CHECK(f.known && !f.contaminated);
	decide(HEAD ROW(100.5, "10.1", "make:10.1"), 0, 0, &f);
	CHECK(f.known && f.contaminated);
}

/* a hog that ran while the job started up, not over its active steps (102-104) */
static void window(void)
{
	const char *csv = HEAD ROW(100.5, "98.0", "cc1:98.0") ROW(101.0, "97.0", "cc1:97.0")
		ROW(102.5, "1.0", "sshd:1.0") ROW(103.0, "2.0", "") ROW(103.5, "0.0", "")
		ROW(104.0, "3.0", "sshd:3.0");
	struct ana_foreign f;
	decide(csv, 102.2, 103.8, &f);
	CHECK(f.known && !f.contaminated);
	CHECK_NEAR(f.cpu_pct, 6.0 / 4, 1e-9); /* 102.5 .. 104.0: each interval overlaps */
	/* steps timed on another clock: no sample inside, so all of them count */
	decide(csv, 5, 6, &f);
	CHECK(f.known && f.contaminated);
	CHECK_STR(f.what[0], "cc1");
}

/* an older monitor (no columns) and one without the job's marker (empty fields) say
 * nothing; malformed names are skipped */
static void unknown(void)
{
	struct ana_foreign f;
	CHECK(decide("timestamp,node,interval_s,cpu_util_pct\n100.5,local1,0.5,99.0\n", 0, 0, &f) ==
	      0);
	CHECK(!f.known && !f.contaminated);
	CHECK(decide(HEAD ROW(100.5, "", "") ROW(101.0, "", ""), 0, 0, &f) == 0);
	CHECK(!f.known);
	decide(HEAD ROW(100.5, "50.0", ":5;x:nan;ok:-1;y;z:45.0") ROW(101.0, "-3", "w:3")
		       ROW(101.5, "inf", "w:3"),
	       0, 0, &f);
	CHECK(f.known && f.contaminated && f.n_what == 1);
	CHECK_STR(f.what[0], "z");
}

/* the active steps' window over every rank, warmup steps left out, on Unix time */
static void steps_window(void)
{
	struct step_rec a[3] = { { .step = 0, .active = 0, .step_ms = 500, .start_us = 99e6 },
				 { .step = 1, .active = 1, .step_ms = 100, .start_us = 100e6 },
				 { .step = 2, .active = 1, .step_ms = 100, .start_us = 100.1e6 } };
	struct step_rec b[2] = { { .step = 1, .active = 1, .step_ms = 120, .start_us = 100.01e6 },
				 { .step = 2, .active = 1, .step_ms = 150, .start_us = 100.1e6 } };
	struct rank_metrics r[2] = { { .steps = a, .n = 3 }, { .steps = b, .n = 2 } };
	struct scenario_metrics m = { r, 2 };
	double from, to;
	contamination_window(&m, &from, &to);
	CHECK_NEAR(from, 100.0, 1e-6);
	CHECK_NEAR(to, 100.25, 1e-6);
	/* newer Kineto's times from a base (baseTimeNanoseconds), and the legacy profiler's
	 * own clock, which gives no Unix time */
	r[0].clock_base_us = r[1].clock_base_us = 1e6;
	contamination_window(&m, &from, &to);
	CHECK_NEAR(from, 101.0, 1e-6);
	CHECK_NEAR(to, 101.25, 1e-6);
	r[0].own_clock = 1;
	contamination_window(&m, &from, &to);
	CHECK_NEAR(from, 101.01, 1e-6);
	CHECK_NEAR(to, 101.25, 1e-6);
	r[1].own_clock = 1;
	contamination_window(&m, &from, &to);
	CHECK(from == 0 && to == 0);
	r[0].own_clock = r[1].own_clock = 0, r[0].clock_base_us = r[1].clock_base_us = 0;
	a[1].start_us = a[2].start_us = b[0].start_us = b[1].start_us = 0;
	contamination_window(&m, &from, &to);
	CHECK(from == 0 && to == 0);
}

/* The job's busy cores on 2 CPUs over its steps (100.2-101.8; a sample's timestamp ends
 * it): on local1 the samples wholly inside, 100.5-101.0 (30 % of 2 CPUs: 0.6) and
 * 101.0-101.5 (25 %: 0.5), 0.55; those only overlapping it (100.0-100.5: 40 % less 0.2 of
 * foreign load, 0.6; 101.5-101.9 at 99 %) and a malformed line left out. On local2 (no
 * foreign columns) 0.5 and 0.7, 0.6: the mean over the nodes. With fewer than two samples
 * wholly inside (100.3-101.2), those overlapping it weighted by how much. A monitor with
 * job_cpu_pct: the job's own processes (a line without a time left out). No sample there,
 * or no monitor: not known. */
static void job_cores(void)
{
	char dir[] = "/tmp/test_job_cores.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	const char *a = HEAD "100.0,local1,0.500,99.0,0,0,0,0,0,0,0,0,0.0,\n"
			     "100.5,local1,0.500,40.0,0,0,0,0,0,0,0,0,20.0,yes:20.0\n"
			     "101.0,local1,0.500,30.0,0,0,0,0,0,0,0,0,0.0,\n"
			     "101.5,local1,0.500,25.0,0,0,0,0,0,0,0,0,0.0,\n"
			     "101.7,local1,0.200,nonsense\n"
			     "101.9,local1,0.400,99.0,0,0,0,0,0,0,0,0,0.0,\n";
	const char *b = "timestamp,node,interval_s,cpu_util_pct\n101.0,local2,0.5,25.0\n"
			"101.5,local2,0.5,35.0\n";
	CHECK(fsio_write_in(dir, "monitor/local1/cpu_monitor.csv", a, strlen(a), 0644) == 0);
	double c = -1;
	CHECK(monitor_job_cores(dir, 100.2, 101.8, 2, &c) == 0);
	CHECK_NEAR(c, 0.55, 1e-9);
	CHECK(fsio_write_in(dir, "monitor/local2/cpu_monitor.csv", b, strlen(b), 0644) == 0);
	CHECK(monitor_job_cores(dir, 100.2, 101.8, 2, &c) == 0);
	CHECK_NEAR(c, (0.55 + 0.6) / 2, 1e-9);
	CHECK(monitor_job_cores(dir, 100.3, 101.2, 2, &c) == 0);
	CHECK_NEAR(c,
		   ((0.2 * 0.6 + 0.5 * 0.6 + 0.2 * 0.5) / 0.9 + (0.5 * 0.5 + 0.2 * 0.7) / 0.7) / 2,
		   1e-9);
	/* a monitor that tells the job's own processes apart: theirs, whatever the node's */
	const char *j =
		"timestamp,node,interval_s,cpu_util_pct,foreign_cpu_pct,foreign_top,job_cpu_pct\n"
		"nan,local3,0.5,90.0,0.0,,99.0\n101.0,local3,0.5,90.0,0.0,,70.0\n"
		"101.5,local3,0.5,90.0,20.0,x:20.0,50.0\n";
	CHECK(fsio_write_in(dir, "monitor/local3/cpu_monitor.csv", j, strlen(j), 0644) == 0);
	CHECK(monitor_job_cores(dir, 100.2, 101.8, 2, &c) == 0);
	CHECK_NEAR(c, (0.55 + 0.6 + 0.6) / 3, 1e-9);
	CHECK(monitor_job_cores(dir, 5, 6, 2, &c) == ERR_NOTFOUND);
	CHECK(monitor_job_cores("/nonexistent", 100.2, 101.8, 2, &c) == ERR_NOTFOUND);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

/* Steps on a clock of their own, span_s long, somewhere in a job its monitor sampled from
 * 100.0 to 102.5 (five samples of 0.5 s: the job's own cores 1.8 at the start-up, then 0.2,
 * 0.4, 0.9, and 1.6 at the end): over [102.5 - span_s, 100.0 + span_s], in whole samples.
 * 1.8 s: [100.7, 101.8], the one sample 101.0-101.5 (0.4); 2.2 s: [100.3, 102.2], the
 * three middle ones (0.5); 1.2 s: [101.3, 101.2], none: not known; no span: not known. */
static void job_cores_within(void)
{
	char dir[] = "/tmp/test_job_cores_within.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	const char *a =
		"timestamp,node,interval_s,cpu_util_pct,foreign_cpu_pct,foreign_top,job_cpu_pct\n"
		"100.5,local1,0.5,90.0,0.0,,180.0\n101.0,local1,0.5,10.0,0.0,,20.0\n"
		"101.5,local1,0.5,20.0,0.0,,40.0\n102.0,local1,0.5,45.0,0.0,,90.0\n"
		"102.5,local1,0.5,80.0,0.0,,160.0\n";
	CHECK(fsio_write_in(dir, "monitor/local1/cpu_monitor.csv", a, strlen(a), 0644) == 0);
	double c = -1;
	CHECK(monitor_job_cores_within(dir, 1.8, 0, 2, &c) == 0);
	CHECK_NEAR(c, 0.4, 1e-9);
	CHECK(monitor_job_cores_within(dir, 2.2, 0, 2, &c) == 0);
	CHECK_NEAR(c, 0.5, 1e-9);
	c = -1;
	CHECK(monitor_job_cores_within(dir, 1.2, 0, 2, &c) == ERR_NOTFOUND);
	CHECK(monitor_job_cores_within(dir, 0, 0, 2, &c) == ERR_NOTFOUND);
	CHECK(c == -1);
	CHECK(monitor_span(dir, 0, 0, &c, NULL) == 0); /* what it sampled: 100.0 to 102.5 */
	CHECK_NEAR(c, 2.5, 1e-9);
	/* traces written at 101.6: 1.2 s of steps ended by then cover [100.4, 101.2], the
	 * sample 100.5-101.0 (0.2); written at 101.0, before 1.2 s after the start, or after
	 * the monitors' end: no bound, none */
	CHECK(monitor_job_cores_within(dir, 1.2, 101.6, 2, &c) == 0);
	CHECK_NEAR(c, 0.2, 1e-9);
	c = -1;
	CHECK(monitor_job_cores_within(dir, 1.2, 101.0, 2, &c) == ERR_NOTFOUND);
	CHECK(monitor_job_cores_within(dir, 1.2, 103.0, 2, &c) == ERR_NOTFOUND && c == -1);
	double whole = 0;
	CHECK(monitor_span(dir, 1.2, 101.6, &c, &whole) == 0);
	CHECK_NEAR(c, 1.6, 1e-9);
	CHECK_NEAR(whole, 2.5, 1e-9); /* and, in the same pass, without the bound */
	CHECK(monitor_span(dir, 1.2, 101.0, &c, NULL) == 0);
	CHECK_NEAR(c, 2.5, 1e-9);
	CHECK(monitor_span("/nonexistent", 0, 0, &c, &whole) == ERR_NOTFOUND && c == 0 &&
	      whole == 0);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

int main(void)
{
	RUN(quiet_job);
	RUN(hog_beside);
	RUN(threshold);
	RUN(window);
	RUN(unknown);
	RUN(steps_window);
	RUN(job_cores);
	RUN(job_cores_within);
	HARNESS_END();
}
