# README.md's commands, run as a newcomer would type them, on the local executor, in a
# scratch folder holding links to bin/ and campaigns/. The fence tag says what a block is
# (docs/development.md, "The README's commands"): ```sh lines are run in order, each must
# exit 0; ```yaml FILE is written to FILE first; ```console (make, SLURM) and ```text (output)
# are shown only. Then what those commands promise: the run analysed, `status` with its RANKS,
# `logs SCENARIO` the newest run's job log, `logs --rank` the rank's own output, and the
# torchrun example (issue 45: Debian's torchrun fails without --redirects 1 --tee 1) analysed.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
need_torch readme_own_script
cd "$SCRATCH"
ln -s "$ROOT/bin" bin
ln -s "$ROOT/campaigns" campaigns
unset CAMPAIGN_RESULTS
# the README's python3 is the one with torch: Debian's, ahead of a version manager's shim
export PATH=/usr/bin:$PATH
# blocks FILE: one line per block, "TAG ARG FIRST_LINE LAST_LINE" (lines of FILE; ARG - for none)
blocks() {
	awk '/^```/ { if (open) { print tag " " arg " " first " " NR - 1; open = 0 }
		      else { open = 1; first = NR + 1; tag = substr($1, 4) == "" ? "none" : substr($1, 4)
		             arg = $2 == "" ? "-" : $2 }
		      next }' "$1"
}
README=$ROOT/README.md
untagged=$(blocks "$README" | awk '$1 !~ /^(sh|yaml|console|text)$/ { print $3 - 1 }' | tr '\n' ' ')
check readme_every_fence_tagged [ -z "$untagged" ]
ran=0
while read -r tag arg first last; do
	case "$tag" in
	yaml)
		[ "$arg" != - ] || continue
		mkdir -p "$(dirname "$arg")"
		sed -n "${first},${last}p" "$README" >"$arg"
		;;
	sh)
		for ((k = first; k <= last; k++)); do
			line=$(sed -n "${k}p" "$README")
			case "$line" in '' | '#'*) continue ;; esac
			bash -c "$line" >"line$k.out" 2>&1
			rc=$?
			if [ "$rc" -ne 0 ] && torch_heap_abort "$(rundir "line$k.out")"; then
				echo "note: a torch rank aborted on glibc's heap check (a crash in Debian's torch): line $k again"
				bash -c "$line" >"line$k.out" 2>&1
				rc=$?
			fi
			ran=$((ran + 1))
			[ "$rc" -eq 0 ] || tail -n 5 "line$k.out" | sed 's/^/  why: /'
			check "readme_line_${k}_exit0" [ "$rc" -eq 0 ]
		done
		;;
	esac
done < <(blocks "$README")
check readme_commands_ran [ "$ran" -ge 5 ]
run=$(ls -d results/my-training/*/ 2>/dev/null | tail -n 1)
check readme_run_analysed [ "$(json "$run/summary.json" '[s["analysed"] for s in j["scenarios"]]' 2>&1)" = "[True, True]" ]
check readme_from_traces [ "$(json "$run/summary.json" '[s["source"] for s in j["scenarios"]]' 2>&1)" = "['PyTorch profiler traces', 'PyTorch profiler traces']" ]
# out COMMAND: the output of the README's first line that starts with COMMAND, as it ran above
out() { echo "line$(grep -n "^$1" "$README" | head -n 1 | cut -d: -f1).out"; }
# nodes 2, ranks 4: the RANKS column after NODES
check readme_status_newest grep -q "^cpu-2n  *2  *COMPLETED  *2  *4 " "$(out 'bin/campaign status')"
check readme_logs_scenario_of_newest grep -q "^campaign: scenario cpu-2n starting on local\[1-2\]" "$(out 'bin/campaign logs cpu-2n')"
check readme_logs_rank_output grep -q "^step [0-9]* loss " "$(out 'bin/campaign logs --rank 1 cpu-2n')"
# the torchrun example, as written (Debian's torchrun needs its --redirects 1 --tee 1): one
# torchrun per emulated node, 2 workers each, analysed from its workers' traces
check readme_torchrun_completed grep -q "^torchrun-2n  *1  *COMPLETED  *2  *4 " "$(out 'bin/campaign submit --wait --backend local my-training/torchrun.yaml')"
trun=$(ls -d results/my-torchrun/*/ 2>/dev/null | tail -n 1)
check readme_torchrun_analysed [ "$(json "$trun/summary.json" '[(s["analysed"], s["ranks"], s["ranks_with_data"], s["source"]) for s in j["scenarios"]]' 2>&1)" = "[(True, 4, 4, 'PyTorch profiler traces')]" ]
check readme_torchrun_workers_recorded [ "$(ls "$trun/torchrun-2n/ranks" 2>&1 | tr '\n' ' ')" = "launcher_0.json launcher_1.json rank_0.json rank_1.json rank_2.json rank_3.json " ]
