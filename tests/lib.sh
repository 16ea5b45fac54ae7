# Shared helpers of the end-to-end tests: PASS/FAIL/SKIP lines for
# tests/run.sh, a scratch directory, and the built binaries.
# SPDX-License-Identifier: MIT
set -u
# a script runs make as a user's shell would: not with the flags of the make that started the
# suite (`make -C DIR check` passes -w, "Entering directory", to every make beneath it)
unset MAKEFLAGS MFLAGS MAKELEVEL
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=$ROOT/bin
CAMPAIGN=$BIN/campaign
SCRATCH=$(mktemp -d /tmp/campaign-test.XXXXXX)
# lib_cleanup: what the script leaves at its exit goes (its scratch, lock folder, json server);
# CAMPAIGN_TEST_KEEP=1 keeps the scratch for a look at what a failed check read
lib_cleanup() {
	[ -n "${JSON_SERVER_PID:-}" ] && kill "$JSON_SERVER_PID" 2>/dev/null
	[ "${CAMPAIGN_TEST_KEEP:-0}" = 1 ] && echo "   (scratch kept: $SCRATCH)" && return
	rm -rf "$SCRATCH" "$SCRATCH.lock" "$SCRATCH.json"
}
trap lib_cleanup EXIT
# The local executor's machine lock (CAMPAIGN_LOCK_DIR, docs/user-guide.md): each script is a
# machine of its own, so that the suite's lanes do not queue behind each other's jobs; the runs
# of one script share it (tests/e2e/local_lock.sh relies on that). Beside the scratch, not in
# it: checks that nothing was written outside a run list the scratch.
export CAMPAIGN_LOCK_DIR=$SCRATCH.lock
# Every python3 of the checks and tools is Debian's (make deps installs it; the PyTorch tests
# need it). A version manager's shim earlier in PATH (pyenv's is a chain of bash scripts) costs
# over a second a call on a loaded 2-core machine, and the suite calls python3 over a thousand
# times.
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
	mkdir -p "$SCRATCH/.bin" && ln -s /usr/bin/python3 "$SCRATCH/.bin/python3" && PATH=$SCRATCH/.bin:$PATH
fi
# One python3 answers the script's json and rows lookups (tests/tools/json_server.py, in the
# folder $SCRATCH.json: beside the scratch, as checks list what is written in it): each lookup
# costs a millisecond, not the 40 to 80 ms of a python3 of its own. Not a child of the script
# (a plain `wait` would wait for it); it ends with the script. Without it, each lookup starts
# its own python3, as before.
JSON_SERVER_PID=
if mkdir -m 700 "$SCRATCH.json" && mkfifo "$SCRATCH.json/in" "$SCRATCH.json/out"; then
	JSON_SERVER_PID=$(python3 "$ROOT/tests/tools/json_server.py" "$SCRATCH.json" $$ </dev/null >/dev/null 2>&1 & echo $!)
	if ! { read -r -t 20 JSON_SERVER_SAID <>"$SCRATCH.json/out" && [ "$JSON_SERVER_SAID" = ready ]; }; then
		kill "$JSON_SERVER_PID" 2>/dev/null
		JSON_SERVER_PID=
	fi
