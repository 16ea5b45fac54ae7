/* sha256: SHA-256 of buffers and files, and HMAC-SHA256 of files under a
 * key (OpenSSL's EVP, its libcrypto opened at the first hash), as lowercase hex.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_SHA256_H
#define CAMPAIGN_SHA256_H

#include <stddef.h>

#define SHA256_HEX 65

/* (Ends the process, saying why, where libcrypto cannot be loaded: an installation that
 * lacks it, as the dynamic loader would have said at start.) */
void sha256_hex(const void *data, size_t len, char out[SHA256_HEX]);
/* 0, or a negative code with err set. */
int sha256_file(const char *path, char out[SHA256_HEX]);
/* HMAC-SHA256 of the file's contents under key; 0, or a negative code with err set. */
int sha256_hmac_file(const char *path, const unsigned char *key, size_t keylen,
		     char out[SHA256_HEX]);

#endif
