# tests/corpus/: broken campaign files, each with the first line of the message it
# must give (<name>.expect). validate and submit both exit 2 with that message,
# and submit creates nothing: no results directory, no file anywhere in it.
# And hostile analysis inputs (analysis-input-*.json, issue 46): each, as a run's
# analysis_input.json, is refused by campaign-analyze RUN (exit 4) with the message its
# .expect gives (RUN: the run folder), naming the key, and no analysis is written.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$ROOT/tests/corpus"
for f in *.yaml; do
	name=${f%.yaml}
	"$CAMPAIGN" validate "$f" >/dev/null 2>"$SCRATCH/$name.err"; rc=$?
	check "corpus_${name}_validate_exit2" [ "$rc" -eq 2 ]
	IFS= read -r first <"$SCRATCH/$name.err" # (builtins: 50 files, and a process costs ~10 ms)
	check "corpus_${name}_message" [ "$first" = "$(<"$name.expect")" ]
	"$CAMPAIGN" submit --backend local --results "$SCRATCH/res-$name" "$f" >/dev/null 2>"$SCRATCH/$name.sub"; rc=$?
	check "corpus_${name}_submit_exit2_nothing_created" [ "$rc" -eq 2 -a ! -e "$SCRATCH/res-$name" ]
done
# analyze_input NAME FILE: FILE as the analysis_input.json of run folder $SCRATCH/NAME,
# analysed by campaign-analyze RUN: its exit status; its output in $SCRATCH/NAME.out
analyze_input() {
	mkdir -p "$SCRATCH/$1" && cp "$2" "$SCRATCH/$1/analysis_input.json"
	"$BIN/campaign-analyze" "$SCRATCH/$1" >"$SCRATCH/$1.out" 2>&1
}
for f in analysis-input-*.json; do
	name=${f%.json}
	analyze_input "$name" "$f"; rc=$?
	check "corpus_${name}_exit4" [ "$rc" -eq 4 ]
	check "corpus_${name}_message" [ "$(cat "$SCRATCH/$name.out")" = "$(sed "s|RUN|$SCRATCH/$name|g" "$name.expect")" ]
	check "corpus_${name}_no_analysis" [ ! -e "$SCRATCH/$name/summary.json" -a ! -e "$SCRATCH/$name/BOTTLENECK_ANALYSIS.md" ]
done
check corpus_tree_untouched [ -z "$(git -C "$ROOT" status --porcelain -- tests/corpus 2>/dev/null)" ]

# Generated analysis inputs (too big to commit): a 10 MB reason (under the 16 MiB an input may
# have: the key is named), 1,025 scenarios, and a 100 MB input, refused before it is read (its
# peak memory, from /usr/bin/time, under 64 MB).
cd "$SCRATCH"
base=$ROOT/tests/corpus/analysis-input-reason.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["scenarios"][0]["reason"] = "r" * 10000000; json.dump(d, open("reason-10mb.json", "w"))' "$base"
analyze_input reason-10mb reason-10mb.json; rc=$?
check corpus_analysis_reason_10mb_exit4 [ "$rc" -eq 4 ]
check corpus_analysis_reason_10mb_message [ "$(cat reason-10mb.out)" = "campaign-analyze: $SCRATCH/reason-10mb/analysis_input.json is damaged (scenarios[0].reason: 10000000 bytes, more than 4096); run \`campaign aggregate --force $SCRATCH/reason-10mb\` to write it again" ]
python3 -c 'import json,sys,copy; d=json.load(open(sys.argv[1])); s=d["scenarios"][0]; s["reason"]=""; d["scenarios"]=[dict(s, name="t%d" % i, job_dir="t%d" % i) for i in range(1025)]; json.dump(d, open("scenarios-1025.json", "w"))' "$base"
analyze_input scenarios-1025 scenarios-1025.json; rc=$?
check corpus_analysis_1025_scenarios_exit4 [ "$rc" -eq 4 ]
check corpus_analysis_1025_scenarios_message [ "$(cat scenarios-1025.out)" = "campaign-analyze: $SCRATCH/scenarios-1025/analysis_input.json is damaged (scenarios: 1025 items, more than 1024); run \`campaign aggregate --force $SCRATCH/scenarios-1025\` to write it again" ]
mkdir -p big && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["scenarios"][0]["reason"] = "@R@"; a, b = json.dumps(d).split("@R@"); f = open("big/analysis_input.json", "w"); f.write(a); [f.write("r" * 1000000) for _ in range(100)]; f.write(b)' "$base"
size=$(stat -c %s big/analysis_input.json)
/usr/bin/time -f %M -o big.rss "$BIN/campaign-analyze" "$SCRATCH/big" >big.out 2>&1; rc=$?
check corpus_analysis_100mb_exit4 [ "$rc" -eq 4 ]
check corpus_analysis_100mb_message [ "$(cat big.out)" = "campaign-analyze: $SCRATCH/big/analysis_input.json: $size bytes, more than the 16 MiB campaign writes: not read; run \`campaign aggregate --force $SCRATCH/big\` to write it again" ]
check corpus_analysis_100mb_not_read [ "$(tail -n 1 big.rss)" -lt 65536 ]
rm -f big/analysis_input.json reason-10mb.json reason-10mb/analysis_input.json

# Generated (too big to commit): a 5 MB line is over the 4 MiB limit; a 3 MB
# line under it is one value over the 64 KiB a value may have; 10,000
# nested maps where a string belongs.
cd "$SCRATCH"
python3 -c "print('campaign: x\nworkload: { command: [/bin/true] }\ndescription: \"' + 'a' * 5000000 + '\"\nscenarios: [{ name: a, nodes: 1 }]')" >long-line.yaml
"$CAMPAIGN" validate long-line.yaml >/dev/null 2>ll.err; rc=$?
check corpus_long_line_exit2 [ "$rc" -eq 2 ]
check corpus_long_line_message [ "$(head -n 1 ll.err)" = "long-line.yaml: 5000098 bytes, over the 4 MiB a campaign file may have (a campaign is a few KB: generate scenarios with matrix:, keep data in files the workload reads)" ]
python3 -c "print('campaign: x\nworkload: { command: [/bin/true] }\ndescription: \"' + 'a' * 3000000 + '\"\nscenarios: [{ name: a, nodes: 1 }]')" >line-3mb.yaml
"$CAMPAIGN" validate line-3mb.yaml >/dev/null 2>l3.err; rc=$?
check corpus_3mb_line_exit2 [ "$rc" -eq 2 ]
check corpus_3mb_line_message [ "$(head -n 1 l3.err)" = "line-3mb.yaml:3:14: description: value is longer than 65536 bytes" ]
python3 -c "print('campaign: x\nworkload:\n  command: [/bin/true]\n  params: { p: ' + '{a: ' * 10000 + '1' + '}' * 10000 + ' }\nscenarios: [{ name: a, nodes: 1 }]')" >deep-maps.yaml
"$CAMPAIGN" validate deep-maps.yaml >/dev/null 2>dm.err; rc=$?
check corpus_deep_maps_exit2 [ "$rc" -eq 2 ]
check corpus_deep_maps_message [ "$(head -n 1 dm.err)" = "deep-maps.yaml:4:16: workload.params.p: expected a string, found a mapping" ]
