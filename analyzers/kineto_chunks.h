/* kineto_chunks: one large plain Kineto file, mapped, read as chunks of its
 * event array parsed on several threads (simdjson), every event handed on in
 * file order: memory follows the chunk and the threads, not the file, and
 * the output is the same as one parse of the whole document. */
#ifndef ANALYZERS_KINETO_CHUNKS_H
#define ANALYZERS_KINETO_CHUNKS_H

#include "kineto_simd.h"

#include <stddef.h>

/* Bytes of event array per chunk; a file under twice this is one chunk. */
#define KINETO_CHUNK_BYTES (2u << 20)

/* Reads the n bytes at map (a whole file, mapped read-only) on `threads`
 * threads (1: this one alone), handing sink every event and the rank in file
 * order and setting sink->legacy. 0: done. 1: not split (the file is small,
 * or no event array was found in its first bytes): nothing was handed on,
 * read it whole. -1: a chunk did not parse; what was handed on must be
 * forgotten and the file read whole, which then says where it breaks. */
int kineto_chunks_read(const unsigned char *map, size_t n, int threads,
		       struct kineto_simd_sink *sink);

/* The offset just past the '[' that opens the event array (traceEvents of
 * the root object, or the root array itself), or 0 when none is found in the
 * first `limit` bytes (strings are skipped whole, escapes included). */
size_t kineto_events_start(const unsigned char *b, size_t n, size_t limit);

/* The first ',' at or after `from` that separates two events ('}', spaces,
 * ',', spaces, '{'), or n when there is none. A guess: a ',' inside a string
 * or a deeper array makes the chunks around it fail to parse, never parse
 * differently. */
size_t kineto_event_split(const unsigned char *b, size_t n, size_t from);

#endif
