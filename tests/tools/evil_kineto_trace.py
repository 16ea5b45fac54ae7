#!/usr/bin/env python3
# evil_kineto_trace.py CANARY OUT.json: a Kineto trace whose kernel names and rank hold shell
# (each would touch CANARY.<k> if run), terminal escape sequences, and malformed events (text
# times, missing fields, non-objects, 1e308, a negative duration), for
# tests/e2e/analyze_malformed_inputs.sh.
# SPDX-License-Identifier: MIT
import json, sys
C = sys.argv[1]
names = ["$(touch %s.k1)" % C, "`touch %s.k2`" % C, "\"; touch %s.k3; \"" % C,
         "evil\u001b[2J\u001b]0;title\u0007kernel", "ncclKernel_AllReduce$(touch %s.k4)" % C]
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000}]
for i, n in enumerate(names):
    ev.append({"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": 10 + 30 * i, "dur": 20,
               "args": {"stream": 7, "correlation": i + 1}})
ev += [{"ph": "X", "cat": "kernel", "name": "bad", "ts": "abc", "dur": None}, {"ph": "X", "cat": "kernel"},
       [1, 2], "str", None,
       {"ph": "X", "cat": "kernel", "name": "huge", "pid": 0, "tid": 7, "ts": 1e308, "dur": 1e308, "args": {"stream": 7}},
       {"ph": "X", "cat": "kernel", "name": "negative", "pid": 0, "tid": 7, "ts": 5, "dur": -7, "args": {"stream": 7}}]
json.dump({"distributedInfo": {"rank": "$(touch %s.rank)" % C}, "traceEvents": ev}, open(sys.argv[2], "w"))
