/* jsonio: writing JSON documents as campaign writes every one: keys sorted,
 * two-space indent, reals to 12 significant digits, a final newline, and
 * atomically (fsio). Same document, same bytes. */
#ifndef CAMPAIGN_JSONIO_H
#define CAMPAIGN_JSONIO_H

#include <jansson.h>

int jsonio_write(const char *path, const json_t *j);

#endif
