# SPDX-License-Identifier: MIT
"""A plain PyTorch DDP training script, as users write them: nothing in it
knows about campaign. Rendezvous through env:// (MASTER_ADDR, MASTER_PORT,
RANK, WORLD_SIZE), gloo, a DataLoader, SGD, torch.profiler with a schedule
writing one Chrome trace per rank, and its own step timing on stdout.

    python3 ddp_train.py [--steps N] [--warmup W] [--batch B] [--hidden H]
                         [--layers L] [--embed-rows R] [--slow-loader-ms MS]
                         [--slow-rank R --slow-ms MS] [--bucket-cap-mb MB]
                         [--workers N] [--out DIR] [--no-profiler]
                         [--cuda] [--backend nccl|gloo]

--embed-rows adds an embedding table (R x 64, dense gradients, as DLRM-style
models have): a large model whose gradients dwarf the compute of a small
batch. --slow-loader-ms makes each sample cost that much to load.
--slow-rank R --slow-ms MS makes rank R a straggler: MS milliseconds more
of (matrix) compute in every forward.
--bucket-cap-mb is DDP's gradient bucket size (default 25, DDP's own): smaller
buckets start their all-reduce earlier in backward and leave less of it after.
--workers is the DataLoader's worker processes (default 0: loaded in the
training process, between steps).
--cuda trains on the GPU of LOCAL_RANK with NCCL and profiles CUDA activity
too (record_shapes, with_flops: the traces a GPU user brings); without a
usable GPU it exits with status 69 ("no GPU: ..."), as campaign-trainer-gpu.
--backend picks the process group's backend (default gloo, nccl with --cuda;
gloo also reduces CUDA tensors, so several ranks can share one GPU).

Each line "step N loss L time T ms" is one training step timed from one
call of prof.step() to the next, the boundaries of the profiler's
ProfilerStep ranges (the line is printed after prof.step(), so the time a
print takes falls in the next step of both measures, never in one only);
the first W steps are the profiler's warm-up.
"""
import argparse
import contextlib
import os
import statistics
import sys
import time
import types

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset


class Synthetic(Dataset):
    def __init__(self, n, dim, rows, slow_ms):
        self.n, self.dim, self.slow = n, dim, slow_ms / 1000.0
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, dim, generator=g)
        self.idx = torch.randint(0, max(1, rows), (n,), generator=g)
        self.y = torch.randint(0, 10, (n,), generator=g)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.slow:
            time.sleep(self.slow)
        return self.x[i], self.idx[i], self.y[i]


class Net(nn.Module):
    def __init__(self, dim, hidden, layers, rows, slow_ms=0.0):
        super().__init__()
        self.slow = slow_ms / 1000.0
        self.spin = torch.randn(128, 128)  # not a buffer: DDP would broadcast it every step
        self.emb = nn.Embedding(rows, dim) if rows else None
        mlp = [nn.Linear(dim, hidden), nn.ReLU()]
        for _ in range(layers - 1):
            mlp += [nn.Linear(hidden, hidden), nn.ReLU()]
        mlp.append(nn.Linear(hidden, 10))
        self.mlp = nn.Sequential(*mlp)

    def forward(self, x, idx):
        until = time.perf_counter() + self.slow
        while time.perf_counter() < until:  # the straggler: more compute
            torch.mm(self.spin, self.spin)
        if self.emb is not None:
            x = x + self.emb(idx)
        return self.mlp(x)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--layers", type=int, default=3)
    p.add_argument("--embed-rows", type=int, default=0)
    p.add_argument("--slow-loader-ms", type=float, default=0.0)
    p.add_argument("--slow-rank", type=int, default=-1)
    p.add_argument("--slow-ms", type=float, default=0.0)
    p.add_argument("--bucket-cap-mb", type=float, default=25.0, help="DDP's bucket_cap_mb")
    p.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    p.add_argument("--out", default="profiler")
    p.add_argument("--no-profiler", action="store_true", help="only print the step times")
    p.add_argument("--cuda", action="store_true", help="the GPU of LOCAL_RANK, NCCL, CUDA activity")
    p.add_argument("--backend", choices=("gloo", "nccl"), help="default gloo, nccl with --cuda")
    a = p.parse_args()

    dev = torch.device("cpu")
    if a.cuda:
        if not torch.cuda.is_available() or torch.cuda.device_count() == 0:
            print("ddp_train.py: no GPU: torch.cuda.is_available() is False", file=sys.stderr, flush=True)
            sys.exit(69)
        local = int(os.environ.get("LOCAL_RANK", "0")) % torch.cuda.device_count()
        dev = torch.device("cuda", local)
        torch.cuda.set_device(dev)
    dist.init_process_group(a.backend or ("nccl" if a.cuda else "gloo"), init_method="env://")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // max(1, int(os.environ.get("LOCAL_WORLD_SIZE", "1")))))
    dim = 64
    net = Net(dim, a.hidden, a.layers, a.embed_rows, a.slow_ms if rank == a.slow_rank else 0.0).to(dev)
    net.spin = net.spin.to(dev)
    model = DDP(net, device_ids=[dev.index] if a.cuda else None, bucket_cap_mb=a.bucket_cap_mb)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    data = DataLoader(Synthetic(a.batch * (a.steps + 2), dim, a.embed_rows, a.slow_loader_ms), batch_size=a.batch,
                      num_workers=a.workers, persistent_workers=a.workers > 0)

    os.makedirs(a.out, exist_ok=True)
    warmup = a.warmup
    active = a.steps - warmup
    sched = torch.profiler.schedule(wait=0, warmup=warmup, active=active, repeat=1)

    def on_ready(prof):
        prof.export_chrome_trace(os.path.join(a.out, "rank%d.pt.trace.json" % rank))

    times = []
    if a.no_profiler:
        prof = contextlib.nullcontext(types.SimpleNamespace(step=lambda: None))
    else:
        acts = [torch.profiler.ProfilerActivity.CPU]
        if a.cuda:
            acts.append(torch.profiler.ProfilerActivity.CUDA)
        prof = torch.profiler.profile(activities=acts, schedule=sched, on_trace_ready=on_ready,
                                      with_flops=True, record_shapes=a.cuda)
    with prof as prof:
        it = iter(data)
        prev = time.perf_counter()
        for step in range(a.steps):
            x, idx, y = (t.to(dev, non_blocking=True) for t in next(it))
            opt.zero_grad()
            loss = loss_fn(model(x, idx), y)
            loss.backward()
            opt.step()
            value = loss.item()
            now = time.perf_counter()
            ms, prev = (now - prev) * 1000.0, now
            if step >= warmup:
                times.append(ms)
            prof.step()  # before the print: a slow write lands in both measures' next step
            print("step %d loss %.4f time %.3f ms" % (step, value, ms), flush=True)
    print("rank %d median step %.3f ms over %d steps" % (rank, statistics.median(times), len(times)), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
