#!/bin/bash
# Issue 27 in one call on a lent GPU machine: the GPU trainer (1 rank, three
# DDP modes, telemetry overhead, 2 ranks on one GPU), the monitor beside it
# against nvidia-smi, a PyTorch DDP script of ours profiled with CUDA activity
# and analysed, and a 1-node GPU campaign end to end on the local executor.
# Here (Debian): make all && make gpu-kit; there, with bin and build/gpu-kit
# carried:  tests/gpu/on_device.sh "$OUT"   (about 5 minutes on an H100).
# Everything goes to OUT/gpu.log; traces and run results to OUT/*.tar.gz.
# A step that fails is said and the next one runs.
# SPDX-License-Identifier: MIT
set -u
cd "$(dirname "$0")/../.."
OUT=${1:?usage: tests/gpu/on_device.sh OUT_DIR}
W=$(mktemp -d /tmp/gpu27.XXXXXX)
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu.log") 2>&1
say() { printf '\n=== %s [%s]\n' "$*" "$(date +%T)"; }

say "machine"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
nproc; uname -r

say "libraries: the kit's where this machine lacks them, CUDA's from /usr/local/cuda or PyTorch's wheels"
mkdir -p "$W/lib"
for l in build/gpu-kit/lib/*; do
	ldconfig -p | grep -q "^[[:space:]]*$(basename "$l") " || ln -s "$PWD/$l" "$W/lib/"
done
echo "from the kit: $(ls "$W/lib" | tr '\n' ' ')"
nv=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])' 2>/dev/null)
cuda=$( [ -n "$nv" ] && find "$nv" \( -name 'libnccl.so.2' -o -name 'libcublas.so.*' -o -name 'libcudart.so.*' \) \
	-printf '%h\n' | sort -u | paste -sd: -)
export LD_LIBRARY_PATH=$W/lib:/usr/local/cuda/lib64:${cuda}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for b in bin/campaign bin/campaign-analyze bin/campaign-monitor bin/campaign-trainer-gpu; do
	ldd "$b" | grep 'not found' | sed "s|^|$b: |"
done
bin/campaign --version

# 1. The GPU trainer. FP32 GEMMs (cublasSgemm, default math): the H100 SXM's
# FP32 peak is 67 TFLOP/s (its TF32 tensor-core peak 495 dense).
steps() { # METRICS_DIR: median active step, TFLOP/s, first and last loss, modes
	python3 - "$1" <<'P'
import json, statistics, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/rank_*.jsonl")):
    rows = [json.loads(l) for l in open(f)]
    meta = rows[0]
    st = [r for r in rows if r.get("type") == "step" and r.get("phase") != "warmup"]
    ms = statistics.median(r["step_ms"] for r in st)
    comm = statistics.median(r.get("comm_ms", 0) for r in st)
    loss = [r["loss"] for r in rows if r.get("type") == "step" and "loss" in r]
    gemm = statistics.median(r.get("gemm_ms", 0) for r in st)
    print("%s: %d active steps, median step %.3f ms (GEMMs %.3f ms, comm %.3f ms), %.1f TFLOP/s per "
          "step, %.1f in the GEMMs, loss %.4f -> %.4f, checksum %s" % (
              f.split("/")[-1], len(st), ms, gemm, comm, meta["flops_per_step"] / ms / 1e9,
              meta["flops_per_step"] / gemm / 1e9 if gemm > 0 else 0, loss[0], loss[-1],
              st[-1].get("param_checksum")))
P
}
T="bin/campaign-trainer-gpu --backend nccl --steps 80 --warmup-steps 10 --batch-per-rank 512 --hidden 4096 --depth 8 --input 1024 --output 256"
for mode in sync bucketed per-param; do
	say "1. campaign-trainer-gpu, 1 rank, --ddp $mode"
	bin/campaign launch --nodes 1 --tasks-per-node 1 -- $T --ddp "$mode" --metrics-dir "$W/t_$mode"
	echo "exit $?"; steps "$W/t_$mode"
done
say "1. trainer overhead: the same run without telemetry (wall time of 200 steps)"
for tel in "" --no-telemetry; do
	s=$(date +%s.%N)
	bin/campaign launch --nodes 1 --tasks-per-node 1 -- $T --steps 200 --ddp sync $tel --metrics-dir "$W/o$tel" >/dev/null
	echo "telemetry${tel:+ off}: exit $?, $(python3 -c "import sys; print('%.3f s' % (float(sys.argv[2]) - float(sys.argv[1])))" "$s" "$(date +%s.%N)")"
done
say "1. two ranks on one GPU (NCCL refuses two ranks on one device unless told otherwise)"
bin/campaign launch --nodes 1 --tasks-per-node 2 -- $T --steps 20 --metrics-dir "$W/t_two"
echo "exit $?"; steps "$W/t_two"

# 2. The monitor beside a longer run, against nvidia-smi sampling the same time
say "2. campaign-monitor beside the trainer, and nvidia-smi"
bin/campaign-monitor --dir "$W/mon" --interval-ms 250 --node gpu0 --gpu auto --duration 20 &
mon=$!
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used,power.draw --format=csv,noheader,nounits -lms 500 >"$W/smi.csv" &
smi=$!
bin/campaign launch --nodes 1 --tasks-per-node 1 -- $T --steps 4000 --ddp sync --metrics-dir "$W/t_mon" >/dev/null &
trn=$!
wait "$mon"; echo "monitor exit $?"
kill "$smi" "$trn" 2>/dev/null; wait "$smi" "$trn" 2>/dev/null
head -3 "$W"/mon/gpu0/gpu_monitor.csv; echo ...; tail -2 "$W"/mon/gpu0/gpu_monitor.csv
python3 - "$W" <<'P'
import csv, statistics, sys
w = sys.argv[1]
rows = list(csv.DictReader(open(w + "/mon/gpu0/gpu_monitor.csv")))
print("monitor: %d samples, columns %s" % (len(rows), ",".join(rows[0].keys()) if rows else "-"))
for k in rows[0] if rows else []:
    try:
        v = [float(r[k]) for r in rows if r[k] not in ("", None)]
        print("  %s median %.1f max %.1f" % (k, statistics.median(v), max(v)))
    except ValueError:
        pass
smi = [l.split(", ") for l in open(w + "/smi.csv") if l.count(",") == 3]
u = [float(x[1]) for x in smi]; m = [float(x[2]) for x in smi]
print("nvidia-smi: %d samples, utilization median %.1f %%, memory used median %.0f MiB" %
      (len(smi), statistics.median(u) if u else -1, statistics.median(m) if m else -1))
P

# 3. Our PyTorch DDP script with CUDA activity, analysed by campaign-analyze
say "3. campaigns/ddp_train.py --cuda, 1 rank: torch.profiler with CUDA activity, record_shapes, with_flops"
P="python3 $PWD/campaigns/ddp_train.py --cuda"
(cd "$W" && PYTHONUNBUFFERED=1 "$OLDPWD/bin/campaign" launch --nodes 1 --tasks-per-node 1 -- \
	$P --steps 15 --warmup 3 --batch 1024 --hidden 2048 --layers 6 --embed-rows 100000 --out "$W/pt" >"$W/pt.out" 2>&1)
echo "exit $?"; tail -3 "$W/pt.out"; ls -la "$W/pt"
say "3. ... 2 ranks on the one GPU (NCCL refuses a device shared by two ranks: the error is the finding)"
(cd "$W" && PYTHONUNBUFFERED=1 "$OLDPWD/bin/campaign" launch --nodes 1 --tasks-per-node 2 -- \
	$P --steps 8 --warmup 2 --out "$W/pt2" >"$W/pt2.out" 2>&1)
echo "exit $?"; grep -m 5 -iE "error|duplicate|median step" "$W/pt2.out"
say "3. ... 2 ranks on the one GPU over gloo (it reduces CUDA tensors through the host)"
(cd "$W" && PYTHONUNBUFFERED=1 "$OLDPWD/bin/campaign" launch --nodes 1 --tasks-per-node 2 -- \
	$P --backend gloo --steps 15 --warmup 3 --batch 512 --hidden 2048 --layers 6 --out "$W/ptg" >"$W/ptg.out" 2>&1)
echo "exit $?"; grep -m 4 "median step" "$W/ptg.out"; ls -la "$W/ptg"
bin/campaign-analyze "$W"/ptg/*.json
say "3. campaign-analyze on the traces"
bin/campaign-analyze "$W"/pt/*.json
bin/campaign-analyze --json "$W"/pt/*.json >"$W/pt_analyze.json"; echo "exit $?"

# 4. A 1-node GPU campaign end to end on the local executor: the trainer and the PyTorch script
say "4. campaign submit --backend local, 1 node x 1 GPU"
cp campaigns/ddp_train.py "$W/"
cat >"$W/gpu.yaml" <<'Y'
campaign: gpu27
workload:
  command: "{{trainer}} --backend {{backend}} --ddp sync --steps {{steps}} --warmup-steps {{warmup_steps}} --batch-per-rank 512 --hidden 4096 --depth 8 --input 1024 --output 256 --metrics-dir {{metrics_dir}}"
profile: { warmup_steps: 10, active_steps: 100, monitor: { enabled: true, interval_ms: 200 } }
analysis: { peak_gflops_per_rank: 67000 }
scenarios:
  - { name: gpu-1n, nodes: 1, tasks_per_node: 1, gpus_per_node: 1, backend: nccl }
Y
cat >"$W/torch.yaml" <<'Y'
campaign: torch27
workload:
  command: "python3 {{campaign_dir}}/ddp_train.py --cuda --steps {{steps}} --warmup {{warmup_steps}} --batch 1024 --hidden 2048 --layers 6 --out profiler"
profile: { warmup_steps: 3, active_steps: 12, traces: ["profiler/*.pt.trace.json"], monitor: { enabled: true, interval_ms: 200 } }
analysis: { batch_per_rank: 1024, peak_gflops_per_rank: 67000 }
scenarios:
  - { name: torch-1n, nodes: 1, tasks_per_node: 1, gpus_per_node: 1, backend: nccl }
Y
for c in gpu27 torch27; do
	y=$W/${c%27}.yaml
	bin/campaign validate "$y" && bin/campaign submit --wait --backend local --results "$W/res" "$y"
	echo "$c: exit $?"
	run=$(ls -d "$W"/res/$c/*/ | tail -1)
	bin/campaign status --results "$W/res" "$(basename "$run")" || true
	cat "$run/BOTTLENECK_ANALYSIS.md"
done

say "results"
tar -C "$W" -czf "$OUT/pt_traces.tar.gz" pt ptg pt_analyze.json 2>/dev/null
tar -C "$W" -czf "$OUT/runs.tar.gz" --exclude='*.pt.trace.json' res t_sync t_bucketed t_per-param mon smi.csv 2>/dev/null
ls -la "$OUT"
