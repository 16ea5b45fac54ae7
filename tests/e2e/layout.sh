# The layers depend one way: util -> analyzers -> orchestrator -> orchestrator/cli.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"

check util_includes_nothing_above bash -c '[ -z "$(grep -ln "#include \"\(analyzers\|orchestrator\)/" util/*.[ch])" ]'
check analyzers_include_no_orchestrator bash -c '[ -z "$(grep -rln "#include \"\(\.\./\)*orchestrator/" analyzers)" ]'
# analyzers/ by concern: read/ (one file per input format) below the model (accounting,
# verdict, advice, ... at the top), which never reaches write/ (every sentence of prose:
# report, evidence, figures, timeline); write/ may read everything below it
check analyzers_read_below_model bash -c '[ -z "$(grep -rh "#include \"analyzers/" analyzers/read | grep -v "analyzers/\(read/\|pool\.h\)")" ]'
check analyzers_model_no_write bash -c '[ -z "$(grep -l "#include \"analyzers/write/" analyzers/*.[ch] | grep -v "^analyzers/main\.c$" | grep -v "^analyzers/analyze_")" ]'
# replay/ (the execution graph and its simulation) stands alone in the model: it knows no trace
# and no other analysis, only its own files and util/
check analyzers_replay_stands_alone bash -c '[ -z "$(grep -rh "#include \"analyzers/" analyzers/replay | grep -v "analyzers/replay/")" ]'
# ... and holds no prose: it records enums, counts, numbers and names, write/ says them (the
# few reader's reasons that stay are listed, with why, in the script)
check analyzers_model_no_prose python3 tests/tools/model_prose.py
check analyzers_functions_short bash -c 'python3 tests/tools/func_lengths.py 60 $(git ls-files "analyzers/*.c" "analyzers/*.cc")'
# campaign-analyze does its own work: the one program it runs is gnuplot (figures)
check analyzers_run_only_gnuplot bash -c '[ -z "$(grep -rn "\<\(exec[lv]p\?e\?\|posix_spawnp\?\|system\|popen\)(" analyzers --include=*.c --include=*.cc | grep -v "exec[lv]p(\"gnuplot\", ")" ]'
check analyzers_includes_full_paths bash -c '[ -z "$(grep -rn "#include \"[a-z_]*\.h\"" analyzers --include=*.c --include=*.h)" ]'
check orchestrator_includes_no_cli bash -c '[ -z "$(grep -ln "#include \"\(orchestrator/\)*cli/" orchestrator/*.[ch])" ]'
# orchestrator/ folders (git's refs/ as the model): campaign/ (the model, loader,
# placeholders, diagnostics, render, job spec) and store/ (the state store, file-system
# kind, job states, snapshots) stand alone; so does job/ (what runs inside jobs: launch,
# rank logs, monitor), which reads node lists with util/nodelist.h; backend/ (interface,
# pick, local, slurm, status file, decisions) never reaches the command line or job/; at
# the top only the run's lifecycle.
own_only() { # DIR: its files include no other orchestrator header (their prose.h is theirs)
	[ -z "$(grep -lP "#include \"orchestrator/(?!$1/prose\.h\")" "orchestrator/$1"/*.[ch] "orchestrator/$1"/*/*.[ch] 2>/dev/null)" ]
}
check layout_campaign_stands_alone own_only campaign
check layout_store_stands_alone own_only store
check layout_job_stands_alone own_only job
check layout_backend_drives_no_analysis bash -c '! grep -q "#include \"orchestrator/aggregate.h\"" orchestrator/backend/*.[ch]'
check layout_backend_no_cli_or_job bash -c '[ -z "$(grep -l "#include \"orchestrator/\(cli\|job\)/" orchestrator/backend/*.[ch])" ]'
check layout_top_is_lifecycle [ "$(ls orchestrator/*.c | xargs -n1 basename | tr '\n' ' ')" = "aggregate.c aggregate_map.c compare.c provenance.c run.c statusview.c submission.c variant.c watch.c " ]
check layout_no_relative_cross_folder bash -c 'for f in orchestrator/*/*.[ch] orchestrator/*.[ch]; do d=$(dirname "$f"); for h in $(sed -n "s/^#include \"\([a-z_]*\.h\)\"$/\1/p" "$f"); do [ -e "$d/$h" ] || [ "$h" = versions.h ] || exit 1; done; done'
# the map step starts and waits for its shards with util/proc.h and reads SLURM's numbers with
# util/env.h, not through the rank launcher; the job rows are read as one snapshot (snapshot.h)
check layout_aggregate_map_not_through_launch bash -c '! grep -q "orchestrator/job/" orchestrator/aggregate_map.c orchestrator/cli/cmd_analyze_shard.c'
check layout_one_snapshot_api bash -c '! grep -rq "store_jobs_latest" orchestrator'
# a run's files are named once, in util/run_layout.h (templates/ names its own)
check layout_run_files_named_once bash -c '[ -z "$(grep -rn "\"%s/\(job\.sbatch\|job\.status\|job_metadata\.json\|state\.db\|summary\.json\|BOTTLENECK_ANALYSIS\.md\|timeline\.json\|metrics\|traces\|nsys\|logs\|ranks\|monitor\|provenance\.json\|campaign\.yaml\|figures\)" analyzers orchestrator --include=*.c | grep -v "templates_dir\|tdir")" ]'
# summary.json's keys are named once (analyzers/summary_keys.h): its readers look none up by a
# literal, neither a key nor a dotted path; paper.c reads provenance.json's repository names and
# untracked files' sizes, compare its own document's scenarios and variant side, and bisect its
# bisect.json's scenario, by literal
check layout_summary_keys_named_once python3 -c '
import re, sys
keys = set(re.findall(r"^#define SK_\w+ \"(\w+)\"", open("analyzers/summary_keys.h").read(), re.M))
readers = ["analyzers/write/figures.c", "analyzers/prediction_check.c", "orchestrator/paper/paper.c",
           "orchestrator/paper/predictions.c", "orchestrator/variant.c",
           "orchestrator/compare.c", "orchestrator/cli/cmd_compare.c", "orchestrator/cli/cmd_try.c",
           "orchestrator/bisect/trial.c"]
other_docs = {("orchestrator/paper/paper.c", "name"), ("orchestrator/paper/paper.c", "bytes"),
              ("orchestrator/cli/cmd_compare.c", "scenarios"), ("orchestrator/compare.c", "variant"),
              ("orchestrator/compare.c", "scenarios"), ("orchestrator/bisect/trial.c", "scenario"),
              ("orchestrator/cli/cmd_compare.c", "variant")}
get = re.compile(r"\b(?:json_object_get|jsonio_str|jsonio_num|jsonio_at)\((?:[^()\"]|\([^()]*\))*?,\s*\"([^\"]*)\"\)")
bad = []
for f in readers:
    for n, l in enumerate(open(f), 1):
        l = "" if l.startswith("#include") else re.sub(r"/\*.*?(\*/|$)", "", l)
        paths = re.findall(r"\"([a-z0-9_]+(?:\.[a-z0-9_]+)+)\"", l)
        lits = set(get.findall(l)) | {x for x in paths if all(
            p in keys or p.isdigit() for p in x.split("."))}
        bad += [f"{f}:{n}: {x}" for x in lits if keys & set(x.split(".")) and (f, x) not in other_docs]
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)'
# every line of the sources within 100 columns, tabs at 8 (tests/tools/wrap.sh wraps them),
# but for the string literals in it: a sentence a user sees is never split over lines, so that
# it can be searched for in the sources (a line passes when it fits with its literals emptied)
check layout_lines_within_100 python3 -c '
import re, subprocess, sys
files = subprocess.run(["git", "ls-files", "*.c", "*.h", "*.cc", "*.cu"], capture_output=True, text=True).stdout.split()
literals = re.compile(r"\"([^\"\\]|\\.)*\"")
fits = lambda l: len(literals.sub("\"\"", l).expandtabs(8)) <= 100
wide = [f"{f}:{n}" for f in files for n, l in enumerate(open(f, encoding="utf-8"), 1) if len(l.rstrip("\n").expandtabs(8)) > 100 and not fits(l.rstrip("\n"))]
print("\n".join(wide[:5]), file=sys.stderr)
sys.exit(1 if wide else 0)'
# no line over 160 columns in the sources outside tests (issue 48, point 6: long prose goes to
# each folder's prose.txt, compiled in as string macros; SQL one clause a line; a long format
# in parts, a line of the source each): none since 2026-11-28 (161 before prose.txt)
check layout_long_lines_ratchet bash -c 'n=$(git ls-files "*.c" "*.h" "*.cc" "*.cu" "templates/*" | grep -v "^tests/" | xargs awk "length > 160" | wc -l); echo "lines over 160 columns: $n"; [ "$n" -eq 0 ]'
# ... and no literal is split mid-sentence over two lines (tests/tools/join_literals.py joins them;
# a literal may end at a "\n")
check layout_literals_unsplit python3 tests/tools/join_literals.py --check
# no two files of one folder call each other (issue 48): every dependency between them runs one
# way (tests/tools/file_circles.py names a circle's files and the symbols that make it)
check layout_no_file_circles python3 tests/tools/file_circles.py build
# the licence (MIT): LICENSE, debian/copyright, and a SPDX line in each source file's header
check layout_spdx_every_source python3 tests/tools/spdx.py
check layout_licence_mit bash -c 'head -n 1 LICENSE | grep -qx "MIT License" && grep -qx "License: Expat" debian/copyright && tail -n 1 README.md | grep -q "MIT licence"'
# every key of the campaign file is declared once, in the loader's key tables (campaign_load.c
# and load_*.c; issue 36): no hand-written list of allowed keys is left in the loader's files,
# and map_check gets a table's keys or none
check layout_campaign_keys_in_tables bash -c 'f=$(ls orchestrator/campaign/campaign_load.c orchestrator/campaign/load_*.[ch]); ! grep -qE "keys\[[^]]*\] *= *\{ *\"" $f && [ -z "$(grep "map_check(L, " $f | grep -v ", NULL)" | grep -v ", keys)")" ]'
check makefile_has_no_link_group bash -c '! grep -q -- "--start-group" Makefile'
libs=$(ldd "$BIN/campaign-analyze")
check analyze_links_no_libslurm bash -c '! grep -q libslurm <<<"$1"' _ "$libs"
check analyze_links_no_libgit2 bash -c '! grep -q libgit2 <<<"$1"' _ "$libs"
check campaign_links_libslurm bash -c 'ldd "$1" | grep -q libslurm' _ "$BIN/campaign"
# the report is written one section per concern (issue 25): no function of report.c over 60 lines
check layout_report_functions_short python3 -c '
import re, sys
lines = open("analyzers/write/report.c").read().split("\n")
start, long_ = None, []
for i, l in enumerate(lines):
    if re.match(r"^[a-z].*\(", l) and not l.endswith(";"):
        start = (i, l)
    if l == "}" and start:
        if i - start[0] > 60:
            long_.append("%d %s" % (start[0] + 1, start[1]))
        start = None
