/* comm: the gradient all-reduce the trainer needs, behind a C interface.
 * The CPU implementation is gloo (gloo_shim.cc, C++17, extern "C").
 * SPDX-License-Identifier: MIT */
#ifndef TRAINER_COMM_H
#define TRAINER_COMM_H

#include <stddef.h>

enum comm_algo { COMM_RING = 0, COMM_BCUBE = 1, COMM_HALVING_DOUBLING = 2 };

struct cgloo;

/* Rendezvous through a FileStore in dir under prefix (unique per launch).
 * iface or host may be NULL. Returns NULL with the reason in err. */
struct cgloo *cgloo_connect(const char *dir, const char *prefix, int rank, int size,
			    const char *iface, const char *host, int timeout_ms,
			    char *err, size_t errlen);
/* In-place sum over all ranks. 0, or -1 with the reason in err. */
int cgloo_allreduce(struct cgloo *g, float *buf, size_t n, int algo, char *err, size_t errlen);
/* Every rank's last collective done before any closes its connections: a barrier. A rank
 * that left at once after its last all-reduce could close its sockets with data still unsent
 * to a peer, which then failed with "Connection closed by peer" (once in a suite's run). 0,
 * or -1 with the reason in err. */
int cgloo_finish(struct cgloo *g, char *err, size_t errlen);
void cgloo_free(struct cgloo *g);

#endif
