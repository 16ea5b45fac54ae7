# Shared helpers of the end-to-end tests: PASS/FAIL/SKIP lines for
# tests/run.sh, a scratch directory, and the built binaries.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=$ROOT/bin
CAMPAIGN=$BIN/campaign
SCRATCH=$(mktemp -d /tmp/campaign-test.XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: ${2:-}"; }
skip() { echo "SKIP $1: $2"; }
# check NAME COMMAND...: PASS when the command succeeds
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n" "$*"; fi; }
# json FILE EXPR: evaluates a Python expression on the parsed JSON document j
json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# rundir FILE: the run directory submit printed (the line after "run <id>"),
# whatever else (stderr notices) the file holds
rundir() { awk '/^run [0-9]/ { getline; print; exit }' "$1"; }
# killable OUT CMD...: runs CMD with stdout and stderr in OUT, without the
# shell's "Killed" notice when a fault point ends it with SIGKILL
killable() { local out=$1; shift; { "$@" >"$out" 2>&1; } 2>/dev/null; }
