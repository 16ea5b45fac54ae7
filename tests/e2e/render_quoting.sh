# Campaign values that look like shell must stay inert: they reach the job
# script quoted, the job runs, and no canary file is ever created.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
C=$SCRATCH/canary
cat >hostile.yaml <<Y
campaign: hostile
description: "\$(touch $C.desc); rm -rf ~"
workload:
  command: ["/bin/echo", "ARG={{evil}}", "\$(touch $C.cmd)", "; touch $C.semi", "\`touch $C.tick\`"]
  setup: ["/bin/echo setup '\$(touch $C.setup)'"]
  env:
    EVIL_ENV: "\$(touch $C.env)'; touch $C.env2; '"
  params:
    evil: "x'; touch $C.param; echo '"
profile: { warmup_steps: 0, active_steps: 1 }
scenarios:
  - name: s1
    nodes: 1
    env: { MORE: "\`touch $C.scenv\`" }
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" hostile.yaml >out.txt 2>&1; rc=$?
run=$(rundir out.txt)
check hostile_job_completes [ "$rc" -eq 0 ]
check hostile_no_canary bash -c '! ls "$1".* 2>/dev/null | grep -q .' _ "$C"
log=$(cat "$run"/s1/slurm-*.out)
check hostile_args_literal grep -qF "ARG=x'; touch $C.param; echo ' \$(touch $C.cmd) ; touch $C.semi \`touch $C.tick\`" <<<"$log"
check hostile_setup_literal grep -qF "setup \$(touch $C.setup)" <<<"$log"
check hostile_env_literal bash -c 'grep -qF "export '"'"'EVIL_ENV=" "$1"' _ "$run/s1/job.sbatch"
# The other injection route, #SBATCH values, is refused at validation.
cat >sbatch.yaml <<'Y'
campaign: hostile2
slurm: { account: "acct\n#SBATCH --uid=0", qos: "$(id)" }
scenarios: [{ name: s1, nodes: 1 }]
Y
"$CAMPAIGN" validate sbatch.yaml 2>err.txt; rc=$?
check hostile_sbatch_refused [ "$rc" -eq 2 ]
check hostile_sbatch_messages [ "$(grep -c 'holds characters not allowed in an sbatch option' err.txt)" -eq 2 ]

# An env value with newlines (and a quote) reaches the workload byte for byte.
cat >nl.yaml <<'Y'
campaign: newlines
workload:
  command: ["/bin/sh", "-c", "printf '%s' \"$MULTI\" > multi.txt"]
  env: { MULTI: "line one\nline 'two'\n$(not run)" }
