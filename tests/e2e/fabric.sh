# The fabric's own limit (issue 23, part 3): analysis.fabric_probe adds a
# probe job per node count and backend (the reference trainer's gloo
# all-reduce from 4 KiB to 64 MiB, like nccl-tests' all_reduce_perf) and the
# report measures the training's collectives against it. Local executor,
# 1 and 2 emulated nodes x 2 ranks; the SLURM test cluster's probes are in
# slurm.sh.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
cat >f.yaml <<'Y'
campaign: fabric
workload:
  command: "{{trainer}} --backend gloo --steps 12 --warmup-steps 2 --batch-per-rank 32 --hidden 256 --metrics-dir {{metrics_dir}}"
  env: { OPENBLAS_NUM_THREADS: "1" }
profile: { warmup_steps: 2, active_steps: 10 }
analysis: { fabric_probe: true }
scenarios:
  - { name: one, nodes: 1, tasks_per_node: 2 }
  - { name: two, nodes: 2, tasks_per_node: 2 }
Y
"$CAMPAIGN" validate f.yaml >v.txt 2>&1
check fabric_validate_lists_probes grep -q "fabric-probe-gloo-2n" v.txt
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" f.yaml >out.txt 2>&1; rc=$?
run=$(rundir out.txt)
check fabric_run_ok [ "$rc" -eq 0 ]
check fabric_probe_jobs_in_status [ "$(grep -c '^fabric-probe-gloo-[12]n .* COMPLETED' out.txt)" -eq 2 ]
check fabric_probe_sizes [ "$(json "$run/fabric-probe-gloo-2n/metrics/fabric.json" '[s["bytes"] for s in j["sizes"]], j["ranks"], j["backend"]')" = "([4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864], 4, 'gloo')" ]
check fabric_probe_busbw_factor [ "$(json "$run/fabric-probe-gloo-2n/metrics/fabric.json" 'all(abs(s["busbw_gbps"] - 1.5 * s["algbw_gbps"]) <= 2e-4 and s["busbw_gbps"] > 0 for s in j["sizes"])')" = True ]
check fabric_probes_not_scenarios [ "$(json "$run/summary.json" '[s["name"] for s in j["scenarios"]], [p["name"] for p in j["fabric_probes"]], [len(p["sizes"]) for p in j["fabric_probes"]]')" = "(['one', 'two'], ['fabric-probe-gloo-1n', 'fabric-probe-gloo-2n'], [8, 8])" ]
# each collective against the probe of its node count, at its size
# (from the 3-decimal figures of summary.json: within their rounding)
check fabric_pct_consistent [ "$(json "$run/summary.json" 'all((c["fabric_busbw_gbps"] or 0) > 0 and abs(c["fabric_pct"] - 100 * c["busbw_gbps"] / c["fabric_busbw_gbps"]) <= 0.5 + 100 * (c["busbw_gbps"] + 0.0005) / max(c["fabric_busbw_gbps"] - 0.0005, 1e-9) - 100 * c["busbw_gbps"] / c["fabric_busbw_gbps"] for s in j["scenarios"] for c in s["collectives"])')" = True ]
check fabric_between_probe_sizes [ "$(json "$run/summary.json" 'min(p["busbw_gbps"] for p in j["fabric_probes"][1]["sizes"][3:5]) - 1e-3 <= j["scenarios"][1]["collectives"][0]["fabric_busbw_gbps"] <= max(p["busbw_gbps"] for p in j["fabric_probes"][1]["sizes"][3:5]) + 1e-3')" = True ]
check fabric_report_section grep -q "^| fabric-probe-gloo-2n | gloo | 2 | 4 | 4 KiB: [0-9.]*, 16 KiB: .*, 64 MiB: [0-9.]* |$" "$run/BOTTLENECK_ANALYSIS.md"
check fabric_report_says_share grep -Eq "Its all_reduce messages of 256 KiB - 1 MiB reach (only )?[0-9]+ % of the [0-9.]+ GB/s bus bandwidth the fabric gives at that size \(fabric probe on 2 nodes\)" "$run/BOTTLENECK_ANALYSIS.md"
check fabric_table_column grep -q "^| all_reduce (a step's, together) | .* | [0-9]* % of [0-9.]* |$" "$run/BOTTLENECK_ANALYSIS.md"
check fabric_figure_lines grep -q "'data/fabric.dat' index 1 using 1:2 with lines" "$run/figures/collectives.gp"
# a user's scenario may not take the probes' names
sed 's/name: one/name: fabric-probe-x/' f.yaml >bad.yaml
"$CAMPAIGN" validate bad.yaml >bad.txt 2>&1; brc=$?
check fabric_prefix_refused [ "$brc" -ne 0 ]
check fabric_prefix_message grep -q 'names starting with fabric-probe- are the fabric probes' bad.txt
