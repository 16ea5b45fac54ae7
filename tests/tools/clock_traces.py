#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes Kineto traces of 2 nodes x 2 ranks whose second node's clock is off (issue 38's fixture).

clock_traces.py shifted DIR [SHIFT_US]: ranks 0, 1 on node 1 and ranks 2, 3 on node 2, 20 steps
  of 10 ms (ProfilerStep#1..20, step n starting at 1,000,000 + 10,000 (n-1) us on node 1's
  clock). Each step one all-reduce of 1048576 Float (4 MiB) in process group "0" on the GPU
  (an NCCL kernel with PyTorch 2.x's args): every rank leaves it at the same true instant,
  t0 + 6000 us, give or take a jitter of at most 20 us (a fixed sequence); rank r arrives
  at t0 + 3000 + 400 r us (rank 3 last, then 2, 1, 0: the arrival order). Every timestamp of
  ranks 2 and 3 is written on node 2's clock: true time + SHIFT_US (default 7300).
  Expected: node 2's clock 7.3 ms ahead of node 1 within the jitter (0.02 ms), from 20
  all-reduces; rank 3 arrives last in every step whatever the shift.
clock_traces.py legacy DIR: 3 ranks in the legacy profiler's array form (Debian's CPU torch
  writes it), each timed from its own profiler's start: rank r's start is ORIGIN[r] = 0,
  +20000, -15000 us off rank 0's, so the same instant reads ORIGIN[r] less on rank r (rank 1:
  20 ms less). 20 steps, one gloo:all_reduce range each on a worker thread, left by every
  rank at one true instant (jitter at most 20 us). Expected: rank 1's offset to rank 0
  -20.0 ms and rank 2's +15.0 ms, each within the jitter; per-rank clocks.
clock_traces.py unmatched DIR: the same ranks and steps without any collective: nothing to
  match, the timeline stays uncorrected.
The ranks' nodes come from the campaign's launch (tasks_per_node: 2), not from the traces.
"""
import json
import os
import sys

STEPS = 20


def jitter(state):
    """A fixed sequence in [-1, 1): the same traces on every run."""
    state[0] = (state[0] * 1103515245 + 12345) % (1 << 32)
    return ((state[0] >> 8) & 0xffff) / 32768.0 - 1.0


def comm_args(world):
    return {"Collective name": "allreduce", "In msg nelems": 1048576, "Out msg nelems": 1048576,
            "dtype": "Float", "Group size": world, "Process Group Name": "0",
            "Process Group Description": "default_pg"}


def trace(rank, world, shift_us, with_coll, state):
    off = shift_us if rank >= 2 else 0
    ev = []
    for n in range(STEPS):
        t0 = 1000000 + n * 10000
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n + 1}", "pid": 1, "tid": 1,
                   "ts": t0 + off, "dur": 10000})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": t0 + 100 + off,
                   "dur": 2000})
        if not with_coll:
            continue
        corr = 1000 + n
        arrive = t0 + 3000 + 400 * rank
        leave = t0 + 6000 + round(jitter(state) * 20)
        ev.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1,
                   "ts": arrive - 60 + off, "dur": 40, "args": comm_args(world)})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": arrive - 50 + off, "dur": 5, "args": {"correlation": corr}})
        ka = dict(comm_args(world), stream=20, correlation=corr, device=0)
        ev.append({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                   "pid": 0, "tid": 20, "ts": arrive + off, "dur": leave - arrive, "args": ka})
    return {"distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world}, "traceEvents": ev}


LEGACY_ORIGIN = (0, 20000, -15000)


def legacy(rank, state):
    """The array form: no distributedInfo, pids as names, times from the profiler's start."""
    ev, off = [], -LEGACY_ORIGIN[rank]
    for n in range(STEPS):
        t0 = 50000 + n * 10000
        ev.append({"name": f"ProfilerStep#{n + 1}", "ph": "X", "ts": t0 + off, "dur": 10000, "tid": 1,
                   "pid": "CPU functions", "args": {}})
        ev.append({"name": "aten::mm", "ph": "X", "ts": t0 + 100 + off, "dur": 2000, "tid": 1,
                   "pid": "CPU functions", "args": {}})
        arrive = t0 + 3000 + 400 * rank
        leave = t0 + 6000 + round(jitter(state) * 20)
        ev.append({"name": "gloo:all_reduce", "ph": "X", "ts": arrive + off, "dur": leave - arrive, "tid": 7,
                   "pid": "CPU functions", "args": {}})
    return ev


def main():
    kind, out = sys.argv[1], sys.argv[2]
    shift = int(sys.argv[3]) if len(sys.argv) > 3 else 7300
    os.makedirs(out, exist_ok=True)
    state = [11]
    if kind == "legacy":
        for r in range(3):
            with open(os.path.join(out, f"rank{r}.pt.trace.json"), "w") as f:
                json.dump(legacy(r, state), f)
        return
    for r in range(4):
        with open(os.path.join(out, f"rank{r}.pt.trace.json"), "w") as f:
            json.dump(trace(r, 4, shift, kind == "shifted", state), f)


main()
