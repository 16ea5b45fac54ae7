/* inspector: a scenario's NCCL Inspector dumps (read/nccl_inspector.h) as the model uses
 * them: a collectives table from the instances every rank recorded (latency the least
 * execution time over the ranks, each rank's wait its excess; bytes, algbw and busbw with
 * nccl-tests' factors, as collective.h computes them, checked against the file's own
 * figures), the stragglers at the collectives of communicators that span every process,
 * and per instance each rank's kernel stop time from verbose dumps (for clock offsets).
 * Numbers only; the words are write/'s. Memory stays bounded: the table keeps a sample of
 * its values, the straggler test and the stop times a sample of the instances.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_INSPECTOR_H
#define ANALYZERS_INSPECTOR_H

#include "analyzers/collective.h"
#include "analyzers/read/nccl_inspector.h"
#include "analyzers/straggler.h"

#include <stddef.h>

#define INSP_SHOWN 3                /* bandwidth mismatches kept to show */
#define INSP_KEEP_VALUES (1 << 20)  /* per table row, for its percentiles */
#define INSP_KEEP_JUDGED (1 << 21)  /* execution times kept for the straggler test */
#define INSP_KEEP_ENDS (1 << 20)    /* ranks' stop times kept */
/* The file's algbw or busbw differs from the one recomputed from its size and time by more
 * than its rounding (the plugin prints 6 decimals): absolute plus relative to the value. */
#define INSP_BW_TOLERANCE 1e-6

/* A record whose own bandwidths differ from those its size and time give. */
struct insp_mismatch {
	int op;                    /* enum coll_op */
	unsigned long long sn;
	int rank;                  /* global rank (-1 unknown) */
	double file_algbw, file_busbw, algbw, busbw; /* GB/s; the file's -1 when absent */
};

/* One rank's end of a collective instance, from a verbose dump: the last of its kernel
 * channels' stop times, on its host's clock (µs since the epoch). Instances are numbered
 * in the order they were matched; the ends of one instance are adjacent. */
struct insp_end {
	size_t instance;
	size_t comm;               /* its communicator, in the order first seen */
	unsigned long long sn;     /* coll_sn */
	size_t proc;               /* the process: insp_summary's proc_rank, proc_node */
	double stop_us;
};

/* What the model keeps of a scenario's dumps, and what the report says of them. */
struct insp_summary {
	int found;                 /* dump files were there */
	struct insp_stats st;
	size_t procs, comms;
	size_t mismatches;         /* records whose bandwidths differ (over checked ones) */
	size_t checked;
	struct insp_mismatch shown[INSP_SHOWN];
	int colls_used;            /* the collectives table comes from the Inspector */
	int stragglers_used;       /* and the stragglers */
	size_t judged;             /* instances of communicators spanning every process */
	int *proc_rank;            /* per process: its global rank (-1 unknown) */
	char (*proc_node)[128];    /* per process: its node ("" unknown) */
	struct insp_end *ends;     /* verbose dumps' stop times (a sample); NULL none */
	size_t n_ends;
};

/* A run of the dumps through the model: the table, the straggler test's instances. */
struct insp_data {
	struct insp_read read;
	struct insp_summary sum;
	struct coll_aggr aggr;
	/* instances of communicators of two ranks or more (a sample): comm, then one time per
	 * rank of it (ms), flattened */
	double *judged;
	size_t njudged, judgedcap, judge_stride, judge_seen, judge_rows;
	size_t ends_cap, ends_stride, ends_seen;
	double *ms;                /* one instance's times, scratch */
	size_t mscap;
};

/* Reads the dump files of paths (job_dir: where the launcher's records of ranks are, to
 * name each process's global rank and node; NULL: from the communicators alone). 0, or
 * ERR_NOTFOUND when there is no file. */
int inspector_load(char *const *paths, size_t n, const char *job_dir, struct insp_data *d);
/* The collectives table over steps (instances per step, time per step); the summary's
 * colls_used says whether it has a row. */
void inspector_rows(struct insp_data *d, size_t steps, struct collective **out, size_t *n);
/* The stragglers of the instances of communicators spanning every process, their impact
 * the waiting imposed per `steps` as a share of step_med_ms (straggler.h); the summary's
 * stragglers_used says whether any instance was judged. */
void inspector_stragglers(struct insp_data *d, double steps, double step_med_ms,
			  struct straggler *out, size_t *n, char *slow_node, size_t slow_len,
			  struct straggler_test *test);
/* The mean time of a rank in the instances the straggler test judges, summed (ms). */
double inspector_judged_ms(const struct insp_data *d);
/* Hands the summary over (*out, freed with inspector_summary_free) and frees d. */
void inspector_done(struct insp_data *d, struct insp_summary *out);
void inspector_summary_free(struct insp_summary *s);

/* A scenario's dumps (<job_dir>/nccl_inspector/) into s->comm.insp; the collectives table
 * from them when no trace has collectives (per step of m, rank 0's steps, warm-up among
 * them: the plugin records the whole run), and the stragglers when m's steps say nothing
 * of communication (step lines, telemetry without it). */
struct ana_scenario;
struct scenario_metrics;
void inspector_scenario(struct ana_scenario *s, const struct scenario_metrics *m);
/* The dump files in <job_dir>/nccl_inspector/ (0 none). */
int inspector_dumps(const char *job_dir);

#endif
