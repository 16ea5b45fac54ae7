#!/bin/bash
# Runs every test: the unit-test binaries given as arguments (built with
# ASan + UBSan) and every tests/e2e/*.sh. Each prints PASS/FAIL/SKIP lines;
# this script counts them and ends with "N passed, N failed, N skipped".
#
# The e2e scripts run in lanes side by side: three SLURM lanes (the scripts
# that start a test cluster of their own: store_shared.sh; slurm.sh; the other
# slurm*.sh), which mostly wait on their controllers, and two main lanes
# (everything else, balanced by each script's usual time), each lane one
# script at a time; when the main lanes are done, the scripts whose checks
# compare timings between ranks or runs (bottlenecks.sh, pytorch_ddp.sh,
# compare_noise.sh) run one by one beside what is left of the SLURM lanes.
# Each script's output is printed whole when it ends. TEST_LANES=1 runs every
# script one after another; TESTS=word runs only the scripts whose name holds it;
# TEST_SCRIPTS="a b" only those (names without .sh); E2E=0 none. The scripts
# that failed are listed in build/tests-failed.txt (`make failed` runs them again).
set -u
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/all.log
: >"$log"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1
start_all=$SECONDS
# run_one NAME CMD...: runs one test, its PASS/FAIL/SKIP lines into the
# shared log, its whole output block onto stdout at once
run_one() {
	local name=$1 out rc start=$SECONDS
	shift
	out=$(mktemp "$work/out.XXXXXX")
	"$@" >"$out" 2>&1
	rc=$?
	{
		echo "== $name"
		sed 's/^/   /' "$out"
		if [ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$out"; then
			echo "FAIL $name: exited with status $rc"
		fi
		echo "   ($((SECONDS - start)) s)"
	} >"$out.block"
	{
		flock 9
		cat "$out.block"
		grep -q '^FAIL' "$out" && echo "$name" >>"$work/failed-scripts"
		[ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$out" && echo "$name" >>"$work/failed-scripts"
		grep -E '^(PASS|FAIL|SKIP)' "$out" >>"$log"
		[ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$out" && echo "FAIL $name: exited with status $rc" >>"$log"
	} 9>"$work/print.lock"
	rm -f "$out" "$out.block"
}
for t in "$@"; do
	run_one "$(basename "$t")" "$t"
done
only=${TESTS:-}
slurm_lanes=("" "" "") main_lanes=("" "") solo=()
main_load=(0 0)
picked=" ${TEST_SCRIPTS:-} "
# rough seconds each script takes here, to balance the main lanes (3 for the rest)
weight() {
	case "$1" in
	valgrind.sh) echo 65 ;; user_conclusions.sh) echo 30 ;; stragglers.sh) echo 26 ;; ranklogs.sh) echo 21 ;;
	secrets.sh) echo 17 ;; torchrun.sh) echo 16 ;; everyday.sh) echo 15 ;; crash_states.sh) echo 13 ;; faults.sh) echo 12 ;;
	gpu_verdicts.sh | readme.sh) echo 11 ;; paper.sh | concurrency.sh) echo 10 ;; demo_run.sh | try.sh | try_kinds.sh) echo 9 ;;
	user_traces.sh | resume.sh | fabric.sh | monitor.sh | bounds.sh) echo 7 ;; *) echo 3 ;;
	esac
}
scripts=()
for t in tests/e2e/*.sh; do
	[ "${E2E:-1}" = 0 ] && break
	[ -n "$only" ] && [[ "$t" != *"$only"* ]] && continue
	[ -n "${TEST_SCRIPTS:-}" ] && [[ "$picked" != *" $(basename "$t" .sh) "* ]] && continue
	scripts+=("$(weight "$(basename "$t")") $t")
done
# heaviest first, each to the lighter main lane; the SLURM scripts (mostly waiting on their
# controllers, each on its own cluster and ports) in three lanes of their own
while read -r w t; do
	[ -z "$t" ] && continue
	case "$(basename "$t")" in
	store_shared.sh) slurm_lanes[0]+=" $t" ;;
	slurm.sh) slurm_lanes[1]+=" $t" ;;
	slurm*.sh) slurm_lanes[2]+=" $t" ;;
	bottlenecks.sh | pytorch_ddp.sh | compare_noise.sh) solo+=("$t") ;;
	*)
		k=0
		[ "${main_load[1]}" -lt "${main_load[0]}" ] && k=1
		main_lanes[k]+=" $t"
		main_load[k]=$((main_load[k] + w))
		;;
	esac
done < <(printf '%s\n' "${scripts[@]}" | sort -rn)
lane() { local t; for t in "$@"; do run_one "$(basename "$t")" bash "$t"; done; }
# Each background lane gets a process group of its own (set -m), so that INT or TERM to this
# script stops every lane and its scripts whole (their EXIT traps stop their test clusters)
# instead of leaving them running against the next run's clusters.
pids=()
stop_lanes() {
	trap - INT TERM
	local p
	for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done
	exit 130
}
trap stop_lanes INT TERM
set -m
if [ "${TEST_LANES:-2}" = 1 ]; then
	# shellcheck disable=SC2086
	lane ${slurm_lanes[*]} ${main_lanes[*]}
else
	for l in "${slurm_lanes[@]}"; do
		# shellcheck disable=SC2086
		[ -n "$l" ] && { lane $l & pids+=($!); }
	done
	# shellcheck disable=SC2086
	lane ${main_lanes[0]} &
	m=$!
	pids+=("$m")
	# shellcheck disable=SC2086
	lane ${main_lanes[1]}
	wait "$m"
fi
# the scripts that compare timings between ranks or runs: without the main lanes' load
lane "${solo[@]}"
[ "${TEST_LANES:-2}" = 1 ] || wait "${pids[@]}" 2>/dev/null
mkdir -p build
sed 's/\.sh$//' "$work/failed-scripts" 2>/dev/null | sort -u >build/tests-failed.txt
pass=$(grep -c '^PASS' "$log")
fail=$(grep -c '^FAIL' "$log")
skip=$(grep -c '^SKIP' "$log")
echo
grep '^FAIL' "$log" | sed 's/^/failed: /'
grep '^SKIP' "$log" | sed 's/^/skipped: /'
echo "tests took $((SECONDS - start_all)) s"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
