/* SPDX-License-Identifier: MIT */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "secret.h"
#include "orchestrator/campaign/prose.h"

#include <fnmatch.h>
#include <pcre2.h>
#include <string.h>
#include <strings.h>

int secret_name(const char *name, const char **why)
{
	static const char *const words[] = { "CREDENTIAL", "PASSWORD", "PASSWD", "SECRET",
					     "TOKEN",      "KEY",      NULL };
	for (int i = 0; words[i]; i++) {
		size_t n = strlen(words[i]);
		for (const char *p = name; strlen(p) >= n; p++)
			if (!strncasecmp(p, words[i], n)) {
				if (why)
					*why = words[i];
				return 1;
			}
	}
	return 0;
}

int secret_file_name(const char *path, const char **why)
{
	static const char *const names[] = { ".env*",  "*.pem",        "*.key",   "*.p12",
					     "*.pfx",  "id_*",         "credentials*", "*token*",
					     "*secret*", ".netrc",     ".pgpass", NULL };
	static const char *const dirs[] = { ".ssh", ".aws", ".gnupg", NULL };
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	for (int i = 0; names[i]; i++)
		if (fnmatch(names[i], base, FNM_CASEFOLD | FNM_PERIOD) == 0) {
			if (why)
				*why = names[i];
			return 1;
		}
	/* a file inside a folder of keys, at any depth */
	for (int i = 0; dirs[i]; i++) {
		size_t n = strlen(dirs[i]);
		for (const char *p = path; (p = strstr(p, dirs[i])); p += n)
			if ((p == path || p[-1] == '/') && p[n] == '/') {
				if (why)
					*why = dirs[i];
				return 1;
			}
	}
	return 0;
}

/* The content patterns, each with the kind of secret it finds. A dotenv
 * line counts when an upper-case secret-named variable gets a literal of 8
 * or more characters holding a letter (quoted, or alone to the line's end:
 * SECRET_KEY = os.environ["SECRET_KEY"] is not one). */
static const struct {
	const char *re, *why;
} patterns[] = {
	{ "-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----", "a private key" },
	{ "\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b", "an AWS access key id" },
	{ "(?i)aws_secret_access_key[\"']?[ \\t]*[=:][ \\t\"']*[A-Za-z0-9/+]{40}",
	  "an AWS secret access key" },
	{ "\\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22,})", "a GitHub token" },
	{ "\\bglpat-[A-Za-z0-9_-]{20}", "a GitLab token" },
	{ "\\bhf_[A-Za-z0-9]{30,}", "a Hugging Face token" },
	{ "\\bxox[abposr]-[A-Za-z0-9-]{10,}", "a Slack token" },
	{ "\\bAIza[0-9A-Za-z_-]{35}", "a Google API key" },
	{ "\\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}", "an API key (sk-...)" },
	{ PROSE_SECRET_ASSIGNMENT_PATTERN,
	  "a secret-named variable set to a literal value" },
};

/* The offset of pattern i's first match in data, or -1 (none), -2 (error). */
static long first_match(size_t i, const char *data, size_t len)
{
	int err;
	PCRE2_SIZE eoff;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)patterns[i].re, PCRE2_ZERO_TERMINATED, 0, &err,
				       &eoff, NULL);
	pcre2_match_data *md = re ? pcre2_match_data_create_from_pattern(re, NULL) : NULL;
	long at = -2;
	if (md) {
		int rc = pcre2_match(re, (PCRE2_SPTR)data, len, 0, 0, md, NULL);
		at = rc >= 0 ? (long)pcre2_get_ovector_pointer(md)[0]
		     : rc == PCRE2_ERROR_NOMATCH ? -1 : -2;
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return at;
}

int secret_content(const char *data, size_t len, const char **why, size_t *at)
{
	long best = -1;
	int failed = 0;
	for (size_t i = 0; i < sizeof patterns / sizeof *patterns; i++) {
		long a = first_match(i, data, len);
		failed |= a == -2;
		if (a >= 0 && (best < 0 || a < best)) {
			best = a;
			*why = patterns[i].why;
		}
	}
	if (best >= 0) {
		*at = (size_t)best;
		return 1;
	}
	if (failed) {
		*why = "content that could not be checked";
		*at = 0;
		return -1;
	}
	return 0;
}
