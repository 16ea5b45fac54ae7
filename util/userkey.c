/* SPDX-License-Identifier: MIT */
#include "userkey.h"

#include "err.h"
#include "fsio.h"
#include "strbuf.h"

#include <errno.h>
#include <openssl/rand.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY_NAME "provenance.key"

/* $XDG_CONFIG_HOME/campaign (an absolute one only, as the XDG rules say),
 * else $HOME/.config/campaign, else the password database's home. */
static char *key_dir(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	struct strbuf sb = STRBUF_INIT;
	if (xdg && xdg[0] == '/') {
		strbuf_addf(&sb, "%s/campaign", xdg);
		return strbuf_detach(&sb);
	}
	if (!home || home[0] != '/') {
		struct passwd *pw = getpwuid(getuid());
		home = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
	}
	if (!home)
		return NULL;
	strbuf_addf(&sb, "%s/.config/campaign", home);
	return strbuf_detach(&sb);
}

static int unhex(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The key in path: a private regular file of 64 lowercase hex digits (and a newline). */
static int key_read(const char *path, unsigned char key[USERKEY_BYTES])
{
	struct stat st;
	char *data = NULL;
	size_t len = 0;
	if (lstat(path, &st) == 0 && (!S_ISREG(st.st_mode) || (st.st_mode & 077) ||
				      st.st_uid != geteuid()))
		return err_set(ERR_IO,
			       "%s: the per-user key must be a regular file of yours that only you can read (chmod 600 it, or remove it to have a new one made)",
			       path);
	int rc = fsio_read(path, 4 * USERKEY_BYTES, &data, &len);
	if (rc < 0)
		return rc;
	while (len && (data[len - 1] == '\n'))
		len--;
	for (size_t i = 0; rc == 0 && i < USERKEY_BYTES; i++) {
		int hi = len == 2 * USERKEY_BYTES ? unhex(data[2 * i]) : -1;
		int lo = hi < 0 ? -1 : unhex(data[2 * i + 1]);
		if (lo < 0)
			rc = err_set(ERR_IO,
				     "%s: not a per-user key (64 hex digits); remove it to have a new one made",
				     path);
		else
			key[i] = (unsigned char)(hi << 4 | lo);
	}
	free(data);
	return rc;
}

static int key_make(const char *path)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char k[USERKEY_BYTES];
	char text[2 * USERKEY_BYTES + 1];
	if (RAND_bytes(k, sizeof k) != 1)
		return err_set(ERR_IO, "%s: no random bytes for a new per-user key", path);
	for (size_t i = 0; i < USERKEY_BYTES; i++) {
		text[2 * i] = hex[k[i] >> 4];
		text[2 * i + 1] = hex[k[i] & 15];
	}
	text[2 * USERKEY_BYTES] = '\n';
	return fsio_write_atomic(path, text, sizeof text, 0600);
}

int userkey_load(unsigned char key[USERKEY_BYTES])
{
	char *dir = key_dir();
	if (!dir)
		return err_set(ERR_IO, "no home folder (HOME, XDG_CONFIG_HOME) to keep the per-user key in");
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "%s/" KEY_NAME, dir);
	int rc = fsio_mkdir_p(dir, 0700);
	/* under the lock, a second submit reads the key the first one made */
	int lock = rc < 0 ? rc : fsio_lock(dir, KEY_NAME ".lock", 0);
	if (lock < 0)
		rc = lock;
	if (rc == 0 && access(path.buf, F_OK) < 0 && errno == ENOENT)
		rc = key_make(path.buf);
	if (rc == 0)
		rc = key_read(path.buf, key);
	if (lock >= 0)
		close(lock);
	strbuf_free(&path);
	free(dir);
	return rc;
}
