# SPDX-License-Identifier: MIT
"""What compare and paper show of a variant's checked predictions (campaign try), set
against its summary.json.

    checked_views.py row SUMMARY FMT SEP END     the first check's row, numbers with FMT:
                                                 SEP "cols" compare's columns, else SEP-joined + END
    checked_views.py compare-json CMP.json SUMMARY PARENT_ID CHILD_ID
                                                 compare --json's block is the summary's checks
    checked_views.py tex-rows TABLE.tex SUMMARY  the LaTeX table's rows are the checks, in order"""
import json
import sys


def outcome_cell(k):
    """The outcome as shown: the measured change heads it when there is one."""
    ch = k.get("measured_change")
    return ((ch + ": " if ch and k["ci_low"] is not None else "") + k["outcome"]
            + (" as no gain" if k.get("no_gain") else "")
            + (" (by the means)" if k.get("by_means") else ""))


def error_cell(k):
    p, m = k["predicted_step_ms"], k["measured_step_ms"]
    return "n/a" if not p or not m else "%+.1f" % (100 * (m / p - 1))


def row(summary, fmt, sep, end):
    k = json.load(open(summary))["checked_predictions"][0]
    f = lambda v: "n/a" if v is None else fmt % v
    ci = "n/a" if None in (k["ci_low"], k["ci_high"]) else f(k["ci_low"]) + " to " + f(k["ci_high"])
    cells = [k["scenario"], f(k["parent_step_ms"]), f(k["predicted_step_ms"]),
             f(k["measured_step_ms"]), ci, outcome_cell(k)]
    if sep != "cols":  # the report and the paper: the prediction's interval, and the measured
        # against the prediction, in % of it
        iv, basis = k["predicted_interval_ms"], k["prediction_basis"]
        cells.insert(3, "ceiling" if basis == "ceiling" else "n/a" if iv is None else
                     f(iv[0]) + " to " + f(iv[1]) + (" (bound)" if basis == "bound" else ""))
        cells.append(error_cell(k))
    if sep == " & ":  # LaTeX: the paper escapes % (the only special character of these cells)
        cells = [c.replace("%", "\\%") for c in cells]
    print("  %-20s %14s %14s %14s  %-22s %s" % tuple(cells) if sep == "cols" else sep.join(cells) + end)


def compare_json(cmp, summary, pid, cid):
    d = json.load(open(cmp))["predicted_and_measured"]
    c = json.load(open(summary))
    assert d["checked_predictions"] == c["checked_predictions"], d
    assert (d["variant"], d["variant_run"], d["of"], d["kind"]) == ("candidate", cid, pid, "communication"), d
    assert d["knob"] == {"params": {"ddp": "bucketed"}}, d


def tex_rows(tex, summary):
    rows = open(tex).read().split("\\midrule\n")[1].split("\\bottomrule")[0].splitlines()
    ck = json.load(open(summary))["checked_predictions"]
    assert [r.split(" & ")[0] for r in rows] == [k["scenario"] for k in ck], (rows, ck)
    assert [r.split(" & ")[-2] for r in rows] == [outcome_cell(k).replace("%", "\\%") for k in ck], (rows, ck)
    assert [r.split(" & ")[-1] for r in rows] == [error_cell(k) + " \\\\" for k in ck], (rows, ck)


{"row": row, "compare-json": compare_json, "tex-rows": tex_rows}[sys.argv[1]](*sys.argv[2:])
