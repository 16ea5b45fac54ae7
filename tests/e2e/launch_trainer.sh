# campaign launch: rank variables and failure propagation; the trainer:
# identical replicas, the same loss curve on 1 and on N ranks, loss that falls.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
out=$("$CAMPAIGN" launch --nodes 2 --tasks-per-node 2 -- sh -c 'echo "$SLURM_PROCID $SLURM_LOCALID $SLURM_NODEID $SLURMD_NODENAME $WORLD_SIZE $LOCAL_RANK"' | sort)
check launch_rank_env [ "$out" = "0 0 0 local1 4 0
1 1 0 local1 4 1
2 0 1 local2 4 0
3 1 1 local2 4 1" ]
start=$SECONDS
"$CAMPAIGN" launch --nodes 1 --tasks-per-node 3 --grace 1 -- sh -c 'if [ "$SLURM_PROCID" = 1 ]; then exit 7; fi; sleep 30' 2>err.txt; rc=$?
check launch_failure_propagates [ "$rc" -eq 7 ]
check launch_stops_other_ranks [ $((SECONDS - start)) -lt 20 ]
out=$(SLURM_JOB_ID=99 "$CAMPAIGN" launch --local --nodes 1 --tasks-per-node 2 -- sh -c 'echo "$SLURM_PROCID"' | sort | tr '\n' ' ')
check launch_local_inside_slurm [ "$out" = "0 1 " ]
"$CAMPAIGN" launch -- /nonexistent/prog 2>err.txt; rc=$?
check launch_missing_program [ "$rc" -eq 127 ]
check launch_missing_program_message grep -q "cannot run '/nonexistent/prog'" err.txt

T="$BIN/campaign-trainer"
args="--steps 40 --warmup-steps 5 --batch 48 --hidden 96 --depth 3 --seed 7"
"$T" $args --metrics-dir one >/dev/null; rc1=$?
"$CAMPAIGN" launch --nodes 2 --tasks-per-node 2 -- "$T" $args --metrics-dir four --rendezvous "$SCRATCH/rdzv" >/dev/null; rc4=$?
check trainer_runs [ "$rc1" -eq 0 ] 
check trainer_runs_4_ranks [ "$rc4" -eq 0 ]
python3 "$ROOT/tests/tools/trainer_replicas.py" one four >cmp.txt
check trainer_four_rank_files [ "$(cut -d' ' -f1-3 cmp.txt)" = "4 40 40" ]
check trainer_replicas_identical_every_step [ "$(cut -d' ' -f4 cmp.txt)" = True ]
check trainer_loss_curve_matches_1_rank [ "$(cut -d' ' -f5 cmp.txt)" = True ]
# --checkpoint-every 4: the steps whose number plus one 4 divides, traced; 3 written before
# step 0 untraced (ckpt_prewarm: the steps' then steady ones, not a process's first few)
"$T" --steps 12 --warmup-steps 3 --batch 8 --hidden 32 --depth 2 --checkpoint-every 4 \
	--checkpoint-dir ck --metrics-dir ckm >/dev/null
check trainer_checkpoint_steps [ "$(python3 -c '
import json, sys
print(" ".join(str(r["step"]) for r in map(json.loads, open(sys.argv[1])) if r.get("io_ms", 0) > 0))' ckm/rank_0.jsonl)" = "3 7 11" ]
check trainer_checkpoint_traced [ "$(grep -c '"name": "checkpoint:write"' ckm/rank_0.trace.json)" = 3 ]
check trainer_loss_halves [ "$(cut -d' ' -f6 cmp.txt)" = True ]
"$T" --batch 10 --metrics-dir x 2>/dev/null; check trainer_runs_batch_10 [ $? -eq 0 ]
WORLD_SIZE=4 RANK=0 "$T" --batch 10 --metrics-dir x 2>err.txt; rc=$?
check trainer_batch_must_divide [ "$rc" -eq 2 ]
check trainer_batch_message grep -q "multiple of the number of ranks" err.txt
if [ -x "$BIN/campaign-trainer-gpu" ]; then
	"$BIN/campaign-trainer-gpu" --steps 1 --metrics-dir g 2>err.txt; rc=$?
	if [ "$rc" -eq 69 ]; then
		pass gpu_trainer_reports_no_gpu
		check gpu_trainer_no_gpu_reason grep -q "no GPU" err.txt
	elif [ "$rc" -eq 0 ]; then
		skip gpu_trainer_reports_no_gpu "a GPU is present here; the no-GPU path cannot be exercised"
	else
		fail gpu_trainer_reports_no_gpu "exit $rc: $(cat err.txt)"
	fi
else
	skip gpu_trainer_reports_no_gpu "bin/campaign-trainer-gpu not built (no CUDA toolkit with NCCL at CUDA_HOME)"
fi
# The loader's workers must fill every step whatever their number and the
# prefetch depth (a worker-stride race once left a step unfilled forever).
hung=0
for w in 1 2 3 5; do
	for p in 1 2 7; do
		timeout 30 "$T" --steps 23 --batch 6 --hidden 16 --workers $w --prefetch $p --metrics-dir "lw$w$p" >/dev/null || hung=$((hung + 1))
	done
done
check trainer_loader_never_stalls [ "$hung" -eq 0 ]
# Every gloo algorithm and DDP mode trains the same model (to rounding).
for algo in ring bcube halving-doubling; do
	for ddp in sync bucketed per-param; do
		"$CAMPAIGN" launch --nodes 1 --tasks-per-node 2 -- "$T" --steps 12 --batch 16 --hidden 64 --depth 4 --bucket-mb 0.01 \
			--gloo-algo $algo --ddp $ddp --metrics-dir "algo-$algo-$ddp" --rendezvous "$SCRATCH/rdzv" >/dev/null || echo "$algo $ddp failed"
	done
done >algos.txt 2>&1
check gloo_algorithms_and_modes_run [ ! -s algos.txt ]
[ -s algos.txt ] && { echo "   algos.txt:"; sed "s/^/     /" algos.txt | tail -n 20; } # what failed
# exposed communication is part of communication, in every step of every rank
"$CAMPAIGN" launch --nodes 1 --tasks-per-node 2 -- "$T" --steps 100 --batch 16 --hidden 64 --depth 4 --bucket-mb 0.01 \
	--ddp bucketed --metrics-dir exposed --rendezvous "$SCRATCH/rdzv2" >/dev/null 2>&1
check bucketed_exposed_within_communication python3 -c '
import json, glob, sys
steps = [json.loads(l) for f in glob.glob("exposed/rank_*.jsonl") for l in open(f) if "\"step\"" in l]
bad = [s for s in steps if s["comm_exposed_ms"] > s["comm_ms"] or s["comm_ms"] <= 0]
print("   %d steps, %d with exposed > total" % (len(steps), len(bad)))
sys.exit(0 if len(steps) == 200 and not bad else 1)'
check gloo_algorithms_same_loss python3 -c '
import json, glob, sys
curves = [[json.loads(l)["loss"] for l in open(f) if "\"step\"" in l] for f in sorted(glob.glob("algo-*/rank_0.jsonl"))]
sys.exit(0 if len(curves) == 9 and all(abs(a - b) < 1e-5 for c in curves for a, b in zip(curves[0], c)) else 1)'
