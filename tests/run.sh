#!/bin/bash
# Runs every test: the unit-test binaries given as arguments (built with
# ASan + UBSan) and every tests/e2e/*.sh. Each prints PASS/FAIL/SKIP lines;
# this script counts them and ends with "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1
run_one() {
	local name=$1 out rc start=$SECONDS
	shift
	out=$(mktemp)
	echo "== $name"
	"$@" >"$out" 2>&1
	rc=$?
	sed 's/^/   /' "$out"
	cat "$out" >>"$log"
	if [ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$out"; then
		echo "FAIL $name: exited with status $rc" | tee -a "$log"
	fi
	rm -f "$out"
	echo "   ($((SECONDS - start)) s)"
}
for t in "$@"; do
	run_one "$(basename "$t")" "$t"
done
only=${TESTS:-}
for t in tests/e2e/*.sh; do
	[ -n "$only" ] && [[ "$t" != *"$only"* ]] && continue
	run_one "$(basename "$t")" bash "$t"
done
pass=$(grep -c '^PASS' "$log")
fail=$(grep -c '^FAIL' "$log")
skip=$(grep -c '^SKIP' "$log")
echo
grep '^FAIL' "$log" | sed 's/^/failed: /'
grep '^SKIP' "$log" | sed 's/^/skipped: /'
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
