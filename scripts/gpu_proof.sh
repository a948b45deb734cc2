#!/bin/sh
# gpu_proof.sh: the one script to run when a machine with an NVIDIA GPU is lent (issue 17, item 4;
# under 10 minutes). Builds with what the machine has, then, each step timed and logged to
# $OUT (default ./gpu-proof):
#   1. flce check --backend vulkan, no override (auto: the denormal mode the probe finds), and in
#      ftz explicitly; the device and driver (vulkaninfo where present, nvidia-smi);
#   2. flce-bench train on the GPU at batch 64, 256 and 512, beside PyTorch CUDA eager float32
#      (TF32 off, cuDNN autotuning on; tools/torch_reference.py bench --device cuda) on the same
#      machine in the same call, and the CPU backend at batch 64;
#      then the direct convolution shaders (FLCE_VK_CONV=direct) at batch 64 and 512 against the
#      tiled ones (the GPU's default), and their check;
#      then at batch 64 with the losses read after every step (--read-loss, as flce run does),
#      with and without command-buffer replay (FLCE_VK_REPLAY=1, 0);
#   3. FLCE_VK_PROFILE=1 for the GPU time per shader at batch 64 (tiled and direct);
#   4. a short FLCE run (and FedAvg) on the GPU and on the CPU backend: the digests must be equal;
#      and on the GPU again with every command buffer recorded afresh (FLCE_VK_REPLAY=0): the
#      same digests, and the wall time of both (the cost of recording, against replaying).
# Usage: sh scripts/gpu_proof.sh [OUT]     (nothing here needs the network)
# GPU_PROOF_DRY=1: the same steps at tiny sizes (batch 4, one step, one round), to try the script
# on lavapipe before a GPU is lent (tests nothing about speed).
set -u
[ $# -le 1 ] || { echo "usage: sh scripts/gpu_proof.sh [OUT] (got $# arguments)" >&2; exit 2; }
cd "$(dirname "$0")/.."
OUT=${1:-${OUT:-gpu-proof}}
mkdir -p "$OUT"
log() { echo "== $*" | tee -a "$OUT/log.txt"; }
t0=$(date +%s)
batches="64 256 512"; ab="64 512"; pb=64; st=10; cst=3
runargs="--clients 10 --per-round 5 --rounds 2 --train-subset 2000 --test-subset 500 --val-size 100"
# (dry: the tiled shaders everywhere but in 2b, as on a GPU; lavapipe's default is direct)
[ "${GPU_PROOF_DRY:-0}" = 1 ] && { batches=4; ab=4; pb=4; st=1; cst=1; export FLCE_VK_CONV=tiled
  runargs="--iid --clients 4 --per-round 2 --rounds 1 --train-subset 48 --test-subset 10 --val-size 8 --batch 16"; }
# the limit of each FL run of step 4 (seconds: a GPU needs a few); the dry run's on lavapipe
# with its own default, the direct shaders (the tiled ones took over 200 s there, beside other
# work, for these 48 images; steps 1-3 have tried them)
runlimit=200; runconv=""
[ "${GPU_PROOF_DRY:-0}" = 1 ] && { runlimit=600; runconv=direct; }
log "machine: $(uname -a)"
( nvidia-smi 2>&1 || true ) > "$OUT/nvidia-smi.txt"
( vulkaninfo --summary 2>&1 || true ) > "$OUT/vulkaninfo.txt"
if [ ! -x build/flce ]; then
  log "build"
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > "$OUT/cmake.txt" 2>&1 && cmake --build build -j"$(nproc)" >> "$OUT/cmake.txt" 2>&1 ||
    { log "build failed (see cmake.txt)"; exit 1; }
fi
./build/flce --version | tee -a "$OUT/log.txt"
log "1. flce check --backend vulkan (auto)"
timeout 240 ./build/flce check --backend vulkan --steps 3 > "$OUT/check_auto.txt" 2>&1; echo "exit $?" >> "$OUT/check_auto.txt"
tail -2 "$OUT/check_auto.txt" | tee -a "$OUT/log.txt"
grep '^# vulkan' "$OUT/check_auto.txt" | tee -a "$OUT/log.txt"
timeout 120 ./build/flce check --backend vulkan --denormals ftz --steps 2 --input 1x28x28 --batch 64 > "$OUT/check_ftz.txt" 2>&1
echo "exit $?" >> "$OUT/check_ftz.txt"; tail -2 "$OUT/check_ftz.txt" | tee -a "$OUT/log.txt"
# the Python with PyTorch for the comparison: PYTHON if set, else the first of python3,
# /usr/bin/python3 whose torch sees CUDA, else the first with torch at all (said in the log)
py=""; pyany=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
  command -v "$p" > /dev/null 2>&1 || continue
  "$p" -c "import torch, numpy" 2> /dev/null || continue
  [ -n "$pyany" ] || pyany=$p
  if "$p" -c "import torch, sys; sys.exit(not torch.cuda.is_available())" 2> /dev/null; then py=$p; break; fi
done
[ -n "$py" ] || py=${pyany:-python3}
log "PyTorch from $py: $("$py" -c 'import torch; print(torch.__version__, "CUDA", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1 | tail -1)"
log "2. training throughput"
for b in $batches; do
  timeout 90 ./build/flce-bench train --backend vulkan --batch "$b" --steps $st --csv "$OUT/train.csv" 2>&1 | tee -a "$OUT/log.txt"
  timeout 90 "$py" tools/torch_reference.py bench --device cuda --batch "$b" --steps $((st * 2)) 2>&1 | tee -a "$OUT/log.txt"
done
log "2b. the direct convolution shaders (FLCE_VK_CONV=direct) against the tiled default, batch 64 and 512"
for b in $ab; do
  FLCE_VK_CONV=direct timeout 90 ./build/flce-bench train --backend vulkan --batch "$b" --steps $st --csv "$OUT/train_direct.csv" 2>&1 | tee -a "$OUT/log.txt"
done
FLCE_VK_CONV=direct timeout 60 ./build/flce check --backend vulkan --op CONV2D --steps 1 > "$OUT/check_direct.txt" 2>&1
echo "exit $?" >> "$OUT/check_direct.txt"; tail -2 "$OUT/check_direct.txt" | tee -a "$OUT/log.txt"
timeout 120 ./build/flce-bench train --backend cpu --batch $pb --steps $cst --csv "$OUT/train.csv" 2>&1 | tee -a "$OUT/log.txt"
log "2c. batch 64 reading the losses after every step (as flce run does), with and without command-buffer replay"
for r in 1 0; do
  FLCE_VK_REPLAY=$r timeout 90 ./build/flce-bench train --backend vulkan --batch $pb --steps $st --read-loss --csv "$OUT/train_readloss_replay$r.csv" 2>&1 | tee -a "$OUT/log.txt"
done
log "3. GPU time per shader, batch 64"
FLCE_VK_PROFILE=1 timeout 60 ./build/flce-bench train --backend vulkan --batch $pb --steps $st > "$OUT/profile.txt" 2>&1
FLCE_VK_CONV=direct FLCE_VK_PROFILE=1 timeout 60 ./build/flce-bench train --backend vulkan --batch $pb --steps $st > "$OUT/profile_direct.txt" 2>&1
cat "$OUT/profile.txt" "$OUT/profile_direct.txt" >> "$OUT/log.txt"
log "4. the same FL run on the GPU and on the CPU backend (and on the GPU without replay)"
for be in vulkan cpu vulkan-noreplay; do
  ts=$(date +%s.%N)
  FLCE_VK_REPLAY=$([ $be = vulkan-noreplay ] && echo 0 || echo 1) timeout $runlimit env ${runconv:+FLCE_VK_CONV=$runconv} ./build/flce run --algo flce,fedavg $runargs \
    --seed 2 --backend "${be%-noreplay}" --out "$OUT/run-$be" --force --quiet > "$OUT/run-$be.txt" 2>&1
  echo "exit $?" >> "$OUT/run-$be.txt"
  log "run on $be: $(awk -v a="$ts" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
done
# two runs' digests compared only where both runs finished (a run that failed or ran past the
# limit is said as such, not as a difference)
compare() { # method, run a, run b, what
  if [ ! -f "$OUT/run-$2/$1/digests.txt" ] || [ ! -f "$OUT/run-$3/$1/digests.txt" ]; then log "$1: $4 not compared (a run did not finish)"
  elif cmp -s "$OUT/run-$2/$1/digests.txt" "$OUT/run-$3/$1/digests.txt"; then log "$1: $4 identical"
  else log "$1: $4 DIFFER"; diff "$OUT/run-$2/$1/digests.txt" "$OUT/run-$3/$1/digests.txt" >> "$OUT/log.txt"; fi
}
for a in flce fedavg; do
  for be in vulkan cpu vulkan-noreplay; do
    [ -f "$OUT/run-$be/$a/digests.txt" ] && continue
    rc=$(sed -n 's/^exit //p' "$OUT/run-$be.txt")
    why="status $rc"; [ "$rc" = 124 ] && why="stopped at the limit of $runlimit s"
    log "$a: the $be run did not finish ($why; $(grep -v '^exit ' "$OUT/run-$be.txt" | tail -1 | head -c 300))"
  done
  compare $a vulkan cpu "GPU and CPU digests"
  compare $a vulkan vulkan-noreplay "digests with and without replay"
done
log "done in $(( $(date +%s) - t0 )) s"
