# The run store where other hosts share the results (NFS, Lustre, GPFS...):
# SQLite's WAL needs every process on one host, so there the store uses a
# rollback journal with POSIX locks. CAMPAIGN_FS_TYPE=nfs makes this disk
# answer as NFS would; the whole concurrency suite, slurm_resume.sh (crash-safe
# submission) and slurm.sh's first section (the demo campaign with its aggregation job) run
# again that way (checks named nfs_*), and each says the mode in `status --json`. Then: --store-journal / store_journal, and locks that fail.
# lane: slurm (starts a test cluster of its own: a SLURM lane, tests/run.sh)
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
# the three suites side by side (their own clusters and ports), their outputs in order
NAME_PREFIX=nfs_ EXPECT_STORE_JOURNAL=delete CAMPAIGN_FS_TYPE=nfs bash "$ROOT/tests/e2e/concurrency.sh" >n1.out 2>&1 &
NAME_PREFIX=nfs_ EXPECT_STORE_JOURNAL=delete CAMPAIGN_FS_TYPE=nfs SLURM_TEST_PORTS="16987 17800" \
	STORE_SECTION_ONLY=1 bash "$ROOT/tests/e2e/slurm.sh" >n2.out 2>&1 &
NAME_PREFIX=nfs_ CAMPAIGN_FS_TYPE=nfs SLURM_TEST_PORTS="16997 17900" bash "$ROOT/tests/e2e/slurm_resume.sh" >n3.out 2>&1 &
wait
cat n1.out n2.out n3.out

cat >s.yaml <<Y
campaign: sj
workload: { command: ["/bin/true"] }
scenarios: [{ name: a, nodes: 1 }]
Y
"$CAMPAIGN" submit --wait --backend local --store-journal delete --results "$SCRATCH/r1" s.yaml >s1.out 2>&1; rc=$?
run=$(rundir s1.out)
check store_cli_delete_exit0 [ "$rc" -eq 0 ]
"$CAMPAIGN" status --json --results "$SCRATCH/r1" >st1.json
check store_cli_delete_used [ "$(json st1.json '(j["store"]["journal"], j["store"]["shared"])')/$(rows "$run" 'pragma journal_mode')" = "('delete', False)/delete" ]
check store_cli_delete_sticks [ "$(json st1.json 'j["jobs"][0]["state"]')" = COMPLETED ]
"$CAMPAIGN" status --json --store-journal wal --results "$SCRATCH/r1" >st2.json
check store_cli_switch_to_wal [ "$(json st2.json 'j["store"]["journal"]')/$(rows "$run" 'pragma journal_mode')" = "wal/wal" ]
"$CAMPAIGN" status --store-journal truncate --results "$SCRATCH/r1" >bad.out 2>&1; rc=$?
check store_cli_bad_mode_exit2 [ "$rc" -eq 2 ]
check store_cli_bad_mode_said grep -q "store journal 'truncate': expected auto, wal or delete" bad.out
"$CAMPAIGN" submit --backend local --store-journal x --results "$SCRATCH/r2" s.yaml >bad2.out 2>&1; rc=$?
check store_cli_bad_mode_creates_nothing [ "$rc" -eq 2 ] && check store_cli_bad_mode_no_results [ ! -e "$SCRATCH/r2" ]
printf 'store_journal: delete\n' >>s.yaml
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/r3" s.yaml >s3.out 2>&1
check store_campaign_key_used [ "$(rows "$(rundir s3.out)" 'pragma journal_mode')" = delete ]
printf 'campaign: sk\nworkload: { command: ["/bin/true"] }\nstore_journal: memory\nscenarios: [{ name: a, nodes: 1 }]\n' >bad.yaml
"$CAMPAIGN" validate bad.yaml >bv.out 2>&1; rc=$?
check store_campaign_key_checked [ "$rc" -eq 2 ] && check store_campaign_key_message grep -q '^bad.yaml:3:16: store_journal: must be auto, wal or delete, not "memory"$' bv.out
# WAL left on a shared file system by an older run: kept, with a warning
CAMPAIGN_FS_TYPE=nfs "$CAMPAIGN" status --json --store-journal wal --results "$SCRATCH/r1" >/dev/null 2>&1
CAMPAIGN_FS_TYPE=nfs "$CAMPAIGN" status --json --results "$SCRATCH/r1" >st3.json 2>st3.err
check store_wal_on_shared_warned grep -q "uses WAL on a shared file system (nfs): safe only while every process using it runs on one host; --store-journal delete switches it" st3.err
# record locks that do not work (an NFS mount without lockd): said, exit 4, store untouched
cc -shared -fPIC -o nolocks.so "$ROOT/tests/tools/nolocks.c" -ldl
before=$(sha256sum "$run/state.db")
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 CAMPAIGN_FS_TYPE=nfs LD_PRELOAD=$SCRATCH/nolocks.so "$CAMPAIGN" status --results "$SCRATCH/r1" >nl.out 2>&1; rc=$?
check store_no_locks_exit4 [ "$rc" -eq 4 ]
check store_no_locks_said grep -q "POSIX record locks do not work in $run (nfs file system), and the state store needs them: mount it with locking" nl.out
check store_no_locks_untouched [ "$(sha256sum "$run/state.db")" = "$before" ]
