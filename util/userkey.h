/* userkey: the per-user secret key of keyed hashes (HMAC-SHA256) that campaign
 * publishes in place of a plain hash of a secret-looking file: 32 random bytes
 * in $XDG_CONFIG_HOME/campaign/provenance.key (else ~/.config/campaign/), 0600,
 * made on first use under a lock so that two submits share one key. Never
 * written into a run or a paper.
 * SPDX-License-Identifier: MIT */
#ifndef UTIL_USERKEY_H
#define UTIL_USERKEY_H

#include <stddef.h>

#define USERKEY_BYTES 32

/* The key, read or created; 0, or a negative code with err set (no home
 * folder, a key file that others may read or that is not 64 hex digits). */
int userkey_load(unsigned char key[USERKEY_BYTES]);

#endif
