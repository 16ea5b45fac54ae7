"""A plain PyTorch DDP training script, as users write them: nothing in it
knows about campaign. Rendezvous through env:// (MASTER_ADDR, MASTER_PORT,
RANK, WORLD_SIZE), gloo, a DataLoader, SGD, torch.profiler with a schedule
writing one Chrome trace per rank, and its own step timing on stdout.

    python3 ddp_train.py [--steps N] [--warmup W] [--batch B] [--hidden H]
                         [--layers L] [--slow-loader-ms MS] [--out DIR]

Each line "step N loss L time T ms" is one training step timed from one
call of prof.step() to the next, the boundaries of the profiler's
ProfilerStep ranges; the first W steps are the profiler's warm-up.
"""
import argparse
import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset


class Synthetic(Dataset):
    def __init__(self, n, dim, slow_ms):
        self.n, self.dim, self.slow = n, dim, slow_ms / 1000.0
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, dim, generator=g)
        self.y = torch.randint(0, 10, (n,), generator=g)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.slow:
            time.sleep(self.slow)
        return self.x[i], self.y[i]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--layers", type=int, default=3)
    p.add_argument("--slow-loader-ms", type=float, default=0.0)
    p.add_argument("--out", default="profiler")
    a = p.parse_args()

    dist.init_process_group("gloo", init_method="env://")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // max(1, int(os.environ.get("LOCAL_WORLD_SIZE", "1")))))
    dim = 64
    layers = [nn.Linear(dim, a.hidden), nn.ReLU()]
    for _ in range(a.layers - 1):
        layers += [nn.Linear(a.hidden, a.hidden), nn.ReLU()]
    layers.append(nn.Linear(a.hidden, 10))
    model = DDP(nn.Sequential(*layers))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    data = DataLoader(Synthetic(a.batch * (a.steps + 2), dim, a.slow_loader_ms), batch_size=a.batch)

    os.makedirs(a.out, exist_ok=True)
    warmup = a.warmup
    active = a.steps - warmup
    sched = torch.profiler.schedule(wait=0, warmup=warmup, active=active, repeat=1)

    def on_ready(prof):
        prof.export_chrome_trace(os.path.join(a.out, "rank%d.pt.trace.json" % rank))

    times = []
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=sched,
                                on_trace_ready=on_ready, with_flops=True) as prof:
        it = iter(data)
        prev = time.perf_counter()
        for step in range(a.steps):
            x, y = next(it)
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            value = loss.item()
            now = time.perf_counter()
            ms, prev = (now - prev) * 1000.0, now
            if step >= warmup:
                times.append(ms)
            print("step %d loss %.4f time %.3f ms" % (step, value, ms), flush=True)
            prof.step()
    print("rank %d median step %.3f ms over %d steps" % (rank, statistics.median(times), len(times)), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
