/* rng: small deterministic generators (splitmix64) so that every rank
 * derives identical weights and sample i is the same wherever it is
 * generated; and the parameter checksum replicas are compared with. Shared
 * by the CPU and GPU trainers.
 * SPDX-License-Identifier: MIT */
#ifndef TRAINER_RNG_H
#define TRAINER_RNG_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct rng {
	uint64_t s;
};

static inline uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);
	r->s = splitmix64(&x);
}

/* Uniform in [0, 1). */
static inline double rng_uniform(struct rng *r)
{
	return (double)(splitmix64(&r->s) >> 11) * (1.0 / 9007199254740992.0);
}

static inline double rng_normal(struct rng *r)
{
	double u = rng_uniform(r), v = rng_uniform(r);
	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* A 64-bit checksum of the bits of n floats: replicas must agree exactly.
 * Eight Fletcher lanes (a += bits, b += a, mod 2^32): any single-bit
 * difference changes a, position within a lane changes b, and the loop
 * vectorises with plain adds, so mlp_sgd folds it into its own sweep. */
struct psum {
	uint32_t a[8], b[8];
};

static inline void psum_add8(struct psum *s, const float *q)
{
	uint32_t w[8];
	memcpy(w, q, sizeof w);
	for (int k = 0; k < 8; k++) {
		s->a[k] += w[k];
		s->b[k] += s->a[k];
	}
}

/* Folds the lanes, then the tail (fewer than 8 floats), and the count. */
static inline uint64_t psum_final(const struct psum *s, const float *tail, size_t ntail, size_t n)
{
	uint64_t h = (uint64_t)n;
	for (int k = 0; k < 8; k++)
		h = (h * 0x100000001b3ULL) ^ ((uint64_t)s->a[k] << 32 | s->b[k]);
	for (size_t i = 0; i < ntail; i++) {
		uint32_t w;
		memcpy(&w, &tail[i], sizeof w);
		h = (h ^ w) * 0x100000001b3ULL;
	}
	h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33);
}

static inline uint64_t params_checksum(const float *p, size_t n)
{
	struct psum s = { { 0 }, { 0 } };
	size_t i = 0;
	for (; i + 8 <= n; i += 8)
		psum_add8(&s, p + i);
	return psum_final(&s, p + i, n - i, n);
}

#endif
