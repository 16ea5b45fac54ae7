/* libFuzzer target: NCCL Inspector dumps through the reader, the matcher and the model.
 * The first byte splits the rest into two dump files (memfds, read by path as the files of a
 * dump folder are).
 * SPDX-License-Identifier: MIT */
#include "analyzers/inspector.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int memfile(const uint8_t *data, size_t n, char *path, size_t len)
{
	int fd = memfd_create("dump", 0);
	if (fd < 0)
		return -1;
	if (n && write(fd, data, n) != (ssize_t)n) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t cut = 1 + (size - 1) * data[0] / 256;
	char a[64], b[64];
	char *paths[] = { a, b };
	int fa = memfile(data + 1, cut - 1, a, sizeof a),
	    fb = memfile(data + cut, size - cut, b, sizeof b);
	if (fa >= 0 && fb >= 0) {
		struct insp_data d;
		struct insp_summary s;
		struct collective *c;
		struct straggler g[STRAGGLER_MAX];
		size_t nc, ng;
		char slow[128];
		inspector_load(paths, 2, NULL, &d);
		inspector_stragglers(&d, 1, 10, g, &ng, slow, sizeof slow, NULL);
		inspector_rows(&d, 1, &c, &nc);
		inspector_done(&d, &s);
		collectives_free(c, nc);
		inspector_summary_free(&s);
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return 0;
}
