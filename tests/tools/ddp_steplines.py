#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A tiny DDP script (gloo, torch.distributed env://) that prints its step
times the way users' scripts do, for the step-log reader's tests
(tests/e2e/torchrun.sh):

    ddp_steplines.py [--steps N] [--print all|0] [--skew-ms MS]

Every rank first prints "rank R of W: pid P"; then after each step
"step N time T ms", from every rank (--print all: the DDP tutorial with a
per-step timer) or from rank 0 alone (--print 0: nanoGPT, DLRM). A step
starts at a barrier (untimed), runs forward, backward (DDP's all-reduce) and
the optimizer, then rank r sleeps r x --skew-ms: each rank's times differ
by its own sleep, so a line taken as another rank's shows.
"""
import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=15)
    p.add_argument("--print", dest="who", choices=("all", "0"), default="all")
    p.add_argument("--skew-ms", type=float, default=10.0)
    a = p.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    world, rank = dist.get_world_size(), dist.get_rank()
    print(f"rank {rank} of {world}: pid {os.getpid()}", flush=True)
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(16, 64), torch.randint(0, 10, (16,))
    for step in range(a.steps):
        dist.barrier()
        t0 = time.perf_counter()
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        time.sleep(rank * a.skew_ms / 1000.0)
        ms = (time.perf_counter() - t0) * 1000
        if a.who == "all" or rank == 0:
            print(f"step {step} time {ms:.3f} ms", flush=True)
    dist.destroy_process_group()
    # torchrun 1.13's tee (tail_log.tail_logfile) stops a worker's tailer once it has read to
    # the end of the worker's file and finds the worker finished: a line written between that
    # read and the worker's end is never copied to the node log (one of 30 went missing once,
    # tests/e2e/torchrun.sh lines_node_logs_raw). Staying a second after the last line leaves
    # the tailer time to copy it.
    sys.stdout.flush()
    time.sleep(1.0)


if __name__ == "__main__":
    main()
