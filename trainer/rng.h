/* rng: small deterministic generators (splitmix64) so that every rank
 * derives identical weights and sample i is the same wherever it is
 * generated; and the parameter checksum replicas are compared with. Shared
 * by the CPU and GPU trainers. */
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

/* A 64-bit hash of the bits of n floats: replicas must agree exactly.
 * Four independent lanes keep the multiplier busy (one sweep, ~1 ns/float). */
static inline uint64_t params_checksum(const float *p, size_t n)
{
	uint64_t h[4] = { 0x9e3779b97f4a7c15ULL, 0xc2b2ae3d27d4eb4fULL, 0x165667b19e3779f9ULL, 0x27d4eb2f165667c5ULL };
	size_t i = 0;
	for (; i + 4 <= n; i += 4) {
		for (int k = 0; k < 4; k++) {
			uint32_t w;
			memcpy(&w, &p[i + (size_t)k], sizeof w);
			h[k] = (h[k] ^ w) * 0xff51afd7ed558ccdULL;
			h[k] ^= h[k] >> 29;
		}
	}
	for (; i < n; i++) {
		uint32_t w;
		memcpy(&w, &p[i], sizeof w);
		h[0] = (h[0] ^ w) * 0xff51afd7ed558ccdULL;
		h[0] ^= h[0] >> 29;
	}
	return h[0] ^ (h[1] * 3) ^ (h[2] * 5) ^ (h[3] * 7);
}

#endif
