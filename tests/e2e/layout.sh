# The layers depend one way: util -> analyzers -> orchestrator -> orchestrator/cli.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"

check util_includes_nothing_above bash -c '[ -z "$(grep -ln "#include \"\(analyzers\|orchestrator\)/" util/*.[ch])" ]'
check analyzers_include_no_orchestrator bash -c '[ -z "$(grep -ln "#include \"\(\.\./\)*orchestrator/" analyzers/*.[ch])" ]'
check orchestrator_includes_no_cli bash -c '[ -z "$(grep -ln "#include \"\(orchestrator/\)*cli/" orchestrator/*.[ch])" ]'
check makefile_has_no_link_group bash -c '! grep -q -- "--start-group" Makefile'
libs=$(ldd "$BIN/campaign-analyze")
check analyze_links_no_libslurm bash -c '! grep -q libslurm <<<"$1"' _ "$libs"
check analyze_links_no_libgit2 bash -c '! grep -q libgit2 <<<"$1"' _ "$libs"
check campaign_links_libslurm bash -c 'ldd "$1" | grep -q libslurm' _ "$BIN/campaign"
