/* SPDX-License-Identifier: MIT */
// simdjson_floor: the least a simdjson reader of a Kineto trace can cost,
// for `make bench`: the whole file loaded into a padded string, then one
// On-Demand walk over every event (each field's key looked at, ts read as a
// number, every other value skipped), on one thread. Prints the events and
// the sum of their ts (so that nothing is optimised away); time and peak
// RSS are the caller's to measure (/usr/bin/time).
// usage: simdjson_floor FILE
#include <simdjson.h>

#include <cstdio>
#include <cstring>

using namespace simdjson;

static error_code walk_events(ondemand::array events, long *n, double *sum)
{
	for (auto item : events) {
		ondemand::object o;
		error_code e = item.get_object().get(o);
		if (e == INCORRECT_TYPE)
			continue;
		if (e)
			return e;
		for (auto field : o) {
			std::string_view key;
			if ((e = field.unescaped_key().get(key)))
				return e;
			double ts;
			if (key == "ts" && field.value().get_double().get(ts) == SUCCESS)
				*sum += ts;
		}
		++*n;
	}
	return SUCCESS;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: simdjson_floor FILE\n");
		return 2;
	}
	padded_string json;
	error_code e = padded_string::load(argv[1]).get(json);
	ondemand::parser parser;
	ondemand::document doc;
	long n = 0;
	double sum = 0;
	if (!e)
		e = parser.iterate(json).get(doc);
	ondemand::array events;
	if (!e && doc.type().value_unsafe() == ondemand::json_type::array)
		e = doc.get_array().get(events);
	else if (!e)
		e = doc["traceEvents"].get_array().get(events);
	if (!e)
		e = walk_events(events, &n, &sum);
	if (e) {
		fprintf(stderr, "simdjson_floor: %s: %s\n", argv[1], error_message(e));
		return 1;
	}
	printf("%ld %.0f\n", n, sum);
	return 0;
}
