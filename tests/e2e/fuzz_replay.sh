# Replays every input the fuzzers have found so far (tests/fuzz/corpus/), the
# seeds and the hostile corpus (tests/corpus/: the campaign loader's *.yaml, and
# analysis-input-*.json through run_input's reader) through the fuzz targets (ASan + UBSan):
# none may crash, leak, hit undefined behaviour, write over its input or allocate more than
# libFuzzer's default limit (2 GB, one allocation or the whole process). The targets are
# linked with a replay driver (tests/fuzz/replay_main.c) against the unit tests' sanitized
# objects (build/replay/, gcc); `make fuzz` links them with libFuzzer (clang) and finds new
# inputs.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
export CAMPAIGN_RULES=$ROOT/analyzers/kernel_rules.txt CAMPAIGN_PHASE_RULES=$ROOT/analyzers/phase_rules.txt
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:max_allocation_size_mb=2048:hard_rss_limit_mb=2048
# fuzz_chunks (the chunked trace reader against the whole reading) replays the Kineto inputs too
for name in campaign jsonl kineto csv chunks inspector run_input; do
	bin=$ROOT/build/replay/fuzz_$name
	if [ ! -x "$bin" ]; then
		fail "fuzz_replay_$name" "$bin is not built (make check, or make test T=fuzz_replay, builds it)"
		continue
	fi
	dirs="$ROOT/tests/fuzz/seeds/$name $ROOT/tests/fuzz/corpus/$name"
	[ "$name" = chunks ] && dirs="$dirs $ROOT/tests/fuzz/seeds/kineto $ROOT/tests/fuzz/corpus/kineto"
	# the loader's hostile corpus (tests/corpus/, each file's error checked by corpus.sh) too:
	# its error paths under ASan, UBSan and the leak checker
	[ "$name" = campaign ] && dirs="$dirs $ROOT/tests/corpus"
	# shellcheck disable=SC2086
	find $dirs -type f ! -name '*.expect' 2>/dev/null | sort >"$SCRATCH/$name.list"
	# ... and its hostile analysis inputs (analysis-input-*.json) through run_input's reader
	[ "$name" = run_input ] && ls "$ROOT"/tests/corpus/analysis-input-*.json >>"$SCRATCH/$name.list"
	n=$(wc -l <"$SCRATCH/$name.list")
	xargs -a "$SCRATCH/$name.list" -n 500 "$bin" >"$SCRATCH/$name.log" 2>&1; rc=$?
	echo "   fuzz_$name: $n inputs replayed"
	check "fuzz_replay_$name" [ "$rc" -eq 0 -a "$n" -gt 0 ]
	[ "$rc" -eq 0 ] || tail -30 "$SCRATCH/$name.log"
done