scenarios: [{ name: s1, nodes: 1 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/nl" nl.yaml >nl.out 2>&1; rc=$?
check hostile_env_newlines_job_completes [ "$rc" -eq 0 ]
check hostile_env_newlines_intact [ "$(cat "$(rundir nl.out)/s1/multi.txt")" = "$(printf "line one\nline 'two'\n\$(not run)")" ]

# profile.traces globs that reach outside the job: accepted (traces often live
# on /scratch), matched by glob(3), and only regular files are copied, into
# the job's traces/ and nowhere else.
cat >globs.yaml <<'Y'
campaign: globs
workload: { command: ["/bin/true"] }
profile: { traces: ["../../*", "../../../*", "/etc/hostname", "/nonexistent/*"] }
scenarios: [{ name: s1, nodes: 1 }]
Y
touch marker
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/gl" globs.yaml >gl.out 2>&1; rc=$?
grun=$(rundir gl.out)
check hostile_globs_job_completes [ "$rc" -eq 0 ]
check hostile_globs_regular_files_only [ "$(ls "$grun/s1/traces" | tr '\n' ' ')" = "hostname " ]
check hostile_globs_nothing_outside [ "$(find "$SCRATCH" -mindepth 1 -newer marker -not -path "$SCRATCH/gl" -not -path "$SCRATCH/gl/*" -printf '%P\n' | sort | tr '\n' ' ')" = "gl.out " ]
# a quoted node count is a YAML string holding a number: taken as that number
printf 'campaign: q\nworkload: { command: [/bin/true] }\nscenarios: [{ name: a, nodes: "4" }]\n' >quoted.yaml
check hostile_quoted_nodes_accepted bash -c '"$1" validate quoted.yaml | grep -q "^a .* 4 "' _ "$CAMPAIGN"

# A workload's env never breaks the job script itself (issue 20, point 9):
# $NAME and ${NAME} in env values expand when the job runs (the node's PATH
# extended), nothing else does; a PATH that finds nothing still leaves a
# job.status and a COMPLETED job.
cat >envpath.yaml <<'Y'
campaign: envpath
workload:
  command: ["/bin/sh", "-c", "printf '%s\n' \"$PATH\" \"$MIXED\" > env.txt"]
  env: { PATH: "/opt/venv/bin:$PATH", MIXED: "${HOME}/x:$(not run):$$:${UNSET_ONE}:end" }
scenarios: [{ name: s1, nodes: 1 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/envpath" envpath.yaml >ep.out 2>&1; rc=$?
run=$(rundir ep.out)
check hostile_env_path_job_completes [ "$rc" -eq 0 ]
check hostile_env_path_extended bash -c 'p=$(head -n 1 "$1/s1/env.txt"); [ "${p%%:*}" = /opt/venv/bin ] && [ "${p#/opt/venv/bin:}" != "\$PATH" ] && [ -n "${p#/opt/venv/bin:}" ]' _ "$run"
check hostile_env_vars_only [ "$(sed -n 2p "$run/s1/env.txt")" = "$HOME/x:\$(not run):\$\$::end" ]
cat >nopath.yaml <<'Y'
campaign: nopath
workload: { command: ["/bin/sh", "-c", "exit 0"], env: { PATH: "/nonexistent" } }
scenarios: [{ name: s1, nodes: 1 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/nopath" nopath.yaml >np.out 2>&1; rc=$?
run=$(rundir np.out)
check hostile_env_bad_path_completes [ "$rc" -eq 0 ]
check hostile_env_bad_path_job_status grep -q '"exit_code": 0' "$run/s1/job.status"

# A results directory with a space in its name (issue 20, point 8): the
# #SBATCH --output line quotes it, and the run completes.
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/My Results" "$ROOT/tests/fixtures/tiny.yaml" >mr.out 2>&1; rc=$?
check hostile_results_with_space_completes [ "$rc" -eq 0 ]
check hostile_results_with_space_quoted grep -q "^#SBATCH --output=\"$SCRATCH/My Results/tiny/.*/t/slurm-%j.out\"$" "$SCRATCH/My Results"/tiny/*/t/job.sbatch

# A list-form command item that is exactly {{param}} becomes the words of its value, split as a
# shell would (quotes respected, nothing expanded; none when empty), as in the string form
# (issue 45, point 5); each word reaches the program as it is and runs nothing. A real program
# prints the words it got into its rank log; `campaign render` shows each job's argv.
mkdir victim
cat >argv.yaml <<Y
campaign: argv
workload:
  command: ["/bin/sh", "-c", "printf 'argv:'; printf ' <%s>' \"\$@\"; echo", "sh", "{{extra}}", "end"]
profile: { warmup_steps: 0, active_steps: 1 }
scenarios:
  - { name: empty, nodes: 1, params: { extra: "" } }
  - { name: two, nodes: 1, params: { extra: "--slow-ms=1.5 --repeat=1" } }
  - { name: quoted, nodes: 1, params: { extra: "--name 'a b'" } }
  - { name: hostile, nodes: 1, params: { extra: "\$(touch $C.argv) ; rm -rf $SCRATCH/victim \`touch $C.argv2\` | y" } }
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/argv" argv.yaml >argv.out 2>&1; rc=$?
run=$(rundir argv.out)
check list_param_job_completes [ "$rc" -eq 0 ]
check list_param_empty_no_word grep -qxF "argv: <end>" "$run/empty/logs/rank_0.out"
check list_param_two_words grep -qxF "argv: <--slow-ms=1.5> <--repeat=1> <end>" "$run/two/logs/rank_0.out"
check list_param_quoted_word grep -qxF "argv: <--name> <a b> <end>" "$run/quoted/logs/rank_0.out"
check list_param_hostile_literal grep -qxF "argv: <\$(touch> <$C.argv)> <;> <rm> <-rf> <$SCRATCH/victim> <\`touch> <$C.argv2\`> <|> <y> <end>" "$run/hostile/logs/rank_0.out"
check list_param_hostile_ran_nothing bash -c '[ -d "$1/victim" ] && ! ls "$2".argv* 2>/dev/null | grep -q .' _ "$SCRATCH" "$C"
"$CAMPAIGN" render --out "$SCRATCH/argv-render" argv.yaml >render.out 2>&1; rc=$?
check list_param_render_exit0 [ "$rc" -eq 0 ]
check list_param_render_argv_each_job [ "$(grep -c "^  argv: '/bin/sh' '-c' " render.out)" -eq 4 ]
check list_param_render_empty grep -q "^  argv: '/bin/sh' .* 'sh' 'end'\$" render.out
check list_param_render_two grep -q "^  argv: '/bin/sh' .* 'sh' '--slow-ms=1.5' '--repeat=1' 'end'\$" render.out
check list_param_render_quoted grep -q "^  argv: '/bin/sh' .* 'sh' '--name' 'a b' 'end'\$" render.out
# a shell reading the shown argv back gets the hostile words as they are, and runs nothing
line=$(grep "^  argv: .*'y' 'end'\$" render.out)
check list_param_render_hostile_reads_back [ "$(eval "set -- ${line#  argv: }"; shift 4; printf '<%s>' "$@")" = "<\$(touch><$C.argv)><;><rm><-rf><$SCRATCH/victim><\`touch><$C.argv2\`><|><y><end>" ]
check list_param_render_ran_nothing bash -c '[ -d "$1/victim" ] && ! ls "$2".argv* 2>/dev/null | grep -q .' _ "$SCRATCH" "$C"
# a list-form command left with no word in a scenario (its only item {{extra}}, extra empty
# there) runs nothing: refused at the command's line and column, naming the scenario and the
# param, and what to do; the scenario where extra has words is not named
cat >noargv.yaml <<'Y'
campaign: noargv
workload:
  command: ["{{extra}}"]
  params: { extra: "" }
scenarios:
  - { name: bare, nodes: 1 }
  - { name: filled, nodes: 1, params: { extra: "/bin/echo 'a b'" } }
Y
"$CAMPAIGN" validate noargv.yaml >noargv.out 2>&1; rc=$?
check list_param_empty_argv_refused [ "$rc" -eq 2 ]
check list_param_empty_argv_said [ "$(cat noargv.out)" = "noargv.yaml:3:12: workload.command: the command is empty in scenario bare: each {{param}} word becomes the words of the param's value, and extra is empty there; give extra a value in the scenario's params (or workload.params), or write the program itself into workload.command
noargv.yaml: 1 problem; nothing was done" ]
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/noargv" noargv.yaml >noargv-submit.out 2>&1; rc=$?
check list_param_empty_argv_nothing_run bash -c '[ "$1" -eq 2 ] && [ ! -e "$2" ]' _ "$rc" "$SCRATCH/noargv"
sed -i 's/extra: "" }/extra: "\/bin\/true" }/' noargv.yaml
"$CAMPAIGN" validate noargv.yaml >noargv2.out 2>&1; rc=$?
check list_param_filled_argv_valid [ "$rc" -eq 0 ]
