#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes small Kineto traces with known collectives (issue 23's fixture).

coll_traces.py nccl DIR: 4 ranks, 3 steps of 10 ms; in each step on the GPU
  an all-reduce of 1048576 Float (4 MiB) in process group "0" that lasts
  1000 us on rank 0 (it arrives last) and 1000 + 500 * r us on rank r, and an
  all-gather of 262144 -> 1048576 BFloat16 (2 MiB out) in group "1", 500 us
  everywhere but 700 us on rank 2, each NCCL kernel carrying PyTorch 2.x's
  args; record_param_comms host ranges with the same args (and a "wait").
  Expected: all_reduce latency 1.000 ms, wait median 0.75 ms (0, 0.5, 1.0,
  1.5), algbw 4.194304 GB/s, busbw x 1.5 = 6.291456; all_gather latency
  0.500, algbw 4.194304, busbw x 0.75 = 3.145728.
coll_traces.py gloo DIR: 2 ranks, CPU only (gloo, PyTorch 2.x): gloo:all_reduce
  ranges on a worker thread, 4000 us on rank 0 and 6000 us on rank 1, with
  the sizes only on record_param_comms (262144 Float = 1 MiB).
  Expected: latency 4.000 ms, wait median 1.0, algbw 0.262144, busbw x 1.
coll_traces.py ddp DIR: 2 ranks, CPU only (gloo, PyTorch 2.x), DDP's shape (issue
  45): 4 steps of 20 ms, each with 3 gradient buckets all-reducing on gloo's two
  worker threads, sized by record_param_comms: bucket 0 of 1 MiB (262144 Float)
  5000 .. 8000 + 500 r us into the step, buckets 1 and 2 of 6 MiB (1572864 Float)
  6000 .. 12000 + 500 r and 8000 .. 12000 + 1000 r, overlapping; then the tail the
  profiler cuts as its context closes after the last prof.step(): ProfilerStep#5
  of 400 us with an aten::add and no collective, where the trace ends.
  Expected: 2 partial steps left out, 4 steps; the 6 MiB row's time per step the
  union (6.0 and 7.0 ms: 6.5), summed (10.0 and 11.5: 10.75), 8 concurrent
  instances; the 1 MiB row 3.25 ms, none concurrent.
