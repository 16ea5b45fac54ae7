#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bottlenecks_report.py RUN: checks that BOTTLENECK_ANALYSIS.md says the numbers of
summary.json the way a reader checks them; prints one line per failure, exits 1 on any.
- an Executive Summary share that holds the waiting for peers names both parts, each a
  table column (shares_pct), then their sum (verdict_share.pct);
- a straggler recommendation names each scenario's own stragglers;
- ranks that arrived last together are said once, not once each; ranks named apart whose last
  arrivals overlap are said to share them, with how many;
- a recommendation over several scenarios quotes the range of their compute shares;
- compute that waited for a core 10 % of its time or more (the replay's estimate) is said so;
- a communication prediction on shared cores says the replay is optimistic there."""
import json, re, sys

run = sys.argv[1]
j = json.load(open(run + "/summary.json"))
md = open(run + "/BOTTLENECK_ANALYSIS.md").read()
sc = {s["name"]: s for s in j["scenarios"]}
bad = []

def f1(x):
    return "%.1f" % x

for name, s in sc.items():
    vs, sh = s.get("verdict_share"), s.get("shares_pct") or {}
    if not vs or not sh or vs["kind"] not in ("data_loading", "compute", "io", "communication"):
        continue
    wait = sh.get("peer_wait") or 0
    own = sh[vs["kind"]]
    if abs(vs["pct"] - own) < 1e-9 or wait <= 0:
        continue
    line = [l for l in md.splitlines() if l.startswith("- **%s** (" % name)][0]
    if vs["kind"] == "compute" and vs["pct"] < own:
        # compute less a compute straggler's own extra (which counts with the waiting for
        # it): "compute Z % of step time (compute's C % less the slower ranks' own extra E %)",
        # Z the difference of the two as printed
        m = re.search(r": compute ([0-9.]+) % of step time \(compute's ([0-9.]+) % less the slower ranks' own extra ([0-9.]+) %\)", line)
        if not m or abs(float(m.group(2)) - own) > 0.051 or abs(float(m.group(3)) - (own - vs["pct"])) > 0.101 \
                or abs(float(m.group(2)) - float(m.group(3)) - float(m.group(1))) > 1e-6:
            bad.append("%s: summary line does not say compute less the stragglers' extra: %s" % (name, line))
        continue
    # the report rounds the raw shares, summary.json keeps three decimals: within 0.05; the
    # total is the sum of the two parts as printed (within 0.1 of the share, exactly theirs)
    m = re.search(r" ([0-9.]+) % of (?:step|all ranks') time, and ([0-9.]+) % .*\(([0-9.]+) % in all\)", line)
    if not m or any(abs(float(g) - w) > 0.051 for g, w in zip(m.groups()[:2], (own, wait))) \
            or abs(float(m.group(3)) - vs["pct"]) > 0.101 \
            or abs(float(m.group(1)) + float(m.group(2)) - float(m.group(3))) > 1e-6:
        bad.append("%s: summary line does not say %s %% of step time, and %s %% ... (%s %% in all): %s"
                   % (name, f1(own), f1(wait), f1(vs["pct"]), line))

def join_and(items):
    """The report's own list: "a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]

def group_names(g):
    """The stragglers of the first group, as the report names them."""
    first = [g[0]] + [x for x in g[1:] if x["rank"] in g[0]["together_with"]]
    if len(first) > 1 and first[0]["node"] and all(x["node"] == first[0]["node"] for x in first):
        rs = [str(x["rank"]) for x in first]
        return "ranks %s on %s" % (join_and(rs), first[0]["node"])
    return join_and(["rank %d%s" % (x["rank"], " on " + x["node"] if x["node"] else "") for x in first])

for r in j["recommendations"]:
    if r["kind"] == "straggler":
        for n in r["scenarios"]:
            want = group_names(sc[n]["stragglers"]) + (" (%s" % n if len(r["scenarios"]) > 1 else "")
            if want not in r["text"]:
                bad.append("straggler recommendation does not name %r: %s" % (want, r["text"]))
        # the waiting counts with the cause's ceiling only where the first straggler's cause is
        # that kind's (a cause no phase explains, "unknown", keeps its waiting apart)
        cause = {"data_loading": "data loading", "io": "I/O", "host": "host/other"}
        shared = [n for n in r["scenarios"]
                  if any(q["kind"] != "straggler" and n in q["scenarios"] and q["predicted_step_ms"][q["scenarios"].index(n)] is not None
                         and sc[n]["verdict_share"]["kind"] == {"data_loading": "data_loading", "io": "io", "host": "other"}.get(q["kind"])
                         and sc[n]["stragglers"][0]["cause"] == cause.get(q["kind"])
                         for q in j["recommendations"])]
        if shared and "do not add" not in r["text"]:
            bad.append("straggler recommendation overlaps another's gain without saying so: " + r["text"])
    if r["kind"] in ("kernels", "elementwise") and len(r["scenarios"]) > 1:
        # the least and the largest compute share, as numbers (not strings: "100.0" < "70.5"),
        # within 0.05 as above (summary.json's 70.550 may come from a raw 70.5503, said 70.6)
        # (beside a compute straggler, compute less its own extra: the verdict's share, said
        # as the difference of the two parts as printed: within 0.1)
        def own(n):
            vs, comp = sc[n].get("verdict_share") or {}, sc[n]["shares_pct"]["compute"]
            return vs["pct"] if vs.get("kind") == "compute" and abs(vs["pct"] - comp) > 1e-9 else comp
        c = sorted(own(n) for n in r["scenarios"])
        tol = 0.101 if any(own(n) != sc[n]["shares_pct"]["compute"] for n in r["scenarios"]) else 0.051
        m = re.search(r"\(([0-9.]+) %(?: to ([0-9.]+) %)?(?: of step time| compute)\)", r["text"])
        said = m and (float(m.group(1)), float(m.group(2) or m.group(1)))
        if not said or abs(said[0] - c[0]) > tol or abs(said[1] - c[-1]) > tol or \
                (m.group(2) is None) != (f1(c[0]) == f1(c[-1])):
            bad.append("%s recommendation does not quote %s %% to %s %%: %s" % (r["kind"], f1(c[0]), f1(c[-1]), r["text"]))

def section(name):
    """The scenario's own part of the report: from its "### NAME" to the next heading (another
    scenario may name the same rank alone)."""
    m = re.search(r"^### %s\n(.*?)(?=^#{1,3} |\Z)" % re.escape(name), md, re.S | re.M)
    return m.group(1) if m else ""

for name, s in sc.items():
    g = s.get("stragglers") or []
    for x in g:
        if x["together_with"] and section(name).count("**Straggler: rank %d" % x["rank"]):
            bad.append("%s: rank %d arrived last together with %s but is said on its own" % (name, x["rank"], x["together_with"]))
    # a rank not named that arrived last with a group in half its steps or more: said
    for i, x in enumerate(g):
        u = x.get("unnamed_last_with")
        if not u or any(x["rank"] in y["together_with"] for y in g[:i]):
            continue
        many = bool(x["together_with"])
        want = "Rank %d, not named (not last beyond chance, or its impact too small), arrived last with %s in %d of %s %d last arrivals too" % (
            u["rank"], "them" if many else "it", u["steps"], "their" if many else "its", u["of"])
        if want not in section(name):
            bad.append("%s: rank %d arrived last with rank %d but the report does not say %r" % (name, u["rank"], x["rank"], want))
    # a straggler named apart whose last arrivals an earlier one shared: said after it, with
    # the group of that rank named as the report names groups
    for i, x in enumerate(g):
        w = x.get("shares_last_with")
        if not w or any(x["rank"] in y["together_with"] for y in g[:i]):
            continue
        k = [y["rank"] for y in g].index(w["rank"])
        while k > 0 and g[k]["rank"] in g[k - 1]["together_with"]:
            k -= 1
        want = "In %d of %s %d last arrivals, %s arrived last too: the impacts each count the waiting of those steps, so they do not add." % (
            w["steps"], "their" if x["together_with"] else "its", w["of"], group_names(g[k:]))
        if want not in section(name):
            bad.append("%s: rank %d shares last arrivals with rank %d but the report does not say %r" % (name, x["rank"], w["rank"], want))

# a communication prediction of ranks taking every core (as many as the replay's hosts have,
# or more) says the replay is optimistic there (once a scenario; none where no scenario of it
# does)
shared = "its ranks take every core (as many ranks as the nodes have cores, or more), so an all-reduce overlapped with compute"
def every_core(s):
    p = s.get("replay") or {}
    return p.get("cores", 0) > 0 and p.get("hosts", 0) > 0 and s["ranks"] >= p["hosts"] * p["cores"]
for r in j["recommendations"]:
    if r["kind"] != "communication":
        continue
    want = sum(1 for k, n in enumerate(r["scenarios"]) if every_core(sc[n]) and r["prediction_basis"][k] in ("replay", "bound"))
    if r["text"].count(shared) != want:
        bad.append("communication recommendation says %d times that its ranks share cores, %d of its replayed scenarios do: %s" % (r["text"].count(shared), want, r["text"]))

# a scaling table's speedup by the means sits beside a throughput at the mean step, so that
# the column's ratio is the speedup
for line in md.splitlines():
    cells = [c.strip() for c in line.split("|")[1:-1]]
    if len(cells) == 12 and cells[0] in sc and "by the means" in cells[6] and "(mean step)" not in cells[4]:
        bad.append("%s: speedup by the means beside a throughput at the median step: %s" % (cells[0], line))

# fewer checkpoints replayed: said to be the most they give (storage's rarer flushes)
for r in j["recommendations"]:
    io = [sc[n]["replay"]["io"] for k, n in enumerate(r["scenarios"]) if r["kind"] == "io" and r["prediction_basis"][k] == "replay"]
    thinned = any(x.get("checkpoint_every", 0) > 1 and not x.get("async") for x in io)
    if thinned != ("though `campaign try` has measured remaining checkpoints slower than that" in r["text"]):
        bad.append("io recommendation does not say (or wrongly says) that rarer checkpoints may cost more each: " + r["text"])

# compute said to hold time waiting for a core where the replay put it at 10 % or more
for name, s in sc.items():
    w = (s.get("replay") or {}).get("compute_core_wait_pct")
    said = re.search(r"Of that compute, about ([0-9]+) % of its time was waiting for a core, beside more traced work than the host.s ([0-9]+) cores? ", section(name))
    if s.get("verdict_basis") == "host" and w is not None and w >= 10:
        if not said or int(said.group(1)) != int(w + 0.5) and abs(float(said.group(1)) - w) > 0.5001 or int(said.group(2)) != s["replay"]["cores"]:
            bad.append("%s: compute waits for a core %.1f %% of its time but the report does not say so" % (name, w))
    elif said:
        bad.append("%s: says its compute waited for a core (%s %%) where the replay puts it at %s" % (name, said.group(1), w))

for b in bad:
    print(b)
sys.exit(1 if bad else 0)
