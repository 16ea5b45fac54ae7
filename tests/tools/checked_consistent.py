# SPDX-License-Identifier: MIT
"""Asserts that a variant run's checked predictions (campaign try) are the parent's and the
variant's own numbers, and that each outcome follows from them by the documented rule: a
scenario measured beside other load (its contaminated_by set in the variant or in the
parent) is not checked; a batch prediction (for the batch per rank doubled) is checked only
where the variant's global batch is twice the parent's.

    python3 checked_consistent.py PARENT/summary.json CHILD/summary.json KIND

Prints one line per check: scenario, parent, predicted, measured, interval, outcome."""
import json
import statistics
import sys


def bound(x):
    """An interval's bound set against 1, with the decimals (2 or more) that print it apart
    from 1 unless it is 1: 0.996 is 0.996, not 1.00, which would read as 1."""
    d = 2
    while d < 6 and x != 1 and abs(x - 1) < 0.5 * 10 ** -d:
        d += 1
    return "%.*f" % (d, x)


def main():
    p = json.load(open(sys.argv[1]))
    c = json.load(open(sys.argv[2]))
    kind = sys.argv[3]
    recs = [r for r in p["recommendations"] if r["kind"] == kind]
    assert recs, "the parent recommends nothing of kind %s" % kind
    pred_of, mean_of = {}, {}
    for r in recs:
        for name, pr, pm in zip(r["scenarios"], r["predicted_step_ms"],
                                r.get("predicted_mean_ms") or [None] * len(r["scenarios"])):
            pred_of.setdefault(name, pr)
            mean_of.setdefault(name, pm)
    med = {s["name"]: s["step_time_ms"]["median"] for s in p["scenarios"]}
    pmean = {s["name"]: statistics.fmean(s["step_times_ms"]) for s in p["scenarios"] if s.get("step_times_ms")}
    csteps = {s["name"]: s.get("step_times_ms") or [] for s in c["scenarios"]}
    psteps = {s["name"]: s.get("step_times_ms") or [] for s in p["scenarios"]}
    gb = {s["name"]: s.get("global_batch") for s in p["scenarios"]}
    cmed = {s["name"]: s["step_time_ms"]["median"] for s in c["scenarios"]}
    cgb = {s["name"]: s.get("global_batch") for s in c["scenarios"]}
    dirty = {s["name"]: s.get("contaminated_by") is not None for s in c["scenarios"]}
    for s in p["scenarios"]:
        if s["name"] in dirty and s.get("contaminated_by") is not None:
            dirty[s["name"]] = True
    ck = c["checked_predictions"]
    assert sorted(k["scenario"] for k in ck) == sorted(pred_of), (ck, pred_of)
    assert c["variant"]["of"] == p["run_id"] and c["variant"]["kind"] == kind, c["variant"]
    for k in ck:
        name, pred = k["scenario"], k["predicted_step_ms"]
        # by the means where the prediction has one and either side's steps are not alike
        # (the mean over 25 % from the median): its numbers are then the means'
        # (the summary's numbers are rounded: within 0.5 % of the threshold either is right)
        unalike = lambda md, mn: md and mn and abs(mn / md - 1) > 0.25
        near = lambda md, mn: md and mn and abs(abs(mn / md - 1) - 0.25) < 0.005
        other0 = kind == "batch" and not (gb[name] and cgb[name] == 2 * gb[name])
        scale0 = gb[name] / cgb[name] if gb[name] and cgb[name] and gb[name] != cgb[name] else 1.0
        vmean = statistics.fmean(csteps[name]) * scale0 if csteps[name] else None
        # (the parent's steps not alike count too, as analyzers/prediction_check.c decides)
        means = (not other0 and not dirty[name] and mean_of.get(name) is not None and pred_of[name] is not None
                 and (unalike(cmed[name] * scale0, vmean) or unalike(pred_of[name], mean_of[name])
                      or unalike(med[name], pmean.get(name))))
        close = (near(cmed[name] * scale0, vmean) or near(pred_of[name], mean_of.get(name))
                 or near(med[name], pmean.get(name)))
        assert k["by_means"] == bool(means) or close, (k, mean_of.get(name), vmean, cmed[name])
        means = k["by_means"]
        if means:
            md = k["medians"]
            assert (md["parent_step_ms"], md["predicted_step_ms"]) == (med[name], pred_of[name]), k
            assert abs(md["measured_step_ms"] - cmed[name] * scale0) <= 0.002 * max(1, scale0), k
            assert abs(k["parent_step_ms"] - pmean[name]) <= 0.0015, (k, pmean[name])
            assert k["predicted_step_ms"] == mean_of[name], k
            assert abs(k["measured_step_ms"] - vmean) <= 0.0015 * max(1, scale0), (k, vmean)
            med[name], pred_of[name], cmed[name] = k["parent_step_ms"], mean_of[name], vmean / scale0
            pred = k["predicted_step_ms"]
        assert k["kind"] == kind and k["parent_step_ms"] == med[name], k
        # a batch prediction is for the batch doubled: a variant of another batch has none
        other = kind == "batch" and not (gb[name] and cgb[name] == 2 * gb[name])
        assert pred == (None if other else pred_of[name]), (k, pred_of[name], gb, cgb)
        scale = 1.0
        if gb[name] and cgb[name] and gb[name] != cgb[name]:
            scale = gb[name] / cgb[name]
            assert k["variant_batch"] == cgb[name], k
        else:
            assert k["variant_batch"] is None, k
        assert abs(k["measured_step_ms"] - round(cmed[name] * scale, 3)) <= 0.0015, (k, cmed)
        lo, hi, m, par = k["ci_low"], k["ci_high"], k["measured_step_ms"], k["parent_step_ms"]
        # no interval from fewer than 5 steps on a side (every interval of the report)
        few = len(csteps[name]) < 5 or len(psteps[name]) < 5
        assert (lo is None and hi is None) if few else 0 < lo <= hi, k
        if pred is None:
            want = "no prediction"
        elif dirty[name]:
            want = "not checked (measured beside other load)"
        elif pred > 0 and abs(m / pred - 1) <= 0.10:
            want = "confirmed"
        elif (k.get("predicted_interval_ms") and k["predicted_interval_ms"][0] <= m <= k["predicted_interval_ms"][1]
              and not k["predicted_interval_ms"][0] <= par <= k["predicted_interval_ms"][1]):
            want = "confirmed"  # (an interval holding the parent's step too confirms nothing)
        elif pred > par * 0.98 and (m >= par * 0.98 or (not few and lo <= par <= hi)):
            want = "confirmed"  # "no gain predicted", and the step gained no more
            assert k["no_gain"] is True, k
        elif few:
            want = "too few steps to tell"
        elif lo <= par <= hi:
            want = "within noise"
        else:
            want = "better than predicted" if m < pred else "worse than predicted"
        assert k["outcome"] == want, (k, want)
        if not (want == "confirmed" and pred > par * 0.98 and abs(m / pred - 1) > 0.10):
            assert k["no_gain"] is False, k
        per = " per sample" if k["variant_batch"] is not None else ""
        if few:
            assert k["measured_change"] is None, k
            print("%s %s: parent %.2f ms, measured %.2f ms: %s" % (kind, name, par, m, want))
            continue
        a, b = (par / hi, par / lo) if hi < par else (lo / par, hi / par)
        ci = "(95 %% CI %s-%sx)" % (bound(a), bound(b))
        if hi < par:
            change = "%.2fx faster%s %s" % (par / m, per, ci)
        elif lo > par:
            change = "%.2fx slower%s %s" % (m / par, per, ci)
        else:
            change = "no measurable change%s %s" % (per, ci[:-1] + " the parent's)")
        assert k["measured_change"] == change, (k, change)
        missed = (want in ("worse than predicted", "better than predicted")
                  or (want == "within noise" and pred < lo))
        assert (k["miss"] is not None) == missed, k
        print("%s %s: parent %.2f ms, predicted %s ms, measured %.2f ms (95 %% CI %.2f to %.2f): %s: %s"
              % (kind, name, par, "n/a" if pred is None else "%.2f" % pred, m, lo, hi, change, want))


main()
