#!/bin/bash
# Runs every test: the unit-test binaries given as arguments (built with
# ASan + UBSan) and every tests/e2e/*.sh. Each prints PASS/FAIL/SKIP lines;
# this script counts them and ends with "N passed, N failed, N skipped".
#
# The e2e scripts run in nine lanes side by side, each taking the next script from a queue
# when its last one ends, heaviest first (LPT): five SLURM lanes take the scripts that start
# a test cluster of their own (each on its own ports, "# lane: slurm" in their top comment),
# which mostly wait on their controllers, and when none is left the others' scripts too; four
# main lanes take everything else. When all lanes are done, the scripts whose checks compare
# timings between ranks or runs ("# lane: solo": bottlenecks.sh, pytorch_ddp.sh,
# compare_noise.sh) run one by one, alone. A script's weight is its wall time in the last
# run that ran it, recorded in build/test-times.txt ("NAME SECONDS", written at the end of
# every run), else tests/test-times.txt's (committed: a fresh clone's first run), else
# DEFAULT_WEIGHT seconds. At the end: each lane's time and the ten slowest scripts, with the
# CPU seconds each used (its own cpuacct cgroup where one can be made), all of them in
# build/test-wall-cpu.txt.
# Each script's output is printed whole when it ends. TEST_LANES=1 runs every
# script one after another; TESTS=word runs only the scripts whose name holds it;
# TEST_SCRIPTS="a b" only those (names without .sh); E2E=0 none; TEST_PLAN=1 prints
# the queues and runs nothing; TEST_MAIN_LANES=N runs N main lanes (default 4),
# TEST_SLURM_LANES=N N SLURM lanes (default 5). The scripts that failed are listed in
# build/tests-failed.txt (`make failed` runs them again).
# SPDX-License-Identifier: MIT
set -u
cd "$(dirname "$0")/.."
work=$(mktemp -d)
log=$work/all.log
: >"$log"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
# what scripts share in a run of the suite (tests/lib.sh): the runs several read alike
# (shared_submit), submitted once, and whether PyTorch is there (need_torch), asked once
export CAMPAIGN_TEST_SHARED=$work/shared
mkdir "$CAMPAIGN_TEST_SHARED"
export UBSAN_OPTIONS=print_stacktrace=1
start_all=$SECONDS
# a cpuacct cgroup (v1) for the tests' CPU seconds, where this user may make one
acct=""
if [ -w /sys/fs/cgroup/cpuacct ] && mkdir -p /sys/fs/cgroup/cpuacct/campaign-tests 2>/dev/null; then
	acct=$(mktemp -d /sys/fs/cgroup/cpuacct/campaign-tests/run.XXXXXX 2>/dev/null) || acct=""
