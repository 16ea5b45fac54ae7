#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the traces of a real DDP run with gloo: tests/fixtures/ddp_gloo/ (issue 45).

ddp_gloo_traces.py [--buffers] OUT_DIR [PORT]: starts 2 processes of this script (Debian's
python3-torch, CPU), each a rank of a gloo process group on 127.0.0.1:PORT,
training an MLP of 6 Linear(512, 512) layers under DistributedDataParallel with
bucket_cap_mb=1, so that several gradient buckets all-reduce at once on gloo's
worker threads, profiled by torch.profiler with a schedule whose active window
outlasts the loop: the profiler stops when its context closes, after the last
prof.step(), and the trace's last ProfilerStep is the short tail that follows it.
Each rank writes OUT_DIR/rank<r>.pt.trace.json, gzipped (.json.gz).
The fixture's numbers are recounted from the raw traces by coll_recount.py.

--buffers (tests/fixtures/ddp_buffers/, issue 45 point 7): a BatchNorm1d after every
Linear, so the model has registered buffers and DDP (broadcast_buffers=True, the default)
broadcasts them from rank 0 at the start of every forward: gloo:broadcast on a worker
thread while the main thread waits under DistributedDataParallel.forward. Rank 1 runs
2 ms of extra operators before each step (aten::mm on a random matrix, outside any
phase range) so that rank 0 waits for it in the broadcast. step_recount.py recounts
its shares from the raw traces.
"""
import gzip
import os
import shutil
import subprocess
import sys
import time


def rank_main(rank, world, out, port, buffers):
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      WORLD_SIZE=str(world))
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    torch.set_num_threads(1)
    norm = (lambda: nn.BatchNorm1d(512)) if buffers else (lambda: nn.Identity())
    layers = [m for _ in range(6) for m in (nn.Linear(512, 512), norm(), nn.ReLU())]
    layers = [m for m in layers if not isinstance(m, nn.Identity)]
    model = DDP(nn.Sequential(*layers, nn.Linear(512, 10)), bucket_cap_mb=1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(8, 512), torch.randint(0, 10, (8,))
    extra = torch.randn(256, 256) if buffers else None
    sched = torch.profiler.schedule(wait=0, warmup=1, active=100, repeat=1)
    path = os.path.join(out, "rank%d.pt.trace.json" % rank)

    def ready(prof):
        prof.export_chrome_trace(path)

    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=sched,
                                on_trace_ready=ready) as prof:
        for _ in range(5):
            if buffers and rank == 1:
                t = time.perf_counter()
                while time.perf_counter() - t < 0.002:
                    torch.mm(extra, extra)
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
            prof.step()
    dist.destroy_process_group()
    with open(path, "rb") as f, gzip.GzipFile(path + ".gz", "wb", 9, mtime=0) as g:
        shutil.copyfileobj(f, g)
    os.unlink(path)


def main():
    if len(sys.argv) == 7 and sys.argv[1] == "--rank":
        rank_main(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), sys.argv[6] == "1")
        return
    args = sys.argv[1:]
    buffers = "1" if args[:1] == ["--buffers"] else "0"
    args = args[1:] if buffers == "1" else args
    out = args[0]
    port = args[1] if len(args) > 1 else "29741"
    os.makedirs(out, exist_ok=True)
    procs = [subprocess.Popen([sys.executable, __file__, "--rank", str(r), "2", out, port, buffers])
             for r in range(2)]
    sys.exit(max(p.wait() for p in procs))


main()
