# SPDX-License-Identifier: MIT
"""median_ratio.py TOP_METRICS BOTTOM_METRICS [--rate] [--means]: an independent recount, from the
trainer's rank_<r>.jsonl files, of a ratio the analysis reports with a 95 % bootstrap interval
(tests/e2e/compare_noise.sh): per active step its time as tests/tools/telemetry_median.py
recounts it (the period between the ends of consecutive steps' last all-reduces, else the
slowest rank's step_ms), the median over steps; the ratio is TOP's median over BOTTOM's (campaign compare's median step: candidate
over reference), or with --rate the ratio of samples per second, TOP's global batch / median
over BOTTOM's (a speedup: the scenario TOP against its baseline BOTTOM); with --means of the
mean steps instead (a speedup the analysis gives by the means). Prints one JSON
object: ratio, steps (per side) and lo, hi: a percentile bootstrap of its own (Python's
random, 2000 resamples), to judge whether the analysis's interval is plausible; the analysis's
need not equal it."""
import glob, json, os, random, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import telemetry_median  # noqa: E402  (beside this file)


def steps_of(d):
    """(the active steps' times, global batch) of one metrics dir"""
    batch = None
    for f in sorted(glob.glob(d + "/rank_*.jsonl")):
        for line in open(f):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("type") == "meta" and r.get("global_batch"):
                batch = r["global_batch"]
    return telemetry_median.step_times(d), batch


def period(v):
    """the lag of v's strongest autocorrelation (2 to n / 3, at most 64) where it is 0.5 or more"""
    n, m = len(v), statistics.mean(v)
    den = sum((x - m) ** 2 for x in v)
    best, best_r = 1, 0.5
    for lag in range(2, min(n // 3, 64) + 1) if n >= 6 and den > 0 else []:
        r = sum((v[i] - m) * (v[i + lag] - m) for i in range(n - lag)) / den * n / (n - lag)
        if r > best_r + 1e-12:
            best, best_r = lag, r
    return best


def blocks(rng, v, b):
    """v resampled in circular blocks of b values from random starts"""
    out = []
    while len(out) < len(v):
        at = rng.randrange(len(v))
        out += [v[(at + k) % len(v)] for k in range(b)][:len(v) - len(out)]
    return out


def main():
    args = [a for a in sys.argv[1:] if a not in ("--rate", "--means")]
    rate = "--rate" in sys.argv[1:]
    mid = statistics.mean if "--means" in sys.argv[1:] else statistics.median
    if len(args) != 2:
        sys.exit(__doc__)
    (top, bt), (bottom, bb) = steps_of(args[0]), steps_of(args[1])
    # a rate moves against the step time: TOP's samples/s over BOTTOM's
    f = (bt / bb) if rate else 1.0
    ratio = lambda t, b: f * (mid(b) / mid(t) if rate else mid(t) / mid(b))
    rng = random.Random(1)
    # a mean's resamples in circular blocks of the steps' period where they repeat with one
    # (autocorrelation 0.5 or more at a lag of 2 to n / 3), as the analysis draws them
    bt_, bb_ = (period(top), period(bottom)) if mid is statistics.mean else (1, 1)
    q = sorted(ratio(blocks(rng, top, bt_), blocks(rng, bottom, bb_)) for _ in range(2000))
    pct = lambda p: q[min(len(q) - 1, int(round(p / 100 * (len(q) - 1))))]
    print(json.dumps({"ratio": ratio(top, bottom), "lo": pct(2.5), "hi": pct(97.5),
                      "steps": [len(top), len(bottom)]}))


main()
