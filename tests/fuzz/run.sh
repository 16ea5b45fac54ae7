#!/bin/bash
# make fuzz: runs each libFuzzer target for SECONDS, starting from the committed
# corpus (tests/fuzz/corpus/<name>) and seeds (tests/fuzz/seeds/<name>); new inputs
# that add coverage are merged back into the corpus (commit them), findings land in
# build/fuzz/findings/. Prints executions and time per target.
# SPDX-License-Identifier: MIT
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SECONDS_EACH=$1
shift
BIN=${FUZZ_BIN_DIR:-$ROOT/build/fuzz}
export CAMPAIGN_RULES=$ROOT/analyzers/kernel_rules.txt CAMPAIGN_PHASE_RULES=$ROOT/analyzers/phase_rules.txt
export ASAN_OPTIONS=detect_leaks=1
status=0
mkdir -p "$ROOT/build/fuzz/findings"
for name in "$@"; do
	corpus=$ROOT/tests/fuzz/corpus/$name work=$ROOT/build/fuzz/work/$name
	mkdir -p "$corpus" "$work"
	log=$ROOT/build/fuzz/$name.log
	echo "fuzz_$name: ${SECONDS_EACH} s (log: $log)"
	more=() # fuzz_chunks starts from the Kineto inputs as well
	[ "$name" = chunks ] && more=("$ROOT/tests/fuzz/corpus/kineto" "$ROOT/tests/fuzz/seeds/kineto")
	"$BIN/fuzz_$name" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
		-artifact_prefix="$ROOT/build/fuzz/findings/${name}-" "$work" "$corpus" "$ROOT/tests/fuzz/seeds/$name" \
		"${more[@]}" >"$log" 2>&1
	rc=$?
	grep -E "^Done [0-9]+ runs|^#[0-9]+ +DONE" "$log" | tail -2 | sed 's/^/  /'
	if [ "$rc" -ne 0 ]; then
		echo "  FINDING (exit $rc): see $log and build/fuzz/findings/"
		status=1
	fi
	"$BIN/fuzz_$name" -merge=1 "$corpus" "$work" >/dev/null 2>&1
	echo "  corpus: $(ls "$corpus" | wc -l) inputs"
done
exit $status
