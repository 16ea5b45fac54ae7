/* SPDX-License-Identifier: MIT */
// kineto_simd: see kineto_simd.h. Errors are simdjson error codes turned
// into a byte offset and a message; no exceptions cross into C.
#include "kineto_simd.h"

#include <simdjson.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

using namespace simdjson;

static_assert(KINETO_SIMD_PADDING >= SIMDJSON_PADDING, "the C side pads less than simdjson reads");

namespace {

// A field's key, read in place (stage 1 has checked that the string ends);
// one with an escape is unescaped first, as the streaming reader would.
static error_code key_id(ondemand::field &fl, kineto_key *id)
{
	const char *r = fl.key().raw();
	size_t n = 0;
	while (r[n] != '"' && r[n] != '\\')
		n++;
	if (r[n] == '"') {
		*id = kineto_key_of(r, n);
		return SUCCESS;
	}
	std::string_view k;
	error_code e = fl.unescaped_key().get(k);
	*id = e ? KK_OTHER : kineto_key_of(k.data(), k.size());
	return e;
}

// fn(key, type, value) for every field of o, in order; the first error ends it, and so does
// *stop set (the rest of o is then skipped by the next value read).
template <class Fn> static error_code each_field(ondemand::object o, Fn fn, bool *stop = nullptr)
{
	for (auto field : o) {
		kineto_key k;
		ondemand::json_type t;
		error_code e;
		if ((e = field.error()))
			return e;
		ondemand::field &fl = field.value_unsafe();
		if ((e = key_id(fl, &k)) || (e = fl.value().type().get(t)) ||
		    (e = fn(k, t, fl.value())))
			return e;
		if (stop && *stop)
			break;
	}
	return SUCCESS;
}

struct walker {
	const char *base;
	kineto_simd_sink *sink;
	// The event's strings: get_string() unescapes each into its own place of
	// the parser's buffer, valid while the document is; a number's tid is its text.
	std::string_view name, cat, tid, ph, coll, pg, dtype;

	// A number as strtod reads its text (what the streaming reader does):
	// simdjson's value, or for one it will not give (1e400) strtod's.
	static error_code number(ondemand::value v, double *out)
	{
		if (v.get_double().get(*out) == SUCCESS)
			return SUCCESS;
		std::string_view raw = v.raw_json_token();
		std::string s(raw);
		char *end;
		*out = strtod(s.c_str(), &end);
		return end == s.c_str() ? NUMBER_ERROR : SUCCESS;
	}

	static error_code string(ondemand::value v, std::string_view *out)
	{
		return v.get_string().get(*out);
	}

	// A collective's string args (name, process group, dtype); a process
	// group given as a number is its text.
	error_code coll_arg(kineto_key k, ondemand::json_type t, ondemand::value v)
	{
		std::string_view *dst = k == KK_COLL ? &coll
			: k == KK_PG                 ? &pg
			: k == KK_DTYPE              ? &dtype
						     : nullptr;
		if (!dst)
			return SUCCESS;
		if (t == ondemand::json_type::string)
			return string(v, dst);
		if (t == ondemand::json_type::number && k == KK_PG) {
			std::string_view raw = v.raw_json_token();
			while (!raw.empty() && strchr(" \t\r\n", raw.back()))
				raw.remove_suffix(1);
			*dst = raw;
		}
		return SUCCESS;
	}

	error_code args(ondemand::object o, kineto_fields *f)
	{
		return each_field(
			o, [this, f](kineto_key k, ondemand::json_type t, ondemand::value v) {
				double *dst = k == KK_STREAM ? &f->stream
					: k == KK_CORR       ? &f->corr
					: k == KK_FLOPS      ? &f->flops
					: k == KK_GRAD_BYTES ? &f->grad_bytes
					: k == KK_STEP_ARG   ? &f->step_arg
					: k == KK_IN_NELEMS  ? &f->in_nelems
					: k == KK_OUT_NELEMS ? &f->out_nelems
					: k == KK_GROUP_SIZE ? &f->group_size
							     : nullptr;
				int ignored = 0;
				int *has = k == KK_STREAM ? &f->has_stream
					: k == KK_CORR    ? &f->has_corr
					: k == KK_FLOPS   ? &f->has_flops
					: k == KK_GRAD_BYTES ? &f->has_grad_bytes
					: k == KK_STEP_ARG   ? &f->has_step_arg
							  : &ignored;
				if (k == KK_COLL || k == KK_PG || k == KK_DTYPE)
					return coll_arg(k, t, v);
				if (t != ondemand::json_type::number || !dst)
					return SUCCESS;
				*has = 1;
				return number(v, dst);
			});
	}

