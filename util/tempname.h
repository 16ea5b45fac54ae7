/* tempname: the names of the temporary files and folders a writer makes
 * beside its target (<name>.tmp.<host>.<pid>.<k>), and the removal of those
 * whose writer died on this host, so that a kill mid-write leaves nothing
 * behind once the same target is written again (fsio_sweep_temps). Never a
 * temporary of a live process or of another host (a shared file system).
 * SPDX-License-Identifier: MIT */
#ifndef UTIL_TEMPNAME_H
#define UTIL_TEMPNAME_H

struct strbuf;

/* Sets out to "<name>.tmp.<host>.<pid>." followed by suffix. */
void tempname_make(struct strbuf *out, const char *name, const char *suffix);
/* 1 when entry is a temporary of name (this form, or the older
 * "<name>.tmp.<pid>.<k>") made on this host by a process that no longer runs. */
int tempname_is_stale(const char *entry, const char *name);
#endif
