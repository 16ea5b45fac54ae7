#!/bin/bash
# make check-sanitized: the whole test suite with every binary built with
# AddressSanitizer + UndefinedBehaviorSanitizer (in a clone under build/, so
# the normal build is untouched). Timing-dependent checks and the valgrind
# run skip themselves (CAMPAIGN_SANITIZED); library leaks that are not
# campaign's are listed in tests/sanitizers/lsan.supp.
# SPDX-License-Identifier: MIT
set -u
cd "$(dirname "$0")/.."
here=$(pwd)
dir=build/sanitized
rm -rf "$dir"
git clone -q . "$dir" || { echo "check-sanitized: needs a git checkout (git clone)"; exit 2; }
[ -e ../shared ] && [ ! -e build/shared ] && ln -s "$(cd ../shared && pwd)" build/shared
OPT="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
make -C "$dir" --no-print-directory bin/campaign bin/campaign-analyze bin/campaign-trainer bin/campaign-monitor \
	OPT="$OPT" >"$dir/build.log" 2>&1 || { tail -n 20 "$dir/build.log"; exit 2; }
make -C "$dir" --no-print-directory $(cd "$dir" && ls tests/unit/test_*.c | sed 's|tests/unit/\(.*\)\.c|build/asan/\1|') \
	$(cd "$dir" && ls tests/fuzz/fuzz_*.c | sed 's|tests/fuzz/\(.*\)\.c|build/replay/\1|') >>"$dir/build.log" 2>&1
export CAMPAIGN_SANITIZED=1 LSAN_OPTIONS=suppressions=$here/tests/sanitizers/lsan.supp
cd "$dir" && exec tests/run.sh build/asan/test_*
