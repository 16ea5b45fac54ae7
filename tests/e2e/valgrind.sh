# The end-to-end demo under valgrind (memcheck): every campaign command of a
# run's life, the trainer's ranks and the analyzer on the run, with no memory error and no
# leak (definite or indirect); the other tools are tests/e2e/valgrind_tools.sh's. The one
# suppression, tests/valgrind/gloo.supp, is inside libgloo. A process's start
# under valgrind costs 1 to 2.5 CPU seconds, most of this test's: each code path
# runs under it once, not once per rank that runs the same code.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
valgrind_setup valgrind || exit 0
R="--results $SCRATCH/R"
# The demo campaign, its trainer ranks under valgrind too, with fewer and smaller steps, at 1
# and 2 nodes. Ranks 0 and 1 of each scenario run under valgrind (rank 0's code and the other
# ranks': ranks 2 and 3 run rank 1's), through vgrank, which lists them in vg-ranks.txt; none
# when VG_RANKS=0 (the resubmit's, the same ranks as the submit's gloo-1n). Every rank waits up
# to 30 minutes for the others (--timeout-s 1800, not the trainer's 120 s) and the job may take
# an hour: with a hog on each of 2 cores beside the suite, gloo-2n failed once (the likely cause,
# not confirmed: a rank under valgrind slower to start or step than its peers' 120 s wait).
cat >vgrank <<EOF
#!/bin/sh
if [ "\${VG_RANKS:-1}" != 0 ] && [ "\${RANK:-0}" -lt 2 ]; then
	echo "\$CAMPAIGN_SCENARIO \$RANK" >>"$SCRATCH/vg-ranks.txt"
	exec $V "\$@" --timeout-s 1800
fi
exec "\$@" --timeout-s 1800
EOF
chmod +x vgrank
sed -e "s|{{trainer}}|$SCRATCH/vgrank {{trainer}}|" -e 's/warmup_steps: 5/warmup_steps: 1/' -e 's/active_steps: 30/active_steps: 3/' -e 's/time: "00:10:00"/time: "01:00:00"/' \
	-e 's/hidden: "768"/hidden: "64"/' -e 's/batch_per_rank: "64"/batch_per_rank: "8"/' "$ROOT/campaigns/local-demo.yaml" |
	sed '/- name: gloo-4n/,/backend: gloo/d' >demo.yaml # 1 and 2 nodes: 6 ranks, 4 under valgrind, not 14
check valgrind_demo_copied grep -q "$SCRATCH/vgrank {{trainer}}" demo.yaml
vg submit_demo 0 "$CAMPAIGN" submit --wait --backend local $R demo.yaml
run=$(rundir submit_demo.out)
id=$(basename "$run")
check valgrind_demo_ranks_clean [ "$(json "$run/summary.json" '[s["state"] for s in j["scenarios"]]')" = "['COMPLETED', 'COMPLETED']" ]
[ "$(json "$run/summary.json" '[s["state"] for s in j["scenarios"]]')" = "['COMPLETED', 'COMPLETED']" ] || failed_run_said "$run"
vg status 0 "$CAMPAIGN" status $R "$id"
vg status_json 0 "$CAMPAIGN" status --json $R "$id"
vg aggregate 0 "$CAMPAIGN" aggregate $R "$id"
vg paper 0 "$CAMPAIGN" paper $R "$id"
vg paper_verify 0 "$CAMPAIGN" paper --verify $R "$id"
vg compare 0 "$CAMPAIGN" compare $R "$run" "$run"
VG_RANKS=0 vg resubmit 0 "$CAMPAIGN" resubmit --wait $R "$id" gloo-1n
# ranks 0 and 1 of each scenario under valgrind, the resubmit's not
check valgrind_demo_ranks_under_valgrind [ "$(sort vg-ranks.txt | tr '\n' ,)" = "gloo-1n 0,gloo-1n 1,gloo-2n 0,gloo-2n 1," ]
vg resume 0 "$CAMPAIGN" resume $R "$id"
vg cancel 0 "$CAMPAIGN" cancel $R "$id"
vg analyze_run 0 "$BIN/campaign-analyze" "$run"
