# What campaign writes never deletes what it did not create, never goes
# through a link planted by a workload, and no FIFO hangs it (issue 20,
# points 1-3): paper --out on a run, on a user's folder, on the results
# root; links planted in figures/, as job.status and as traces/; FIFOs in
# metrics/, traces/, monitor/ and as the campaign file; a workload that
# writes into traces/ itself.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
FIX=$ROOT/tests/fixtures
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" "$FIX/tiny.yaml" >out.txt 2>&1
run=$(rundir out.txt)
id=$(basename "$run")
P() { "$CAMPAIGN" paper --results "$SCRATCH/res" "$@" "$id"; }

# --- paper --out: never deletes what it did not write --------------------
sum_before=$(cd "$run" && find . -type f ! -name '*.lock*' | sort | xargs sha256sum | sha256sum)
P --out "$run" >o.txt 2>e.txt; rc=$?
check paper_out_run_refused [ "$rc" -eq 2 ]
check paper_out_run_says grep -q "is the run's own directory" e.txt
check paper_out_run_intact [ "$(cd "$run" && find . -type f ! -name '*.lock*' | sort | xargs sha256sum | sha256sum)" = "$sum_before" ]
P --out "$SCRATCH/res" >o.txt 2>e.txt; rc=$?
check paper_out_results_root_refused [ "$rc" -eq 2 ]
check paper_out_results_root_says grep -q "holds the run" e.txt
check paper_out_results_root_intact [ -f "$run/state.db" ]
mkdir -p mine/sub && echo precious >mine/notes.txt && echo deep >mine/sub/data.csv
P --out "$SCRATCH/mine" >o.txt 2>e.txt; rc=$?
check paper_out_user_folder_refused [ "$rc" -eq 2 ]
check paper_out_user_folder_says grep -q "is not empty and is not a previous paper output" e.txt
check paper_out_user_folder_intact bash -c '[ "$(cat mine/notes.txt)" = precious ] && [ "$(cat mine/sub/data.csv)" = deep ]'
check paper_out_no_tmp_left bash -c '! ls -d "$1"/mine.tmp.* 2>/dev/null | grep -q .' _ "$SCRATCH"
mkdir empty
P --out "$SCRATCH/empty" >/dev/null 2>e.txt
check paper_out_empty_folder_written [ -f empty/MANIFEST.sha256 ]
# what a paper killed mid-write left beside it (a dead process of this host): removed
host=$(hostname -s | tr -c 'A-Za-z0-9_\n-' _)
sh -c 'exit 0' & dead=$!; wait $dead
mkdir -p "empty.tmp.$host.$dead.Ab12Cd/tables" "empty.tmp.$host.$$.Zz99Yy"
P --out "$SCRATCH/empty" >/dev/null 2>e.txt; rc=$?
check paper_out_previous_output_replaced [ "$rc" -eq 0 ]
check paper_out_dead_tmp_removed [ "$(ls -d empty.tmp.* | tr '\n' ' ')" = "empty.tmp.$host.$$.Zz99Yy " ]
rmdir "empty.tmp.$host.$$.Zz99Yy"
check paper_out_replaced_whole bash -c 'cd empty && sha256sum -c --quiet MANIFEST.sha256'
echo mine >empty/tables/added-by-me.txt
P --out "$SCRATCH/empty" >/dev/null 2>e.txt; rc=$?
check paper_out_extra_file_refused [ "$rc" -eq 2 ]
check paper_out_extra_file_named grep -q "tables/added-by-me.txt is not a file campaign paper wrote there (not in its MANIFEST.sha256)" e.txt
check paper_out_extra_file_kept [ "$(cat empty/tables/added-by-me.txt)" = mine ]
rm empty/tables/added-by-me.txt
echo "% my edit" >>empty/tables/scenarios.tex
P --out "$SCRATCH/empty" >/dev/null 2>e.txt; rc=$?
check paper_out_edited_file_refused [ "$rc" -eq 2 ]
check paper_out_edited_file_named grep -q "tables/scenarios.tex .*changed since it was written" e.txt
check paper_out_edited_file_kept grep -q "my edit" empty/tables/scenarios.tex
ln -s "$SCRATCH/mine" link-out
P --out "$SCRATCH/link-out" >/dev/null 2>e.txt; rc=$?
check paper_out_link_refused [ "$rc" -eq 2 ]
check paper_out_link_target_intact [ "$(cat mine/notes.txt)" = precious ]
echo x >afile
P --out "$SCRATCH/afile" >/dev/null 2>e.txt; rc=$?
check paper_out_file_refused bash -c '[ "$1" -eq 2 ] && [ "$(cat afile)" = x ]' _ "$rc"

