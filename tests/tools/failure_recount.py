# SPDX-License-Identifier: MIT
"""The failure line of a failed job, recounted from its raw logs alone, for
the checks of `campaign status` (issue 45): "rank R: <the exception line of
R's Python traceback>".

    python3 failure_recount.py JOB_DIR [MAX]

Ranks campaign starts itself (logs/rank_<r>.out): the lowest rank whose log
holds a traceback. Under torchrun (logs/rank_<node>.out are node logs): the
rank torchrun's "Root Cause (first observed failure)" names, and the
exception ending the first traceback of the node's log that is not
torchrun's own. The line as a terminal must not see it: escape sequences and
control characters out, at most MAX (default 200) bytes, "..." ending a
cut one. Reads nothing campaign wrote about the failure (ranks/failed.json).
Prints the line; exits 1 when the logs hold no traceback.
"""
import glob
import os
import re
import sys

ESCAPES = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|.)", re.S)
CONTROLS = re.compile("[\x00-\x08\x0a-\x1f\x7f\x80-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]")


def plain(text, limit):
    text = CONTROLS.sub("", ESCAPES.sub("", text)).replace("\t", " ").strip()
    data = text.encode()
    if len(data) <= limit:
        return text
    return data[:limit - 3].decode(errors="ignore") + "..."


def tracebacks(lines):
    """(exception line, frames) of each traceback in lines, in order."""
    out = []
    for i, line in enumerate(lines):
        if line.rstrip() != "Traceback (most recent call last):":
            continue
        j = i + 1
        while j < len(lines) and lines[j][:1] in (" ", "\t"):
            j += 1
        if j > i + 1 and j < len(lines):
            out.append((lines[j].rstrip(), lines[i + 1:j]))
    return out


def log_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return [x for x in f.read().replace("\r", "\n").split("\n") if x.strip()]


def main():
    job, limit = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 200
    logs = sorted(glob.glob(os.path.join(job, "logs", "rank_*.out")),
                  key=lambda p: int(re.search(r"rank_(\d+)\.out$", p).group(1)))
    per_node = bool(glob.glob(os.path.join(job, "ranks", "launcher_*.json")))
    for path in logs:
        lines = log_lines(path)
        if not per_node:
            tbs = tracebacks(lines)
            if tbs:
                rank = re.search(r"rank_(\d+)\.out$", path).group(1)
                print(f"rank {rank}: {plain(tbs[-1][0], limit)}")
                return 0
            continue
        root = [m for m in (re.match(r"\s*rank\s*:\s*(\d+) \(local_rank: \d+\)", x) for x in
                            lines[max([i for i, x in enumerate(lines) if "Root Cause" in x] or [len(lines)]):]) if m]
        if not root:
            continue
        own = [x for x in lines if not re.match(r"\[\w+\]:", x)]
        worker = [e for e, frames in tracebacks(own) if not e.startswith("torch.distributed.elastic.")
                  and not any("torch/distributed/run.py" in f for f in frames)]
        if worker:
            print(f"rank {root[0].group(1)}: {plain(worker[0], limit)}")
            return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