	/* Which of the event's strings it had. */
	struct seen {
		int name, cat, tid, ph;
	};

	/* One field of an event object: a number or args into f, a string into the members
	 * (s says which it had); a time that is no number makes the event malformed. */
	error_code field(kineto_key k, ondemand::json_type t, ondemand::value v, kineto_fields *f,
			 seen *s)
	{
		error_code err = SUCCESS;
		if (t == ondemand::json_type::string) {
			std::string_view *dst = k == KK_NAME ? &name
				: k == KK_CAT                ? &cat
				: k == KK_TID                ? &tid
				: k == KK_PH                 ? &ph
							     : nullptr;
			int *has = k == KK_NAME ? &s->name
				: k == KK_CAT   ? &s->cat
				: k == KK_TID   ? &s->tid
						: &s->ph;
			if (dst && (err = string(v, dst)) == SUCCESS)
				*has = 1;
			if (k == KK_TS || k == KK_DUR)
				f->bad_time = 1;
		} else if (t == ondemand::json_type::number) {
			if (k == KK_TS && (err = number(v, &f->ts)) == SUCCESS)
				f->has_ts = 1;
			else if (k == KK_DUR && (err = number(v, &f->dur)) == SUCCESS)
				f->has_dur = 1;
			else if (k == KK_TID) {
				std::string_view raw = v.raw_json_token();
				while (!raw.empty() && strchr(" \t\r\n", raw.back()))
					raw.remove_suffix(1);
				tid = raw;
				s->tid = 1;
			}
		} else if (t == ondemand::json_type::object && k == KK_ARGS) {
			ondemand::object a;
			if ((err = v.get_object().get(a)) == SUCCESS)
				err = args(a, f);
		} else if (k == KK_TS || k == KK_DUR) {
			/* null, true, an object or a list: malformed, as in the yajl reader */
			f->bad_time = 1;
		}
		return err;
	}

	/* The event's strings pointed at from f, and f handed to the sink. */
	void publish(kineto_fields *f, const seen &s)
	{
		if (s.name)
			f->name = name.data(), f->name_len = name.size();
		if (s.cat)
			f->cat = cat.data(), f->cat_len = cat.size();
		if (s.tid)
			f->tid = tid.data(), f->tid_len = tid.size();
		if (s.ph)
			f->ph = ph.data(), f->ph_len = ph.size();
		if (coll.data())
			f->coll = coll.data(), f->coll_len = coll.size();
		if (pg.data())
			f->pg = pg.data(), f->pg_len = pg.size();
		if (dtype.data())
			f->dtype = dtype.data(), f->dtype_len = dtype.size();
		sink->event(sink->ctx, f);
	}

	error_code event(ondemand::object o)
	{
		kineto_fields f{};
		f.in_nelems = f.out_nelems = f.group_size = -1;
		coll = pg = dtype = std::string_view();
		seen s{};
		bool flow = false;
		error_code e = each_field(
			o,
			[&](kineto_key k, ondemand::json_type t, ondemand::value v) {
				error_code err = field(k, t, v, &f, &s);
				flow = k == KK_PH && s.ph && !ph.empty() &&
				       kineto_ph_is_flow(ph[0]);
				return err;
			},
			&flow);
		if (e)
			return e;
		if (!flow)
			publish(&f, s);
		return SUCCESS;
	}

	error_code events(ondemand::array a)
	{
		for (auto item : a) {
			ondemand::json_type t;
			error_code e;
			if ((e = item.error()))
				return e;
			ondemand::value &v = item.value_unsafe();
			if ((e = v.type().get(t)))
				return e;
			if (t == ondemand::json_type::object) {
				ondemand::object o;
				if ((e = v.get_object().get(o)) || (e = event(o)))
					return e;
			}
		}
		return SUCCESS;
	}

	error_code dist(ondemand::object o)
	{
		return each_field(o,
				  [this](kineto_key k, ondemand::json_type t, ondemand::value v) {
					  double r;
					  if (k != KK_RANK || t != ondemand::json_type::number)
						  return SUCCESS;
					  error_code e = number(v, &r);
					  if (!e)
						  sink->root(sink->ctx, KK_RANK, r);
					  return e;
				  });
	}

