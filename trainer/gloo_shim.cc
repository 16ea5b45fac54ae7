/* SPDX-License-Identifier: MIT */
// gloo_shim: the extern "C" face of gloo for the C trainer (see comm.h).
// Every gloo exception becomes an error string; nothing C++ escapes.
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gloo/allreduce.h>
#include <gloo/allreduce_halving_doubling.h>
#include <gloo/barrier.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

extern "C" {
#include "comm.h"
}

struct cgloo {
	std::shared_ptr<gloo::rendezvous::Context> ctx;
	std::shared_ptr<gloo::transport::Device> dev;
	uint32_t tag = 0;
	// Halving-doubling registers its buffers at construction: one per buffer.
	std::map<std::pair<float *, size_t>, std::unique_ptr<gloo::AllreduceHalvingDoubling<float>>>
		hd;
};

static void set_err(char *err, size_t n, const char *what)
{
	if (err && n)
		std::snprintf(err, n, "%s", what);
}

// Runs f with every exception it throws turned into err (unknown: what one that is not a
// std::exception is said as): 0, or -1 with the reason in err.
template <typename F> static int guarded(char *err, size_t n, const char *unknown, F f)
{
	try {
		f();
		return 0;
	} catch (const std::exception &e) {
		set_err(err, n, e.what());
	} catch (...) {
		set_err(err, n, unknown);
	}
	return -1;
}

extern "C" struct cgloo *cgloo_connect(const char *dir, const char *prefix, int rank, int size,
				       const char *iface, const char *host, int timeout_ms,
				       char *err, size_t errlen)
{
	struct cgloo *out = nullptr;
	guarded(err, errlen, "unknown gloo error during rendezvous", [&] {
		gloo::transport::tcp::attr attr;
		if (iface && *iface)
			attr.iface = iface;
		else if (host && *host)
			attr.hostname = host;
		auto g = std::make_unique<cgloo>();
		g->dev = gloo::transport::tcp::CreateDevice(attr);
		gloo::rendezvous::FileStore file(dir);
		gloo::rendezvous::PrefixStore store(prefix, file);
		g->ctx = std::make_shared<gloo::rendezvous::Context>(rank, size);
		g->ctx->setTimeout(std::chrono::milliseconds(timeout_ms));
		g->ctx->connectFullMesh(store, g->dev);
		out = g.release();
	});
	return out;
}

// Halving-doubling registers its buffers at construction: one instance per buffer, kept.
static void allreduce_hd(struct cgloo *g, float *buf, size_t n)
{
	auto key = std::make_pair(buf, n);
	auto it = g->hd.find(key);
	if (it == g->hd.end()) {
		std::vector<float *> ptrs{buf};
		it = g->hd.emplace(key, std::make_unique<gloo::AllreduceHalvingDoubling<float>>(
						g->ctx, ptrs, static_cast<int>(n)))
			     .first;
	}
	it->second->run();
}

extern "C" int cgloo_allreduce(struct cgloo *g, float *buf, size_t n, int algo, char *err,
			       size_t errlen)
{
	return guarded(err, errlen, "unknown gloo error during allreduce", [&] {
		if (algo == COMM_HALVING_DOUBLING) {
			allreduce_hd(g, buf, n);
			return;
		}
		gloo::AllreduceOptions opts(g->ctx);
		opts.setOutput(buf, n);
		opts.setAlgorithm(algo == COMM_BCUBE ? gloo::AllreduceOptions::Algorithm::BCUBE
						     : gloo::AllreduceOptions::Algorithm::RING);
		opts.setReduceFunction(
			static_cast<void (*)(void *, const void *, const void *, size_t)>(
				&gloo::sum<float>));
		opts.setTag(g->tag++);
		gloo::allreduce(opts);
	});
}

extern "C" int cgloo_finish(struct cgloo *g, char *err, size_t errlen)
{
	return guarded(err, errlen, "unknown gloo error in the closing barrier", [&] {
		gloo::BarrierOptions opts(g->ctx);
		opts.setTag(g->tag++);
		gloo::barrier(opts);
	});
}

extern "C" void cgloo_free(struct cgloo *g)
{
	delete g;
}
