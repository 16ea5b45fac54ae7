#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""largest_share.py SUMMARY SCENARIO: checks a host-judged scenario's verdict against its own
shares, as the accounting defines them, whatever the machine's speed made them:
- the verdict's share is the largest candidate: at least each of compute, communication, data
  loading, I/O and host overhead, at most that plus the waiting for peers it may hold; where a
  straggler whose cause is compute is named, its own compute beyond the other ranks' median
  (the excess) is the straggler's, not compute's (docs/formats.md, verdict_share): a
  straggler-bound share is the waiting plus that excess (so the excess is its pct less
  peer_wait, at most compute), and compute's candidate is compute less it (unknown to this
  check unless the verdict is straggler-bound: then compute is left out of the comparison);
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
excess_named = any(g["cause"] == "compute" for g in s["stragglers"])
if vs is not None and vs["kind"] == "peer_wait" and excess_named:
    excess = vs["pct"] - sh["peer_wait"]
    if not -0.01 <= excess <= sh["compute"] + 0.01:
        bad.append("straggler-bound %.3f less peer_wait %.3f is not an excess within compute %.3f"
                   % (vs["pct"], sh["peer_wait"], sh["compute"]))
    own["compute"] -= excess
elif excess_named and not (vs is not None and vs["kind"] == "compute"):
    del own["compute"]  # less an excess this summary does not give
top = max(own.values())
if vs is None:
    bad.append("no verdict share for a scenario with steps")
elif vs["kind"] == "peer_wait" and excess_named:
    if vs["pct"] < top - 0.01:
        bad.append("straggler-bound %.3f is not the largest (largest other %.3f)" % (vs["pct"], top))
elif vs["kind"] == "compute" and excess_named:
    others = max(v for k, v in own.items() if k != "compute")
    if not others - 0.01 <= vs["pct"] <= sh["compute"] + sh["peer_wait"] + 0.01:
        bad.append("compute %.3f (less a straggler's excess) not between the largest other %.3f and compute %.3f"
                   % (vs["pct"], others, sh["compute"]))
else:
    if not (top - 0.01 <= vs["pct"] <= top + sh["peer_wait"] + 0.01):
        bad.append("verdict share %.3f is not the largest (largest own share %.3f, waiting %.3f)"
                   % (vs["pct"], top, sh["peer_wait"]))
if vs is not None and names.get(s["verdict"]) != vs["kind"]:
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
