/* nccl_inspector.c: the Inspector's format. Objects are found by their braces (outside
 * strings) and parsed one at a time with jansson; the plugin writes each at the start of a
 * line, so an object that a new one interrupts at a line's start was truncated. Fields and
 * their names are those of the plugin's JSON writer (inspector.cc: inspectorCommInfoHeader,
 * inspectorCommInfoMetaHeader, inspectorCompletedColl and its verbose event_trace_ts).
 * SPDX-License-Identifier: MIT */
#include "analyzers/read/nccl_inspector.h"

#include "util/strbuf.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A number of o's key k into *out: 0, or -1 when absent or not a finite number. */
static int num_of(json_t *o, const char *k, double *out)
{
	json_t *v = json_object_get(o, k);
	if (!json_is_number(v) || !isfinite(json_number_value(v)))
		return -1;
	*out = json_number_value(v);
	return 0;
}

/* A string of o's key k into buf (size n): 0, or -1 when absent, empty or too long. */
static int str_of(json_t *o, const char *k, char *buf, size_t n)
{
	const char *s = json_string_value(json_object_get(o, k));
	if (!s || !*s || strlen(s) >= n)
		return -1;
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

static enum insp_timing timing_of(const char *s)
{
	static const char *const names[] = { "kernel_gpu", "kernel_cpu", "collective_cpu" };
	for (int i = 0; s && i < 3; i++)
		if (!strcmp(s, names[i]))
			return (enum insp_timing)i;
	return INSP_TIMING_UNKNOWN;
}

/* Verbose dumps: the last of the channels' kernel_stop_ts (the host clock, µs), else 0. */
static double kernel_stop(json_t *perf)
{
	json_t *ev = json_object_get(json_object_get(perf, "event_trace_ts"), "kernel_events"), *k;
	size_t i;
	double last = 0, ts;
	json_array_foreach(ev, i, k)
		if (num_of(k, "kernel_stop_ts", &ts) == 0 && ts > last)
			last = ts;
	return last;
}

/* header and metadata: the communicator, the rank in it, the process. */
static int parse_who(json_t *h, json_t *m, struct insp_rec *rec)
{
	double rank, n_ranks, pid;
	if (str_of(h, "id", rec->comm_id, sizeof rec->comm_id) < 0 ||
	    num_of(h, "rank", &rank) < 0 || num_of(h, "n_ranks", &n_ranks) < 0 ||
	    n_ranks < 1 || n_ranks > (1 << 20) || n_ranks != floor(n_ranks) || rank < 0 ||
	    rank >= n_ranks || rank != floor(rank))
		return -1;
	rec->rank = (int)rank;
	rec->n_ranks = (int)n_ranks;
	if (str_of(m, "hostname", rec->host, sizeof rec->host) < 0)
		rec->host[0] = '\0';
	rec->pid = num_of(m, "pid", &pid) == 0 && pid >= 0 && pid < 1e15 ? (long)pid : -1;
	if (num_of(m, "dump_timestamp_us", &rec->dump_us) < 0 || rec->dump_us < 0)
		rec->dump_us = -1;
	return 0;
}

/* coll_perf: the collective, its size, time and the file's bandwidths. */
static int parse_perf(json_t *p, struct insp_rec *rec)
{
	json_t *sn = json_object_get(p, "coll_sn");
	if (str_of(p, "coll", rec->coll, sizeof rec->coll) < 0 || !json_is_integer(sn) ||
	    json_integer_value(sn) < 0 || num_of(p, "coll_msg_size_bytes", &rec->msg_bytes) < 0 ||
	    rec->msg_bytes < 0 || num_of(p, "coll_exec_time_us", &rec->exec_us) < 0 ||
	    rec->exec_us < 0)
		return -1;
	rec->sn = (unsigned long long)json_integer_value(sn);
	if (num_of(p, "coll_algobw_gbs", &rec->algbw) < 0 || rec->algbw < 0)
		rec->algbw = -1;
	if (num_of(p, "coll_busbw_gbs", &rec->busbw) < 0 || rec->busbw < 0)
		rec->busbw = -1;
	rec->timing = timing_of(json_string_value(json_object_get(p, "coll_timing_source")));
	rec->kernel_stop_us = kernel_stop(p);
	return 0;
}

int insp_parse_record(const char *buf, size_t len, struct insp_rec *rec)
{
	json_error_t e;
	json_t *j = json_loadb(buf, len, 0, &e);
	memset(rec, 0, sizeof *rec);
	int rc = json_is_object(j) &&
			parse_who(json_object_get(j, "header"), json_object_get(j, "metadata"),
				  rec) == 0 &&
			parse_perf(json_object_get(j, "coll_perf"), rec) == 0
		? 0
		: -1;
	json_decref(j);
	return rc;
}

/* The scanner's state inside one object. */
struct scan {
	int depth, in_str, esc, bad;
};

/* One character c of an open object into obj; 1 when it closed the object. */
static int scan_char(struct scan *s, int c, struct strbuf *obj)
{
	if (obj->len < INSP_MAX_OBJECT)
		strbuf_addch(obj, (char)c);
	else
		s->bad = 1;
	if (s->in_str) {
		if (s->esc)
			s->esc = 0;
		else if (c == '\\')
			s->esc = 1;
		else if (c == '"')
			s->in_str = 0;
		else if (c == '\n') /* no JSON string holds a newline: the object was cut */
			s->in_str = 0, s->bad = 1;
		return 0;
	}
	if (c == '"')
		s->in_str = 1;
	else if (c == '{')
		s->depth++;
	else if (c == '}')
		return --s->depth == 0;
	return 0;
}

static void scan_open(struct scan *s, struct strbuf *obj)
{
	memset(s, 0, sizeof *s);
	s->depth = 1;
	strbuf_reset(obj);
	strbuf_addch(obj, '{');
}

/* The next whole object of f into obj: 1, or 0 at the end. Between objects whitespace,
 * commas and brackets are passed over (a list of records reads as well); anything else is
 * one malformed run until the next object. */
static int next_object(FILE *f, int *line_start, struct strbuf *obj, size_t *malformed)
{
	struct scan s = { 0 };
	int c, junk = 0;
	while ((c = getc_unlocked(f)) != EOF) {
		int at0 = *line_start;
		*line_start = c == '\n';
		if (s.depth == 0 || (at0 && c == '{')) {
			if (c == '{') {
				*malformed += s.depth > 0; /* a new object cut the open one short */
				scan_open(&s, obj);
				junk = 0;
			} else if (!isspace(c) && !strchr(",[]", c) && !junk) {
				junk = 1;
				(*malformed)++;
			}
			continue;
		}
		if (scan_char(&s, c, obj)) {
			if (!s.bad)
				return 1;
			(*malformed)++;
		}
	}
	*malformed += s.depth > 0; /* truncated at the end */
	return 0;
}

int insp_next_record(FILE *f, int *line_start, struct insp_rec *rec, size_t *malformed)
{
	struct strbuf obj = STRBUF_INIT;
	int got = 0;
	while (!got && next_object(f, line_start, &obj, malformed)) {
		got = insp_parse_record(obj.buf, obj.len, rec) == 0;
		*malformed += !got;
	}
	strbuf_free(&obj);
	return got;
}

int insp_is_dump(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[64];
	int c, got = 0;
	if (!f)
		return 0;
	while ((c = getc(f)) != EOF && (isspace(c) || c == '['))
		;
	if (c == '{') {
		while ((c = getc(f)) != EOF && isspace(c))
			;
		buf[0] = (char)c;
		got = fgets(buf + 1, 9, f) && !strncmp(buf, "\"header\"", 8);
	}
	fclose(f);
	return got;
}