	error_code root(ondemand::document &doc)
	{
		ondemand::json_type t;
		error_code e = doc.type().get(t);
		if (e)
			return e;
		if (t == ondemand::json_type::array) {
			sink->legacy = 1;
			ondemand::array a;
			return (e = doc.get_array().get(a)) ? e : events(a);
		}
		// a scalar document: the streaming reader keeps nothing from it either
		if (t != ondemand::json_type::object)
			return doc.get_object().error();
		ondemand::object o;
		if ((e = doc.get_object().get(o)))
			return e;
		return each_field(
			o, [this](kineto_key k, ondemand::json_type t, ondemand::value v) {
				error_code err = SUCCESS;
				if (k == KK_EVENTS && t == ondemand::json_type::array) {
					ondemand::array a;
					if ((err = v.get_array().get(a)) == SUCCESS)
						err = events(a);
				} else if (k == KK_DIST && t == ondemand::json_type::object) {
					ondemand::object d;
					if ((err = v.get_object().get(d)) == SUCCESS)
						err = dist(d);
				} else if (k == KK_BASE_TIME && t == ondemand::json_type::number) {
					double x;
					if ((err = number(v, &x)) == SUCCESS)
						sink->root(sink->ctx, KK_BASE_TIME, x);
				}
				return err;
			});
	}
};

} // namespace

// One parser per thread, kept from file to file: its index is then already
// in memory (a fresh one costs the kernel a third of the time zeroing pages).
// One grown past this is dropped after use, so that a worker keeps at most
// this much between files.
static const size_t KEEP_CAPACITY = 256u << 20;

namespace {
struct kept_buffer {
	char *p = nullptr;
	size_t cap = 0;
	~kept_buffer() { std::free(p); }
};
} // namespace

extern "C" char *kineto_simd_buffer(size_t n)
{
	static thread_local kept_buffer b;
	if (n > KEEP_CAPACITY)
		return nullptr;
	if (b.cap < n) {
		std::free(b.p);
		b.cap = n < (1u << 20) ? 1u << 20 : n;
		b.p = static_cast<char *>(std::malloc(b.cap + KINETO_SIMD_PADDING));
		if (!b.p)
			b.cap = 0;
	}
	return b.p;
}

// One document through a given parser: 0, or -1 with where and why.
static int parse_with(ondemand::parser &parser, const char *buf, size_t len,
		      kineto_simd_sink *sink, size_t *where, const char **why)
{
	ondemand::document doc;
	walker w{ buf, sink, {}, {}, {}, {}, {}, {}, {} };
	error_code e =
		parser.iterate(padded_string_view(buf, len, len + SIMDJSON_PADDING)).get(doc);
	if (e) { // stage 1 refused it (bad UTF-8, unclosed string, empty): no document to ask where
		*where = (size_t)-1;
		*why = error_message(e);
		return -1;
	}
	e = w.root(doc);
	const char *at = nullptr;
	error_code end =
		e ? e : doc.current_location().get(at); // OUT_OF_BOUNDS: nothing after the document
	if (!e && end == SUCCESS)
		e = TRAILING_CONTENT;
	if (!e)
		return 0;
	*where = doc.current_location().get(at) == SUCCESS && at >= buf ? (size_t) (at - buf)
									: (size_t) -1;
	*why = error_message(e);
	return -1;
}

extern "C" int kineto_simd_parse(const char *buf, size_t len, kineto_simd_sink *sink, size_t *where,
				 const char **why)
{
	static thread_local ondemand::parser kept;
	ondemand::parser fresh;
	return parse_with(len <= KEEP_CAPACITY ? kept : fresh, buf, len, sink, where, why);
}

struct kineto_simd_parser {
	ondemand::parser p;
};

extern "C" struct kineto_simd_parser *kineto_simd_parser_new(size_t capacity)
{
	kineto_simd_parser *p = new (std::nothrow) kineto_simd_parser();
	if (p && capacity && p->p.allocate(capacity) != SUCCESS) { // the first document retries
		delete p;
		p = new (std::nothrow) kineto_simd_parser();
	}
	return p;
}

extern "C" void kineto_simd_parser_free(struct kineto_simd_parser *p)
{
	delete p;
}

extern "C" int kineto_simd_parse_with(struct kineto_simd_parser *p, const char *buf, size_t len,
				      kineto_simd_sink *sink, size_t *where, const char **why)
{
	return parse_with(p->p, buf, len, sink, where, why);
}
