#!/bin/bash
# Runs every test: the unit-test binaries given as arguments (built with
# ASan + UBSan) and every tests/e2e/*.sh. Each prints PASS/FAIL/SKIP lines;
# this script counts them and ends with "N passed, N failed, N skipped".
#
# The e2e scripts run in two lanes side by side: the SLURM lane (the scripts
# that start a test cluster: slurm*.sh, store_shared.sh), which mostly waits
# on the controller, and the main lane (everything else), each lane one script
# at a time; then, alone, the scripts whose checks compare timings between
# ranks under load (bottlenecks.sh, pytorch_ddp.sh). Each script's output is
# printed whole when it ends. TEST_LANES=1 runs every
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
slurm_lane=() main_lane=() solo=()
picked=" ${TEST_SCRIPTS:-} "
for t in tests/e2e/*.sh; do
	[ "${E2E:-1}" = 0 ] && break
	[ -n "$only" ] && [[ "$t" != *"$only"* ]] && continue
	[ -n "${TEST_SCRIPTS:-}" ] && [[ "$picked" != *" $(basename "$t" .sh) "* ]] && continue
	case "$(basename "$t")" in
	slurm*.sh | store_shared.sh) slurm_lane+=("$t") ;;
	bottlenecks.sh | pytorch_ddp.sh) solo+=("$t") ;;
	*) main_lane+=("$t") ;;
	esac
done
lane() { local t; for t in "$@"; do run_one "$(basename "$t")" bash "$t"; done; }
if [ "${TEST_LANES:-2}" = 1 ]; then
	lane "${slurm_lane[@]}" "${main_lane[@]}"
else
	lane "${slurm_lane[@]}" &
	slurm_pid=$!
	lane "${main_lane[@]}"
	wait "$slurm_pid"
fi
lane "${solo[@]}"
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