coll_traces.py nested DIR: 2 ranks, CPU only (gloo, PyTorch 1.13's names), collectives
  nested in phase ranges (issue 45, point 7): 4 steps of 20 ms; under
  DistributedDataParallel.forward (0.5 .. 8.5 ms into the step) DDP's buffer broadcast:
  c10d::broadcast_ for 0.1 ms on the main thread, then gloo:broadcast on a worker thread
  until 4.0 ms while the main thread waits (no range); rank 1 first runs an aten::add
  for 1 ms and issues it 1 ms later. Then an nn.Module range with an aten::linear, a
  backward range 9 .. 15 ms whose aten::mm ends at 14, a c10d::allreduce_ 14 .. 14.05 and
  gloo:all_reduce 14.1 .. 17 on the other worker (exposed from 14.1: the backward runs
  no operator); an optimizer step 17.5 .. 19.5 whose aten::add_ ends at 19 and a
  record_param_comms "wait" 19 .. 19.3 under it.
  Expected per step: rank 0 compute 11.85 ms, exposed communication 6.15, other 2;
  rank 1 compute 12.85, communication 5.15 (the least: the transfer), other 2; over the
  scenario compute 61.75 %, communication 25.75 %, waiting for peers 2.5 % (rank 0's
  1 ms in the broadcast), other 10 % (before: compute 77.75 %, communication 12.25 %).
"""
import json
import os
import sys


def comm_args(coll, n_in, n_out, dtype, pg, size):
    return {"Collective name": coll, "In msg nelems": n_in, "Out msg nelems": n_out, "dtype": dtype,
            "Group size": size, "Process Group Name": pg, "Process Group Description": "default_pg"}


def step(ev, n, t0):
    ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 1, "tid": 1,
               "ts": t0, "dur": 10000})
    ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": t0 + 100, "dur": 2000})


def nccl(rank, world):
    ev, corr = [], 1000
    for n in range(3):
        t0 = 1000000 + n * 10000
        step(ev, n + 1, t0)
        for k, (coll, nin, nout, dt, pg, dur, at) in enumerate([
                ("allreduce", 1048576, 1048576, "Float", "0", 1000 + 500 * rank, 3000),
                ("_allgather_base", 262144, 1048576, "BFloat16", "1", 700 if rank == 2 else 500, 6000)]):
            corr += 1
            a = comm_args(coll, nin, nout, dt, pg, world)
            ev.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1,
                       "ts": t0 + at, "dur": 40, "args": dict(a)})
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": t0 + at + 10, "dur": 5, "args": {"correlation": corr}})
            ka = dict(a, stream=20 + k, correlation=corr, device=0)
            ev.append({"ph": "X", "cat": "kernel", "name": f"ncclKernel_{'AllReduce' if k == 0 else 'AllGather'}"
                       "_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "pid": 0, "tid": 20 + k,
                       "ts": t0 + at + 50, "dur": dur, "args": ka})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": t0 + 9000,
                   "dur": 3, "args": comm_args("wait", 0, 0, "Float", "0", world)})
    return {"distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world}, "traceEvents": ev}


def gloo(rank, world):
    ev = []
    for n in range(3):
        t0 = 1000000 + n * 10000
        step(ev, n + 1, t0)
        ev.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": t0 + 3000,
                   "dur": 20, "args": comm_args("allreduce", 262144, 262144, "Float", "0", world)})
        ev.append({"ph": "X", "cat": "user_annotation", "name": "gloo:all_reduce", "pid": 1, "tid": 7,
                   "ts": t0 + 3050, "dur": 4000 if rank == 0 else 6000})
    return {"distributedInfo": {"backend": "gloo", "rank": rank, "world_size": world}, "traceEvents": ev}


def ddp(rank, world):
    ev = []
    buckets = [(262144, 5000, 8000 + 500 * rank, 7), (1572864, 6000, 12000 + 500 * rank, 8),
               (1572864, 8000, 12000 + 1000 * rank, 7)]
    for n in range(4):
        t0 = 1000000 + n * 20000
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n + 1}", "pid": 1, "tid": 1,
                   "ts": t0, "dur": 20000})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": t0 + 100, "dur": 4000})
        for nelems, start, end, tid in buckets:
            ev.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1,
                       "ts": t0 + start - 100, "dur": 20,
                       "args": comm_args("allreduce", nelems, nelems, "Float", "0", world)})
            ev.append({"ph": "X", "cat": "user_annotation", "name": "gloo:all_reduce", "pid": 1, "tid": tid,
                       "ts": t0 + start, "dur": end - start})
    t0 = 1000000 + 4 * 20000
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#5", "pid": 1, "tid": 1, "ts": t0,
               "dur": 400})
    ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": t0 + 50, "dur": 100})
    return {"distributedInfo": {"backend": "gloo", "rank": rank, "world_size": world}, "traceEvents": ev}


def nested(rank, world):
    ev = []

    def x(name, ts, dur, tid=1, cat="cpu_op", args=None):
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur,
                   **({"args": args} if args else {})})

    for n in range(4):
        t0 = 1000000 + n * 20000
        x(f"ProfilerStep#{n + 1}", t0, 20000, cat="user_annotation")
        x("DistributedDataParallel.forward", t0 + 500, 8000, cat="user_annotation")
        issue = t0 + 1000 + 1000 * rank
        if rank:
            x("aten::add", t0 + 1000, 1000)
        x("c10d::broadcast_", issue, 100)
        x("gloo:broadcast", issue + 200, t0 + 4000 - issue - 200, tid=7, cat="user_annotation")
        x("nn.Module: Net", t0 + 4200, 4200, cat="python_function")
        x("aten::linear", t0 + 4300, 4000)
        x("autograd::engine::evaluate_function: AddmmBackward0", t0 + 9000, 6000)
        x("aten::mm", t0 + 9100, 4900)
        x("c10d::allreduce_", t0 + 14000, 50)
        x("gloo:all_reduce", t0 + 14100, 2900, tid=8, cat="user_annotation")
        x("Optimizer.step#SGD.step", t0 + 17500, 2000, cat="user_annotation")
        x("aten::add_", t0 + 17600, 1400)
        x("record_param_comms", t0 + 19000, 300, args=comm_args("wait", 0, 0, "Float", "0", world))
    return {"distributedInfo": {"backend": "gloo", "rank": rank, "world_size": world}, "traceEvents": ev}


def main():
    kind, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    world = 4 if kind == "nccl" else 2
    make = {"nccl": nccl, "gloo": gloo, "ddp": ddp, "nested": nested}[kind]
    for r in range(world):
        with open(os.path.join(out, f"rank{r}.pt.trace.json"), "w") as f:
            json.dump(make(r, world), f)


main()
