# The job log gets whole lines (issue 25, part 2): 8 ranks writing long
# lines in 700-byte pieces, all at once; every line reaches the job log
# whole, and each rank's own log has all of its lines.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
cat >inter.yaml <<'Y'
campaign: inter
workload:
  command: ["/usr/bin/python3", "-c", "import os\nr = os.environ['RANK']\nfor i in range(300):\n    line = ('rank %s line %d ' % (r, i)) + ('x' * 3000) + ' end\\n'\n    for k in range(0, len(line), 700):\n        os.write(1, line[k:k + 700].encode())\nos.write(1, b'rank ' + r.encode() + b' last words without a newline')\n"]
scenarios: [{ name: s, nodes: 2, tasks_per_node: 4 }]
Y
# whole RANKS FILE...: the lines, over all FILEs, that are one whole line of a rank in RANKS (a
# bracket expression): "rank R line N ", 3000 x's, " end" (awk, not grep's x{3000}: GNU grep
# builds an automaton of 3000 states for it, 20 CPU seconds per 7 MB file)
whole() { awk -v r="^rank [$1] line [0-9]+ x+ end\$" '$0 ~ r && length($5) == 3000 { n++ } END { print n + 0 }' "${@:2}"; }
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" inter.yaml >out.txt 2>&1; rc=$?
run=$(rundir out.txt)
check ranklogs_job_completes [ "$rc" -eq 0 ]
check ranklogs_whole_lines [ "$(whole 0-7 "$run"/s/slurm-*.out)" -eq 2400 ]
check ranklogs_last_partial_line_kept [ "$(grep -cE '^rank [0-7] last words without a newline$' "$run"/s/slurm-*.out)" -eq 8 ]
check ranklogs_rank_files_whole [ "$(whole 0-7 "$run"/s/logs/rank_*.out)" -eq 2400 ]
# `logs --rank R` after the job has ended (issue 45): a rank the scenario does not have is
# named as such, and a rank log that is not there is not said to be written while the job runs
"$CAMPAIGN" logs --results "$SCRATCH/res" --rank 3 "$(basename "$run")" >r3.out 2>&1
check ranklogs_logs_rank_own [ "$(whole 3 r3.out),$(grep -cvE '^rank 3 ' r3.out)" = "300,0" ]
"$CAMPAIGN" logs --results "$SCRATCH/res" --rank 8 "$(basename "$run")" >r8.out 2>&1; rc=$?
check ranklogs_logs_rank_beyond bash -c '[ "$1" -eq 3 ] && grep -q "scenario '\''s'\'' has 8 ranks: no rank 8$" "$2"' _ "$rc" r8.out
mv "$run/s/logs/rank_7.out" r7.kept
"$CAMPAIGN" logs --results "$SCRATCH/res" --rank 7 "$(basename "$run")" >r7.out 2>&1; rc=$?
check ranklogs_logs_rank_gone_after_end bash -c '[ "$1" -eq 3 ] && grep -q "rank_7.out: no such log: the job ended (COMPLETED) without one$" "$2" && ! grep -q "while the job runs" "$2"' _ "$rc" r7.out
