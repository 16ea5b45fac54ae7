/* kineto_chunks: one large Kineto file (plain or gzip), read as a stream in
 * chunks of its event array parsed on several threads (simdjson), every
 * event handed on in file order: memory follows the chunks and the threads,
 * not the file, and the output is the same as one parse of the whole
 * document.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_KINETO_CHUNKS_H
#define ANALYZERS_KINETO_CHUNKS_H

#include "analyzers/read/kineto_simd.h"

#include <stddef.h>

/* Bytes of event array per chunk, unless the source says otherwise; a
 * stream of less than twice the chunk size after the array's start is read
 * whole (not split). 256 KB: the calling thread reads and hands on while the
 * others parse, and smaller slots fault in fewer fresh pages and stay in
 * cache (HTA's 9.8 MB A100 rank at -j 2: 26.2-26.8 ms at 1 MB, 23.7-25.4 at
 * 256 KB, no less at 128 KB; the 8 DLRM ranks, 0.9 MB each, 32.8 -> 27.0 ms;
 * a 130 MB trace 0.37 -> 0.34 s, the same peak memory: docs/scale.md). */
#define KINETO_CHUNK_BYTES (256u << 10)

/* A string of a chunk, kept once per chunk: NUL-terminated (cut at a NUL
 * it holds), str_hash() of it, and `id`, -1 for the consumer to set (its
 * own id for the string, kept for the chunk's other events). */
struct chunk_str {
	const char *s;
	size_t hash;
	int id;
	int kind;   /* -1, for the consumer to set: what the string is (kineto.c's STR_* bits) */
	size_t off, len; /* (the reader's: where s is in the chunk's arena, its length) */
};

/* One event of a chunk: its numbers and ph as the parser gave them, its
 * strings as indices into the chunk's strings (-1: absent). */
struct chunk_event {
	struct kineto_fields f; /* (its string pointers are not to be used) */
	int name, cat, tid, coll, pg, dtype;
	char ph;
};

struct chunk_sink {
	void (*event)(void *ctx, const struct chunk_event *e, struct chunk_str *strs);
	void (*root)(void *ctx, enum kineto_key key, double v); /* as kineto_simd_sink's */
	void *ctx;
	int legacy;
	/* 0 for an event `event` would do nothing with: not kept nor handed on
	 * (called on the parsing threads, with the event's fields alone); NULL:
	 * every event is */
	int (*wants)(const struct kineto_fields *f);
};

/* A file to read in chunks: a stream read from its start. */
struct chunk_source {
	long (*read)(void *src, unsigned char *buf, size_t n); /* >0, 0 at the end, <0 */
	void *src;
	size_t max_bytes;         /* the most a trace may hold (decompressed) */
	size_t chunk;             /* bytes per chunk (0: KINETO_CHUNK_BYTES) */
};

/* Reads the file on `threads` threads (1: this one alone), handing sink
 * every event and the rank in file order and setting sink->legacy. 0: done.
 * 1: not split (a small file, or no event array in its first 64 MB):
 * nothing was handed on; read it whole. -1: a chunk did not parse, the
 * stream failed, or a limit was passed; what was handed on must be
 * forgotten and the file read whole, which then says where and why. The
 * stream has been read from in both cases: rewind it first. */
int kineto_chunks_read(const struct chunk_source *in, int threads, struct chunk_sink *sink);

/* The offset just past the '[' that opens the event array (traceEvents of
 * the root object, or the root array itself), or 0 when none is found in the
 * first `limit` bytes (strings are skipped whole, escapes included). */
size_t kineto_events_start(const unsigned char *b, size_t n, size_t limit);

/* The last ',' in b[from, n) that separates two events ('}', spaces, ',',
 * spaces, '{'), or 0 when there is none. A guess: a ',' inside a string or a
 * deeper array makes the chunks around it fail to parse, never parse
 * differently. */
size_t kineto_event_cut(const unsigned char *b, size_t n, size_t from);

/* Strings across the pieces of a document: where one passes the longest a
 * trace may hold (TRACE_MAX_STRING; yajl's cost grows with the square of a
 * string's length, and no cut is found across one). */
struct kineto_strscan {
	int in, esc;
	size_t run;
};

/* The offset in b where a string passes max bytes, or n when none does. */
size_t kineto_long_string_at(struct kineto_strscan *s, const unsigned char *b, size_t n,
			     size_t max);

#endif
