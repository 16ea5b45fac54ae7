# campaign-analyze under ThreadSanitizer (build/tsan/campaign-analyze, clang): a
# trace read in chunks on three threads (plain, gzip, and one whose guessed cuts
# go wrong so that it is read again whole), several files at once, and each
# file's GPU view and steps side by side. No data race may be reported, and the
# output must be the regular build's, byte for byte.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
T=$ROOT/build/tsan/campaign-analyze
if [ ! -x "$T" ]; then
	fail tsan_built "$T is not built (make check builds it with clang)"
	exit 0
fi
export CAMPAIGN_RULES=$ROOT/analyzers/kernel_rules.txt CAMPAIGN_PHASE_RULES=$ROOT/analyzers/phase_rules.txt
python3 "$ROOT/tests/tools/gen_traces.py" --ranks 2 --mb 6 --out gen >/dev/null
gzip -1 -c gen/rank1.pt.trace.json >rank1.pt.trace.json.gz
python3 "$ROOT/tests/tools/wrong_cuts_trace.py" wrong.pt.trace.json
for input in "gen/rank0.pt.trace.json" "rank1.pt.trace.json.gz" "wrong.pt.trace.json" "gen/rank0.pt.trace.json gen/rank1.pt.trace.json"; do
	name=$(echo "$input" | tr ' /' '__')
	# shellcheck disable=SC2086
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$T" --json -j 3 $input >"$name.tsan.json" 2>"$name.tsan.err"; rc=$?
	# shellcheck disable=SC2086
	"$BIN/campaign-analyze" --json -j 1 $input >"$name.json" 2>/dev/null
	check "tsan_no_race_$name" bash -c '[ "$1" -eq 0 ] && ! grep -q ThreadSanitizer "$2"' _ "$rc" "$name.tsan.err"
	[ "$rc" -eq 0 ] || head -30 "$name.tsan.err"
	check "tsan_same_output_$name" cmp -s "$name.tsan.json" "$name.json"
done
