/* SPDX-License-Identifier: MIT */
#include "filesystem.h"
#include "orchestrator/store/prose.h"

#include "util/err.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

static const struct {
	unsigned long magic;
	const char *name;
	int shared;
} kinds[] = {
	{ 0xEF53, "ext4", 0 },       { 0x58465342, "xfs", 0 },      { 0x9123683E, "btrfs", 0 },
	{ 0x01021994, "tmpfs", 0 },  { 0x794C7630, "overlay", 0 },  { 0x2FC12FC1, "zfs", 0 },
	{ 0x858458F6, "ramfs", 0 },  { 0xF2F52010, "f2fs", 0 },     { 0x6969, "nfs", 1 },
	{ 0x0BD00BD0, "lustre", 1 }, { 0x47504653, "gpfs", 1 },     { 0x19830326, "beegfs", 1 },
	{ 0x00C36400, "cephfs", 1 }, { 0xFF534D42, "cifs", 1 },     { 0xFE534D42, "smb2", 1 },
	{ 0x517B, "smb", 1 },        { 0x01021997, "9p", 1 },       { 0x65735546, "fuse", 1 },
	{ 0x5346414F, "afs", 1 },    { 0x01161970, "gfs2", 1 },     { 0x7461636F, "ocfs2", 1 },
	{ 0xAAD7AAEA, "panfs", 1 },  { 0x20030528, "orangefs", 1 },
};

static int by_name(const char *name, struct filesystem *out)
{
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (!strcmp(kinds[i].name, name)) {
			snprintf(out->name, sizeof out->name, "%s", name);
			out->shared = kinds[i].shared;
			return 0;
		}
	return -1;
}

int filesystem_of(const char *path, struct filesystem *out)
{
	const char *forced = getenv("CAMPAIGN_FS_TYPE");
	memset(out, 0, sizeof *out);
	if (forced && *forced && by_name(forced, out) == 0)
		return 0;
	struct statfs s;
	if (statfs(path, &s) != 0)
		return err_sys(ERR_IO, "cannot tell the file system of %s", path);
	unsigned long magic = (unsigned long)s.f_type & 0xFFFFFFFFul;
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (kinds[i].magic == magic) {
			snprintf(out->name, sizeof out->name, "%s", kinds[i].name);
			out->shared = kinds[i].shared;
			return 0;
		}
	snprintf(out->name, sizeof out->name, "0x%lx", magic); /* unknown: local, as most are */
	return 0;
}

int filesystem_check_locks(const char *dir, const struct filesystem *k)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/.lock-probe", dir);
	int fd = open(p.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0644), rc = 0;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
	if (fd < 0)
		rc = err_sys(ERR_IO, "cannot create %s", p.buf);
	else if (fcntl(fd, F_SETLK, &fl) != 0 && errno != EAGAIN && errno != EACCES)
		rc = err_sys(ERR_IO,
			     PROSE_STORE_NO_LOCKS,
			     dir, k->name);
	if (fd >= 0)
		close(fd); /* a separate file: closing it drops no lock SQLite holds */
	strbuf_free(&p);
	return rc;
}