# --- links planted in the run are named and refused, never written through
echo outside >victim.svg
mkdir -p "$run/figures"
rm -f "$run/figures/scaling.svg"
ln -s "$SCRATCH/victim.svg" "$run/figures/scaling.svg"
"$CAMPAIGN" aggregate --force --results "$SCRATCH/res" "$id" >agg.txt 2>&1
check figures_link_not_followed [ "$(cat victim.svg)" = outside ]
check figures_link_named grep -q "figures/scaling.svg is a symbolic link: campaign does not write through links" agg.txt
check figures_no_draw_dir_left bash -c '! ls -d "$1"/figures/.draw.* 2>/dev/null | grep -q .' _ "$run"
rm "$run/figures/scaling.svg"
mkdir outside_dir
rm -rf "$run/figures/data"
ln -s "$SCRATCH/outside_dir" "$run/figures/data"
"$CAMPAIGN" aggregate --force --results "$SCRATCH/res" "$id" >agg.txt 2>&1
check figures_data_link_not_followed [ -z "$(ls outside_dir)" ]
check figures_data_link_named grep -q "figures/data is a symbolic link" agg.txt
rm "$run/figures/data"
ln -s "$SCRATCH/victim.svg" "$run/summary.json.tmp.999999.0" # a guessed temporary name
echo outside >victim.json
rm -f "$run/summary.json"
ln -s "$SCRATCH/victim.json" "$run/summary.json"
"$CAMPAIGN" aggregate --force --results "$SCRATCH/res" "$id" >agg.txt 2>&1
check summary_link_not_followed [ "$(cat victim.json)" = outside ]
check summary_link_named grep -q "summary.json is a symbolic link" agg.txt
rm "$run/summary.json" "$run/summary.json.tmp.999999.0"

# one_job NAME CAMPAIGN COMMAND TRACES: a one-scenario campaign (s1) running `sh -c COMMAND`,
# collecting the TRACES globs (a YAML list), submitted and waited for into $SCRATCH/NAME;
# its output in NAME.txt
one_job() {
	cat >"$1.yaml" <<Y
campaign: $2
workload:
  command: ["/bin/sh", "-c", "$3"]
profile: { warmup_steps: 0, active_steps: 1, traces: $4 }
scenarios: [{ name: s1, nodes: 1 }]
Y
	timeout 120 "$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/$1" "$1.yaml" >"$1.txt" 2>&1
}

# A workload that plants links in its own job directory: job.status as a link
# to an outside folder, traces/ as a link to an outside folder.
mkdir -p sink_status sink_traces
one_job plant plant "ln -s $SCRATCH/sink_status job.status; ln -s $SCRATCH/sink_traces traces; cp $FIX/mini.pt.trace.json mine.pt.trace.json" '["*.pt.trace.json"]'
prun=$(rundir plant.txt)
check plant_status_not_moved_outside [ -z "$(ls sink_status)" ]
check plant_status_written [ -f "$prun/s1/job.status" ] && [ ! -L "$prun/s1/job.status" ]
check plant_status_exit0 grep -q '"exit_code": 0' "$prun/s1/job.status"
check plant_traces_not_copied_outside [ -z "$(ls sink_traces)" ]
check plant_traces_link_named grep -rq "traces is a symbolic link" "$prun/s1/"

# A workload that writes its traces into traces/ itself, with a glob that
# matches them there: each file is counted once, never copied onto itself.
one_job self selftraces "mkdir -p traces && cp $FIX/kineto_steps.pt.trace.json traces/a.pt.trace.json && cp $FIX/kineto_steps.pt.trace.json b.pt.trace.json" '["traces/*.json", "*.pt.trace.json"]'
srun_=$(rundir self.txt)
check traces_not_collected_twice [ "$(ls "$srun_/s1/traces" | tr '\n' ' ')" = "a.pt.trace.json " ]
check traces_same_bytes_said grep -rq "1 more with the same bytes as one collected: skipped" "$srun_/s1/"

# A collected trace keeps the time the workload wrote it (the analysis bounds the end of
# steps timed on a clock of their own by it), not the time it was copied.
one_job kept keptmtime "cp $FIX/kineto_steps.pt.trace.json k.pt.trace.json && touch -d '2020-01-02 03:04:05 UTC' k.pt.trace.json" '["*.pt.trace.json"]'
krun=$(rundir kept.txt)
check traces_collected_keep_mtime [ "$(stat -c %Y "$krun/s1/traces/k.pt.trace.json")" = 1577934245 ]

# --- FIFOs: named and skipped, never waited on ------------------------------
sc=$run/t
mkdir -p "$sc/metrics" "$sc/traces" "$sc/monitor/n1"
mkfifo "$sc/metrics/rank_1.jsonl" "$sc/traces/rank_7.pt.trace.json" "$sc/monitor/n1/cpu_monitor.csv"
timeout 60 "$CAMPAIGN" aggregate --force --results "$SCRATCH/res" "$id" >agg.txt 2>&1; rc=$?
check fifo_aggregate_returns [ "$rc" -ne 124 ]
check fifo_named grep -q "is not a regular file (a FIFO)" agg.txt
check fifo_report_written [ -s "$run/BOTTLENECK_ANALYSIS.md" ]
mkfifo pipe.yaml
timeout 20 "$CAMPAIGN" validate pipe.yaml >v.txt 2>&1; rc=$?
check fifo_validate_returns [ "$rc" -ne 124 ] && [ "$rc" -ne 0 ]
check fifo_validate_says grep -q "pipe.yaml is not a regular file (a FIFO)" v.txt
cat >fifo.yaml <<'Y'
campaign: fifo
workload: { command: ["/bin/sh", "-c", "mkdir -p metrics && mkfifo metrics/rank_3.jsonl traces.pt.trace.json"] }
profile: { warmup_steps: 0, active_steps: 1, traces: ["*.pt.trace.json"] }
scenarios: [{ name: s1, nodes: 1 }]
Y
timeout 120 "$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/fifo" fifo.yaml >fifo.txt 2>&1; rc=$?
check fifo_submit_wait_returns [ "$rc" -ne 124 ]
check fifo_submit_run_analysed [ -s "$(rundir fifo.txt)/BOTTLENECK_ANALYSIS.md" ]
