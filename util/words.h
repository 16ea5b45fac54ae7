/* words: splitting a command string into argv words the way a shell would
 * tokenise it (quotes and backslashes) but with no expansion of any kind:
 * `$(x)`, `;`, `|`, `*` and `~` stay literal characters of a word.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_WORDS_H
#define CAMPAIGN_WORDS_H

#include <stddef.h>

struct argv {
	char **v;
	/* per word: 1 when the word was quoted ('…', "…", \) or is one value to keep as
	 * one word (render.c: a {{param}} that is all of it does not split) */
	unsigned char *quoted;
	size_t n;
};

/* Returns 0, or -1 with *why set to a static message (unterminated quote). */
int words_split(const char *s, struct argv *out, const char **why);
void argv_push(struct argv *a, const char *s);
void argv_push_quoted(struct argv *a, const char *s, int quoted);
void argv_free(struct argv *a);
/* Whether s is one of a's words. */
int argv_has(const struct argv *a, const char *s);
void argv_copy(struct argv *dst, const struct argv *src);

#endif
