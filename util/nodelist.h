/* nodelist: SLURM's compact node lists ("n[1-3],n7"), read with libslurm's
 * hostlist: what two lists share, and where the first node of one is. It
 * keeps no state; only nodelist_first_addr asks the controller.
 * SPDX-License-Identifier: MIT */
#ifndef UTIL_NODELIST_H
#define UTIL_NODELIST_H

#include <stddef.h>

/* How many nodes the node lists a and b have in common; the first of them
 * into first. */
int nodelist_shared(const char *a, const char *b, char *first, size_t n);
/* The first node of a node list ("n[1-4]" -> "n1"); malloc'ed, NULL for an
 * empty list. */
char *nodelist_first(const char *nodelist);
/* The address of the first node of a node list (its NodeAddr, from the
 * controller); the node's name when the controller cannot say. malloc'ed;
 * NULL for an empty list. */
char *nodelist_first_addr(const char *nodelist);

#endif
