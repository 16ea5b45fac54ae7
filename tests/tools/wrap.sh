#!/bin/bash
# Wraps the lines of the given C/C++/CUDA files that are wider than 100
# columns (tabs at 8): a trailing comment that makes a line too wide moves
# onto its own lines above the code (wrap_comments.py), then clang-format
# (.clang-format holds the project's style) wraps, on those lines only, the
# code that is still too wide; the rest of each file is left as it is.
#   tests/tools/wrap.sh $(git ls-files '*.c' '*.h' '*.cc' '*.cu')
# SPDX-License-Identifier: MIT
set -eu
for f in "$@"; do # clang-format would mangle anything else (a shell script's long lines)
	case "$f" in
	*.c | *.h | *.cc | *.cu) ;;
	*) echo "wrap.sh: $f: not a C, C++ or CUDA file; nothing done" >&2; exit 2 ;;
	esac
done
python3 "$(dirname "$0")/wrap_comments.py" "$@"
for f in "$@"; do
	for pass in 1 2; do
		lines=$(expand -t8 "$f" | awk 'length > 100 { printf "--lines=%d:%d ", NR, NR }')
		[ -z "$lines" ] && break
		# shellcheck disable=SC2086
		clang-format -i $lines "$f"
	done
done
