#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CPU-only Kineto traces (gloo), one file per rank, 8 ProfilerStep#N of 85 ms:

    cpu_steps.py --out DIR [--ranks 4] [--slow-rank 3] [--extra-ms 60] [--slow-cause data]
    cpu_steps.py --legacy --out DIR [--ranks 2]

--legacy writes what torch.autograd.profiler's export_chrome_trace writes (the
array form, no ProfilerStep, no distributedInfo; DLRM's --enable-profiling):
8 iterations of 50 ms, each a DataLoader range of 10 ms, a top-level aten::mm
of 15 ms (no module ranges), MmBackward0 15 ms, gloo:all_reduce 6 ms, an
optimizer step of 3 ms and 1 ms under no range. Over the whole window (399 ms:
the first range's start to the last's end) data loading is 80 ms, compute 264,
communication 48, other 7.

Every rank runs a forward range of 5 ms, a backward range of 10 ms, a
gloo:all_reduce that ends at the same instant on every rank, and an
optimizer step of 3 ms. The slow rank first runs top-level operators under
no phase range (aten::mm then aten::tanh, --extra-ms in all: a metric, an
augmentation, an EMA update): it arrives last at every all-reduce and the
others wait --extra-ms for it. That time is compute, not host overhead.
--slow-cause data: the slow rank's extra time is a DataLoader range instead
(its loader, slower than the others'). Deterministic.
"""
import argparse
import json
import os

STEP_MS = 85.0


def rank_trace(rank, world, slow, extra_ms, cause="compute"):
    ev = []

    def x(name, ts_ms, dur_ms, cat="cpu_op"):
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1,
                   "ts": round(ts_ms * 1000, 3), "dur": round(dur_ms * 1000, 3)})

    for n in range(8):
        t0 = 1000.0 + n * STEP_MS
        x("ProfilerStep#%d" % (n + 1), t0, STEP_MS, cat="user_annotation")
        at = t0 + 1
        if rank == slow and cause == "data":
            x("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", at, extra_ms)
            at += extra_ms
        elif rank == slow:
            x("aten::mm", at, extra_ms * 0.6)
            x("aten::tanh", at + extra_ms * 0.6, extra_ms * 0.4)
            at += extra_ms
        x("nn.Module: Net", at, 5)
        x("aten::linear", at + 0.5, 4)  # under forward: forward, not a second compute
        x("autograd::engine::evaluate_function: MmBackward0", at + 5, 10)
        end = t0 + 1 + extra_ms + 15 + 5  # every rank's all-reduce ends here
        x("gloo:all_reduce", at + 15, end - (at + 15))
        x("Optimizer.step#SGD.step", end, 3)
    return {"schemaVersion": 1, "distributedInfo": {"backend": "gloo", "rank": rank, "world_size": world},
            "traceEvents": ev}


def legacy_trace(rank):
    ev = []
    for n in range(8):
        t0 = n * 50.0
        for name, a, b in (("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 10),
                           ("aten::mm", 10, 25), ("MmBackward0", 25, 40), ("gloo:all_reduce", 40, 46),
                           ("Optimizer.step#SGD.step", 46, 49)):
            ev.append({"name": name, "ph": "X", "ts": (t0 + a) * 1000, "dur": (b - a) * 1000,
                       "tid": 1 + rank, "pid": "CPU functions", "args": {}})
    return ev


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--slow-rank", type=int, default=3)
    p.add_argument("--extra-ms", type=float, default=60.0)
    p.add_argument("--slow-cause", choices=("compute", "data"), default="compute")
    p.add_argument("--legacy", action="store_true")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.legacy:
        for r in range(a.ranks):
            with open(os.path.join(a.out, "rank%d.json" % r), "w") as f:
                json.dump(legacy_trace(r), f)
        return
    for r in range(a.ranks):
        with open(os.path.join(a.out, "rank%d.pt.trace.json" % r), "w") as f:
            json.dump(rank_trace(r, a.ranks, a.slow_rank, a.extra_ms, a.slow_cause), f)


if __name__ == "__main__":
    main()
