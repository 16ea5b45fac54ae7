/* SPDX-License-Identifier: MIT */
#include "sha256.h"

#include "err.h"

#include <errno.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <stdio.h>

static void to_hex(const unsigned char *d, size_t n, char out[SHA256_HEX])
{
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < n && i < 32; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[64] = '\0';
}

void sha256_hex(const void *data, size_t len, char out[SHA256_HEX])
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	EVP_Digest(data, len, d, &n, EVP_sha256(), NULL);
	to_hex(d, n, out);
}

/* Feeds the file's contents to update(ctx, ...); 0, or a negative code. */
static int feed_file(const char *path, int (*update)(void *, const unsigned char *, size_t),
		     void *ctx)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_sys(errno == ENOENT ? ERR_NOTFOUND : ERR_IO, "cannot open %s", path);
	unsigned char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		update(ctx, buf, n);
	int rc = ferror(f) ? err_sys(ERR_IO, "cannot read %s", path) : 0;
	fclose(f);
	return rc;
}

static int digest_update(void *ctx, const unsigned char *d, size_t n)
{
	return EVP_DigestUpdate(ctx, d, n);
}

static int mac_update(void *ctx, const unsigned char *d, size_t n)
{
	return EVP_MAC_update(ctx, d, n);
}

int sha256_file(const char *path, char out[SHA256_HEX])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	unsigned char d[EVP_MAX_MD_SIZE];
	int rc = feed_file(path, digest_update, ctx);
	unsigned len = 0;
	EVP_DigestFinal_ex(ctx, d, &len);
	EVP_MD_CTX_free(ctx);
	to_hex(d, len, out);
	return rc;
}

int sha256_hmac_file(const char *path, const unsigned char *key, size_t keylen,
		     char out[SHA256_HEX])
{
	char digest[] = "SHA256";
	OSSL_PARAM params[] = { OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
				OSSL_PARAM_construct_end() };
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
	unsigned char d[EVP_MAX_MD_SIZE];
	size_t len = 0;
	int rc = ctx && EVP_MAC_init(ctx, key, keylen, params)
		? feed_file(path, mac_update, ctx)
		: err_set(ERR_IO, "%s: OpenSSL has no HMAC-SHA256 here", path);
	if (rc == 0 && !EVP_MAC_final(ctx, d, &len, sizeof d))
		rc = err_set(ERR_IO, "%s: HMAC-SHA256 failed", path);
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	if (rc == 0)
		to_hex(d, len, out);
	return rc;
}