print("\n".join(long_), file=sys.stderr)
sys.exit(1 if long_ else 0)'
# directories are listed in one sorted way (util/fsio.c's fsio_list); only the /proc scans for
# processes read a directory themselves
check layout_one_directory_listing bash -c '[ "$(grep -rl "opendir(" --include=*.c analyzers orchestrator trainer util | sort | tr "\n" " ")" = "orchestrator/backend/backend_local.c orchestrator/job/monitor/foreign.c orchestrator/statusview.c util/fsio.c " ] && [ "$(grep -rh "opendir(" --include=*.c orchestrator | grep -vc "/proc")" = 0 ]'
# commit subjects of at most 72 characters (docs/development.md), for every commit after the
# one that brought this check (older history is as it was)
check commit_subjects_short python3 tests/tools/commit_subjects.py --since 5228cae066115d7a8ee1ac085026e4f27bb4175b
# ... and the commit-msg hook's own test: 72 characters pass, 73 or no blank line do not
check commit_msg_hook_refuses bash -c 't=$(mktemp); printf "%072d\n\nbody\n" 0 >"$t" && python3 tests/tools/commit_subjects.py --message "$t" && printf "%073d\n" 0 >"$t" && ! python3 tests/tools/commit_subjects.py --message "$t" 2>/dev/null && printf "subject\nbody\n" >"$t" && ! python3 tests/tools/commit_subjects.py --message "$t" 2>/dev/null; r=$?; rm -f "$t"; exit $r'
