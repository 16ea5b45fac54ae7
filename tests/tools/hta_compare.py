#!/usr/bin/env python3
# hta_compare.py MINE.json REF.json NAME: campaign-analyze --json's ranks (MINE) against the
# HTA reference of the same traces (REF, indep_metrics.json): per rank (its
# gpu_breakdown_detail, at the trace's resolution) the idle, compute,
# non-compute and overlap percentages within 0.1 point, the top kernel of each category, the
# kernel-type sweep and the idle split by stream; one PASS or FAIL line per check, named
# NAME_rank<r>_<what> (tests/e2e/analyze_hta_reference.sh).
# SPDX-License-Identifier: MIT
import json, sys
mine = json.load(open(sys.argv[1]))["ranks"]
ref = json.load(open(sys.argv[2]))
name = sys.argv[3]
scale = 1000.0 if name.startswith("nsys") else 1.0   # nsys references are in ns
idle_check = not name.startswith("nsys")            # see docs/formats.md: per-process correlation ids
keys = {"idle_pct": "idle_pct", "compute_pct": "compute_pct", "non_compute_pct": "non_compute_pct",
        "comm_comp_overlap_pct": "comp_comm_overlap_pct"}
for i, top in enumerate(mine):
    rk = str(top["rank"]) if top["rank"] is not None else str(i)
    r = dict(top["gpu_breakdown_detail"] or {}, process=top.get("process"), gpu_events=top["gpu_events"])
    r.update({k: r.get(k) for k in keys})
    want = ref.get(r.get("process") or rk) or ref[list(ref)[i]]
    for k, rkey in keys.items():
        ok = (r[k] is None and want.get(rkey) is None) or (r[k] is not None and want.get(rkey) is not None and abs(r[k] - want[rkey]) <= 0.1)
        print("%s %s_rank%s_%s %s=%s ref=%s" % ("PASS" if ok else "FAIL", name, rk, k, k, r[k], want.get(rkey)))
    for cat, tops in (want.get("top_kernels") or {}).items():
        if not tops:
            continue
        best = max(tops, key=lambda t: t["sum"])
        mk = [t for t in r["top_kernels"] if t["category"] == cat]
        ok = bool(mk) and mk[0]["name"] == best["name"] and abs(mk[0]["total_us"] * scale - best["sum"]) < 1e-6
        print("%s %s_rank%s_top_%s %s" % ("PASS" if ok else "FAIL", name, rk, cat, (mk[0]["name"][:40], mk[0]["total_us"] * scale, best["sum"]) if mk else "none"))
    if want.get("type_sweep") and r["gpu_events"]:
        ts = want["type_sweep"]
        mine_kt = {k: v["us"] * scale for k, v in r["kernel_types"].items()}
        ok = mine_kt.keys() == ts.keys() and all(abs(mine_kt[k] - ts[k]) < 1e-6 for k in ts)
        print("%s %s_rank%s_kernel_types %s" % ("PASS" if ok else "FAIL", name, rk, "" if ok else (mine_kt, ts)))
    if not idle_check or "idle_by_stream" not in want:
        continue
    got = {str(x["stream"]): {"host_wait": x["host_wait_us"], "kernel_wait": x["kernel_wait_us"], "other": x["other_us"]}
           for x in r["idle_by_stream"]}
    ref_split = {k: {c: float(v) for c, v in d.items()} for k, d in want["idle_by_stream"].items()}
    if (name, rk) in (("dlrm", "1"), ("dlrm", "3")):
        # HTA joins a kernel whose launch call is missing from the trace (63 such kernels here)
        # to the file's first event (index_correlation falls back to 0), which makes their
        # 1-2 us gaps "host wait"; campaign counts them as kernel wait. Same totals per stream.
        ok = got.keys() == ref_split.keys() and all(abs(sum(got[k].values()) - sum(ref_split[k].values())) < 1e-6
                                                    and 0 <= got[k]["kernel_wait"] - ref_split[k]["kernel_wait"] < 100 for k in got)
    else:
        ok = got == ref_split
    print("%s %s_rank%s_idle_split %s" % ("PASS" if ok else "FAIL", name, rk, "" if ok else (got, want["idle_by_stream"])))
