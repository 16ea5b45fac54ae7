#!/bin/bash
# test_name.sh NAME: what `make test T=NAME` runs. Prints "unit build/asan/test_X" for a
# unit test (NAME is test_X or X, tests/unit/test_X.c) or "e2e X" for an end-to-end script
# (tests/e2e/X.sh, NAME with or without .sh); a name that is both is the unit test (say
# test_X or X.sh to choose). Nothing matching: the near names on stderr, exit 2.
# SPDX-License-Identifier: MIT
set -u
cd "$(dirname "$0")/../.."
name=${1:-}
name=${name%.sh}
name=${name%.c}
name=${name#tests/e2e/}
name=${name#tests/unit/}
name=${name#build/asan/}
if [ -z "$name" ]; then
	echo "make test: say which test, e.g. make test T=analysis (tests/unit/test_analysis.c) or T=faults (tests/e2e/faults.sh)" >&2
	exit 2
fi
units=() scripts=()
for f in tests/unit/test_*.c; do units+=("$(basename "$f" .c)"); done
for f in tests/e2e/*.sh; do scripts+=("$(basename "$f" .sh)"); done
if [[ "${1:-}" != *.sh ]]; then
	for u in "${units[@]}"; do
		if [ "$u" = "$name" ] || [ "$u" = "test_$name" ]; then
			echo "unit build/asan/$u"
			exit 0
		fi
	done
fi
for s in "${scripts[@]}"; do
	if [ "$s" = "$name" ]; then
		echo "e2e $s"
		exit 0
	fi
done
# near names: those holding the name (or held by it), then the closest spellings
near=$(
	for c in "${units[@]}" "${scripts[@]}"; do
		[[ "$c" == *"$name"* || "$name" == *"${c#test_}"* ]] && echo "$c"
	done
	python3 -c 'import difflib, sys; print("\n".join(difflib.get_close_matches(sys.argv[1], sys.argv[2:], 6, 0.6)))' \
		"$name" "${units[@]}" "${scripts[@]}"
)
echo "make test: no unit test tests/unit/test_$name.c and no script tests/e2e/$name.sh" >&2
if [ -n "$near" ]; then
	echo "near names: $(awk 'NF && !seen[$0]++' <<<"$near" | head -n 8 | tr '\n' ' ')" >&2
else
	echo "unit tests: ${units[*]#test_}" >&2
	echo "e2e scripts: ${scripts[*]}" >&2
fi
exit 2
