/* SPDX-License-Identifier: MIT */
#include "checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int write_zeros(int fd, size_t n)
{
	static const char zeros[65536];
	while (n > 0) {
		size_t k = n < sizeof zeros ? n : sizeof zeros;
		if (write_all(fd, zeros, k) < 0)
			return -1;
		n -= k;
	}
	return 0;
}

int checkpoint_write(const char *dir, int rank, long step, const float *params,
		     const float *momentum, size_t n, size_t extra_bytes)
{
	char path[4096], tmp[4200];
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -1;
	snprintf(path, sizeof path, "%s/ckpt_rank%d.bin", dir, rank);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	uint64_t hdr[2] = { (uint64_t)step, (uint64_t)n };
	int rc = write_all(fd, hdr, sizeof hdr) == 0 &&
			write_all(fd, params, n * sizeof *params) == 0 &&
			write_all(fd, momentum, n * sizeof *momentum) == 0 &&
			write_zeros(fd, extra_bytes) == 0 && fsync(fd) == 0
		? 0
		: -1;
	if (close(fd) < 0)
		rc = -1;
	if (rc == 0)
		rc = rename(tmp, path);
	if (rc < 0)
		unlink(tmp);
	return rc;
}
