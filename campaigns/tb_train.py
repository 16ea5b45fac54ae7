# SPDX-License-Identifier: MIT
"""A DDP script as users write them with torch.profiler's
tensorboard_trace_handler: each profiling cycle of each process writes its
own <host>_<pid>.<timestamp>.pt.trace.json, so one rank leaves several
files (repeat=2 two, repeat=0 one per cycle until the end). Nothing in it
knows about campaign.

    python3 tb_train.py [--steps N] [--repeat R] [--active A] [--global-batch G | --batch B]
                        [--hidden H] [--slow-rank R --slow-ms MS] [--out DIR]

--global-batch keeps the batch over all ranks fixed (strong scaling: each
rank takes G / world_size samples); --batch fixes it per rank (weak scaling).
Each profiling cycle waits 1 step, warms up 1 and records --active steps (2).
--slow-rank R --slow-ms MS makes rank R a straggler: its batches come
through a Dataset whose __getitem__ sleeps MS milliseconds (the other ranks'
through the same Dataset without the sleep).
Each line "step N time T ms" is one step as the profiler's ProfilerStep
ranges bound it; a first line "rank R of W: pid P" says which process is
which rank.
"""
import argparse
import itertools
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler


class Batches(Dataset):
    """steps items, each the whole batch (x, y); __getitem__ sleeps slow_s first."""

    def __init__(self, x, y, steps, slow_s):
        self.x, self.y, self.steps, self.slow = x, y, steps, slow_s

    def __len__(self):
        return self.steps

    def __getitem__(self, i):
        if self.slow:
            time.sleep(self.slow)
        return self.x, self.y


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--active", type=int, default=2)
    p.add_argument("--global-batch", type=int, default=0)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--slow-rank", type=int, default=-1)
    p.add_argument("--slow-ms", type=float, default=0.0)
    p.add_argument("--out", default="tb")
    a = p.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    world, rank = dist.get_world_size(), dist.get_rank()
    batch = a.global_batch // world if a.global_batch else a.batch
    print(f"rank {rank} of {world}: pid {os.getpid()}", flush=True)
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(128, a.hidden), nn.ReLU(), nn.Linear(a.hidden, a.hidden), nn.ReLU(),
                              nn.Linear(a.hidden, 10)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(batch, 128), torch.randint(0, 10, (batch,))
    if a.slow_rank >= 0:  # every rank loads through the Dataset; one sleeps in it
        slow = a.slow_ms / 1000.0 if rank == a.slow_rank else 0.0
        batches = DataLoader(Batches(x, y, a.steps, slow), batch_size=None)
    else:
        batches = itertools.repeat((x, y), a.steps)
    sched = schedule(wait=1, warmup=1, active=a.active, repeat=a.repeat)
    with profile(activities=[ProfilerActivity.CPU], schedule=sched,
                 on_trace_ready=tensorboard_trace_handler(a.out)) as prof:
        last = time.perf_counter()
        for step, (x, y) in enumerate(batches):
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            prof.step()
            now = time.perf_counter()
            print(f"step {step} time {(now - last) * 1000:.3f} ms", flush=True)
            last = now
    dist.destroy_process_group()
    if rank == 0:
        print(f"world {world} batch per rank {batch}", flush=True)


if __name__ == "__main__":
    main()
