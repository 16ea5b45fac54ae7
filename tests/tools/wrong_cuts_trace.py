#!/usr/bin/env python3
# wrong_cuts_trace.py OUT.json: a Kineto trace of 30,000 events each opening with a string that
# looks like event boundaries, so that every cut the chunked reader guesses falls inside a
# string, each chunk fails and the file is read again whole (tests/e2e/tsan.sh).
# SPDX-License-Identifier: MIT
import sys

# cuts guessed inside a string first in every event: each chunk fails, the file is read whole
lead = '"note": "a}, {b}, {c}, {d}", '
with open(sys.argv[1], "w") as f:
    f.write('{"distributedInfo": {"rank": 0}, "traceEvents": [\n')
    ev = []
    for i in range(30000):
        if i % 1000 == 0:
            ev.append('{%s"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "ts": %d, "dur": 9000, "tid": 1}' % (lead, i // 1000, 100 + i * 10))
        ev.append('{%s"ph": "X", "cat": "cpu_op", "name": "aten::op%d", "ts": %d, "dur": 5, "tid": %d}' % (lead, i % 7, 100 + i * 10, 1 + i % 2))
    f.write(",\n".join(ev) + "\n]}\n")
