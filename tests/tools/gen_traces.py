#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Synthetic PyTorch-profiler (Kineto) traces, one file per rank, for scale
tests and benches that must not depend on large committed files.

    gen_traces.py --ranks N --mb SIZE --out DIR [--first-rank K] [--world W]
                  [--seed S] [--gzip] [--legacy]

Each rank's file has about SIZE MB of a realistic event mix per training
step: a ProfilerStep#N range; on the main thread the DataLoader, a
DistributedDataParallel.forward with aten operators inside (some with flops
args), Optimizer.zero_grad / Optimizer.step; on the autograd thread the
backward functions; c10d/record_param_comms ranges; cudaLaunchKernel and
cudaMemcpyAsync runtime calls joined by correlation id to GPU kernels
(GEMMs, elementwise, NCCL all-reduce on its own stream) and memcpys, the
GPU lagging the CPU a little. Ranks differ slightly (a seeded jitter) so
that the slowest rank per step is not always the same. Output is
deterministic for a given seed. --legacy writes the array form without
Kineto's metadata (CPU ranges only), --gzip writes .json.gz.
"""
import argparse
import gzip
import json
import os
import random

GEMM = "volta_sgemm_128x64_nn"
ELEM = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float> >(int, at::native::AddFunctor<float>)"
NCCL = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclColl)"


class Writer:
    def __init__(self, f, legacy):
        self.f, self.first, self.legacy, self.corr = f, True, legacy, 0

    def ev(self, e):
        self.f.write(("" if self.first else ",\n") + json.dumps(e, separators=(",", ":")))
        self.first = False

    def x(self, name, ts, dur, tid, cat="cpu_op", args=None):
        e = {"ph": "X", "name": name, "ts": round(ts, 3), "dur": round(dur, 3), "pid": 1000, "tid": tid}
        if not self.legacy:
            e["cat"] = cat
        if args:
            e["args"] = args
        self.ev(e)

    def launch(self, ts, name, gpu_ts, gpu_dur, stream=7, cat="kernel", call="cudaLaunchKernel"):
        if self.legacy:
            return
        self.corr += 1
        gpu_ts = max(gpu_ts, ts + 5)  # the GPU starts after the call returns
        self.x(call, ts, 4.0, 11, "cuda_runtime", {"correlation": self.corr})
        self.ev({"ph": "X", "cat": cat, "name": name, "ts": round(gpu_ts, 3), "dur": round(gpu_dur, 3), "pid": 0,
                 "tid": stream, "args": {"stream": stream, "correlation": self.corr, "device": 0}})


def step(w, rnd, n, t, jitter):
    """One training step from t (µs); returns its end."""
    j = lambda d: d * (1 + jitter * rnd.random())
    start, gpu = t, t + 30
    t += 2
    d = j(800)
    w.x("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t, d, 11, "user_annotation")
    w.launch(t + d - 20, "Memcpy HtoD (Pageable -> Device)", gpu, 40, cat="gpu_memcpy", call="cudaMemcpyAsync")
    gpu += 60
    t += d + 5
    d = j(300)
    w.x("Optimizer.zero_grad#SGD.zero_grad", t, d, 11, "user_annotation")
    t += d + 5
    fwd = t
    for layer in range(6):
        d = j(120)
        w.x("aten::linear", t, d, 11)
        w.x("aten::addmm", t + 5, d - 10, 11, args={"flops": 2 * 64 * 1024 * 1024})
        w.launch(t + 10, GEMM, max(gpu, t + 40), j(90))
        gpu = max(gpu, t + 40) + 95
        w.x("aten::relu", t + d + 2, 20, 11)
        w.launch(t + d + 5, ELEM, gpu, 15)
        gpu += 20
        t += d + 25
    fwd_len = t - fwd
    w.x("DistributedDataParallel.forward", fwd, fwd_len, 11, "user_annotation")
    t += 5
    for layer in range(6):
        d = j(220)
        w.x("autograd::engine::evaluate_function: AddmmBackward0", t, d, 12)
        w.x("AddmmBackward0", t + 2, d - 4, 12)
        w.x("aten::mm", t + 5, d / 2 - 5, 12)
        w.launch(t + 10, GEMM, max(gpu, t + 40), j(180), stream=7)
        gpu = max(gpu, t + 40) + 185
        if layer % 2 == 1:
            w.x("record_param_comms", t + d, 30, 12)
            w.x("c10d::allreduce_", t + d + 2, 25, 12)
            w.launch(t + d + 5, NCCL, max(gpu, t + d + 30), j(400), stream=20)
        t += d + 10
    d = j(350)
    w.x("Optimizer.step#SGD.step", t, d, 11, "user_annotation")
    for k in range(8):
        w.x("aten::add_", t + 5 + k * 40, 30, 11)
        w.launch(t + 8 + k * 40, ELEM, max(gpu, t + 50 + k * 40), 12)
    t += d + 10
    w.x("ProfilerStep#%d" % n, start, t - start, 11, "user_annotation")
    return t + 5


def approx_step_bytes(legacy):
    return 9000 if legacy else 16000


def write_rank(path, rank, ranks, mb, seed, legacy, gz):
    rnd = random.Random(seed * 100003 + rank)
    steps = max(2, int(mb * 1e6 / approx_step_bytes(legacy)))
    opener = gzip.open if gz else open
    with opener(path, "wt") as f:
        w = Writer(f, legacy)
        if legacy:
            f.write("[\n")
        else:
            f.write('{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d},'
                    ' "traceName": "synthetic", "traceEvents": [\n' % (rank, ranks))
        t = 1.7e15 if not legacy else 100.0
        for n in range(1, steps + 1):
            t = step(w, rnd, n, t, 0.1 + 0.05 * (rank % 3))
        f.write("\n]\n" if legacy else "\n]}\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ranks", type=int, default=8)
    p.add_argument("--mb", type=float, default=1.0, help="size of each rank's file, in MB (about)")
    p.add_argument("--out", required=True)
    p.add_argument("--first-rank", type=int, default=0, help="ranks K..K+N-1 (write a set in parts)")
    p.add_argument("--world", type=int, default=0, help="world size in the metadata (default: K+N)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--gzip", action="store_true")
    p.add_argument("--legacy", action="store_true")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    world = a.world or a.first_rank + a.ranks
    for r in range(a.first_rank, a.first_rank + a.ranks):
        name = "rank%d.pt.trace.json%s" % (r, ".gz" if a.gzip else "")
        write_rank(os.path.join(a.out, name), r, world, a.mb, a.seed, a.legacy, a.gzip)


if __name__ == "__main__":
    main()
