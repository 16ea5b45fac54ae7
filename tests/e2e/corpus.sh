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
