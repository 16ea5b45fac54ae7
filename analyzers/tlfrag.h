/* tlfrag: a trace file's timeline fragment, made by the per-file pass that
 * reads the trace for the analysis anyway (the map step, in this process or
 * in a shard): the rank's events as write/timeline.c writes them (steps,
 * classified host ranges on their threads, GPU kernels per stream, in that
 * order), names already JSON strings, times as the trace has them. A private,
 * versioned binary file, written atomically and read back record by record:
 * the timeline concatenates fragments without parsing a trace again.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_TLFRAG_H
#define ANALYZERS_TLFRAG_H

#include "analyzers/read/kineto.h"
#include "analyzers/read/nsys.h"
#include "analyzers/read/rules.h"

#include <stdio.h>

struct strbuf;

/* The trace files of a directory the timeline shows (the first by file
 * name: Perfetto opens a few hundred MB at most; every rank is in the
 * analysis), and so the ones that get a fragment. */
#define TLFRAG_RANKS 8

enum tlfrag_state {
	TLFRAG_EVENTS,       /* the rank's events follow */
	TLFRAG_UNREADABLE,   /* the trace could not be read: nothing to show */
	TLFRAG_NOT_ANALYSED, /* its map-step shard failed twice: never read again */
};

/* One event: a thread's name (slice 0) or a slice. */
struct tlfrag_event {
	int slice;
	int tid;
	const char *cat;   /* "step", "phase" or "kernel" */
	const char *name;  /* a JSON string: the thread's name, or the slice's */
	const char *range; /* a JSON string (a phase slice's own range name) or NULL */
	double start, dur; /* µs; start on the trace's clock */
};

struct tlfrag {
	FILE *f;
	char *shown; /* the fragment's path, for messages */
	enum tlfrag_state state;
	int rank;
	double origin; /* the trace's first step start (else first range): the timeline's zero */
	char **str;    /* the strings read so far */
	size_t nstr, strcap;
	unsigned long long records, total; /* records read, and what the trailer says */
};

/* The path of dir/name's fragment in the folder fdir. */
void tlfrag_path(struct strbuf *out, const char *fdir, const char *dir, const char *name);
/* Writes t's fragment to path atomically: t as kineto_load (want_cpu) or
 * an Nsight Systems export (tlfrag_add_nsys) read it, its names classified
 * by phases (loose_steps: NVTX step names are steps), as rank `rank`. */
int tlfrag_write(const char *path, const struct gpu_trace *t, const struct rules *phases,
		 int loose_steps, int rank);
/* A fragment without events (TLFRAG_UNREADABLE, TLFRAG_NOT_ANALYSED). */
int tlfrag_write_state(const char *path, enum tlfrag_state state);
/* Adds every process's GPU work of an Nsight Systems export to host (its
 * NVTX ranges), as the timeline shows an export. */
void tlfrag_add_nsys(struct gpu_trace *host, const struct nsys_report *rep);
/* Reads dir/name (nsys: an export) and writes its fragment to f, an open
 * empty stream; hint: its rank when the trace does not say. For a file no
 * map step made a fragment of. */
int tlfrag_make(FILE *f, const char *dir, const char *name, int nsys, int hint,
		const struct rules *phases);
/* Opens path (ERR_NOTFOUND), or the stream f (taken over, read from its
 * start); ERR_IO for a fragment cut short, damaged or of another version. */
int tlfrag_open(const char *path, struct tlfrag *fr);
int tlfrag_open_stream(FILE *f, const char *shown, struct tlfrag *fr);
/* The next event into ev (its strings live until tlfrag_close): 1; 0 at
 * the end; ERR_IO when damaged. */
int tlfrag_next(struct tlfrag *fr, struct tlfrag_event *ev);
void tlfrag_close(struct tlfrag *fr);

#endif
