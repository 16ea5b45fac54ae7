#!/usr/bin/python3
# file_circles.py [BUILD]: no two source files of one folder call each other. For every
# object of BUILD (default build/; not the sanitizer, fuzzing or package builds) whose source
# git tracks, the symbols it defines and those it takes from others, by nm; a pair of files
# of one folder each taking a symbol from the other is a circle: each is named with the
# symbols that make it, and the exit status is 1.
# SPDX-License-Identifier: MIT
import collections
import os
import subprocess
import sys

SKIP = ("asan", "tsan", "fuzz", "deb", "replay")


def objects(build):
    tracked = set(subprocess.run(["git", "ls-files"], capture_output=True, text=True,
                                 check=True).stdout.split())
    for root, dirs, files in os.walk(build):
        dirs[:] = [d for d in dirs if d not in SKIP]
        for f in files:
            if not f.endswith(".o"):
                continue
            obj = os.path.join(root, f)
            stem = os.path.relpath(obj, build)[:-2]
            src = next((stem + x for x in (".c", ".cc") if stem + x in tracked), None)
            if src:
                yield obj, src


def main(argv):
    build = argv[0] if argv else "build"
    defined, taken = {}, collections.defaultdict(set)
    src_of = dict(objects(build))
    # one nm for every object (-A names the object on each line): one process, not 160
    out = subprocess.run(["nm", "-A"] + sorted(src_of), capture_output=True, text=True).stdout
    for line in out.splitlines():
        obj, _, rest = line.partition(":")
        src = src_of.get(obj)
        if src:
            parts = rest.split()
            if len(parts) == 3 and parts[1] in "TDBR":
                defined[parts[2]] = src
            elif len(parts) == 2 and parts[0] == "U":
                taken[src].add(parts[1])
    calls = collections.defaultdict(set)
    for src, syms in taken.items():
        for s in syms:
            d = defined.get(s)
            if d and d != src and os.path.dirname(d) == os.path.dirname(src):
                calls[(src, d)].add(s)
    circles = sorted((a, b) for (a, b) in calls if a < b and (b, a) in calls)
    for a, b in circles:
        print(f"{a} and {b} call each other: {a} takes {', '.join(sorted(calls[(a, b)]))}; "
              f"{b} takes {', '.join(sorted(calls[(b, a)]))}")
    if not defined:
        print(f"file_circles.py: no objects under {build}: build first", file=sys.stderr)
        return 2
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
