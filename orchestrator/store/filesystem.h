/* filesystem: what file system a directory is on (statfs magic numbers), and
 * whether it is shared between hosts (NFS, Lustre, GPFS, BeeGFS, CephFS,
 * CIFS/SMB, 9P, FUSE, AFS, GFS2, OCFS2, PanFS, OrangeFS): there SQLite's WAL,
 * whose index is shared memory of one host, must not be used.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_FSKIND_H
#define CAMPAIGN_FSKIND_H

#include <stddef.h>

struct filesystem {
	char name[24]; /* "ext4", "nfs", "lustre", ... or "0x<magic>" */
	int shared;    /* 1: other hosts may open the same files */
};

/* The file system of path (a file or a directory); ERR_IO when statfs fails.
 * CAMPAIGN_FS_TYPE=NAME stands in for the answer (tests: "nfs" on a local
 * disk), as if statfs had said so. */
int filesystem_of(const char *path, struct filesystem *out);
/* 0 when POSIX record locks (what SQLite uses) work in dir; ERR_IO naming
 * the file system and what to do when they do not. */
int filesystem_check_locks(const char *dir, const struct filesystem *k);

#endif
