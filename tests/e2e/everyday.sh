# The commands people reach for (issue 24, part 4): CAMPAIGN_RESULTS as the
# results root, `campaign ls`, a run found by a unique id prefix or by its
# campaign's name, `campaign logs` (a job log, a rank's log, every scenario,
# --follow on a job that is running, a lone SCENARIO of the newest run).
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
export CAMPAIGN_RESULTS=$SCRATCH/everyday
cat >two.yaml <<'Y'
campaign: twoscen
workload: { command: ["/bin/sh", "-c", "echo rank $RANK says hello"] }
scenarios: [{ name: a, nodes: 1, tasks_per_node: 2 }, { name: b, nodes: 1 }]
Y
cat >one.yaml <<'Y'
campaign: onescen
workload: { command: ["/bin/sh", "-c", "echo one; sleep 2; echo done"] }
scenarios: [{ name: s, nodes: 1 }]
Y
"$CAMPAIGN" submit --wait --backend local two.yaml >two.out 2>&1; rc=$?
check everyday_results_from_env bash -c '[ "$1" -eq 0 ] && [ -d "$2/twoscen" ]' _ "$rc" "$CAMPAIGN_RESULTS"
id2=$(basename "$(rundir two.out)")
sleep 1.1
"$CAMPAIGN" submit --backend local one.yaml >one.out 2>&1 # returns at once; the job runs 2 s
id1=$(basename "$(rundir one.out)")
"$CAMPAIGN" logs --follow onescen >follow.out 2>&1; rc=$?
check everyday_logs_follow_to_the_end bash -c '[ "$1" -eq 0 ] && grep -q "^one$" "$2" && grep -q "^done$" "$2" && grep -q "ended with exit status 0" "$2"' _ "$rc" follow.out
# the job's log ends before its run is analysed (the supervisor analyses after the last job)
for i in $(seq 1 150); do
	"$CAMPAIGN" ls --json >ls.json 2>/dev/null
	[ "$(json ls.json "[r['analysed'] for r in j if r['run'] == '$id1']")" = "[True]" ] && break
	sleep 0.2
done
"$CAMPAIGN" ls >ls.out 2>&1
check everyday_ls_header [ "$(head -n 1 ls.out)" = "RUN                      CAMPAIGN             BACKEND  ANALYSIS     AGE  JOBS" ]
check everyday_ls_newest_first [ "$(sed -n '2p;3p' ls.out | cut -c1-24 | tr -d ' ' | tr '\n' ' ')" = "$id1 $id2 " ]
check everyday_ls_states grep -q "^$id2 *twoscen *local *analysed .* 2 COMPLETED$" ls.out
"$CAMPAIGN" ls --json >ls.json
check everyday_ls_json [ "$(json ls.json '[(r["run"], r["campaign"], r["jobs"], r["analysed"]) for r in j]')" = "[('$id1', 'onescen', 1, True), ('$id2', 'twoscen', 2, True)]" ]
"$CAMPAIGN" status twoscen >st.out 2>&1
check everyday_run_by_campaign_name grep -q "^run $id2 (campaign twoscen" st.out
prefix=${id2:0:17}
"$CAMPAIGN" status "$prefix" >st2.out 2>&1; rc=$?
if [ "${id1:0:17}" = "$prefix" ]; then # both in the same second's prefix: ambiguous
	check everyday_prefix_ambiguous bash -c '[ "$1" -eq 3 ] && grep -q "2 runs under .* have ids starting with" "$2"' _ "$rc" st2.out
else
	check everyday_run_by_prefix grep -q "^run $id2 " st2.out
