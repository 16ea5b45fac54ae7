#include "jsonio.h"

#include "fsio.h"
#include "strbuf.h"

#include <stdlib.h>

int jsonio_write(const char *path, const json_t *j)
{
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12));
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s\n", text ? text : "null");
	int rc = fsio_write_atomic(path, sb.buf, sb.len, 0644);
	strbuf_free(&sb);
	free(text);
	return rc;
}
