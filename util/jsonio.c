/* SPDX-License-Identifier: MIT */
#include "jsonio.h"

#include "fsio.h"
#include "strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int jsonio_write(const char *path, const json_t *j)
{
	return jsonio_write_mode(path, j, 0644);
}

static int write_digits(const char *path, const json_t *j, int mode, int digits)
{
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(digits));
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s\n", text ? text : "null");
	int rc = fsio_write_atomic(path, sb.buf, sb.len, mode);
	strbuf_free(&sb);
	free(text);
	return rc;
}

int jsonio_write_mode(const char *path, const json_t *j, int mode)
{
	return write_digits(path, j, mode, 12);
}

int jsonio_write_exact(const char *path, const json_t *j, int mode)
{
	return write_digits(path, j, mode, 17);
}

double jsonio_round3(double v)
{
	return isfinite(v) ? round(v * 1000.0) / 1000.0 : v;
}

json_t *jsonio_real3(double v)
{
	return isfinite(v) ? json_real(jsonio_round3(v)) : json_null();
}

json_t *jsonio_at(json_t *o, const char *path)
{
	char buf[128];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *save = NULL, *t = strtok_r(buf, ".", &save); t && o;
	     t = strtok_r(NULL, ".", &save))
		o = json_is_array(o) && t[strspn(t, "0123456789")] == '\0'
			? json_array_get(o, strtoul(t, NULL, 10))
			: json_object_get(o, t);
	return o;
}

json_t *jsonio_named(json_t *array, const char *key, const char *value)
{
	size_t i;
	json_t *e;
	json_array_foreach(array, i, e)
		if (!strcmp(jsonio_str(e, key), value))
			return e;
	return NULL;
}

double jsonio_num(json_t *o, const char *path)
{
	return json_number_value(jsonio_at(o, path));
}

const char *jsonio_str(json_t *o, const char *path)
{
	const char *s = json_string_value(jsonio_at(o, path));
	return s ? s : "";
}