fi
"$CAMPAIGN" status 2026 >st3.out 2>&1; rc=$?
check everyday_ambiguous_prefix_exit3 bash -c '[ "$1" -eq 3 ] && grep -q "2 runs under .* have ids starting with .2026.: give more of the id" "$2"' _ "$rc" st3.out
"$CAMPAIGN" logs "$id2" a >a.out 2>&1
check launch_says_rendezvous grep -q "^campaign launch: 2 ranks on 1 node; rendezvous (env://) at 127.0.0.1:[0-9]*$" a.out
check everyday_logs_job_log grep -q "^campaign: scenario a starting on" a.out
"$CAMPAIGN" logs --rank 1 "$id2" a >r1.out 2>&1
check everyday_logs_rank [ "$(cat r1.out)" = "rank 1 says hello" ]
"$CAMPAIGN" logs "$id2" >all.out 2>&1
check everyday_logs_every_scenario [ "$(grep -c '^==> [ab] <==$' all.out)" -eq 2 ]
"$CAMPAIGN" logs --rank 0 "$id2" >amb.out 2>&1; rc=$?
check everyday_logs_rank_needs_scenario bash -c '[ "$1" -eq 2 ] && grep -q "has 2 scenarios: name one for --rank or --follow" "$2"' _ "$rc" amb.out
"$CAMPAIGN" logs "$id2" nosuch >ns.out 2>&1; rc=$?
check everyday_logs_no_scenario_exit3 [ "$rc" -eq 3 ]
# `logs SCENARIO` reads the newest run's, as `status` takes the newest run; a lone word that
# names a run (here a campaign's name) is the run
cat >three.yaml <<'Y'
campaign: threescen
workload: { command: ["/bin/sh", "-c", "echo rank $RANK of three"] }
scenarios: [{ name: a, nodes: 1, tasks_per_node: 2 }, { name: c, nodes: 1 }]
Y
L=$SCRATCH/lone
"$CAMPAIGN" submit --wait --backend local --results "$L" two.yaml >/dev/null 2>&1
sleep 1.1 # run ids sort by the second
"$CAMPAIGN" submit --wait --backend local --results "$L" three.yaml >three.out 2>&1
id3=$(basename "$(rundir three.out)")
"$CAMPAIGN" logs --results "$L" a >la.out 2>&1; rc=$?
check everyday_logs_scenario_of_newest_run bash -c '[ "$1" -eq 0 ] && grep -q "^rank 1 of three$" "$2" && ! grep -q "says hello" "$2"' _ "$rc" la.out
"$CAMPAIGN" logs --results "$L" --rank 1 a >lr.out 2>&1
check everyday_logs_rank_of_scenario_of_newest_run [ "$(cat lr.out)" = "rank 1 of three" ]
"$CAMPAIGN" logs --results "$L" twoscen >lt.out 2>&1
check everyday_logs_lone_run_is_the_run [ "$(grep -c '^==> [ab] <==$' lt.out)" -eq 2 ]
"$CAMPAIGN" logs --results "$L" b >lb.out 2>&1; rc=$? # b is only in the older run
check everyday_logs_unknown_scenario_said bash -c '[ "$1" -eq 3 ] && [ "$(cat "$2")" = "campaign logs: no run '"'b'"' under $3, and the newest run $4 has no scenario of that name (its scenarios: a, c): give a run id, a run directory or one of its scenarios" ]' _ "$rc" lb.out "$L" "$id3"
"$CAMPAIGN" logs --results "$SCRATCH/none" a >l0.out 2>&1; rc=$?
check everyday_logs_scenario_without_runs bash -c '[ "$1" -eq 3 ] && grep -q "^campaign logs: no runs under" "$2"' _ "$rc" l0.out
"$CAMPAIGN" logs --help >lh.out
check everyday_logs_usage grep -q "^usage: campaign logs .* \[RUN\] \[SCENARIO\]$" lh.out
"$CAMPAIGN" --help >help.out 2>&1
check everyday_help_lists_new grep -q "^  logs \|^  ls " help.out

