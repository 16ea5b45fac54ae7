#!/bin/bash
# The analyzer against python3 merely loading the same JSON (json.load; for
# gzip, json.load(gzip.open(...))): time and peak RSS at -j 1 and -j 2 (best
# of 3, Python's too: the machine is shared), the ratios to Python (goals: time <= 0.10,
# memory <= 0.25), the share of reading against analysis, and whether the
# output is the same at -j 1, -j 2 and with the streaming yajl reader.
# Beside them, at the default -j (one thread per CPU), the floor: simdjson's
# bare On-Demand walk of the same file (tests/bench/simdjson_floor.cc, the
# whole file loaded, one thread). Shapes: HTA's A100 rank (nccl_data.json)
# 5 times, correlation ids apart (43 MB, 203k events: 34 % flow events,
# 35 % cpu_op, 22 % runtime calls, 9 % kernels and copies; issue 36's
# shape), the 8 DLRM ranks' events concatenated COPIES times into one file
# (GPU-heavy, 169 MB at 27), the 8 DLRM files themselves, a generated
# 150 MB host-range-heavy trace, the same as a legacy array, and gzipped.
# Usage: analyzer_bench.sh TMPDIR [COPIES]
# SPDX-License-Identifier: MIT
set -u
cd "$(dirname "$0")/../.."
S=../shared/traces/kineto/param_dlrm_8rank
H=../shared/traces/kineto/hta_nccl_data/nccl_data.json
tmp=$1 copies=${2:-27}
export CAMPAIGN_RULES=analyzers/kernel_rules.txt

# py FILE...: "seconds kilobytes" of python3 loading them, the best of 3 (as the analyzer's)
py() {
	local b='' line
	for _ in 1 2 3; do
		build/bench/wall "$tmp/py.time" python3 -c 'import gzip,json,sys
for f in sys.argv[1:]: json.load(gzip.open(f) if f.endswith(".gz") else open(f))' "$@"
		line=$(cat "$tmp/py.time")
		if [ -z "$b" ] || python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)' "${line%% *}" "${b%% *}"; then b=$line; fi
	done
	echo "$b"
}

# floor FILE: "seconds kilobytes" of simdjson's bare walk, the best of 3
floor() {
	local b='' line
	for _ in 1 2 3; do
		build/bench/wall "$tmp/floor.time" build/bench/simdjson_floor "$1" >/dev/null
		line=$(cat "$tmp/floor.time")
		if [ -z "$b" ] || python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)' "${line%% *}" "${b%% *}"; then b=$line; fi
	done
	echo "$b"
}

# best J OUT FILE...: "seconds kilobytes read_s analysed_s replay_s" of the best of 3 runs at
# -j J (replay_s: building and simulating the files' execution graph, beside the analysis of
# the files it keeps)
best() {
	local j=$1 out=$2; shift 2
	local b= line
	for i in 1 2 3; do
		# the wall time to the microsecond, from the fork to the exit (tests/bench/wall.c)
		CAMPAIGN_ANALYZE_TIMES=1 build/bench/wall "$tmp/ana.time" \
			bin/campaign-analyze --json -j "$j" "$@" >"$out" 2>"$tmp/ana.err"
		line="$(cat "$tmp/ana.time") $(awk '/: read / { r += $(NF-1) }
			/: analysed / { a += $(NF-1) } /: replay of / { p += $(NF-1) } END { print r, a, p + 0 }' "$tmp/ana.err")"
		if [ -z "$b" ] || python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)' "${line%% *}" "${b%% *}"; then b=$line; fi
	done
	echo "$b"
}

