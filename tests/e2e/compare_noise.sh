# campaign compare says better or worse only beyond the noise: two runs of
# the same workload (step times drawn from one distribution, other seeds)
# are "within noise" with the 95 % interval printed; a run 30 % slower is
# "worse", and its interval excludes 1 (issue 21, finding 7).
# lane: solo (compares timings: runs alone after the main lanes, tests/run.sh)
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
run_of() { # NAME SEED BASE_MS
	cat >"$1.yaml" <<Y
campaign: noise
workload:
  command: ["/usr/bin/awk", "-v", "seed=$2", "-v", "base=$3", "BEGIN { srand(seed); for (i = 0; i < 60; i++) printf \"step %d time %.3f ms\\\\n\", i, base + 20 * rand() }"]
profile: { warmup_steps: 0, active_steps: 60 }
analysis: { step_log: { pattern: 'step (?<step>\\d+) time (?<step_ms>[0-9.]+) ms' } }
scenarios: [{ name: s, nodes: 1 }]
Y
	"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" "$1.yaml" >"$1.out" 2>&1
	basename "$(rundir "$1.out")"
}
a=$(run_of a 1 100); sleep 1.1
b=$(run_of b 2 100); sleep 1.1
c=$(run_of c 3 130)
"$CAMPAIGN" compare --results "$SCRATCH/res" "$a" "$b" >ab.txt 2>&1
"$CAMPAIGN" compare --json --results "$SCRATCH/res" "$a" "$b" >ab.json 2>&1
"$CAMPAIGN" compare --json --results "$SCRATCH/res" "$a" "$c" >ac.json 2>&1
check compare_steps_recorded [ "$(json "$(dirname "$(rundir a.out)")/$a/summary.json" 'len(j["scenarios"][0]["step_times_ms"])')" = 60 ]
check compare_same_within_noise [ "$(json ab.json 'j["scenarios"]["s"]["metrics"]["median step (ms)"]["better"]')" = "within noise" ]
check compare_same_interval_has_1 [ "$(json ab.json 'j["scenarios"]["s"]["metrics"]["median step (ms)"]["ratio_95ci"][0] <= 1 <= j["scenarios"]["s"]["metrics"]["median step (ms)"]["ratio_95ci"][1]')" = True ]
check compare_text_says grep -q "median step (ms) .*within noise (95 % CI 0\.[0-9]*-1\.[0-9]*)" ab.txt
check compare_slower_worse [ "$(json ac.json 'j["scenarios"]["s"]["metrics"]["median step (ms)"]["better"]')" = False ]
check compare_slower_interval_above_1 [ "$(json ac.json 'j["scenarios"]["s"]["metrics"]["median step (ms)"]["ratio_95ci"][0] > 1')" = True ]
"$CAMPAIGN" compare --json --results "$SCRATCH/res" "$a" "$b" >ab2.json 2>&1
check compare_interval_reproducible cmp -s ab.json ab2.json
# efficiency is against each run's own baseline: the step times' interval is not its (a
# baseline is 1.000 on both sides, however much slower the run)
check compare_efficiency_no_interval [ "$(json ac.json '(j["scenarios"]["s"]["metrics"]["efficiency"]["ratio"], j["scenarios"]["s"]["metrics"]["efficiency"]["ratio_95ci"], j["scenarios"]["s"]["metrics"]["efficiency"]["better"])')" = "(1.0, None, None)" ]
