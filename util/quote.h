/* quote: making values safe for the places they are written into.
 * shell_quote makes any byte string one inert shell word; the predicates say
 * which values may go unquoted (into #SBATCH lines) or into paths.
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_QUOTE_H
#define CAMPAIGN_QUOTE_H

#include "strbuf.h"

/* Appends s as a single-quoted POSIX shell word ('' for the empty string). */
void shell_quote(struct strbuf *out, const char *s);
/* The same, except that $NAME and ${NAME} (NAME an environment variable
 * name) expand, when the shell runs it, to that variable's value ("" when
 * unset): '/opt/venv/bin:'"${PATH-}". Nothing else is interpreted: $(...),
 * backquotes and $$ stay literal. */
void shell_quote_vars(struct strbuf *out, const char *s);
/* Letters, digits and . _ - only, not starting with . or -, at most 64 bytes. */
int is_safe_name(const char *s);
/* Characters sbatch options may hold without quoting: [A-Za-z0-9_.,:=+@/%-]. */
int is_safe_token(const char *s);
/* Appends s for a terminal or a log line: control bytes as \n, \t, \r or
 * \xNN, and the Unicode controls that reorder or hide text (bidi embeddings
 * and overrides U+202A-E, isolates U+2066-9, marks U+200E/F, U+061C) as
 * \uXXXX; everything else as it is. */
void display_quote(struct strbuf *out, const char *s);
/* Appends the n bytes of text as plain text for a table, a report or a
 * JSON string: what a terminal would act on is removed (escape sequences
 * whole, control bytes, C1 controls, the bidi controls above), a tab becomes
 * a space and a byte that is not UTF-8 a '?'; when that is longer than max
 * bytes, it is cut at a character's end and "..." ends it (max in all). */
void display_clean(struct strbuf *out, const char *text, size_t n, size_t max);
/* An environment variable name: [A-Za-z_][A-Za-z0-9_]*. */
int is_env_name(const char *s);

#endif
