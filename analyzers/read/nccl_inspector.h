/* nccl_inspector: the dumps of NCCL's Inspector profiler plugin (ext-profiler/inspector in
 * NVIDIA's nccl): concatenated JSON objects, one per collective, communicator and rank, in any
 * number of files (the plugin writes <host>-pid<pid>.log per process). Objects are split at
 * their braces and each parsed with jansson; a malformed or truncated one is counted and
 * skipped. The files are read in step, by their dump times, so that the records of one
 * collective instance (communicator id and coll_sn) meet while few others wait: an instance
 * is handed on once every rank of its communicator has recorded it, and dropped as partial
 * once a missing rank has moved past it. Memory follows the records in flight, not the
 * files. Numbers only; the model (analyzers/inspector.h) makes the table of them.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_READ_NCCL_INSPECTOR_H
#define ANALYZERS_READ_NCCL_INSPECTOR_H

#include "util/strindex.h"
#include "util/words.h"

#include <stddef.h>
#include <stdio.h>

/* An object larger than this is malformed (a record is some hundred bytes; a verbose one
 * with many channels a few KiB). */
#define INSP_MAX_OBJECT (1 << 20)
/* Instances of one communicator waiting for their last ranks at most; beyond, the oldest
 * are dropped as partial (a rank whose dumps are missing altogether). */
#define INSP_MAX_PENDING 65536

/* coll_timing_source: what the execution time measures */
enum insp_timing { INSP_KERNEL_GPU, INSP_KERNEL_CPU, INSP_COLLECTIVE_CPU, INSP_TIMING_UNKNOWN };

/* One object of a dump, parsed. */
struct insp_rec {
	char comm_id[40];        /* header.id, "0x7f8c496ae9f661" */
	int rank, n_ranks;       /* in the communicator */
	char host[256];          /* metadata.hostname ("" absent) */
	long pid;                /* metadata.pid (-1 absent) */
	double dump_us;          /* metadata.dump_timestamp_us (-1 absent) */
	char coll[24];           /* coll_perf.coll: AllReduce, AllGather, ReduceScatter ... */
	unsigned long long sn;   /* coll_perf.coll_sn */
	double msg_bytes;        /* coll_perf.coll_msg_size_bytes */
	double exec_us;          /* coll_perf.coll_exec_time_us */
	double algbw, busbw;     /* the file's own GB/s (-1 absent or not a number) */
	enum insp_timing timing;
	double kernel_stop_us;   /* verbose dumps: the last channel's kernel_stop_ts; 0 none */
};

/* One rank's record of an instance. */
struct insp_rank_rec {
	int proc;                /* index into insp_read's procs; -1 none */
	double exec_us, msg_bytes, algbw, busbw, kernel_stop_us;
	enum insp_timing timing;
};

/* A process that wrote records: its host and pid (one dump file each, as the plugin writes) */
struct insp_proc {
	char host[256];
	long pid;
};

/* A communicator: which process holds each of its ranks (-1 unseen) */
struct insp_comm {
	char id[40];
	int n_ranks;
	int *member;
	size_t instances;        /* complete ones */
	/* internal: the last coll_sn + 1 each rank recorded (0 none), and the instances waiting */
	unsigned long long *frontier;
	struct insp_pend *pend;
	size_t npend, pendcap;
};

/* A collective instance every rank of its communicator recorded, handed to the caller. */
struct insp_instance {
	const struct insp_comm *comm;
	size_t comm_index;
	unsigned long long sn;
	const char *coll;
	const struct insp_rank_rec *r; /* comm->n_ranks of them, by rank in the communicator */
};

typedef void (*insp_instance_fn)(void *ctx, const struct insp_instance *in);

struct insp_stats {
	size_t files, unreadable; /* files given, and those that could not be opened */
	size_t objects;           /* records read and used */
	size_t malformed;         /* objects skipped: not JSON, truncated, fields missing */
	size_t duplicates;        /* a record of an instance and rank already seen */
	size_t partial;           /* instances some rank of the communicator did not record */
	size_t instances;         /* instances every rank recorded */
	size_t timing[4];         /* records per enum insp_timing */
	size_t verbose;           /* records with the kernels' stop times */
};

struct insp_read {
	struct insp_stats st;
	struct insp_proc *procs;
	size_t nprocs, proccap;
	struct insp_comm *comms;
	size_t ncomms, commcap;
	struct strindex comm_index; /* internal: comms by id */
};

/* Reads every file of paths in step and calls fn for each complete instance (in the order
 * they complete: the same for the same files); *out holds the counts, processes and
 * communicators after. 0; files that cannot be read are counted, not fatal. */
int insp_read_files(char *const *paths, size_t n, insp_instance_fn fn, void *ctx,
		    struct insp_read *out);
void insp_read_free(struct insp_read *r);
/* The regular files of dir (a dump directory), by name, as dir/name into out; -1 when dir
 * cannot be read. */
int insp_list_dir(const char *dir, struct argv *out);

/* ---- the format (nccl_inspector.c) ---- */

/* The next object of f as a record: 1, or 0 at the end of the stream. Objects that are
 * not records are counted in *malformed and skipped. *line_start: whether the stream is at
 * the start of a line (1 at its start; kept between calls of one stream). */
int insp_next_record(FILE *f, int *line_start, struct insp_rec *rec, size_t *malformed);
/* Whether path looks like a dump: its first object opens with "header" (a Kineto trace's
 * with traceEvents or schemaVersion). */
int insp_is_dump(const char *path);
/* Parses one object (len bytes of JSON) into rec: 0, or -1 when it is no record. */
int insp_parse_record(const char *buf, size_t len, struct insp_rec *rec);

#endif
