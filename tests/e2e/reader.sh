# The two Kineto readers keep the same events: simdjson (whole documents up
# to CAMPAIGN_SIMDJSON_MAX_MB, 512 by default) and the streaming yajl reader
# (larger documents, or everything with CAMPAIGN_SIMDJSON_MAX_MB=0); a
# document over the limit is read partly into memory, then streamed. Same
# analysis, byte for byte, on generated, gzip, legacy, fixture and (when
# present) the shared reference traces; damaged documents are refused by
# both with the file named.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
gen="$ROOT/tests/tools/gen_traces.py"
export CAMPAIGN_RULES="$ROOT/analyzers/kernel_rules.txt"
python3 "$gen" --ranks 2 --mb 3 --out syn >/dev/null
python3 "$gen" --ranks 2 --mb 0.5 --gzip --first-rank 2 --out syn >/dev/null
python3 "$gen" --ranks 1 --mb 0.5 --legacy --first-rank 4 --out syn >/dev/null
files=(syn/* "$ROOT"/tests/fixtures/*.pt.trace.json)
S="$ROOT/../shared/traces/kineto"
if [ -d "$S" ]; then
	files+=("$S"/*/*.json)
else
	skip reader_shared_traces "../shared/traces is absent (only the project's workspace has it)"
fi
for mb in 0 1 512; do
	CAMPAIGN_SIMDJSON_MAX_MB=$mb "$BIN/campaign-analyze" --json -j 1 "${files[@]}" >an.$mb.json 2>an.$mb.err
	echo $? >an.$mb.rc
done
check "reader_all_files_read (${#files[@]})" [ "$(json an.512.json 'len(j["ranks"])')" = "${#files[@]}" ]
check reader_simdjson_as_yajl cmp -s an.0.json an.512.json
check reader_head_then_stream_as_yajl cmp -s an.0.json an.1.json
check reader_same_exit [ "$(cat an.0.rc an.1.rc an.512.rc | tr '\n' ' ')" = "$(cat an.0.rc an.0.rc an.0.rc | tr '\n' ' ')" ]
# damaged documents: named, exit 4, whichever reader
printf '' >empty.json
printf '{"traceEvents": [{"name": "a", "ts": 1' >truncated.json
printf '{"traceEvents": []} trailing' >trailing.json
head -c 3000 /dev/urandom >junk.json
for f in empty truncated trailing junk; do
	for mb in 0 512; do
		CAMPAIGN_SIMDJSON_MAX_MB=$mb "$BIN/campaign-analyze" $f.json >$f.$mb.out 2>&1; rc=$?
		check "reader_refuses_${f}_mb$mb" [ "$rc" -eq 4 ]
		check "reader_names_${f}_mb$mb" grep -q "^campaign-analyze: $f.json: \(not a Chrome-trace JSON file\|the file is empty (0 bytes)\)" $f.$mb.out
	done
done
# an escaped key, a number out of double range, a tid given as a number
printf '{"traceEvents": [{"na\\u006de": "k", "ph": "X", "ts": 10, "dur": 5, "tid": 7, "args": {"stream": 7, "correlation": 1e400}}, {"name": "x", "ph": "X", "ts": 1e400, "dur": 1}]}' >odd.json
for mb in 0 512; do CAMPAIGN_SIMDJSON_MAX_MB=$mb "$BIN/campaign-analyze" --json odd.json >odd.$mb.json 2>&1; done
check reader_odd_values_same cmp -s odd.0.json odd.512.json
check reader_escaped_key_read [ "$(json odd.512.json '(j["ranks"][0]["gpu_events"], j["ranks"][0]["malformed_events"])')" = "(1, 1)" ]
