#!/bin/bash
# The analyzer on the largest trace we can make from the shared ones: the 8
# DLRM ranks' events concatenated COPIES times (time-shifted) into one rank's
# Kineto file, against python3 merely loading the same JSON.
# Usage: analyzer_bench.sh TMPDIR [COPIES]
set -u
cd "$(dirname "$0")/../.."
S=../shared/traces/kineto/param_dlrm_8rank
tmp=$1 copies=${2:-27}
if [ ! -d "$S" ]; then
	echo "skipped: $S is absent (only the project's workspace has the shared traces)"
	exit 0
fi
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
size=$(du -m "$tmp/big.pt.trace.json" | cut -f1)
export CAMPAIGN_RULES=analyzers/kernel_rules.txt
/usr/bin/time -f "%e %M" -o "$tmp/ana.time" bin/campaign-analyze --json "$tmp/big.pt.trace.json" >"$tmp/ana.json"
/usr/bin/time -f "%e %M" -o "$tmp/py.time" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/big.pt.trace.json"
read -r at am <"$tmp/ana.time"
read -r pt pm <"$tmp/py.time"
events=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ranks"][0]["gpu_events"])' "$tmp/ana.json")
echo "trace: ${size} MB (8 DLRM ranks x $copies), $events GPU events"
echo "campaign-analyze (whole analysis):  $at s, peak RSS $((am / 1024)) MB"
echo "python3 json.load (load only):      $pt s, peak RSS $((pm / 1024)) MB"
python3 -c "import sys; a,p,am,pm=map(float,sys.argv[1:]); print('time: analyzer / python load = %.3f (target < 0.25); memory: %.3f' % (a/p, am/pm))" "$at" "$pt" "$am" "$pm"
