/* SPDX-License-Identifier: MIT */
#include "quote.h"

#include <string.h>

void shell_quote(struct strbuf *out, const char *s)
{
	strbuf_addch(out, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_adds(out, "'\\''");
		else
			strbuf_addch(out, *s);
	}
	strbuf_addch(out, '\'');
}

static int is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The length of the variable name at s ([A-Za-z_][A-Za-z0-9_]*), 0 if none. */
static size_t name_len(const char *s)
{
	size_t n = 0;
	if (s[0] != '_' && !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	while (s[n] == '_' || is_alnum(s[n]))
		n++;
	return n;
}

void shell_quote_vars(struct strbuf *out, const char *s)
{
	strbuf_addch(out, '\'');
	while (*s) {
		int braced = s[0] == '$' && s[1] == '{';
		size_t n = s[0] == '$' ? name_len(s + 1 + braced) : 0;
		if (n && (!braced || s[2 + n] == '}')) {
			strbuf_addf(out, "'\"${%.*s-}\"'", (int)n, s + 1 + braced);
			s += 1 + braced + n + braced;
		} else if (*s == '\'') {
			strbuf_adds(out, "'\\''");
			s++;
		} else {
			strbuf_addch(out, *s++);
		}
	}
	strbuf_addch(out, '\'');
}

int is_safe_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 64 || s[0] == '.' || s[0] == '-')
		return 0;
	for (; *s; s++)
		if (!is_alnum(*s) && !strchr("._-", *s))
			return 0;
	return 1;
}

int is_safe_token(const char *s)
{
	for (; *s; s++)
		if (!is_alnum(*s) && !strchr("_.,:=+@/%-", *s))
			return 0;
	return 1;
}

int is_env_name(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!is_alnum(*s) && *s != '_')
			return 0;
	return 1;
}

/* The length of the bidi control at s (UTF-8), with its code point; 0 if none. */
static int bidi_control(const unsigned char *s, unsigned *cp)
{
	if (s[0] == 0xE2 && s[1] == 0x80 &&
	    ((s[2] >= 0xAA && s[2] <= 0xAE) || s[2] == 0x8E || s[2] == 0x8F)) {
		*cp = 0x2000u + (s[2] & 0x3Fu);
		return 3;
	}
	if (s[0] == 0xE2 && s[1] == 0x81 && s[2] >= 0xA6 && s[2] <= 0xA9) {
		*cp = 0x2040u + (s[2] & 0x3Fu);
		return 3;
	}
	if (s[0] == 0xD8 && s[1] == 0x9C) {
		*cp = 0x061C;
		return 2;
	}
	return 0;
}

void display_quote(struct strbuf *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		unsigned cp;
		int n = bidi_control(p, &cp);
		if (n) {
			strbuf_addf(out, "\\u%04X", cp);
			p += n;
			continue;
		}
		if (*p == '\n')
			strbuf_adds(out, "\\n");
		else if (*p == '\t')
			strbuf_adds(out, "\\t");
		else if (*p == '\r')
			strbuf_adds(out, "\\r");
		else if (*p < 0x20 || *p == 0x7F)
			strbuf_addf(out, "\\x%02X", *p);
		else
			strbuf_addch(out, (char)*p);
		p++;
	}
}

/* The length of the escape sequence at s (s[0] ESC, n bytes there): a CSI
 * (ESC [ ... final byte), an OSC or string (ESC ] ... BEL or ESC \\), else
 * ESC and the byte after it. */
static size_t escape_len(const unsigned char *s, size_t n)
{
	size_t i = 2;
	if (n < 2)
		return n;
	if (s[1] == '[') {
		while (i < n && (s[i] < 0x40 || s[i] > 0x7e))
			i++;
		return i < n ? i + 1 : n;
	}
	if (s[1] == ']' || s[1] == 'P' || s[1] == '_' || s[1] == '^') {
		while (i < n && s[i] != 0x07 && !(s[i] == 0x1b && i + 1 < n && s[i + 1] == '\\'))
			i++;
		return i >= n ? n : s[i] == 0x07 ? i + 1 : i + 2;
	}
	return 2;
}

/* The length of the well-formed UTF-8 character at s (n bytes there), 0 if
 * none (a stray or truncated byte, an overlong or surrogate form). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t k = s[0] < 0x80 ? 1 : s[0] >= 0xC2 && s[0] <= 0xDF ? 2
		 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3 : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;
	if (!k || k > n)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0) ||
	    (s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))
		return 0;
	return k;
}

/* Appends the character at s (k bytes) unless it is a control; a tab as a space. */
static void add_plain(struct strbuf *out, const unsigned char *s, size_t k)
{
	unsigned cp;
	if (k == 1 && *s == '\t')
		strbuf_addch(out, ' ');
	else if (k == 1 && (*s < 0x20 || *s == 0x7f))
		return;
	else if (k == 2 && s[0] == 0xC2 && s[1] < 0xA0) /* C1: U+0080-U+009F */
		return;
	else if (k == 1 || !bidi_control(s, &cp))
		strbuf_add(out, (const char *)s, k);
}

void display_clean(struct strbuf *out, const char *text, size_t n, size_t max)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t start = out->len, cut = start;
	for (size_t i = 0; i < n;) {
		size_t k = s[i] == 0x1b ? escape_len(s + i, n - i) : utf8_len(s + i, n - i);
		if (!k)
			strbuf_addch(out, '?');
		else if (s[i] != 0x1b)
			add_plain(out, s + i, k);
		i += k ? k : 1;
		if (out->len - start <= (max > 3 ? max - 3 : 0))
			cut = out->len; /* the last character end that leaves room for "..." */
	}
	if (out->len - start > max) {
		out->len = cut;
		out->buf[cut] = '\0';
		strbuf_adds(out, "...");
	}
}
