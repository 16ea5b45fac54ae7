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
