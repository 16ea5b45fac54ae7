# campaign try with the knobs the shipped campaigns carry (issue 35): campaigns/bottlenecks.yaml
# at 1 node, its slow-loader and checkpoint-every-step scenarios; `try --wait` runs its
# data_loading knob (4 loader threads) and its io knob (a checkpoint every 4th step) as two
# variant runs, each checked against its prediction by the documented rule
# (tests/lib.sh try_family), and prints the numbers. The variants keep the parent's
# campaign folder ({{campaign_dir}}), not the temporary file try loads them from.
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
mkdir camp
python3 "$ROOT/tests/tools/bottlenecks_subset.py" "$ROOT/campaigns/bottlenecks.yaml" camp/b.yaml
check try_kinds_shipped_knobs python3 -c "import sys, yaml; k = yaml.safe_load(open(sys.argv[1]))['knobs']; assert sorted(k) == ['communication', 'data_loading', 'io'], k" camp/b.yaml
export TRY_PASSED=1
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" camp/b.yaml >p.out 2>&1
parent=$(rundir p.out) pid=$(basename "$parent")
check try_kinds_parent_ran [ -s "$parent/summary.json" ]
# a variable the campaign passes through from the environment: checked first, as submit does
env -u TRY_PASSED "$CAMPAIGN" try --wait --results "$SCRATCH/res" "$pid" >u.out 2>&1; rc=$?
check try_kinds_from_env_unset_exit2 [ "$rc" -eq 2 ]
check try_kinds_from_env_unset_said [ "$(tail -n 1 u.out)" = "campaign try: TRY_PASSED is not set in this environment, and $parent/campaign.yaml passes it through to the jobs (from_env: true): export it and run the command again; nothing was submitted" ]
check try_kinds_from_env_unset_nothing [ "$(ls "$SCRATCH/res/bottlenecks" | wc -l)" = 1 ]
"$CAMPAIGN" try --wait --results "$SCRATCH/res" "$pid" >t.out 2>&1; rc=$?
check try_kinds_exit0 [ "$rc" -eq 0 ]
check try_kinds_communication_not_tried grep -qx "communication: a knob, but run $pid recommends nothing of this kind; not tried" t.out
for kind in data_loading io; do
	recommends try_kinds "$parent" "$kind" || continue
	child=$(awk -v k="variant for $kind:" 'index($0, k) == 1 { f = 1 } f && /^run [0-9]/ { getline; print; exit }' t.out)
	check "try_kinds_${kind}_child" [ -s "$child/summary.json" ]
	[ "$kind" = io ] && sc=io-1n || sc=dataloader-1n
	try_family "try_kinds_$kind" "$SCRATCH/res" "$parent" "$child" "$sc" "$kind"
	check "try_kinds_${kind}_campaign_dir" grep -qx "export CAMPAIGN_DIR='$SCRATCH/camp'" "$child/io-1n/job.sbatch"
done
check try_kinds_data_knob_ran grep -q -- "'--workers' '4' '--prefetch' '8'" "$(awk '/^variant for data_loading:/ { f = 1 } f && /^run [0-9]/ { getline; print; exit }' t.out)/dataloader-1n/job.sbatch"
check try_kinds_io_knob_ran grep -q -- "'--checkpoint-every' '4'" "$(awk '/^variant for io:/ { f = 1 } f && /^run [0-9]/ { getline; print; exit }' t.out)/io-1n/job.sbatch"