# rate LABEL FILE...
rate() {
	local label=$1; shift
	read -r pt pm <<<"$(py "$@")"
	read -r t1 m1 r1 a1 p1 <<<"$(best 1 "$tmp/j1.json" "$@")"
	read -r t2 m2 r2 a2 _ <<<"$(best 2 "$tmp/j2.json" "$@")"
	# the default -j: one thread per CPU (-j 1 or -j 2 above on 1 or 2 CPUs)
	local dj td md fl=
	dj=$(nproc)
	case $dj in
	1) td=$t1 md=$m1 ;;
	2) td=$t2 md=$m2 ;;
	*) read -r td md _ <<<"$(best "$dj" "$tmp/jd.json" "$@")" ;;
	esac
	[ $# = 1 ] && [ "${1%.gz}" = "$1" ] && fl=$(floor "$1")
	CAMPAIGN_SIMDJSON_MAX_MB=0 bin/campaign-analyze --json -j 1 "$@" >"$tmp/yajl.json" 2>/dev/null
	local same=identical
	cmp -s "$tmp/j1.json" "$tmp/j2.json" && cmp -s "$tmp/j1.json" "$tmp/yajl.json" || same=DIFFERENT
	python3 - "$label" "$pt" "$pm" "$t1" "$m1" "$r1" "$a1" "$t2" "$m2" "$r2" "$a2" "$same" \
		"$dj" "$td" "$md" "$p1" ${fl:+$fl} <<'PY'
import sys
label, same = sys.argv[1], sys.argv[12]
pt, pm, t1, m1, r1, a1, t2, m2, r2, a2 = map(float, sys.argv[2:12])
dj, td, md, p1 = int(sys.argv[13]), float(sys.argv[14]), float(sys.argv[15]), float(sys.argv[16])
fl = " simdjson floor (bare On-Demand walk, one thread) %.3f s, %.0f MB;" % (
    float(sys.argv[17]), float(sys.argv[18]) / 1024) if len(sys.argv) > 18 else ""
print(f"{label}: python3 json.load {pt:.2f} s, {pm / 1024:.0f} MB")
for j, t, m, r, a in ((1, t1, m1, r1, a1), (2, t2, m2, r2, a2)):
    share = f"reading {100 * r / (r + a):.0f} %, analysis {100 * a / (r + a):.0f} %" if r + a > 0 else ""
    print(f"  -j {j}: {t:.2f} s, {m / 1024:.0f} MB peak RSS; / python3: time {t / pt:.3f}, "
          f"memory {m / pm:.3f} (goals <= 0.10, <= 0.25); {share}")
print(f"  output at -j 1, -j 2 and with the yajl reader: {same}")
if r1 > 0:
    print(f"  the replay (graph built and simulated, -j 1): {p1:.3f} s against reading {r1:.3f} s: "
          f"{p1 / r1:.2f}x (goal: at most 1.00x)" if p1 > 0 else "  the replay: none (see replay_why)")
print(f"  at the default -j {dj}: reader {td:.3f} s, {md / 1024:.0f} MB; json.load {pt:.2f} s, "
      f"{pm / 1024:.0f} MB;{fl} time {td / pt:.3f}, memory {md / pm:.3f} (goals <= 0.10, <= 0.25)")
PY
}

# goal FILE ROUNDS: issue 47's goal, the whole analysis at the default -j at most 0.10x Python's
# json.load of FILE, measured in rounds of one load then one analysis, so that both see the
# same minute of a noisy machine (a best of 3 of a 17 ms run moves by 4 ms from one minute to
# the next here): the median of the rounds' ratios, their range, and the best against the best
goal() {
	local f=$1 rounds=$2 i
	: >"$tmp/goal.txt"
	for ((i = 0; i < rounds; i++)); do
		build/bench/wall "$tmp/py.time" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f"
		build/bench/wall "$tmp/ana.time" bin/campaign-analyze --json "$f" >/dev/null
		echo "$(cut -d' ' -f1 "$tmp/py.time") $(cut -d' ' -f1 "$tmp/ana.time")" >>"$tmp/goal.txt"
	done
	python3 - "$tmp/goal.txt" <<'PY'
import statistics, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
r = sorted(a / p for p, a in rows)
print("  in %d rounds of one json.load then one whole analysis (default -j): time / python3 median %.3f"
      " (%.3f-%.3f; goal <= 0.10); analysis median %.1f ms, best %.1f; json.load median %.0f ms, best %.0f;"
      " best / best %.3f" % (len(rows), statistics.median(r), r[0], r[-1],
      1e3 * statistics.median(a for _, a in rows), 1e3 * min(a for _, a in rows),
      1e3 * statistics.median(p for p, _ in rows), 1e3 * min(p for p, _ in rows),
      min(a for _, a in rows) / min(p for p, _ in rows)))
PY
}

