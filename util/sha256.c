/* SPDX-License-Identifier: MIT */
#include "sha256.h"

#include "err.h"

#include <dlfcn.h>
#include <errno.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OpenSSL's libcrypto is opened when a hash is wanted, not linked: campaign-analyze, which
 * hashes nothing while it analyses a trace, then starts without loading it (0.5 ms of the
 * 17 ms of HTA's A100 rank, measured). RTLD_NODELETE keeps it loaded once opened, so a later
 * call's dlopen finds it at once, and no handle is kept between calls. */
#define CRYPTO_STR_(x) #x
#define CRYPTO_STR(x) CRYPTO_STR_(x)
#define LIBCRYPTO "libcrypto.so." CRYPTO_STR(OPENSSL_VERSION_MAJOR)

struct crypto {
	void *h;
	const EVP_MD *(*sha256)(void);
	int (*digest)(const void *, size_t, unsigned char *, unsigned int *, const EVP_MD *,
		      ENGINE *);
	EVP_MD_CTX *(*md_ctx_new)(void);
	int (*digest_init)(EVP_MD_CTX *, const EVP_MD *, ENGINE *);
	int (*digest_update)(EVP_MD_CTX *, const void *, size_t);
	int (*digest_final)(EVP_MD_CTX *, unsigned char *, unsigned int *);
	void (*md_ctx_free)(EVP_MD_CTX *);
	EVP_MAC *(*mac_fetch)(OSSL_LIB_CTX *, const char *, const char *);
	EVP_MAC_CTX *(*mac_ctx_new)(EVP_MAC *);
	int (*mac_init)(EVP_MAC_CTX *, const unsigned char *, size_t, const OSSL_PARAM[]);
	int (*mac_update)(EVP_MAC_CTX *, const unsigned char *, size_t);
	int (*mac_final)(EVP_MAC_CTX *, unsigned char *, size_t *, size_t);
	void (*mac_ctx_free)(EVP_MAC_CTX *);
	void (*mac_free)(EVP_MAC *);
	OSSL_PARAM (*param_utf8)(const char *, char *, size_t);
	OSSL_PARAM (*param_end)(void);
};

/* One of libcrypto's functions into *fn; 0, or -1 when it has none of that name. */
static int sym(void *h, const char *name, void *fn)
{
	void *f = dlsym(h, name);
	memcpy(fn, &f, sizeof f); /* (a data pointer to a function pointer, as POSIX allows) */
	return f ? 0 : -1;
}

/* The functions of struct crypto, by name and place. */
#define CRYPTO_SYM(name, field) { name, offsetof(struct crypto, field) }
static const struct {
	const char *name;
	size_t at;
} crypto_syms[] = {
	CRYPTO_SYM("EVP_sha256", sha256),
	CRYPTO_SYM("EVP_Digest", digest),
	CRYPTO_SYM("EVP_MD_CTX_new", md_ctx_new),
	CRYPTO_SYM("EVP_DigestInit_ex", digest_init),
	CRYPTO_SYM("EVP_DigestUpdate", digest_update),
	CRYPTO_SYM("EVP_DigestFinal_ex", digest_final),
	CRYPTO_SYM("EVP_MD_CTX_free", md_ctx_free),
	CRYPTO_SYM("EVP_MAC_fetch", mac_fetch),
	CRYPTO_SYM("EVP_MAC_CTX_new", mac_ctx_new),
	CRYPTO_SYM("EVP_MAC_init", mac_init),
	CRYPTO_SYM("EVP_MAC_update", mac_update),
	CRYPTO_SYM("EVP_MAC_final", mac_final),
	CRYPTO_SYM("EVP_MAC_CTX_free", mac_ctx_free),
	CRYPTO_SYM("EVP_MAC_free", mac_free),
	CRYPTO_SYM("OSSL_PARAM_construct_utf8_string", param_utf8),
	CRYPTO_SYM("OSSL_PARAM_construct_end", param_end),
};

/* libcrypto opened into *c; 0, or a negative code with err set. */
static int crypto_open(struct crypto *c)
{
	c->h = dlopen(LIBCRYPTO, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!c->h)
		return err_set(
			ERR_IO,
			"cannot load %s (OpenSSL's libcrypto, which campaign hashes files with): %s; install it (Debian: libssl3)",
			LIBCRYPTO, dlerror());
	for (size_t i = 0; i < sizeof crypto_syms / sizeof *crypto_syms; i++)
		if (sym(c->h, crypto_syms[i].name, (char *)c + crypto_syms[i].at) < 0) {
			int rc = err_set(ERR_IO, "%s lacks a function campaign hashes with: %s",
					 LIBCRYPTO, dlerror());
			dlclose(c->h);
			return rc;
		}
	return 0;
}

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
	struct crypto c;
	if (crypto_open(&c) < 0) { /* as the dynamic loader would have refused to start */
		fprintf(stderr, "campaign: %s\n", err_last());
		exit(1);
	}
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	c.digest(data, len, d, &n, c.sha256(), NULL);
	to_hex(d, n, out);
	dlclose(c.h);
}

