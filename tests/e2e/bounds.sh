# Time and memory bounded by the input (issue 20, point 4): a 1 MB gzip
# holding one 1 GiB JSON string is refused at once with little memory,
# named with the offset; 8/16/32 MB strings on the streaming reader cost
# nothing like their square; the decompressed-bytes limit names itself;
# a backtracking analysis.step_log pattern costs under a millisecond a line,
# the lines over its budget counted. Times are CPU seconds of the process (user +
# system), with margins of ten and more over this machine's: a machine half as fast
# or shared with other work passes, a quadratic cost (what they guard) does not.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
A=$BIN/campaign-analyze
python3 "$ROOT/tests/tools/big_string_traces.py" .
cpu() { python3 -c "import sys; print(round(float(sys.argv[1]) + float(sys.argv[2]), 2))" "$@"; }
/usr/bin/time -f "%U %S %M" -o bomb.time "$A" bomb.json.gz >bomb.out 2>&1; rc=$?
read -r us ss kb < <(tail -n 1 bomb.time)
secs=$(cpu "$us" "$ss")
check bounds_gzip_bomb_refused [ "$rc" -eq 4 ]
check bounds_gzip_bomb_named grep -q "bomb.json.gz: a string longer than 4 MiB near byte 4194329: not a trace this tool reads" bomb.out
check "bounds_gzip_bomb_fast (${secs} s)" python3 -c "import sys; sys.exit(0 if float('$secs') < 5 else 1)"
check "bounds_gzip_bomb_small (${kb} KB)" [ "$kb" -lt 200000 ]
for mb in 8 16 32; do
	/usr/bin/time -f "%U %S" -o s$mb.time "$A" str$mb.json.gz >s$mb.out 2>&1; rc=$?
	check "bounds_${mb}mb_string_refused_in_$(cpu $(tail -n 1 s$mb.time))s" bash -c '[ "$1" -eq 4 ] && grep -q "a string longer than 4 MiB" "$2"' _ "$rc" s$mb.out
done
s32=$(cpu $(tail -n 1 s32.time))
check "bounds_long_strings_linear (${s32} s)" python3 -c "import sys; sys.exit(0 if $s32 < 2 else 1)"
python3 -c "
import gzip
with gzip.open('two-mb.json.gz', 'wb') as f:
    f.write(b'{\"traceEvents\":[' + b','.join([b'{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":1}'] * 50000) + b']}')"
"$A" two-mb.json.gz >two.out 2>&1
check bounds_under_limit_read [ "$?" -eq 0 ]
CAMPAIGN_TRACE_MAX_MB=1 "$A" two-mb.json.gz >two.out 2>&1; rc=$?
check bounds_decompressed_limit_exit4 [ "$rc" -eq 4 ]
check bounds_decompressed_limit_said grep -q "two-mb.json.gz: more than 1 MiB of JSON (decompressed): not read further" two.out

# A backtracking step_log pattern against 2,000 lines it cannot match.
cat >bt.yaml <<'Y'
campaign: backtrack
workload:
  command: ["/usr/bin/awk", "BEGIN { for (i = 0; i < 2000; i++) print i \" xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx z\"; for (i = 0; i < 10; i++) print i \" xxy 10\" }"]
profile: { warmup_steps: 0, active_steps: 10 }
analysis: { step_log: { pattern: '^(?<step>\d+) (x+x+)+y (?<step_ms>\d+)$' } }
scenarios: [{ name: s, nodes: 1 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/bt" bt.yaml >bt.out 2>&1; rc=$?
run=$(rundir bt.out)
check bounds_backtracking_completes [ "$rc" -eq 0 ]
# the analysis of the run again, timed alone: its CPU seconds, not the job's wall time
/usr/bin/time -f "%U %S" -o bt.time "$A" "$run" >bt2.out 2>&1
secs=$(cpu $(tail -n 1 bt.time))
check "bounds_backtracking_bounded (${secs} s)" python3 -c "import sys; sys.exit(0 if $secs < 10 else 1)"
check bounds_backtracking_lines_counted [ "$(json "$run/summary.json" '(j["scenarios"][0]["active_steps"], j["scenarios"][0]["malformed_lines"])')" = "(10, 2000)" ]
check bounds_backtracking_said grep -q "2000 step-log lines were longer than 64 KiB or over the pattern's match budget" "$run/BOTTLENECK_ANALYSIS.md"
