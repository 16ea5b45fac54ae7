/* kineto_simd: the Kineto/Chrome-trace reader on simdjson's On-Demand API,
 * a C++17 shim with a C interface. It walks a document held whole in memory
 * (padded by KINETO_SIMD_PADDING bytes) and hands each event's fields to the
 * same C code the streaming yajl reader uses (kineto.c), so both readers
 * keep the same events. Memory: the document plus simdjson's index of it
 * (about the document's size again); kineto.c uses it only below a limit.
 * SPDX-License-Identifier: MIT */
#ifndef ANALYZERS_KINETO_SIMD_H
#define ANALYZERS_KINETO_SIMD_H

#include <stddef.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The keys both readers use; every other key is KK_OTHER. */
enum kineto_key {
	KK_OTHER,
	KK_NAME,
	KK_CAT,
	KK_TID,
	KK_PH,
	KK_TS,
	KK_DUR,
	KK_ARGS,
	KK_STREAM,
	KK_CORR,
	KK_FLOPS,
	KK_GRAD_BYTES,
	KK_STEP_ARG,
	KK_RANK,
	KK_EVENTS,
	KK_DIST,
	KK_COLL,
	KK_PG,
	KK_DTYPE,
	KK_IN_NELEMS,
	KK_OUT_NELEMS,
	KK_GROUP_SIZE,
	KK_BASE_TIME /* the root's baseTimeNanoseconds */
};

/* A flow event (ph "s", "t" or "f": an arrow from one event to another) has no time range of
 * its own: every reader drops it whole, so one may stop reading it at its ph. */
static inline int kineto_ph_is_flow(char ph)
{
	return ph == 's' || ph == 't' || ph == 'f';
}

#define KINETO_KEY_IS(k, n, lit) ((n) == sizeof(lit) - 1 && !memcmp((k), (lit), sizeof(lit) - 1))

/* The key k[0, n): by its length first, then one compare of a constant size. */
static inline enum kineto_key kineto_key_of(const char *k, size_t n)
{
	switch (n) {
	case 2:
		return KINETO_KEY_IS(k, n, "ts")    ? KK_TS
			: KINETO_KEY_IS(k, n, "ph") ? KK_PH
						    : KK_OTHER;
	case 3: return KINETO_KEY_IS(k, n, "dur") ? KK_DUR : KINETO_KEY_IS(k, n, "tid") ? KK_TID :
		       KINETO_KEY_IS(k, n, "cat") ? KK_CAT : KK_OTHER;
	case 4:
		return KINETO_KEY_IS(k, n, "name")    ? KK_NAME
			: KINETO_KEY_IS(k, n, "args") ? KK_ARGS
			: KINETO_KEY_IS(k, n, "rank") ? KK_RANK
			: KINETO_KEY_IS(k, n, "step") ? KK_STEP_ARG
						      : KK_OTHER;
	case 5:
		return KINETO_KEY_IS(k, n, "flops")    ? KK_FLOPS
			: KINETO_KEY_IS(k, n, "dtype") ? KK_DTYPE
						       : KK_OTHER;
	case 6: return KINETO_KEY_IS(k, n, "stream") ? KK_STREAM : KK_OTHER;
	case 10:
		return KINETO_KEY_IS(k, n, "Group size")   ? KK_GROUP_SIZE
			: KINETO_KEY_IS(k, n, "grad_bytes") ? KK_GRAD_BYTES
							    : KK_OTHER;
	case 13: return KINETO_KEY_IS(k, n, "In msg nelems") ? KK_IN_NELEMS : KK_OTHER;
	case 14: return KINETO_KEY_IS(k, n, "Out msg nelems") ? KK_OUT_NELEMS : KK_OTHER;
	case 18: return KINETO_KEY_IS(k, n, "Process Group Name") ? KK_PG : KK_OTHER;
	case 19: return KINETO_KEY_IS(k, n, "baseTimeNanoseconds") ? KK_BASE_TIME : KK_OTHER;
	case 11:
		return KINETO_KEY_IS(k, n, "correlation")    ? KK_CORR
			: KINETO_KEY_IS(k, n, "traceEvents") ? KK_EVENTS
							     : KK_OTHER;
	case 15: return KINETO_KEY_IS(k, n, "distributedInfo") ? KK_DIST :
			KINETO_KEY_IS(k, n, "Collective name") ? KK_COLL : KK_OTHER;
	default: return KK_OTHER;
	}
}

#define KINETO_SIMD_PADDING 64 /* simdjson::SIMDJSON_PADDING */

/* One event object's fields, as the streaming reader sees them: strings
 * (not NUL-terminated) for name, cat, tid (a number's own text) and ph;
 * numbers with has_ flags; args.stream / correlation / flops; a
 * collective's args (PyTorch 2.x: record_param_comms and NCCL kernels):
 * "Collective name", "Process Group Name", "dtype" (strings; NULL when
 * absent), "In msg nelems", "Out msg nelems", "Group size". */
struct kineto_fields {
	const char *name, *cat, *tid, *ph, *coll, *pg, *dtype;
	size_t name_len, cat_len, tid_len, ph_len, coll_len, pg_len, dtype_len;
	int has_ts, has_dur, has_stream, has_corr, has_flops, has_grad_bytes, has_step_arg;
	int bad_time; /* ts or dur given as something else than a number */
	double ts, dur, stream, corr, flops, grad_bytes, step_arg; /* step_arg: args.step */
	double in_nelems, out_nelems, group_size; /* -1 when absent */
};

struct kineto_simd_sink {
	void (*event)(void *ctx, const struct kineto_fields *f);
	/* a number of the root's the reader keeps: distributedInfo.rank (KK_RANK) and
	 * baseTimeNanoseconds (KK_BASE_TIME) */
	void (*root)(void *ctx, enum kineto_key key, double v);
	void *ctx;
	int legacy; /* set: the document was the legacy array form */
};

/* Walks buf[0, len) (followed by KINETO_SIMD_PADDING readable bytes). 0, or
 * -1 with *where the byte offset ((size_t)-1: unknown) and why the error (a
 * static string). */
int kineto_simd_parse(const char *buf, size_t len, struct kineto_simd_sink *sink, size_t *where,
		      const char **why);

/* A parser of one's own (kept by a caller that parses on several threads,
 * one per thread): the strings an event's fields point to stay valid until
 * the parser's next document. Its index is made for documents of up to
 * `capacity` bytes at once (0: the first document's size), so that documents
 * of about that size do not make it again (new memory: page faults). NULL
 * when out of memory. */
struct kineto_simd_parser *kineto_simd_parser_new(size_t capacity);
void kineto_simd_parser_free(struct kineto_simd_parser *p);
int kineto_simd_parse_with(struct kineto_simd_parser *p, const char *buf, size_t len,
			   struct kineto_simd_sink *sink, size_t *where, const char **why);

/* This thread's buffer for a document of n bytes (and the padding), kept
 * from call to call; NULL when n is over what a thread keeps (256 MB). */
char *kineto_simd_buffer(size_t n);

#ifdef __cplusplus
}
#endif

#endif
