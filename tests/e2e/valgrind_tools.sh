# The command-line tools under valgrind (memcheck), beside tests/e2e/valgrind.sh's demo run
# (split from it so that the two halves run in two lanes: under valgrind a process's start
# costs 1 to 2.5 CPU seconds, and the whole was the suite's longest script): campaign-analyze
# on a Kineto trace and an Nsight Systems export, campaign validate on the GPU campaign and
# on some of the loader's hostile corpus, the launcher with two ranks, and the node monitor,
# each with no memory error and no leak (definite or indirect).
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
valgrind_setup valgrind_tools || exit 0
vg analyze_kineto 0 "$BIN/campaign-analyze" --json "$ROOT/tests/fixtures/mini.pt.trace.json"
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[2]); c.executescript(open(sys.argv[1]).read()); c.commit()' \
	"$ROOT/tests/fixtures/mini_nsys.sql" mini.sqlite
vg analyze_nsys 0 "$BIN/campaign-analyze" mini.sqlite
vg validate_demo 0 "$CAMPAIGN" validate "$ROOT/campaigns/profiling.yaml"
# a few of the loader's hostile corpus (fuzz_replay.sh runs all of it under ASan, UBSan and
# the leak checker): an alias bomb, a syntax error, a deep nesting, an unknown key
bad=0
for f in "$ROOT"/tests/corpus/{alias-bomb,syntax,deep-nesting,unknown-key}.yaml; do
	$V "$CAMPAIGN" validate "$f" >corpus.out 2>&1
	[ $? -eq 2 ] || { bad=1; echo "valgrind: $f: $(grep -m 3 '==[0-9]*==' corpus.out | tr '\n' ' ')"; }
done
check valgrind_corpus_errors_clean [ "$bad" -eq 0 ]
# the launcher (its ranks' code ran under valgrind in the demo's jobs)
mkdir rdz
vg launch_two_ranks 0 "$CAMPAIGN" launch --nodes 1 --tasks-per-node 2 -- "$BIN/campaign-trainer" --steps 3 --warmup-steps 1 \
	--hidden 64 --metrics-dir m --rendezvous rdz
$V "$BIN/campaign-monitor" --dir mon --interval-ms 100 >monitor.out 2>&1 &
# stopped once it has written a sample, the line after the header of mon/<node>/cpu_monitor.csv
# (under valgrind on a loaded machine its start takes seconds: a fixed sleep could stop it
# before its handler is in place)
samples() { cat mon/*/cpu_monitor.csv 2>/dev/null | wc -l; }
for _ in $(seq 600); do
	[ "$(samples)" -ge 2 ] && break
	sleep 0.1
done
kill -TERM $!
wait $!
rc=$?
check valgrind_monitor [ "$rc" -eq 0 ]
check valgrind_monitor_wrote [ "$(samples)" -ge 2 ]