/* A digest or MAC being fed: libcrypto's functions and its context. */
struct feed {
	struct crypto *c;
	void *ctx;
	int mac;
};

/* Feeds the file's contents to f; 0, or a negative code. */
static int feed_file(const char *path, struct feed *f)
{
	FILE *in = fopen(path, "rb");
	if (!in)
		return err_sys(errno == ENOENT ? ERR_NOTFOUND : ERR_IO, "cannot open %s", path);
	unsigned char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
		if (f->mac)
			f->c->mac_update(f->ctx, buf, n);
		else
			f->c->digest_update(f->ctx, buf, n);
	}
	int rc = ferror(in) ? err_sys(ERR_IO, "cannot read %s", path) : 0;
	fclose(in);
	return rc;
}

int sha256_file(const char *path, char out[SHA256_HEX])
{
	struct crypto c;
	int orc = crypto_open(&c);
	if (orc < 0)
		return orc;
	EVP_MD_CTX *ctx = c.md_ctx_new();
	c.digest_init(ctx, c.sha256(), NULL);
	unsigned char d[EVP_MAX_MD_SIZE];
	struct feed f = { &c, ctx, 0 };
	int rc = feed_file(path, &f);
	unsigned len = 0;
	c.digest_final(ctx, d, &len);
	c.md_ctx_free(ctx);
	to_hex(d, len, out);
	dlclose(c.h);
	return rc;
}

int sha256_hmac_file(const char *path, const unsigned char *key, size_t keylen,
		     char out[SHA256_HEX])
{
	struct crypto c;
	int orc = crypto_open(&c);
	if (orc < 0)
		return orc;
	char digest[] = "SHA256";
	OSSL_PARAM params[] = { c.param_utf8(OSSL_MAC_PARAM_DIGEST, digest, 0), c.param_end() };
	EVP_MAC *mac = c.mac_fetch(NULL, "HMAC", NULL);
	EVP_MAC_CTX *ctx = mac ? c.mac_ctx_new(mac) : NULL;
	unsigned char d[EVP_MAX_MD_SIZE];
	size_t len = 0;
	struct feed f = { &c, ctx, 1 };
	int rc = ctx && c.mac_init(ctx, key, keylen, params)
		? feed_file(path, &f)
		: err_set(ERR_IO, "%s: OpenSSL has no HMAC-SHA256 here", path);
	if (rc == 0 && !c.mac_final(ctx, d, &len, sizeof d))
		rc = err_set(ERR_IO, "%s: HMAC-SHA256 failed", path);
	c.mac_ctx_free(ctx);
	c.mac_free(mac);
	if (rc == 0)
		to_hex(d, len, out);
	dlclose(c.h);
	return rc;
}