# A job that prints nothing and uses no CPU past profile.hang_timeout is
# possibly hung (issue 24, part 3); one that computes without a word is not (its loop computes
# tens of ms, then rests 50 ms: it is seen computing in status's 300 ms, and leaves the CPU to
# the suite's other lanes).
cat >hang.yaml <<'Y'
campaign: hang
workload: { command: "/bin/sh -c '{{what}}'", params: { what: "echo start; exec sleep 60" } }
profile: { hang_timeout: 2 }
scenarios: [{ name: sleeper, nodes: 1 }, { name: spinner, nodes: 1, params: { what: "echo start; while :; do i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done; sleep 0.05; done" } }]
Y
"$CAMPAIGN" submit --backend local --results "$SCRATCH/h" hang.yaml >h.out 2>&1
hid=$(basename "$(rundir h.out)")
sleep 4.5
"$CAMPAIGN" status --results "$SCRATCH/h" "$hid" >hs.out 2>&1
check hang_sleeper_possibly_hung grep -q "^  sleeper: possibly hung: no output for [0-9]* s (profile.hang_timeout 2 s) and no CPU used; see .campaign logs $hid sleeper." hs.out
"$CAMPAIGN" cancel --results "$SCRATCH/h" "$hid" sleeper >/dev/null 2>&1
for i in $(seq 50); do "$CAMPAIGN" status --results "$SCRATCH/h" --json "$hid" >hj.json 2>/dev/null; [ "$(json hj.json 'j["jobs"][1]["state"]')" = RUNNING ] && break; sleep 0.2; done
sleep 3
"$CAMPAIGN" status --results "$SCRATCH/h" --json "$hid" >hj.json 2>&1
check hang_spinner_not_hung [ "$(json hj.json '(j["jobs"][1]["state"], j["jobs"][1]["possibly_hung_s"])')" = "('RUNNING', None)" ]
"$CAMPAIGN" cancel --results "$SCRATCH/h" "$hid" >/dev/null 2>&1
# The job's own machinery is not the workload: a process named campaign (as the rank launcher,
# which polls its ranks every 20 ms and is now and then charged a CPU tick) spinning beside a
# silent workload does not make it look busy.
mkdir -p fakebin && cp /bin/sh fakebin/campaign
cat >mach.yaml <<Y
campaign: hangm
workload: { command: ["/bin/sh", "-c", "echo start; $SCRATCH/fakebin/campaign -c 'while :; do :; done' & exec sleep 60"] }
profile: { hang_timeout: 2 }
scenarios: [{ name: sleeper, nodes: 1 }]
Y
"$CAMPAIGN" submit --backend local --results "$SCRATCH/hm" mach.yaml >hm.out 2>&1
mid=$(basename "$(rundir hm.out)")
sleep 4.5
"$CAMPAIGN" status --results "$SCRATCH/hm" "$mid" >hms.out 2>&1
check hang_machinery_cpu_not_workload grep -q "^  sleeper: possibly hung: no output for [0-9]* s (profile.hang_timeout 2 s) and no CPU used" hms.out
"$CAMPAIGN" cancel --results "$SCRATCH/hm" "$mid" >/dev/null 2>&1

