/* secret: what looks like a secret, by a variable's or a file's name and by
 * content (private-key headers, cloud and service key patterns), so that
 * campaign keeps secrets out of what it writes and publishes. Pure: no I/O;
 * the answers name the kind of secret, never the value.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_SECRET_H
#define CAMPAIGN_SECRET_H

#include <stddef.h>

/* Whether an environment variable's name looks secret: it holds TOKEN,
 * SECRET, PASSWORD, PASSWD, KEY or CREDENTIAL in any case. *why (may be NULL)
 * gets the word found, upper case. */
int secret_name(const char *name, const char **why);

/* Whether a file's name looks secret (its last component, any case): .env*,
 * *.pem, *.key, *.p12, *.pfx, id_*, credentials*, *token*, *secret*, .netrc,
 * .pgpass. *why gets the pattern it matched. */
int secret_file_name(const char *path, const char **why);

/* Whether data holds a secret-looking value: a private-key header, an AWS,
 * GitHub, GitLab, Hugging Face, Slack, Google or OpenAI-style key, or a
 * dotenv line giving a secret-named variable a literal value. Returns 1 with
 * *why (what kind) and *at (its offset) set, 0 when none, -1 when the
 * patterns cannot run (PCRE2 out of memory: the caller takes it as secret). */
int secret_content(const char *data, size_t len, const char **why, size_t *at);

#endif
