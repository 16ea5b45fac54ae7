#include "sha256.h"

#include "err.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>

static void to_hex(const unsigned char *d, unsigned n, char out[SHA256_HEX])
{
	static const char hex[] = "0123456789abcdef";
	for (unsigned i = 0; i < n && i < 32; i++) {
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

int sha256_file(const char *path, char out[SHA256_HEX])
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_sys(errno == ENOENT ? ERR_NOTFOUND : ERR_IO, "cannot open %s", path);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	unsigned char buf[65536], d[EVP_MAX_MD_SIZE];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		EVP_DigestUpdate(ctx, buf, n);
	int rc = ferror(f) ? err_sys(ERR_IO, "cannot read %s", path) : 0;
	unsigned len = 0;
	EVP_DigestFinal_ex(ctx, d, &len);
	EVP_MD_CTX_free(ctx);
	fclose(f);
	to_hex(d, len, out);
	return rc;
}
