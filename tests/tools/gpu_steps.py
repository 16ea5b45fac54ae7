#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Small Kineto traces with GPU kernels, one file per rank, each showing one
kind of step as the GPU sees it (tests of the GPU verdict, issue 22):

    gpu_steps.py --kind KIND[,KIND...] --out DIR [--ranks N] [--steps S]

(with several kinds, each one's files go to DIR/KIND)

KIND:
  comm      a GEMM of 3 ms, then an NCCL all-reduce of 6 ms on its own stream
            that overlaps nothing: communication-bound
  commwait  as comm on rank 0; every other rank's GEMM takes 5 ms, so its all-reduce
            starts 2 ms later and, ending with rank 0's, takes 4 ms: rank 0 waits
            2 ms of its 6 inside the collective (the transfer: 4 ms, the last rank's)
  data      the host loads data (DataLoader) for 6 ms, then launches 3 ms of
            GEMMs: the GPU idles while the host loads data: data-loader-bound
  host      the host runs many small operators for 7 ms, each launching a
            20 us kernel: the GPU waits for the host: host-bound
  gemm      back-to-back GEMMs for 9.5 ms of a 10 ms step: compute-bound
  annotated gemm, plus the GPU-side ProfilerStep#N annotations
            (gpu_user_annotation) recent PyTorch writes: steps counted once
  copy      host-to-device copies for 7 ms, a 2 ms GEMM: copy-bound
  elementwise  back-to-back elementwise kernels for 9.5 ms: the GPU computes most
            of the step, but bandwidth-bound: memory-bound
  deepqueue the host launches a step every 16 ms, each step 8 ms of GEMM then a
            15 ms all-reduce on the GPU: the queue grows 7 ms a step, the GPU is
            busy throughout (the host ends 35 ms ahead of it): communication-bound,
            step time the GPU's period of 23 ms
  hostgap   the host spends 18 ms of each 30 ms step before launching 6 ms of
            GEMM and a 4 ms all-reduce: the GPU waits for the host: host-bound

Every step is a host ProfilerStep#N range of 10 ms (16 ms for deepqueue, 30 ms
for hostgap); kernels are joined to
their cudaLaunchKernel / cudaMemcpyAsync by correlation id. Deterministic.
"""
import argparse
import json
import os

GEMM = "volta_sgemm_128x64_nn"
NCCL = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclColl)"
COPY = "Memcpy HtoD (Pageable -> Device)"
STEP_US = 10000.0
HOST_US = {"deepqueue": 16000.0, "hostgap": 30000.0}


class Trace:
    def __init__(self, rank, world):
        self.ev, self.corr, self.rank, self.world = [], 0, rank, world
        self.gpu_free = 0.0  # when the GPU is done with what was queued

    def host(self, name, ts, dur, cat="cpu_op", tid=1):
        self.ev.append({"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur})

    def launch(self, ts, kname, kstart, kdur, stream=7, copy=False):
        self.corr += 1
        api = "cudaMemcpyAsync" if copy else "cudaLaunchKernel"
        self.ev.append({"ph": "X", "cat": "cuda_runtime", "name": api, "pid": 1, "tid": 1, "ts": ts, "dur": 5,
                        "args": {"correlation": self.corr}})
        self.ev.append({"ph": "X", "cat": "gpu_memcpy" if copy else "kernel", "name": kname, "pid": 0,
                        "tid": stream, "ts": kstart, "dur": kdur,
                        "args": {"stream": stream, "correlation": self.corr, "device": 0}})

    def write(self, path):
        doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": self.rank,
                                                        "world_size": self.world},
               "traceEvents": self.ev}
        with open(path, "w") as f:
            json.dump(doc, f)


def step(t, kind, n, t0):
    t.host("ProfilerStep#%d" % n, t0, HOST_US.get(kind, STEP_US), cat="user_annotation")
    if kind == "deepqueue":
        start = max(t0 + 50, t.gpu_free)
        t.launch(t0 + 10, GEMM, start, 8000)
        t.host("nccl:all_reduce", t0 + 20, 30, cat="cpu_op")
        t.launch(t0 + 30, NCCL, start + 8000, 15000, stream=21)
        t.gpu_free = start + 23000
    elif kind == "hostgap":
        t.host("python_work", t0 + 10, 17900, cat="python_function")
        t.launch(t0 + 18000, GEMM, t0 + 18100, 6000)
        t.launch(t0 + 18010, NCCL, t0 + 24100, 4000, stream=21)
    elif kind in ("gemm", "annotated"):
        for i in range(19):  # 19 x 500 us back to back
            t.launch(t0 + 10 + i * 20, GEMM, t0 + 50 + i * 500, 500)
        if kind == "annotated":
            t.ev.append({"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#%d" % n, "pid": 0,
                         "tid": 7, "ts": t0 + 50, "dur": 9500, "args": {"External id": n}})
    elif kind == "comm":
        t.launch(t0 + 10, GEMM, t0 + 50, 3000)
        t.host("nccl:all_reduce", t0 + 20, 30, cat="cpu_op")
        t.launch(t0 + 30, NCCL, t0 + 3100, 6000, stream=21)
    elif kind == "commwait":  # the all-reduces end together; the later rank's is shorter
        late = 2000 if t.rank else 0
        t.launch(t0 + 10, GEMM, t0 + 50, 3000 + late)
        t.host("nccl:all_reduce", t0 + 20, 30, cat="cpu_op")
        t.launch(t0 + 30, NCCL, t0 + 3100 + late, 6000 - late, stream=21)
    elif kind == "data":
        t.host("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0 + 10, 6000, cat="user_annotation")
        for i in range(6):
            t.launch(t0 + 6020 + i * 10, GEMM, t0 + 6100 + i * 500, 500)
    elif kind == "host":
        for i in range(350):  # an operator every 20 us, each launching a 4 us kernel
            ts = t0 + 10 + i * 20
            t.host("aten::add", ts, 15)
            t.launch(ts + 5, "void at::native::vectorized_elementwise_kernel<4>", ts + 12, 4)
        t.launch(t0 + 7100, GEMM, t0 + 7200, 2000)
    elif kind == "elementwise":
        for i in range(19):
            t.launch(t0 + 10 + i * 20, "void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float> >",
                     t0 + 50 + i * 500, 500)
    elif kind == "copy":
        for i in range(7):
            t.launch(t0 + 10 + i * 10, COPY, t0 + 50 + i * 1000, 1000, stream=7, copy=True)
        t.launch(t0 + 100, GEMM, t0 + 7100, 2000)


KINDS = ["comm", "commwait", "data", "host", "gemm", "annotated", "copy", "elementwise", "deepqueue", "hostgap"]


def write_kind(kind, out, ranks, steps):
    os.makedirs(out, exist_ok=True)
    for r in range(ranks):
        t = Trace(r, ranks)
        for n in range(steps):
            step(t, kind, n + 1, 1000000.0 + n * HOST_US.get(kind, STEP_US))
        t.write(os.path.join(out, "rank%d.%s.pt.trace.json" % (r, kind)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--kind", required=True, help="one of %s, or several joined by commas" % ", ".join(KINDS))
    p.add_argument("--out", required=True)
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--steps", type=int, default=6)
    a = p.parse_args()
    kinds = a.kind.split(",")
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        p.error("--kind: %s is not one of %s" % (", ".join(bad), ", ".join(KINDS)))
    for k in kinds:
        write_kind(k, os.path.join(a.out, k) if len(kinds) > 1 else a.out, a.ranks, a.steps)


if __name__ == "__main__":
    main()