# The man page and the shell completions come from the command table itself
# (campaign help --man / --completion), so they list what exists.
check help_names_man_and_completion bash -c '"$1" --help | grep -q "^.campaign help --man. prints the man page"' _ "$CAMPAIGN"
"$CAMPAIGN" help --man >campaign.1
users=$("$CAMPAIGN" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 {print $1}')
missing=""
for c in $users; do grep -q "^\.B campaign $c$" campaign.1 || missing="$missing $c"; done
check man_every_command [ -z "$missing" ] && [ -n "$users" ]
check man_options grep -q '^\.B \\-\\-no\\-aggregation\\-job$' campaign.1
check man_exit_status bash -c 'grep -q "^\.SH EXIT STATUS$" "$1" && grep -A1 "^\.B 70$" "$1" | grep -q "internal error"' _ campaign.1
if command -v groff >/dev/null; then
	check man_renders_clean bash -c '[ -z "$(LANG=C groff -man -Tutf8 -ww -z "$1" 2>&1)" ]' _ campaign.1
fi
"$CAMPAIGN" help --completion bash >campaign.bash
complete_words() { # WORDS...: what bash completion offers for the last word
	PATH=$BIN:$PATH bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _campaign; echo "${COMPREPLY[*]}"' _ campaign.bash "$@"
}
check completion_commands [ "$(complete_words campaign su)" = submit ]
check completion_options [ "$(complete_words campaign submit --w)" = --wait ]
check completion_run_ids [ "$(complete_words campaign status "${id2:0:15}")" = "$id2" ]
check completion_ls_quiet [ "$("$CAMPAIGN" ls --quiet | tr '\n' ' ')" = "$id1 $id2 " ]
"$CAMPAIGN" help --completion zsh >_campaign
check completion_zsh bash -c 'head -n 1 "$1" | grep -q "^#compdef campaign$" && grep -q "^	submit) _arguments .*--wait\[" "$1"' _ _campaign
"$CAMPAIGN" help --completion fish >fish.out 2>&1; rc=$?
check completion_unknown_shell bash -c '[ "$1" -eq 2 ] && grep -q "takes bash or zsh" "$2"' _ "$rc" fish.out
make -s -C "$ROOT" install DESTDIR="$SCRATCH/inst" PREFIX=/usr >install.out 2>&1
check install_man_and_completions bash -c 'for f in share/man/man1/campaign.1 share/bash-completion/completions/campaign share/zsh/vendor-completions/_campaign; do [ -s "$1/usr/$f" ] || exit 1; done' _ "$SCRATCH/inst"

# The workload's program is looked up before submitting (issue 24, part 5):
# missing, resolving elsewhere in the job (its env's PATH) than here, or a
# version manager's shim each give a warning saying what to do.
mkdir -p a b shims
printf '#!/bin/sh\necho a\n' >a/prog; printf '#!/bin/sh\necho b\n' >b/prog; printf '#!/bin/sh\n' >shims/python3
chmod +x a/prog b/prog shims/python3
prog_yaml() { printf 'campaign: p\nworkload: { command: "%s --x", env: { %s } }\nscenarios: [{ name: s, nodes: 1 }]\n' "$1" "$2"; }
prog_yaml nosuchprog "" >p1.yaml
PATH=$SCRATCH/a:$PATH "$CAMPAIGN" validate p1.yaml >/dev/null 2>p1.err; rc=$?
check program_missing_warned bash -c '[ "$1" -eq 0 ] && [ "$(cat "$2")" = "campaign validate: warning: workload.command'"'"'s program '"'"'nosuchprog'"'"' is not on the job'"'"'s PATH: every rank would fail with status 127 (command not found); give its absolute path or set workload.env.PATH" ]' _ "$rc" p1.err
prog_yaml prog "PATH: \"$SCRATCH/b:\$PATH\"" >p2.yaml
PATH=$SCRATCH/a:$PATH "$CAMPAIGN" validate p2.yaml >/dev/null 2>p2.err
check program_elsewhere_warned grep -q "^campaign validate: warning: 'prog' resolves to $SCRATCH/b/prog in the job (its PATH from workload.env) but to $SCRATCH/a/prog in this shell" p2.err
prog_yaml python3 "" >p3.yaml
PATH=$SCRATCH/shims:$PATH "$CAMPAIGN" validate p3.yaml >/dev/null 2>p3.err
check program_shim_warned grep -q "^campaign validate: warning: 'python3' resolves to $SCRATCH/shims/python3, a version manager's shim" p3.err
prog_yaml prog "" >p4.yaml
PATH=$SCRATCH/a:$PATH "$CAMPAIGN" validate p4.yaml >/dev/null 2>p4.err
check program_fine_silent [ ! -s p4.err ]