fi
trap 'rm -rf "$work"; [ -n "$acct" ] && rmdir "$acct"/t.* "$acct" 2>/dev/null' EXIT
# run_one NAME CMD...: runs one test, its PASS/FAIL/SKIP lines into the
# shared log, its whole output block onto stdout at once
run_one() {
	local name=$1 out rc start=$SECONDS
	shift
	out=$(mktemp "$work/out.XXXXXX")
	# its CPU seconds: those of its own cpuacct cgroup where one can be made (every process it
	# starts, daemons and their jobs too), else bash's times (the children it waited for)
	local cg="" cpu
	[ -n "$acct" ] && cg=$(mktemp -d "$acct/t.XXXXXX" 2>/dev/null)
	(
		[ -n "$cg" ] && echo "$BASHPID" >"$cg/cgroup.procs" 2>/dev/null
		"$@" >"$out" 2>&1
		rc=$?
		times >"$out.cpu"
		exit $rc
	)
	rc=$?
	# (-r, not -s: a cgroup file says it holds 0 bytes)
	if [ -n "$cg" ] && [ -r "$cg/cpuacct.usage" ] && [ "$(cat "$cg/cpuacct.usage")" != 0 ]; then
		cpu=$(awk '{ printf "%d\n", $1 / 1e9 + 0.5 }' "$cg/cpuacct.usage")
	else
		cpu=$(cpu_seconds "$out.cpu")
	fi
	[ -n "$cg" ] && rmdir "$cg" 2>/dev/null
	{
		echo "== $name"
		sed 's/^/   /' "$out"
		if [ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$out"; then
			echo "FAIL $name: exited with status $rc"
		fi
		echo "   ($((SECONDS - start)) s, CPU $cpu s)"
	} >"$out.block"
	{
		flock 9
		cat "$out.block"
		grep -q '^FAIL' "$out" && echo "$name" >>"$work/failed-scripts"
		[ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$out" && echo "$name" >>"$work/failed-scripts"
		grep -E '^(PASS|FAIL|SKIP)' "$out" >>"$log"
		[[ "$name" == *.sh ]] && echo "${name%.sh} $((SECONDS - start))" >>"$work/times"
		echo "$name $((SECONDS - start)) $cpu" >>"$work/wall-cpu"
		[ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$out" && echo "FAIL $name: exited with status $rc" >>"$log"
	} 9>"$work/print.lock"
	rm -f "$out" "$out.block" "$out.cpu"
}
# cpu_seconds FILE: "1m2.5s 0m3.1s" (bash's times) as whole seconds, user + system
cpu_seconds() {
	awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } }
	     END { printf "%d\n", t + 0.5 }' "$1" 2>/dev/null || echo 0
}
# the unit tests in two lanes (every other one each: they are short, and one alone leaves a core
# idle while it waits on its threads or files)
unit_lane() {
	local k=$1 i=0 t
	shift
	for t in "$@"; do
		[ $((i++ % 2)) -eq "$k" ] && run_one "$(basename "$t")" "$t"
	done
}
unit_lane 1 "$@" &
unit_lane 0 "$@"
wait
only=${TESTS:-}
picked=" ${TEST_SCRIPTS:-} "
times=build/test-times.txt
DEFAULT_WEIGHT=10
# the seconds each script took on a quiet 2-core machine, committed, for a clone that has run
# nothing yet (refresh it from build/test-times.txt when scripts change much)
seed=tests/test-times.txt
# weight NAME: the script's seconds in the last run that ran it (at least 1), else its seed,
# else the default
weight() {
	local w
	w=$(awk -v n="$1" '$1 == n { w = $2 } END { print w }' "$times" 2>/dev/null)
	[ -n "$w" ] || w=$(awk -v n="$1" '$1 == n { w = $2 } END { print w }' "$seed" 2>/dev/null)
	[ -n "$w" ] || w=$DEFAULT_WEIGHT
	echo $((w > 0 ? w : 1))
}
# kind FILE: the lane its top comment declares ("# lane: slurm" or "# lane: solo"), else main
kind() { awk '!/^#/ { exit } $1 == "#" && $2 == "lane:" { k = $3; exit } END { print k ? k : "main" }' "$1"; }
scripts=()
for t in tests/e2e/*.sh; do
	[ "${E2E:-1}" = 0 ] && break
	[ -n "$only" ] && [[ "$t" != *"$only"* ]] && continue
	[ -n "${TEST_SCRIPTS:-}" ] && [[ "$picked" != *" $(basename "$t" .sh) "* ]] && continue
	scripts+=("$(weight "$(basename "$t" .sh)") $t")
done
# one queue per kind, heaviest first
: >"$work/queue.slurm"
: >"$work/queue.main"
: >"$work/queue.solo"
while read -r w t; do
	[ -z "$t" ] && continue
	case "$(kind "$t")" in
	slurm) echo "$w $t" >>"$work/queue.slurm" ;;
	solo) echo "$w $t" >>"$work/queue.solo" ;;
	*) echo "$w $t" >>"$work/queue.main" ;;
	esac
done < <(printf '%s\n' "${scripts[@]}" | sort -k1,1rn -k2,2)
if [ "${TEST_PLAN:-0}" = 1 ]; then # the queues, with their seconds, and nothing run
	for q in slurm main solo; do
		echo "$q queue ($(awk '{ s += $1 } END { print s + 0 }' "$work/queue.$q") s):$(awk '{ printf " %s", $2 }' "$work/queue.$q")"
	done
	exit 0
fi
# next KIND...: takes the first script of the first of these queues that has one (one lane at
# a time)
next() {
	local q
	{
		flock 8
		for q in "$@"; do
			[ -s "$work/queue.$q" ] || continue
			awk 'NR == 1 { print $2 }' "$work/queue.$q"
			sed -i 1d "$work/queue.$q"
			return 0
		done
		return 1
	} 8>"$work/queue.lock"
}
# lane NAME KIND...: takes scripts from these queues until they are empty, one after another;
# the lane's wall time into lanes
lane() {
	local t name=$1 start=$SECONDS n=0
	shift
	while t=$(next "$@"); do
		run_one "$(basename "$t")" bash "$t"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] && echo "$name $n $((SECONDS - start))" >>"$work/lanes"
}
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
	lane "one lane" slurm main
else
	# the SLURM lanes mostly wait on their controllers: when no cluster script is left they
	# take the others' scripts too (five: with three, the ten cluster scripts' 700 s of waiting
	# outlasted the main lanes by 25 s; TEST_SLURM_LANES=N runs N)
	for k in $(seq 1 "${TEST_SLURM_LANES:-5}"); do
		lane "slurm lane $k" slurm main &
		pids+=($!)
	done
	# four main lanes: on 2 cores, two left the CPU a third idle (scripts that sleep, poll,
	# fsync, wait for their ranks to meet)
	for k in $(seq 2 "${TEST_MAIN_LANES:-4}"); do
		lane "main lane $k" main &
		pids+=($!)
	done
	lane "main lane 1" main
	wait "${pids[@]}" 2>/dev/null
fi
# the scripts that compare timings between ranks or runs: alone, once every lane has ended
lane "solo" solo
mkdir -p build
[ -f "$times" ] || : >"$times"
sed 's/\.sh$//' "$work/failed-scripts" 2>/dev/null | sort -u >build/tests-failed.txt
# this run's times replace those recorded for the same scripts; the others are kept
if [ -s "$work/times" ]; then
	awk 'FNR == NR { t[$1] = $2; next } !($1 in t) { print } END { for (n in t) print n, t[n] }' \
		"$work/times" "$times" 2>/dev/null | sort >"$times.tmp" && mv "$times.tmp" "$times"
fi
pass=$(grep -c '^PASS' "$log")
fail=$(grep -c '^FAIL' "$log")
skip=$(grep -c '^SKIP' "$log")
echo
grep '^FAIL' "$log" | sed 's/^/failed: /'
grep '^SKIP' "$log" | sed 's/^/skipped: /'
# where the time went: each lane, then the ten slowest tests (wall and CPU seconds)
if [ -s "$work/lanes" ]; then
	echo "lanes (tests, wall s):"
	sort -t' ' -k1,1 "$work/lanes" | awk '{ n = $(NF - 1); s = $NF; $(NF - 1) = ""; $NF = ""; printf "  %-14s %3d tests %5d s\n", $0, n, s }'
fi
if [ -s "$work/wall-cpu" ]; then
	echo "slowest tests (wall s, CPU s):"
	sort -k2,2rn -k1,1 "$work/wall-cpu" | head -10 | awk '{ printf "  %-28s %5d %5d\n", $1, $2, $3 }'
	awk '{ c += $3 } END { printf "CPU seconds of all tests: %d\n", c }' "$work/wall-cpu"
	# every test's wall and CPU seconds, kept for a closer look (`sort -k3 -rn`)
	sort -k1,1 "$work/wall-cpu" >build/test-wall-cpu.txt 2>/dev/null
fi
echo "tests took $((SECONDS - start_all)) s"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