fi
# json_ask OP FILE ARG: the server's answer (OP json or sql), its output on stdout, its
# traceback on stderr, its status returned; 3 when there is no server to ask. Builtins only (a
# process started here would cost what the server saves): the request is one write to the
# FIFO, the answer a file of its own, looked for at each ring of the server and every 50 ms (a
# lookup of a background job may take another's ring).
json_ask() {
	local f=$2 id st out="" ring
	[ -n "$JSON_SERVER_PID" ] && kill -0 "$JSON_SERVER_PID" 2>/dev/null || return 3
	[[ $f == /* ]] || f=$PWD/$f
	id=$BASHPID.${EPOCHREALTIME/[.,]/.}
	printf '%s\0%s\0%s\0%s\0\0' "$id" "$1" "$f" "$3" 1<>"$SCRATCH.json/in"
	until [ -e "$SCRATCH.json/r.$id" ]; do
		read -r -t 0.05 ring <>"$SCRATCH.json/out" || kill -0 "$JSON_SERVER_PID" 2>/dev/null || return 3
	done
	{ IFS= read -r st; IFS= read -r -d '' out; } <"$SCRATCH.json/r.$id"
	printf '%s' "$out"
	[ -e "$SCRATCH.json/e.$id" ] && cat "$SCRATCH.json/e.$id" >&2
	return "$st"
}
# NAME_PREFIX: a script run a second time under other conditions names its checks apart
pass() { echo "PASS ${NAME_PREFIX:-}$1"; }
fail() { echo "FAIL ${NAME_PREFIX:-}$1: ${2:-}"; }
skip() { echo "SKIP ${NAME_PREFIX:-}$1: $2"; }
# check NAME COMMAND...: PASS when the command succeeds; on FAIL it returns 1, so that
# `check ... || show what went wrong` prints the evidence a failure needs
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n" "$*"; return 1; fi; }
# json FILE EXPR: evaluates a Python expression on the parsed JSON document j
json() {
	json_ask json "$1" "$2"
	local rc=$?
	[ "$rc" = 3 ] || return "$rc"
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
# rundir FILE: the run directory submit printed (the line after "run <id>"),
# whatever else (stderr notices) the file holds
rundir() { awk '/^run [0-9]/ { getline; print; exit }' "$1"; }
# killable OUT CMD...: runs CMD with stdout and stderr in OUT, without the
# shell's "Killed" notice when a fault point ends it with SIGKILL
killable() { local out=$1; shift; { "$@" >"$out" 2>&1; } 2>/dev/null; }
# wait_for SECONDS CMD...: 0 as soon as CMD succeeds (tried every 0.2 s), 1 when it has not
# within SECONDS
wait_for() {
	local t=$1 i
	shift
	for i in $(seq 1 $((t * 5))); do "$@" && return 0; sleep 0.2; done
	return 1
}
# slurm_ports CTLD NODE0: into $ctld and $node0 the first of these ports, and of those 2000,
# 4000 ... above them, that no running test script holds: a lock under /tmp on fd 6, held until
# this script exits, so that two suites on one machine (two clones' `make check`) never share a
# test cluster (one's stop-cluster.sh stopped the other's controller). 1 when all are held.
slurm_ports() {
	local k
	ctld=$1 node0=$2
	for k in 0 1 2 3 4 5 6 7; do
		exec 6>"/tmp/campaign-slurm-ports-$ctld.lock"
		flock -n 6 && return 0
		exec 6>&-
		ctld=$((ctld + 2000)) node0=$((node0 + 2000))
	done
	return 1
}
# slurm_cluster NAME DIR CTLD_PORT NODE_PORT0: starts a private 4-node test
# cluster (tests/slurm/start-cluster.sh, MinJobAge 300) for this script,
# stopped on exit; SKIP and exit when not root, FAIL and exit when root and it cannot start.
slurm_cluster() {
	if [ "$(id -u)" != 0 ]; then
		skip "$1_cluster" "needs root to start the test cluster (munged, slurmd)"
		exit 0
	fi
	local ctld=$3 node0=$4
	[ -n "${SLURM_TEST_PORTS:-}" ] && read -r ctld node0 <<<"$SLURM_TEST_PORTS" # a second run of the script
	if ! slurm_ports "$ctld" "$node0"; then
		fail "$1_cluster" "every port the test cluster may take is held by another running test"
		exit 1
	fi
	export CAMPAIGN_SLURM_DIR=$2-$ctld SLURM_CTLD_PORT=$ctld SLURM_NODE_PORT0=$node0
	if ! MIN_JOB_AGE=300 "$ROOT/tests/slurm/start-cluster.sh" >"$SCRATCH/cluster.out" 2>"$SCRATCH/cluster.err" 6>&-; then
		# as root nothing excuses it: the suite would pass with a third of it not run
		fail "$1_cluster" "cannot start the test cluster: $(tail -n 2 "$SCRATCH/cluster.err" | tr '\n' ' ')"
		exit 1
	fi
	trap '"$ROOT/tests/slurm/stop-cluster.sh" 2>/dev/null; lib_cleanup' EXIT
	eval "$(tail -n 1 "$SCRATCH/cluster.out")"
	pass "$1_cluster_started"
}
# bisect_repo DIR EXTRA: a git repository of a small PyTorch DDP script (campaigns/ddp_train.py)
# with 12 commits c0..c11 for campaign bisect. Every step sleeps after the optimizer's, 20 ms
# plus a random 0 to 20 ms, and the model is tiny (--hidden 16 --layers 1 --batch 4): the step
# time is that sleep, so the noise is the script's own (a spread of some 30 %, whatever else the
# machine runs: under the suite's lanes a model of the script's default size took tens of
# ms more in some runs than in others) and a slowdown its sleep's. c2 adds
# 0.5 ms to it (below the noise), c6 makes the script crash and c7 mends it, c8 adds 100 ms (the
# regression); the others add a line to NOTES. Its campaign.yaml times 30 steps of cpu-1n and
# cpu-2n; noisy.yaml the same with STEP_BIMODAL set: the steps sleep 20 and 60 ms in turn, a
# spread whose median no 30 steps pin down (the interval of a ratio spans 1/2 to 2). EXTRA is
# "local", or "slurm" for a slurm: section for the test cluster.
bisect_repo() {
	mkdir "$1" && cd "$1" || return 1
	git init -q . && git config user.email bisect@test && git config user.name "Bisect Test"
	cp "$ROOT/campaigns/ddp_train.py" train.py
	sed -i 's/^            opt.step()$/&\n            time.sleep(0.020 + (0.040 * (step % 2) if __import__("os").environ.get("STEP_BIMODAL") else __import__("random").random() * 0.020))  # the step sleeps/' train.py
	cat >campaign.yaml <<'Y'
campaign: bisectddp
workload:
  command: "/usr/bin/python3 {{campaign_dir}}/train.py --steps {{steps}} --warmup {{warmup_steps}} --no-profiler --hidden 16 --layers 1 --batch 4"
  env: { GLOO_SOCKET_IFNAME: lo, OMP_NUM_THREADS: "1", OMP_WAIT_POLICY: PASSIVE }
profile: { warmup_steps: 3, active_steps: 30 }
analysis:
  step_log: { pattern: 'step (?<step>\d+) loss (?<loss>[0-9.]+) time (?<step_ms>[0-9.]+) ms' }
scenarios:
  - { name: cpu-1n, nodes: 1, tasks_per_node: 1 }
  - { name: cpu-2n, nodes: 2, tasks_per_node: 1 }
Y
	[ "$2" = slurm ] && echo 'slurm: { partition: debug, time: "10:00", exclusive: true, extra: ["--mem=0"] }' >>campaign.yaml
	sed 's/OMP_WAIT_POLICY: PASSIVE }/OMP_WAIT_POLICY: PASSIVE, STEP_BIMODAL: "1" }/' campaign.yaml >noisy.yaml
	echo results/ >.gitignore
	git add -A && git commit -qm "c0: the DDP script"
	local i
	for i in 1 2 3 4 5 6 7 8 9 10 11; do
		case $i in
		2) sed -i 's/time.sleep(0.020 + /time.sleep(0.0205 + /' train.py ;;
		6) sed -i '1i raise SystemExit("c6 broke the script")' train.py ;;
		7) sed -i '1d' train.py ;;
		8) sed -i 's/time.sleep(0.0205 + /time.sleep(0.1205 + /' train.py ;;
		*) echo "$i" >>NOTES ;;
		esac
		git add -A && git commit -qm "c$i: change $i"
	done
	cd - >/dev/null || return 1
}
# shared_submit OUT RESULTS FILE: `campaign submit --wait --backend local --results RESULTS FILE`,
# its output in OUT, its exit status returned. Under tests/run.sh, a campaign file that several
# scripts submit alike runs once in the suite: the first script to ask submits it into
# CAMPAIGN_TEST_SHARED (holding a lock there, which the others wait for) and each gets a
# copy of its results root in RESULTS, to change as it likes, with the output naming RESULTS.
# (A run's commands find it under the results root they are given, never at the path it was
# made in: a copy is a run of its own.)
shared_submit() {
	local out=$1 res=$2 file=$3 key dir rc
	if [ -z "${CAMPAIGN_TEST_SHARED:-}" ]; then
		"$CAMPAIGN" submit --wait --backend local --results "$res" "$file" >"$out" 2>&1
		return
	fi
	key=$(sha256sum <"$file" | cut -c1-16)-$(basename "$file" .yaml)
	dir=$CAMPAIGN_TEST_SHARED/$key
	{
		flock 7
		if [ ! -e "$dir/rc" ]; then
			mkdir -p "$dir"
			# (not holding the lock in the run's daemons and ranks: 7>&-)
			"$CAMPAIGN" submit --wait --backend local --results "$dir/res" "$file" >"$dir/out" 2>&1 7>&-
			echo $? >"$dir/rc"
		fi
	} 7>"$CAMPAIGN_TEST_SHARED/$key.lock"
	cp -a "$dir/res" "$res" && sed "s|$dir/res|$res|g" "$dir/out" >"$out" || return 1
	rc=$(<"$dir/rc")
	return "$rc"
}
# traces_run NAME RESULTS SCENARIO...: campaign NAME (NAME.yaml in the current folder, which
# holds a folder of prepared traces, *.json or *.json.gz, per scenario): each scenario, one node,
# copies its folder as its profiler's output; submitted and waited for into RESULTS, the output
# in NAME.out, submit's exit status returned
traces_run() {
	local name=$1 res=$2 s
	shift 2
	{
		echo "campaign: $name"
		echo 'workload: { command: ["cp", "-R", "{{campaign_dir}}/{{scenario}}", "prof"] }'
		echo 'profile: { traces: ["prof/*.json", "prof/*.json.gz"] }'
		echo "scenarios:"
		for s; do echo "  - { name: $s, nodes: 1 }"; done
	} >"$name.yaml"
	"$CAMPAIGN" submit --wait --backend local --results "$res" "$name.yaml" >"$name.out" 2>&1
}
# rows RUN_DIR SQL: the first column of the first row of SQL on the run's state.db
# (read-only: a missing state.db, e.g. of an empty RUN_DIR, is an error, never created as /state.db)
rows() {
	json_ask sql "$1/state.db" "$2"
	local rc=$?
	[ "$rc" = 3 ] || return "$rc"
	python3 -c "import sqlite3,sys; print(sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True).execute(sys.argv[2]).fetchone()[0])" "$1/state.db" "$2"
}
# need_torch NAME: skips the script unless Debian's PyTorch (/usr/bin/python3, gloo) is there;
# sets TORCH_CUDA (True or False: whether torch sees a GPU). Importing torch takes 1 to 3 CPU
# seconds, so the answer is kept in build/torch-check.txt for that torch (its path and mtime):
# the first script to ask imports it, under a lock, and the others (in other lanes) read it.
need_torch() {
	local key ans="" cache=$ROOT/build/torch-check.txt
	key=$(/usr/bin/python3 -c 'import importlib.util as u, os; s = u.find_spec("torch"); print(s.origin, os.stat(s.origin).st_mtime_ns)' 2>/dev/null)
	if [ -n "$key" ] && mkdir -p "$ROOT/build" 2>/dev/null && touch "$cache" 2>/dev/null; then
		ans=$({
			flock 9
			a=$(awk -v k="$key" 'substr($0, 1, length(k) + 1) == k " " { print $(NF - 1), $NF }' "$cache")
			if [ -z "$a" ]; then # (only a torch that works is kept: a failure is asked again)
				a=$(torch_check)
				[[ "$a" == "True "* ]] && echo "$key $a" >>"$cache"
			fi
			echo "$a"
		} 9<"$cache")
	elif [ -n "$key" ]; then
		ans=$(torch_check)
	fi
	TORCH_CUDA=${ans#* }
	if [ "${ans%% *}" != True ]; then
		skip "$1" "Debian's python3-torch is not installed (make deps installs it)"
		exit 0
	fi
}
# torch_check: "GLOO CUDA" (True or False each) of /usr/bin/python3's torch
torch_check() {
	/usr/bin/python3 -c 'import torch, torch.distributed as d; print(d.is_gloo_available(), torch.cuda.is_available())' 2>/dev/null
}
# script_median SCENARIO_DIR WARMUP: campaigns/ddp_train.py's own step
# times ("step N loss L time T ms" in logs/rank_<r>.out) as the analysis
# defines a step's time: per step the slowest rank, the median over steps >= WARMUP
script_median() {
	python3 - "$1" "$2" <<'P'
import glob, re, statistics, sys
per = {}
for f in glob.glob(sys.argv[1] + "/logs/rank_*.out"):
    for line in open(f):
        m = re.match(r"step (\d+) loss \S+ time (\S+) ms", line)
        if m:
            per.setdefault(int(m.group(1)), []).append(float(m.group(2)))
print(statistics.median(max(v) for k, v in per.items() if k >= int(sys.argv[2])))
P
}
# within10 A B: A is within 10 % of B; within_pct P A B: within P %
within10() { within_pct 10 "$1" "$2"; }
# ddp_mean_pair SUMMARY SCENARIO EST: "ours theirs", the scenario's mean step and the
# script's own timer's (tests/tools/step_estimators.py's EST), over like steps: where only
# the first active step is no collective period (it has no collective before it, so its
# time is the slowest rank's step, a measure the script's timer is not), both without it;
# else both over every step.
ddp_mean_pair() {
	python3 -c 'import json, sys
x = [x for x in json.load(open(sys.argv[1]))["scenarios"] if x["name"] == sys.argv[2]][0]
e, t = json.load(open(sys.argv[3])), x["step_times_ms"]
if x["period_steps"] == len(t) - 1 > 0:
    print(round(sum(t[1:]) / len(t[1:]), 3), e["own_mean_after_first_ms"])
else:
    print(round(sum(t) / len(t), 3), e["own_mean_ms"])' "$1" "$2" "$3"
}
within_pct() { python3 -c 'import sys; p, a, b = map(float, sys.argv[1:]); sys.exit(0 if abs(a - b) <= p / 100 * b else 1)' "$1" "$2" "$3"; }
# same_ms A B: the same to summary.json's 3 decimals (a median of an even count recounted from
# rounded times may differ from the rounded median by one in the last place)
same_ms() { python3 -c 'import sys; a, b = map(float, sys.argv[1:]); sys.exit(0 if abs(a - b) <= 0.0011 else 1)' "$1" "$2"; }

# torch_submit OUT ARGS...: `campaign submit --wait ARGS` into OUT, once more when a rank of
# Debian's torch (1.13 on Python 3.11) aborted on glibc's heap check ("malloc(): invalid size
# (unsorted)" and the like, exit 134): a crash inside the user's library, not campaign's, seen
# about once in ten full checks under load, and twice in a row once; up to two retries, each
# said on stdout. (Seen in campaigns/tb_train.py's one-rank scenarios under load, each time as
# the profiler's second cycle ended after step 7; some say glibc's "Fatal glibc error: malloc
# assertion failure in sysmalloc" instead.)
torch_submit() {
	local out=$1 rc try
	shift
	for try in 1 2 3; do
		"$CAMPAIGN" submit --wait "$@" >"$out" 2>&1 && return 0
		rc=$?
		[ "$try" -lt 3 ] && torch_heap_abort "$(rundir "$out")" || return "$rc"
		echo "note: a torch rank aborted on glibc's heap check (a crash in Debian's torch): submitting again"
	done
}

# torch_heap_abort RUN_DIR: a rank of the run aborted on glibc's heap check (see torch_submit)
torch_heap_abort() {
	[ -n "$1" ] && grep -qsE "(malloc|free|realloc|munmap_chunk)\(\): |malloc assertion failure|corrupted (size|double-linked)|double free" \
		"$1"/*/logs/* "$1"/*/slurm-*.out
}

# failed_run_said RUN_DIR: when a run failed, for the next reader of the test log: its status
# table, and for each job that did not end with 0 its log's end and its ranks' error lines.
failed_run_said() {
	"$CAMPAIGN" status --results "$(dirname "$(dirname "$1")")" "$(basename "$1")" 2>&1 |
		sed 's/^/  why: /'
	for log in "$1"/*/slurm-*.out; do
		[ -f "$log" ] && ! grep -q "ended with exit status 0" "$log" || continue
		tail -n 8 "$log" | sed 's/^/  why: /'
		grep -h -m 6 -iE "error|exception|refused|timed? ?out|abort|killed" \
			"$(dirname "$log")"/logs/* 2>/dev/null | sed 's/^/  why: /'
		# each rank's last lines: a rank killed by a signal (SIGABRT: 134) may say why in
		# words no pattern above knows (glibc's heap checks name their function)
		for r in "$(dirname "$log")"/logs/*; do
			[ -f "$r" ] && tail -n 3 "$r" | sed "s|^|  why: $(basename "$r"): |"
		done
	done
}
# try_family PREFIX RESULTS PARENT_DIR CHILD_DIR SCENARIO KIND: a variant made by campaign try,
# checked: its checked_predictions are both runs' own numbers with the outcome that follows
# from them (tests/tools/checked_consistent.py), its report's "Predicted and measured" row, the
# parent's report without one, and the family in `campaign ls` (text and --json); the check
# prints each scenario's numbers
try_family() {
	local pre=$1 res=$2 parent=$3 child=$4 sc=$5 kind=$6
	local pid cid outcome iv
	pid=$(basename "$parent") cid=$(basename "$child")
	check "${pre}_checked_numbers" python3 "$ROOT/tests/tools/checked_consistent.py" "$parent/summary.json" "$child/summary.json" "$kind"
	outcome=$(json "$child/summary.json" "[(k['measured_change'] + ': ' if k['measured_change'] else '') + k['outcome'] + (' (by the means)' if k['by_means'] else '') for k in j['checked_predictions'] if k['scenario'] == '$sc'][0]")
	check "${pre}_report_section" grep -q "^## Predicted and measured$" "$child/BOTTLENECK_ANALYSIS.md"
	# the prediction's interval as its cell says it: a replay's, a bound's marked, a ceiling's named
	iv=$(json "$child/summary.json" "[('ceiling' if k['prediction_basis'] == 'ceiling' else 'n/a' if k['predicted_interval_ms'] is None else '%.2f to %.2f' % tuple(k['predicted_interval_ms']) + (' (bound)' if k['prediction_basis'] == 'bound' else '')) for k in j['checked_predictions'] if k['scenario'] == '$sc'][0]")
	check "${pre}_report_row" bash -c 'grep "^| $1 | [0-9.]* | [0-9.]* | $4 | [0-9.]*\( (as it ran: [0-9.]*)\)\? | [0-9.]* to [0-9.]* | " "$3" | grep -qF " | $2 |"' _ "$sc" "$outcome" "$child/BOTTLENECK_ANALYSIS.md" "$iv"
	check "${pre}_parent_report_plain" bash -c '! grep -q "Predicted and measured" "$1"' _ "$parent/BOTTLENECK_ANALYSIS.md"
	"$CAMPAIGN" ls --results "$res" >"$pre.ls.out" 2>&1
	check "${pre}_ls_child" grep -q "try of $pid ($kind)" "$pre.ls.out"
	check "${pre}_ls_parent" grep -q "tried: $kind in $cid" "$pre.ls.out"
	"$CAMPAIGN" ls --json --results "$res" >"$pre.ls.json" 2>&1
	check "${pre}_ls_json" [ "$(json "$pre.ls.json" "[r['variant_of']['run'] for r in j if r.get('run') == '$cid'][0]")" = "$pid" ]
}
# recommends PREFIX PARENT_DIR KIND: true when the run's analysis recommends KIND; else a SKIP
# line (the verdict is measured, not set: where the run is not bound by KIND on this machine,
# there is nothing of that kind to try) and false
recommends() {
	local kinds
	kinds=$(json "$2/summary.json" '" ".join(r["kind"] for r in j["recommendations"])')
	[[ " $kinds " == *" $3 "* ]] && return 0
	skip "$1_$3" "the parent run recommends ${kinds:-nothing} here, not $3"
	return 1
}
# first_prediction RUN_DIR KIND: the first predicted step time of the run's KIND recommendation
first_prediction() {
	json "$1/summary.json" "[r for r in j['recommendations'] if r['kind'] == '$2'][0]['predicted_step_ms'][0]"
}
# valgrind_setup NAME: V, the valgrind command line of the memcheck scripts (no memory error,
# no definite or indirect leak; tests/valgrind/gloo.supp, the one suppression, is inside
# libgloo); false, with a SKIP line named NAME, where valgrind cannot run the binaries
valgrind_setup() {
	if [ -n "${CAMPAIGN_SANITIZED:-}" ]; then
		skip "$1" "the binaries are built with sanitizers, which valgrind cannot run"
		return 1
	fi
	if ! command -v valgrind >/dev/null; then
		skip "$1" "valgrind is not installed (make deps installs it)"
		return 1
	fi
	V="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --suppressions=$ROOT/tests/valgrind/gloo.supp"
}
# vg NAME EXPECTED_STATUS COMMAND...: runs COMMAND under $V (valgrind_setup), output in
# NAME.out; PASS or FAIL valgrind_NAME by its exit status, with valgrind's first lines
vg() {
	local name=$1 want=$2; shift 2
	$V "$@" >"$name.out" 2>&1
	local rc=$?
	if [ "$rc" -eq "$want" ]; then pass "valgrind_$name"; else fail "valgrind_$name" "exit $rc (want $want): $(grep -m 3 '==[0-9]*==' "$name.out" | tr '\n' ' ')"; fi
}
