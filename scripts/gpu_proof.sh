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
#   3. FLCE_VK_PROFILE=1 for the GPU time per shader at batch 64 (tiled and direct);
#   4. a short FLCE run (and FedAvg) on the GPU and on the CPU backend: the digests must be equal.
# Usage: sh scripts/gpu_proof.sh [OUT]     (nothing here needs the network)
set -u
cd "$(dirname "$0")/.."
OUT=${1:-${OUT:-gpu-proof}}
mkdir -p "$OUT"
log() { echo "== $*" | tee -a "$OUT/log.txt"; }
t0=$(date +%s)
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
log "2. training throughput"
for b in 64 256 512; do
  timeout 90 ./build/flce-bench train --backend vulkan --batch "$b" --steps 10 --csv "$OUT/train.csv" 2>&1 | tee -a "$OUT/log.txt"
  timeout 90 python3 tools/torch_reference.py bench --device cuda --batch "$b" --steps 20 2>&1 | tee -a "$OUT/log.txt"
done
log "2b. the direct convolution shaders (FLCE_VK_CONV=direct) against the tiled default, batch 64 and 512"
for b in 64 512; do
  FLCE_VK_CONV=direct timeout 90 ./build/flce-bench train --backend vulkan --batch "$b" --steps 10 --csv "$OUT/train_direct.csv" 2>&1 | tee -a "$OUT/log.txt"
done
FLCE_VK_CONV=direct timeout 60 ./build/flce check --backend vulkan --op CONV2D --steps 1 > "$OUT/check_direct.txt" 2>&1
echo "exit $?" >> "$OUT/check_direct.txt"; tail -2 "$OUT/check_direct.txt" | tee -a "$OUT/log.txt"
timeout 120 ./build/flce-bench train --backend cpu --batch 64 --steps 3 --csv "$OUT/train.csv" 2>&1 | tee -a "$OUT/log.txt"
log "3. GPU time per shader, batch 64"
FLCE_VK_PROFILE=1 timeout 60 ./build/flce-bench train --backend vulkan --batch 64 --steps 10 > "$OUT/profile.txt" 2>&1
FLCE_VK_CONV=direct FLCE_VK_PROFILE=1 timeout 60 ./build/flce-bench train --backend vulkan --batch 64 --steps 10 > "$OUT/profile_direct.txt" 2>&1
cat "$OUT/profile.txt" "$OUT/profile_direct.txt" >> "$OUT/log.txt"
log "4. the same FL run on the GPU and on the CPU backend"
for be in vulkan cpu; do
  timeout 200 ./build/flce run --algo flce,fedavg --clients 10 --per-round 5 --rounds 2 --train-subset 2000 --test-subset 500 \
    --val-size 100 --seed 2 --backend "$be" --out "$OUT/run-$be" --force --quiet > "$OUT/run-$be.txt" 2>&1
  echo "exit $?" >> "$OUT/run-$be.txt"
done
for a in flce fedavg; do
  if cmp -s "$OUT/run-vulkan/$a/digests.txt" "$OUT/run-cpu/$a/digests.txt"; then log "$a: GPU and CPU digests identical"
  else log "$a: GPU and CPU digests DIFFER"; diff "$OUT/run-vulkan/$a/digests.txt" "$OUT/run-cpu/$a/digests.txt" >> "$OUT/log.txt"; fi
done
log "done in $(( $(date +%s) - t0 )) s"
