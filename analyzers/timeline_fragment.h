/* timeline_fragment: a trace file's timeline fragment, made by the per-file pass that
 * reads the trace for the analysis anyway (the map step, in this process or
 * in a shard): the rank's events as write/timeline.c writes them (steps,
 * classified host ranges on their threads, GPU kernels per stream, in that
 * order), names already JSON strings, times as the trace has them. A private,
 * versioned binary file, written atomically and read back record by record:
 * the timeline concatenates fragments without parsing a trace again.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_TIMELINE_FRAGMENT_H
#define ANALYZERS_TIMELINE_FRAGMENT_H

#include "analyzers/read/kineto.h"
#include "analyzers/read/nsys.h"
#include "analyzers/read/rules.h"

#include <stdio.h>

struct strbuf;

/* The trace files of a directory the timeline shows (the first by file
 * name: Perfetto opens a few hundred MB at most; every rank is in the
 * analysis), and so the ones that get a fragment. */
#define TIMELINE_FRAGMENT_RANKS 8

enum timeline_fragment_state {
	TIMELINE_FRAGMENT_EVENTS,       /* the rank's events follow */
	TIMELINE_FRAGMENT_UNREADABLE,   /* the trace could not be read: nothing to show */
	TIMELINE_FRAGMENT_NOT_ANALYSED, /* its map-step shard failed twice: never read again */
};

/* One event: a thread's name (slice 0) or a slice. */
struct timeline_fragment_event {
	int slice;
	int tid;
	const char *cat;   /* "step", "phase" or "kernel" */
	const char *name;  /* a JSON string: the thread's name, or the slice's */
	const char *range; /* a JSON string (a phase slice's own range name) or NULL */
	double start, dur; /* µs; start on the trace's clock */
};

struct timeline_fragment {
	FILE *f;
	char *shown; /* the fragment's path, for messages */
	enum timeline_fragment_state state;
	int rank;
	double origin; /* the trace's first step start (else first range): the timeline's zero */
	char **str;    /* the strings read so far */
	size_t nstr, strcap;
	unsigned long long records, total; /* records read, and what the trailer says */
};

/* The path of dir/name's fragment in the folder fdir. */
void timeline_fragment_path(struct strbuf *out, const char *fdir, const char *dir,
			    const char *name);
/* Writes t's fragment to path atomically: t as kineto_load (want_cpu) or
 * an Nsight Systems export (timeline_fragment_add_nsys) read it, its names classified
 * by phases (loose_steps: NVTX step names are steps), as rank `rank`. */
int timeline_fragment_write(const char *path, const struct gpu_trace *t, const struct rules *phases,
		 int loose_steps, int rank);
/* A fragment without events (TIMELINE_FRAGMENT_UNREADABLE, TIMELINE_FRAGMENT_NOT_ANALYSED). */
int timeline_fragment_write_state(const char *path, enum timeline_fragment_state state);
/* Adds every process's GPU work of an Nsight Systems export to host (its
 * NVTX ranges), as the timeline shows an export. */
void timeline_fragment_add_nsys(struct gpu_trace *host, const struct nsys_report *rep);
/* Reads dir/name (nsys: an export) and writes its fragment to f, an open
 * empty stream; hint: its rank when the trace does not say. For a file no
 * map step made a fragment of. */
int timeline_fragment_make(FILE *f, const char *dir, const char *name, int nsys, int hint,
		const struct rules *phases);
/* Opens path (ERR_NOTFOUND), or the stream f (taken over, read from its
 * start); ERR_IO for a fragment cut short, damaged or of another version. */
int timeline_fragment_open(const char *path, struct timeline_fragment *fr);
int timeline_fragment_open_stream(FILE *f, const char *shown, struct timeline_fragment *fr);
/* The next event into ev (its strings live until timeline_fragment_close): 1; 0 at
 * the end; ERR_IO when damaged. */
int timeline_fragment_next(struct timeline_fragment *fr, struct timeline_fragment_event *ev);
void timeline_fragment_close(struct timeline_fragment *fr);

#endif
