# Faults around a run: its store damaged, its results directory read-only or
# full, its supervisor killed, its job.status garbage, two identical submits
# at once, RUN arguments that are not runs. Each: the exact message and exit
# status (< 128), nothing recorded lost, nothing made up in its place.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
cat >s.yaml <<'Y'
campaign: faults
workload: { command: ["/bin/true"] }
scenarios: [{ name: a, nodes: 1 }, { name: b, nodes: 1 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/r" s.yaml >s.out 2>&1
run=$(rundir s.out)
id=$(basename "$run")
cp "$run/state.db" good.db

# --- a damaged state.db: named by every command, never replaced -------------------------
python3 -c "import sqlite3; c = sqlite3.connect('other.db'); c.execute('create table x(y)'); c.commit()"
damage() { # kind
	case $1 in
	truncated) head -c $(($(stat -c %s good.db) / 2)) good.db >"$run/state.db" ;;
	garbage) head -c 8192 /dev/urandom >"$run/state.db" ;;
	emptied) : >"$run/state.db" ;;
	foreign) cp other.db "$run/state.db" ;;
	esac
}
for kind in truncated garbage emptied foreign; do
	damage $kind
	sum=$(sha256sum <"$run/state.db")
	for cmd in status "status --json" "aggregate --force" resume "watch --plain" cancel paper; do
		name=${cmd//[ -]/}
		"$CAMPAIGN" $cmd --results "$SCRATCH/r" "$id" >out.txt 2>&1; rc=$?
		check "store_${kind}_${name}_exit4" [ "$rc" -eq 4 ]
		check "store_${kind}_${name}_named" grep -q "state store $run/state.db is damaged (.*): .*campaign does not replace it; restore it from a copy" out.txt
	done
	# campaign-analyze reads analysis_input.json, never the store: it analyses the run again
	"$BIN/campaign-analyze" "$run" >out.txt 2>&1; rc=$?
	check "store_${kind}_analyze_without_store_exit0" [ "$rc" -eq 0 ]
	check "store_${kind}_untouched" [ "$(sha256sum <"$run/state.db")" = "$sum" ]
	check "store_${kind}_no_journal_left" [ ! -e "$run/state.db-journal" -a ! -e "$run/state.db-wal" ]
done
rm -f "$run/state.db"
"$CAMPAIGN" status --results "$SCRATCH/r" "$id" >out.txt 2>&1; rc=$?
check store_missing_exit3 [ "$rc" -eq 3 ]
check store_missing_not_created [ ! -e "$run/state.db" ]
cp good.db "$run/state.db"
check store_restored_reads bash -c '"$1" status --results "$2" "$3" >/dev/null' _ "$CAMPAIGN" "$SCRATCH/r" "$id"

# --- RUN arguments that are not runs --------------------------------------------------
ln -s / rootlink
long=$(printf 'x%.0s' $(seq 1 4000))
for arg in ../../etc "$SCRATCH/rootlink" "$long" ..; do
	"$CAMPAIGN" status --results "$SCRATCH/r" "$arg" >out.txt 2>&1; rc=$?
	check "run_arg_${#arg}_exit3" [ "$rc" -eq 3 ]
	check "run_arg_${#arg}_said" grep -q "^campaign status: no run '.*'\( (4000 characters)\)\? under $SCRATCH/r, and the newest run [0-9a-f-]* has no scenario of that name (its scenarios: [^)]*): give a run id, a run directory or one of its scenarios$" out.txt
done
check run_args_touched_nothing [ ! -e /state.db -a ! -e "$SCRATCH/r/state.db" ]

# --- two identical submits at the same instant: two runs, both whole ----------------
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/twin" s.yaml >t1.out 2>&1 &
p1=$!
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/twin" s.yaml >t2.out 2>&1 &
p2=$!
wait $p1; rc1=$?
wait $p2; rc2=$?
check twin_submits_exit0 [ "$rc1" -eq 0 -a "$rc2" -eq 0 ]
check twin_submits_two_runs [ "$(rundir t1.out)" != "$(rundir t2.out)" -a "$(ls "$SCRATCH/twin/faults" | wc -l)" = 2 ]
for t in t1 t2; do
	check "twin_${t}_analysed" test -s "$(rundir $t.out)/BOTTLENECK_ANALYSIS.md"
	check "twin_${t}_store_intact" [ "$(rows "$(rundir $t.out)" 'pragma integrity_check')" = ok ]
done

# --- the supervisor SIGKILLed mid-run, and a garbage job.status ------------------------
cat >slow.yaml <<'Y'
campaign: slow
workload: { command: ["/bin/sleep", "3"] }
scenarios: [{ name: a, nodes: 1 }, { name: b, nodes: 1 }]
Y
"$CAMPAIGN" submit --backend local --results "$SCRATCH/k" slow.yaml >k.out 2>&1
krun=$(rundir k.out)
for i in $(seq 1 50); do pgrep -f "campaign supervise $krun" >/dev/null && break; sleep 0.1; done
sleep 0.5
pkill -KILL -f "campaign supervise $krun"
sleep 4 # job a ends by itself and writes its job.status
"$CAMPAIGN" status --json --results "$SCRATCH/k" >k1.json 2>k1.err; rc=$?
check supervisor_killed_status_exit0 [ "$rc" -eq 0 ]
check supervisor_killed_a_decided [ "$(json k1.json '[(x["scenario"], x["state"]) for x in j["jobs"]][0]')" = "('a', 'COMPLETED')" ]
check supervisor_killed_b_waits [ "$(json k1.json 'j["jobs"][1]["state"]')" = PENDING ]
check supervisor_killed_b_says_resume grep -q "no local supervisor is running (it was interrupted): \`campaign resume $(basename "$krun")\` starts one" <<<"$(json k1.json 'j["jobs"][1]["reason"]')"
"$CAMPAIGN" resume --results "$SCRATCH/k" "$(basename "$krun")" >/dev/null 2>&1
for i in $(seq 1 100); do [ -s "$krun/BOTTLENECK_ANALYSIS.md" ] && break; sleep 0.1; done
"$CAMPAIGN" status --json --results "$SCRATCH/k" >k2.json 2>/dev/null
check supervisor_killed_resumed_completes [ "$(json k2.json '[x["state"] for x in j["jobs"]]')" = "['COMPLETED', 'COMPLETED']" ]
check supervisor_killed_transitions_kept [ "$(rows "$krun" "select count(*) from transitions where scenario = 'a'")" -ge 3 ]
# the same, but the job's process is gone too and its job.status is garbage
"$CAMPAIGN" submit --backend local --results "$SCRATCH/g" slow.yaml >g.out 2>&1
grun=$(rundir g.out)
for i in $(seq 1 50); do pgrep -f "campaign supervise $grun" >/dev/null && break; sleep 0.1; done
sleep 0.5
pkill -KILL -f "campaign supervise $grun"
pgid=$(rows "$grun" "select pid from jobs where scenario = 'a'")
kill -KILL -- "-$pgid" 2>/dev/null
printf 'garbage\001{"exit_code": ' >"$grun/a/job.status"
"$CAMPAIGN" status --json --results "$SCRATCH/g" >g1.json 2>/dev/null
check garbage_job_status_lost [ "$(json g1.json 'j["jobs"][0]["state"]')" = LOST ]
check garbage_job_status_named [ "$(json g1.json 'j["jobs"][0]["reason"]')" = "the local supervisor ended while the job ran, and its job.status is damaged (not the JSON the job script writes)" ]

# --- a read-only results directory and a full file system (need a mount: root) -----------
if [ "$(id -u)" != 0 ] || ! mount --bind "$SCRATCH/r" "$SCRATCH/r" 2>/dev/null; then
	skip faults_read_only "needs root to mount the results read-only (chmod does not stop root)"
else
	mount -o remount,ro,bind "$SCRATCH/r"
	"$CAMPAIGN" status --json --results "$SCRATCH/r" "$id" >ro.json 2>ro.err; rc=$?
	check read_only_status_reads [ "$rc" -eq 0 ] && check read_only_status_states [ "$(json ro.json '[x["state"] for x in j["jobs"]]')" = "['COMPLETED', 'COMPLETED']" ]
	"$CAMPAIGN" aggregate --force --results "$SCRATCH/r" "$id" >ro.out 2>&1; rc=$?
	check read_only_aggregate_exit4 [ "$rc" -eq 4 ] && check read_only_aggregate_said grep -q "Read-only file system" ro.out
	"$CAMPAIGN" submit --backend local --results "$SCRATCH/r" s.yaml >ro2.out 2>&1; rc=$?
	check read_only_submit_exit4 [ "$rc" -eq 4 ] && check read_only_submit_said grep -q "cannot create directory $SCRATCH/r/faults/.*: Read-only file system" ro2.out
	check read_only_submit_nothing_created [ "$(ls "$SCRATCH/r/faults" | wc -l)" = 1 ]
	umount "$SCRATCH/r"
fi
mkdir full
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=2m tmpfs full 2>/dev/null; then
	skip faults_full_fs "needs root to mount a 2 MB tmpfs"
else
	cat >big.yaml <<'Y'
campaign: full
workload: { command: ["/bin/sh", "-c", "head -c 3000000 /dev/zero >big.bin"] }
scenarios: [{ name: a, nodes: 1 }, { name: b, nodes: 1 }]
Y
	"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/full/res" big.yaml >full.out 2>&1; rc=$?
	frun=$(rundir full.out)
	check full_fs_exit4 [ "$rc" -eq 4 ]
	check full_fs_said grep -q "database or disk is full\|No space left on device" full.out
	check full_fs_resume_hint grep -q "What was recorded is kept. Once the cause is fixed, \`campaign resume" full.out
	"$CAMPAIGN" status --results "$SCRATCH/full/res" >fullst.out 2>&1; rc=$?
	# shown as recorded, the disk named; exit 4: what status would record (a) cannot be
	check full_fs_status_while_full_exit4 [ "$rc" -eq 4 ]
	check full_fs_status_while_full_shows_run grep -q "^a  *[0-9]*  *" fullst.out
	check full_fs_status_while_full_says_why grep -q "the file system holding .* is full: the run is shown as recorded" fullst.out
	check full_fs_status_while_full_no_io_error bash -c '! grep -q "disk I/O error\|journal mode" "$1"' _ fullst.out
	"$CAMPAIGN" aggregate --force --results "$SCRATCH/full/res" "$(basename "$frun")" >fullagg.out 2>&1; rc=$?
	check full_fs_aggregate_exit4 [ "$rc" -eq 4 ]
	rm -f "$frun"/*/big.bin
	"$CAMPAIGN" status --json --results "$SCRATCH/full/res" >full.json 2>/dev/null; rc=$?
	check full_fs_status_after_space_freed [ "$rc" -eq 0 ]
	check full_fs_a_recorded [ "$(json full.json '(j["jobs"][0]["state"], j["jobs"][0]["reason"])')" = "('LOST', 'the local supervisor ended while the job ran and the job left no job.status')" ]
	check full_fs_store_intact [ "$(rows "$frun" 'pragma integrity_check')" = ok ]
	check full_fs_no_half_job_status [ ! -e "$frun/a/job.status" ]
	umount full
fi
