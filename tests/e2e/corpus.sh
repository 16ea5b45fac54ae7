# tests/corpus/: broken campaign files, each with the first line of the message it
# must give (<name>.expect). validate and submit both exit 2 with that message,
# and submit creates nothing: no results directory, no file anywhere in it.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT/tests/corpus"
for f in *.yaml; do
	name=${f%.yaml}
	"$CAMPAIGN" validate "$f" >/dev/null 2>"$SCRATCH/$name.err"; rc=$?
	check "corpus_${name}_validate_exit2" [ "$rc" -eq 2 ]
	check "corpus_${name}_message" [ "$(head -n 1 "$SCRATCH/$name.err")" = "$(cat "$name.expect")" ]
	"$CAMPAIGN" submit --backend local --results "$SCRATCH/res-$name" "$f" >/dev/null 2>"$SCRATCH/$name.sub"; rc=$?
	check "corpus_${name}_submit_exit2_nothing_created" [ "$rc" -eq 2 -a ! -e "$SCRATCH/res-$name" ]
done
check corpus_tree_untouched [ -z "$(git -C "$ROOT" status --porcelain -- tests/corpus 2>/dev/null)" ]

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
