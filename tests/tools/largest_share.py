#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""largest_share.py SUMMARY SCENARIO: checks a host-judged scenario's verdict against its own
shares, as the accounting defines them, whatever the machine's speed made them:
- the verdict's share is the largest candidate: at least each of compute, communication, data
  loading, I/O and host overhead, at most that plus the waiting for peers it may hold;
- the verdict names its share's kind (communication-bound: communication; compute- or
  memory-bound: compute; ...);
- the communication flag is present exactly when communication, with the waiting that is
  counted with it, passes its threshold, and then says that share.
Prints what does not hold, exits 1 on any."""
import json, sys

j = json.load(open(sys.argv[1]))
s = [x for x in j["scenarios"] if x["name"] == sys.argv[2]][0]
sh, vs = s["shares_pct"], s["verdict_share"]
bad = []
own = {"compute": sh["compute"], "communication": sh["communication"], "data_loading": sh["data_loading"],
       "io": sh["io"], "other": sh["other"]}
names = {"compute-bound": "compute", "memory-bound": "compute", "communication-bound": "communication",
         "data-loader-bound": "data_loading", "io-bound": "io", "host-bound": "host",
         "straggler-bound": "peer_wait"}
top = max(own.values())
if vs is None:
    bad.append("no verdict share for a scenario with steps")
else:
    if not (top - 0.01 <= vs["pct"] <= top + sh["peer_wait"] + 0.01):
        bad.append("verdict share %.3f is not the largest (largest own share %.3f, waiting %.3f)"
                   % (vs["pct"], top, sh["peer_wait"]))
    if names.get(s["verdict"]) != vs["kind"]:
        bad.append("verdict %s names share %s" % (s["verdict"], vs["kind"]))
comm = [f for f in s["flags"] if f["kind"] == "communication"]
with_wait = (sh["communication"], sh["communication"] + sh["peer_wait"])
if comm:
    f = comm[0]
    if not (f["share_pct"] > f["threshold_pct"]) or min(abs(f["share_pct"] - w) for w in with_wait) > 0.01:
        bad.append("communication flag %s is not communication (%.3f, %.3f with waiting) over its threshold"
                   % (f, *with_wait))
elif sh["communication"] > 20:
    bad.append("communication %.3f %% passes 20 %% but has no flag" % sh["communication"])
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
