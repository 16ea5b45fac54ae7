#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Recounts from raw PyTorch-profiler traces what the analysis says of their
steps and collectives (issue 45), without campaign's code: an independent check.

coll_recount.py DIR: every *.json / *.json.gz of DIR is one rank (Kineto's object
form or the legacy array form); prints one JSON document:
  {"partial_steps": N, "steps": {rank: count}, "collectives": [{"op", "size_class",
   "instances", "steps", "ms_per_step", "ms_per_step_summed", "transfer_ms_per_step",
   "concurrent_instances"}]}
Steps: the ProfilerStep#N host ranges by start. The last is partial when shorter than a
third of the median of the others and no collective falls in it; it is left out.
Collectives: GPU kernels carrying "Collective name" (bytes = max(In, Out msg nelems) x
the dtype's size), else gloo:<op> host ranges, which take the sizes of their step's
record_param_comms ranges of the same operation, in order; a host range belongs to the step it
starts in, a kernel to the last step that began before it. An instance is the k-th of
its operation in a step; every rank must have the same ones. Per row (operation and
size class): per rank and step the union of its instances' intervals (ms), summed over
steps, averaged over ranks, divided by the steps with any collective (rank 0's); the
summed time likewise with each instance's duration; the transfer, each instance's least
duration over the ranks, summed and divided by the steps; concurrent = instances whose
interval overlaps another of the row on some rank.
"""
import glob
import gzip
import json
import os
import re
import statistics
import sys

OPS = [("allreduce", "all_reduce"), ("allgather", "all_gather"), ("reducescatter", "reduce_scatter"),
       ("alltoall", "all_to_all"), ("broadcast", "broadcast"), ("reduce", "reduce"), ("gather", "gather"),
       ("scatter", "scatter"), ("barrier", "barrier")]
DTYPE = {"Float": 4, "BFloat16": 2, "Half": 2, "Double": 8, "Long": 8, "Int": 4}


def op_of(name):
    s = name.split(":", 1)[1] if name.startswith(("gloo:", "nccl:")) else name
    s = s.replace("_", "").lower()
    return next((o for p, o in OPS if s.startswith(p)), None)


def size_class(b):
    if b is None:
        return "unknown"
    k, lim = 0, 1024
    while b >= lim:
        k, lim = k + 1, lim * 4
    if k == 0:
        return "< 1 KiB"
    units = ["B", "KiB", "MiB", "GiB"]

    def text(v):
        u = 0
        while v >= 1024:
            v, u = v / 1024, u + 1
        return "%g %s" % (v, units[u])
    lo = 1024 * 4 ** (k - 1)
    return "%s - %s" % (text(lo), text(4 * lo))


def load(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        d = json.load(f)
    return (d.get("traceEvents", []), d.get("distributedInfo", {}).get("rank")) if isinstance(d, dict) else (d, None)


def rank_of(path, ev_rank, order):
    if ev_rank is not None:
        return ev_rank
    m = re.search(r"rank_?(\d+)", os.path.basename(path))
    return int(m.group(1)) if m else order


def recount_rank(events):
    xs = [e for e in events if e.get("ph") == "X" and "dur" in e]
    gpu = lambda e: isinstance(e.get("args"), dict) and e["args"].get("stream", -1) != -1
    steps = sorted(((float(e["ts"]), float(e["ts"]) + float(e["dur"])) for e in xs
                    if e["name"].startswith("ProfilerStep#") and not gpu(e) and e.get("cat") != "gpu_user_annotation"))
    kernels = [e for e in xs if gpu(e) and "Collective name" in e["args"]]
    colls = []  # (start, end, op, bytes, is_gpu)
    if kernels:
        for e in kernels:
            a = e["args"]
            n = max(a.get("In msg nelems", 0), a.get("Out msg nelems", 0))
            size = n * DTYPE[a["dtype"]] if a.get("dtype") in DTYPE else None
            colls.append((float(e["ts"]), float(e["ts"]) + float(e["dur"]), op_of(a["Collective name"]), size, True))
    else:
        colls = [(float(e["ts"]), float(e["ts"]) + float(e["dur"]), op_of(e["name"]), None, False)
                 for e in xs if e["name"].startswith("gloo:") and op_of(e["name"])]

    def step_of(c):
        k = max((i for i, s in enumerate(steps) if s[0] <= c[0]), default=None)
        if k is None or (not c[4] and c[0] >= steps[k][1]):
            return None
        return k
    if not kernels:  # gloo's ranges take the sizes of the step's record_param_comms, in order
        sizes = {}
        for e in sorted(xs, key=lambda e: float(e["ts"])):
            a = e.get("args") or {}
            if e["name"] == "record_param_comms" and "Collective name" in a and not gpu(e):
                c = (float(e["ts"]), 0, op_of(a["Collective name"]), None, False)
                n = max(a.get("In msg nelems", 0), a.get("Out msg nelems", 0))
                sizes.setdefault((step_of(c), c[2]), []).append(n * DTYPE[a["dtype"]] if a.get("dtype") in DTYPE else None)
        got = {}
        for i, c in sorted(enumerate(colls), key=lambda x: x[1][0]):
            key = (step_of(c), c[2])
            k = got[key] = got.get(key, -1) + 1
            if k < len(sizes.get(key, [])):
                colls[i] = c[:3] + (sizes[key][k],) + c[4:]
    by_step = {}
    for c in colls:
        k = step_of(c)
        if k is not None:
            by_step.setdefault(k, []).append(c)
    partial = 0
    if len(steps) >= 2:
        last = steps[-1]
        med = statistics.median(e - s for s, e in steps[:-1])
        if 3 * (last[1] - last[0]) < med and not by_step.get(len(steps) - 1):
            partial = 1
            steps = steps[:-1]
    inst = {}  # (step, op, size_class, seq) -> (start, end)
    for k in range(len(steps)):
        seen = {}
        for c in sorted(by_step.get(k, []), key=lambda c: (c[0], c[1])):
            key = (c[2], size_class(c[3]))
            seq = seen.get(c[2], 0)  # ordered within the operation, as the analysis matches
            seen[c[2]] = seq + 1
            inst[(k, key, seq)] = (c[0], c[1])
    return len(steps), partial, inst


def union_ms(spans):
    total, end = 0.0, None
    for s, e in sorted(spans):
        if end is None or s >= end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total / 1000


def main():
    files = sorted(glob.glob(os.path.join(sys.argv[1], "*.json")) + glob.glob(os.path.join(sys.argv[1], "*.json.gz")))
    ranks = {}
    partial = 0
    for i, f in enumerate(files):
        ev, r = load(f)
        n, p, inst = recount_rank(ev)
        ranks[rank_of(f, r, i)] = (n, inst)
        partial += p
    order = sorted(ranks)
    keys = set(ranks[order[0]][1])
    for r in order[1:]:
        if set(ranks[r][1]) != keys:
            sys.exit("coll_recount: the ranks' collective instances differ")
    steps = len({k[0] for k in keys})
    rows = []
    for row in sorted({k[1] for k in keys}):
        mine = [k for k in keys if k[1] == row]
        union = summed = 0.0
        over = set()
        # each instance's least duration over the ranks: its transfer
        transfer = sum(min((ranks[r][1][k][1] - ranks[r][1][k][0]) / 1000 for r in order) for k in mine)
        for r in order:
            inst = ranks[r][1]
            for s in {k[0] for k in mine}:
                spans = sorted((inst[k], k) for k in mine if k[0] == s)
                union += union_ms([sp for sp, _ in spans])
                summed += sum(e - b for (b, e), _ in spans) / 1000
                for i, ((b, e), k) in enumerate(spans):
                    for (b2, e2), k2 in spans[i + 1:]:
                        if b2 < e:
                            over |= {k, k2}
        rows.append({"op": row[0], "size_class": row[1], "instances": len(mine), "steps": steps,
                     "ms_per_step": union / len(order) / steps,
                     "ms_per_step_summed": summed / len(order) / steps,
                     "transfer_ms_per_step": transfer / steps,
                     "concurrent_instances": len({(k[0], k[2]) for k in over})})
    print(json.dumps({"partial_steps": partial, "steps": {str(r): ranks[r][0] for r in order},
                      "collectives": rows}))


main()
