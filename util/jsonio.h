/* jsonio: writing JSON documents as campaign writes every one: keys sorted,
 * two-space indent, reals to 12 significant digits, a final newline, and
 * atomically (fsio). Same document, same bytes. And reading values of the
 * documents campaign wrote by a dotted path ("step_time_ms.median").
 * SPDX-License-Identifier: MIT */
#ifndef CAMPAIGN_JSONIO_H
#define CAMPAIGN_JSONIO_H

#include <jansson.h>

int jsonio_write(const char *path, const json_t *j);
/* The same with the file's mode (see fsio_write_atomic). */
int jsonio_write_mode(const char *path, const json_t *j, int mode);
/* The same with reals to 17 significant digits: read back, each is the same double. */
int jsonio_write_exact(const char *path, const json_t *j, int mode);
/* v rounded to 3 decimals, as every number of summary.json; null when not finite. */
json_t *jsonio_real3(double v);
/* v to 0.001, as jsonio_real3 keeps it (a non-finite v as it is): a figure printed from
 * it is the one a reader of the JSON finds. */
double jsonio_round3(double v);
/* The value at a dotted path of object keys (a number indexes an array:
 * collectives.0.busbw_gbps), or NULL. */
json_t *jsonio_at(json_t *o, const char *path);
/* The first object of array whose string at key is value ("name" of a summary's scenarios),
 * or NULL. */
json_t *jsonio_named(json_t *array, const char *key, const char *value);
/* Its number (0 when absent or not a number) / its string ("" likewise). */
double jsonio_num(json_t *o, const char *path);
const char *jsonio_str(json_t *o, const char *path);

#endif