if [ -f "$H" ]; then
	# the largest shared trace as it is: the replay's cost against its reading (issue 47)
	rate "HTA's A100 rank, the largest shared trace ($(du -m "$H" | cut -f1) MB, one file)" "$H"
	goal "$H" 15
	python3 - "$tmp/nccl5.pt.trace.json" 5 "$H" <<'PY'
import json, sys
out, copies, src = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ev = json.load(open(src))["traceEvents"]
span = max(e.get("ts", 0) + e.get("dur", 0) for e in ev) - min(e["ts"] for e in ev if "ts" in e)
corr = 1 + max(e.get("args", {}).get("correlation", 0) for e in ev)
with open(out, "w") as f:
    f.write('{"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [\n')
    first = True
    for c in range(copies):
        for e in ev:
            if "ts" in e:
                e = dict(e, ts=e["ts"] + c * span * 1.1)
            if "correlation" in e.get("args", {}):  # one launch per kernel, as in one trace
                e = dict(e, args=dict(e["args"], correlation=e["args"]["correlation"] + c * corr))
            f.write(("" if first else ",\n") + json.dumps(e))
            first = False
    f.write("\n]}\n")
PY
	rate "HTA's A100 rank x 5, issue 36's shape ($(du -m "$tmp/nccl5.pt.trace.json" | cut -f1) MB, one file)" "$tmp/nccl5.pt.trace.json"
	rm -f "$tmp/nccl5.pt.trace.json"
else
	echo "the A100 shape skipped: $H is absent (only the project's workspace has the shared traces)"
fi
python3 tests/tools/gen_traces.py --ranks 1 --mb 150 --out "$tmp/gen1" >/dev/null
gen=$(ls "$tmp"/gen1/*.json)
if [ -d "$S" ]; then
	python3 - "$tmp/big.pt.trace.json" "$copies" "$S"/worker*.json <<'PY'
import json, sys
out, copies, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
ranks = [json.load(open(f))["traceEvents"] for f in files]
span = max(e.get("ts", 0) + e.get("dur", 0) for r in ranks for e in r) - min(e["ts"] for r in ranks for e in r if "ts" in e)
with open(out, "w") as f:
    f.write('{"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [\n')
    first = True
    for c in range(copies):
        for r in ranks:
            for e in r:
                if "ts" in e:
                    e = dict(e, ts=e["ts"] + c * span * 1.1)
                f.write(("" if first else ",\n") + json.dumps(e))
                first = False
    f.write("\n]}\n")
PY
	rate "DLRM x $copies, GPU-heavy ($(du -m "$tmp/big.pt.trace.json" | cut -f1) MB, one file)" "$tmp/big.pt.trace.json"
	rm -f "$tmp/big.pt.trace.json"
	rate "the 8 DLRM ranks ($(du -cm "$S"/worker*.json | tail -n 1 | cut -f1) MB, 8 files)" "$S"/worker*.json
else
	echo "DLRM shapes skipped: $S is absent (only the project's workspace has the shared traces)"
fi
rate "generated, host-range-heavy ($(du -m "$gen" | cut -f1) MB, one file)" "$gen"
{ echo "["; sed '1d;$d' "$gen"; echo "]"; } >"$tmp/legacy.pt.trace.json"
rm -f "$gen"
rate "the same as a legacy array" "$tmp/legacy.pt.trace.json"
gzip -1 "$tmp/legacy.pt.trace.json"
rate "the same gzipped ($(du -m "$tmp/legacy.pt.trace.json.gz" | cut -f1) MB)" "$tmp/legacy.pt.trace.json.gz"
rm -f "$tmp/legacy.pt.trace.json.gz"
