/* diag: the list of problems found in a campaign file, each with
 * FILE:LINE:COLUMN and the key path, reported all at once, sorted by place.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_DIAG_H
#define CAMPAIGN_DIAG_H

#include <stddef.h>
#include <stdio.h>

struct diag {
	int line, col; /* 1-based; 0 when the problem has no place */
	char *path;    /* key path such as scenarios[2].nodes, may be "" */
	char *msg;
};

struct diags {
	char *file;
	struct diag *items;
	size_t n, cap;
};

void diags_init(struct diags *d, const char *file);
void diags_add(struct diags *d, int line, int col, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Prints "FILE:LINE:COLUMN: path: message" lines, sorted by place. */
void diags_print(struct diags *d, FILE *out);
void diags_free(struct diags *d);

#endif
