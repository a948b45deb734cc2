#!/bin/sh
# vulkan.sh: the Vulkan backend on whatever Vulkan device the machine has (lavapipe in CI):
# `flce check --backend vulkan --steps 3` passes and names the device, with either convolution
# path (FLCE_VK_CONV=tiled|direct); a run with the Khronos
# validation layer reports no message (and the layer's messages are caught: a deliberate
# misuse is reported); a fault in a training step is caught and named; a device lost mid-run
# is one line and status 1, and --resume continues the run; `flce step` and a
# one-round `flce run` give the same bytes and digests as the CPU backend; repeated command
# buffers are replayed (as many as worked out from the client's batches), with the same digests.
# Where no Vulkan device exists the test exits 77 (ctest: skipped) with the reason;
# scripts/test.sh turns a skip into a failure in CI.
set -u
flce=$1; fixtures=$2; flce_bench=$3
PROG=$flce
. "$(dirname "$0")/lib.sh"
t=$(mktemp -d /tmp/flce-vk-XXXXXX); trap 'rm -rf "$t"' EXIT
vulkan_probe "$flce" "$t"

# the flush-to-zero mode: a device either runs the whole check in it bit for bit, or is refused
# with the probe's finding and the reason (lavapipe offers no DenormFlushToZero and keeps
# denormals); auto keeps preserve on a device that preserves
rc=0; "$flce" check --backend vulkan --denormals ftz --op ADD --steps 0 > "$t/ftz" 2> "$t/ftz.err" || rc=$?
if [ $rc = 0 ]; then
  grep -q '(denormals ftz, contract [0-9]*)$' "$t/ftz" || fail "vulkan ftz ran but does not say so"
else
  [ $rc = 2 ] && grep -q 'cannot run bit-exact with denormals flushed (ftz): the start-up probe found' "$t/ftz.err" ||
    fail "vulkan --denormals ftz: status $rc without the probe's reason: $(cat "$t/ftz.err")"
fi
grep -q '(denormals preserve, contract [0-9]*)$' "$t/probe" || grep -q '(denormals ftz, contract [0-9]*)$' "$t/probe" || fail "the device line lacks its denormal mode"
# every op, the math library and three training steps, bit for bit
"$flce" check --backend vulkan --steps 3 > "$t/check" 2> "$t/check.err" || fail "flce check: $(grep -v '^ok' "$t/check")"
grep -q '^# vulkan backend on ' "$t/check" || fail "no line naming the device"
grep -q '^ok   vulkan .* FMATH' "$t/check" || fail "no FMATH case"
[ "$(grep -c '^ok   vulkan .* STEP [123]/3' "$t/check")" = 3 ] || fail "three training steps expected"
ops=$(grep -c '^ok   vulkan' "$t/check")
[ "$ops" -ge 60 ] || fail "only $ops cases ran"
grep -q "^flce check: $ops of $ops cases matched" "$t/check" || fail "summary: $(tail -1 "$t/check")"
grep -q '^FAIL' "$t/check" && fail "a FAIL line in a passing check"

# both convolution paths (the tiled shaders, the GPU's default, and the direct ones, the CPU
# device's): every convolution case and two training steps bit for bit, named in the device line;
# a wrong FLCE_VK_CONV is one line naming it and status 2
for m in tiled direct; do
  FLCE_VK_CONV=$m "$flce" check --backend vulkan --op CONV2D --steps 0 > "$t/conv-$m" 2>/dev/null || fail "FLCE_VK_CONV=$m: $(grep -v '^ok' "$t/conv-$m")"
  grep -q "^# vulkan backend on .*, $m convolutions" "$t/conv-$m" || fail "FLCE_VK_CONV=$m: not in the device line"
  n=$(grep -c '^ok   vulkan .* CONV2D_' "$t/conv-$m"); [ "$n" -ge 60 ] || fail "FLCE_VK_CONV=$m: only $n convolution cases"
  grep -q "^flce check: $n of $n cases matched" "$t/conv-$m" || fail "FLCE_VK_CONV=$m: $(tail -1 "$t/conv-$m")"
  FLCE_VK_CONV=$m "$flce" check --backend vulkan --op STEPS --steps 2 --batch 6 > "$t/steps-$m" 2>/dev/null ||
    fail "FLCE_VK_CONV=$m steps: $(grep -v '^ok' "$t/steps-$m")"
done
FLCE_VK_CONV=fast "$flce" check --backend vulkan --op ADD --steps 0 > /dev/null 2> "$t/conv.err"; rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$t/conv.err")" = 1 ] && grep -q "FLCE_VK_CONV: 'fast' is neither tiled nor direct" "$t/conv.err" ||
  fail "FLCE_VK_CONV=fast: status $rc, $(cat "$t/conv.err")"

# a weight one ulp off before step 2 is caught, named, and the status is 1
FLCE_CHECK_TEST_FAULT=1 "$flce" check --backend vulkan --op STEPS --steps 2 --batch 4 > "$t/fault" 2>/dev/null
[ $? = 1 ] || fail "a perturbed step must give status 1"
grep -q '^ok   vulkan .* STEP 1/2' "$t/fault" || fail "step 1 should still match"
grep -q '^FAIL vulkan .* STEP 2/2.*first difference at' "$t/fault" || fail "step 2 mismatch not reported: $(cat "$t/fault")"

# `flce step`: the same bytes as the CPU backend
"$fixtures" batch "$t" 6 3 16 16 5 || fail "fixtures batch"
"$flce" step --init-seed 4 --classes 5 --input "$t/X.npy" --labels "$t/Y.npy" --backend cpu --out "$t/c.st" 2>/dev/null || fail "cpu step"
"$flce" step --init-seed 4 --classes 5 --input "$t/X.npy" --labels "$t/Y.npy" --backend vulkan --out "$t/v.st" 2>/dev/null || fail "vulkan step"
cmp -s "$t/c.st" "$t/v.st" || fail "flce step: vulkan and cpu outputs differ"

# no Vulkan driver: --backend vulkan is one clear line and status 2; the default (auto) says
# so in one line and computes on the CPU backend (same bytes)
export_none="VK_DRIVER_FILES=/nonexistent.json VK_ICD_FILENAMES=/nonexistent.json"
env $export_none "$flce" check --backend vulkan > /dev/null 2> "$t/nodev.err"; rc=$?
[ $rc = 2 ] || fail "--backend vulkan without a driver: status $rc"
[ "$(wc -l < "$t/nodev.err")" = 1 ] && grep -q 'no Vulkan driver' "$t/nodev.err" || fail "no-driver message: $(cat "$t/nodev.err")"
env -u FLCE_BACKEND $export_none "$flce" step --init-seed 4 --classes 5 --input "$t/X.npy" --labels "$t/Y.npy" --out "$t/a.st" > /dev/null 2> "$t/auto.err" \
  || fail "auto without a driver: $(cat "$t/auto.err")"
[ "$(wc -l < "$t/auto.err")" = 1 ] && grep -q 'using the cpu backend' "$t/auto.err" || fail "auto message: $(cat "$t/auto.err")"
cmp -s "$t/c.st" "$t/a.st" || fail "auto fell back to something other than the cpu backend's bytes"

# one round of FLCE: the same digests on vulkan and cpu
# (64 training images: clients of 11-16 samples, a full batch of 16 and partial ones; on
# lavapipe this round took 28-30 s, with 120 training and 40 test images 58-84 s)
base="--clients 4 --train-subset 64 --test-subset 20 --val-size 10 --batch 16 --seed 3 --quiet --per-round 2 --rounds 1"
"$flce" run --algo flce $base --out "$t/c1" --backend cpu > /dev/null 2>&1 || fail "cpu run"
"$flce" run --algo flce $base --out "$t/v1" --backend vulkan > /dev/null 2> "$t/v1.err" || fail "vulkan run: $(cat "$t/v1.err")"
cmp -s "$t/c1/digests.txt" "$t/v1/digests.txt" || fail "vulkan and cpu runs differ: $(diff "$t/c1/digests.txt" "$t/v1/digests.txt")"
grep -rqs 'vulkan' "$t/v1/config.json" "$t/v1/digests.txt" "$t/v1"/*.txt || fail "the run does not record its backend"
# the released code's optimiser (issue 62): momentum and weight decay in the backends' SGD op,
# clipping at a norm that clips (1) through the host, 3 local steps: the same digests (on
# lavapipe about 45 s)
opt="--momentum 0.9 --weight-decay 1e-5 --clip-norm 1 --local-steps 3"
"$flce" run --algo fedavg $base $opt --out "$t/co" --backend cpu > /dev/null 2>&1 || fail "cpu run, the released optimiser"
"$flce" run --algo fedavg $base $opt --out "$t/vo" --backend vulkan > /dev/null 2> "$t/vo.err" || fail "vulkan run, the released optimiser: $(cat "$t/vo.err")"
cmp -s "$t/co/digests.txt" "$t/vo/digests.txt" || fail "vulkan and cpu differ under the released optimiser: $(diff "$t/co/digests.txt" "$t/vo/digests.txt")"
# command buffers recorded once and replayed: FedAvg trains each client's batches with the same
# commands from the third step on (the first step's log holds the model's upload; the second's
# SGD is the first of the client, flagged so) up to the last full batch, so a client of n samples
# at batch 4 replays floor(n / 4) - 3 submissions (n from clients.csv); the digests are the CPU
# backend's with replay and without (FLCE_VK_REPLAY=0: nothing replayed); a wrong value is one
# line, status 2, and no run folder
base3="--iid --clients 2 --per-round 1 --rounds 1 --train-subset 64 --test-subset 10 --val-size 10 --batch 4 --seed 5 --quiet"
"$flce" run --algo fedavg $base3 --out "$t/c3" --backend cpu > /dev/null 2>&1 || fail "cpu run (replay)"
for r in 1 0; do
  FLCE_VK_REPLAY=$r FLCE_VK_PROFILE=1 "$flce" run --algo fedavg $base3 --out "$t/v3-$r" --backend vulkan > /dev/null 2> "$t/v3-$r.err" ||
    fail "FLCE_VK_REPLAY=$r run: $(tail -1 "$t/v3-$r.err")"
  cmp -s "$t/c3/digests.txt" "$t/v3-$r/digests.txt" || fail "FLCE_VK_REPLAY=$r: digests differ from the cpu run"
done
n=$(awk -F, 'NR == 2 { print $2 }' "$t/c3/clients.csv")
want=$(( n / 4 - 3 ))
got=$(sed -n 's/.* submissions, \([0-9]*\) of them replayed.*/\1/p' "$t/v3-1.err")
[ "$want" -ge 3 ] && [ "$got" = "$want" ] || fail "replayed $got submissions, expected $want (a client of $n samples)"
grep -q ' submissions, 0 of them replayed' "$t/v3-0.err" || fail "FLCE_VK_REPLAY=0 replayed: $(grep profile "$t/v3-0.err")"
FLCE_VK_REPLAY=yes "$flce" run --algo fedavg,flce $base3 --out "$t/v3-bad" --backend vulkan > /dev/null 2> "$t/v3-bad.err"; rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$t/v3-bad.err")" = 1 ] && grep -q "FLCE_VK_REPLAY: 'yes' is neither 0 nor 1" "$t/v3-bad.err" ||
  fail "FLCE_VK_REPLAY=yes: status $rc, $(cat "$t/v3-bad.err")"
[ -e "$t/v3-bad" ] && fail "an unusable backend left a run folder behind"
FLCE_VK_REPLAY=yes "$flce" run --algo fedavg $base3 --out "$t/c3" --backend vulkan --force > /dev/null 2>&1
[ $? = 2 ] && [ -f "$t/c3/digests.txt" ] && [ -f "$t/c3/model.safetensors" ] ||
  fail "--force with an unusable backend: status not 2, or the old run deleted"
# fewer dispatches: SGD goes out four parameter tensors a dispatch. ResNet20 has 65 (21
# convolutions, 19 in the blocks and stem and 2 shortcuts; a scale and a shift for each of
# their 21 BatchNorms; the linear layer's weight and bias), so a step has ceil(65 / 4) = 17 SGD
# dispatches; flce-bench train at --steps 1 runs a warm-up step and a timed one
FLCE_VK_PROFILE=1 "$flce_bench" train --backend vulkan --batch 2 --steps 1 --repeats 1 --peak 1 > /dev/null 2> "$t/prof" ||
  fail "flce-bench train --backend vulkan: $(tail -1 "$t/prof")"
sgd=$(awk '$1 == "sgd" { print $2 }' "$t/prof")
[ "$sgd" = 34 ] || fail "SGD dispatches in two steps: $sgd, expected 34 ($(grep -c . "$t/prof") lines of profile)"
# a device lost in the middle of a run (FLCE_VK_TEST_LOSE_AT: that submission fails): one line
# naming it, status 1, no process exit from inside the backend, a run folder that --resume
# continues to the CPU backend's digests
base2=$(echo "$base" | sed 's/--rounds 1/--rounds 2/')
"$flce" run --algo flce $base2 --out "$t/c2" --backend cpu > /dev/null 2>&1 || fail "cpu run, 2 rounds"
FLCE_VK_TEST_LOSE_AT=200 "$flce" run --algo flce $base2 --out "$t/v2" --backend vulkan > /dev/null 2> "$t/lost.err"; rc=$?
[ $rc = 1 ] || fail "a lost device: status $rc (expected 1): $(cat "$t/lost.err")"
tail -1 "$t/lost.err" | grep -q '^flce run: vulkan: submission failed on .*(VkResult -4)$' || fail "a lost device: $(cat "$t/lost.err")"
[ -f "$t/v2/digests.txt" ] && fail "a failed run wrote digests.txt"
"$flce" run --algo flce $base2 --out "$t/v2" --backend vulkan --resume > /dev/null 2> "$t/v2.err" || fail "resume after the loss: $(cat "$t/v2.err")"
cmp -s "$t/c2/digests.txt" "$t/v2/digests.txt" || fail "resumed after a lost device: digests differ from the cpu run"
# the validation layer (with its synchronization validation): silent on a check with a training
# step and on both convolution paths; loud on a deliberate misuse and on missing barriers
if [ -f /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json ]; then
  FLCE_VK_VALIDATION=1 "$flce" check --backend vulkan --steps 1 --batch 4 > "$t/val" 2> "$t/val.err" \
    || fail "check under the validation layer: $(tail -3 "$t/val") $(head -3 "$t/val.err")"
  grep -q 'vulkan validation' "$t/val.err" && fail "validation messages: $(grep 'vulkan validation' "$t/val.err" | head -3)"
  FLCE_VK_VALIDATION=1 FLCE_VK_CONV=tiled "$flce" check --backend vulkan --op CONV2D --steps 0 > "$t/valt" 2> "$t/valt.err" \
    || fail "tiled convolutions under the validation layer: $(tail -1 "$t/valt")"
  grep -q 'vulkan validation' "$t/valt.err" && fail "validation messages (tiled): $(grep 'vulkan validation' "$t/valt.err" | head -3)"
  # replayed command buffers (the run of the replay test above: 3 replays) are valid to submit again
  FLCE_VK_VALIDATION=1 "$flce" run --algo fedavg $base3 --out "$t/valr" --backend vulkan > /dev/null 2> "$t/valr.err" \
    || fail "a run under the validation layer: $(tail -1 "$t/valr.err")"
  grep -q 'vulkan validation' "$t/valr.err" && fail "validation messages (replay): $(grep 'vulkan validation' "$t/valr.err" | head -3)"
  FLCE_VK_VALIDATION=1 FLCE_VK_TEST_MISUSE=1 "$flce" check --backend vulkan --op ADD --steps 0 > "$t/mis" 2> "$t/mis.err"
  [ $? = 1 ] || fail "a misuse under the validation layer must fail the check"
  grep -q 'vulkan validation' "$t/mis.err" || fail "the deliberate misuse was not reported by the layer"
  # synchronization validation: commands without the barriers vk_touch records race, and the
  # layer says so (the check above, silent, is then evidence that every needed barrier is there)
  FLCE_VK_VALIDATION=1 FLCE_VK_TEST_MISUSE=2 "$flce" check --backend vulkan --op CONV2D_FWD --steps 0 > "$t/race" 2> "$t/race.err"
  grep -q 'SYNC-HAZARD' "$t/race.err" || fail "commands without barriers were not reported as a hazard: $(head -c 300 "$t/race.err")"
elif [ -n "${CI:-}${FLCE_CI:-}" ]; then
  fail "the Vulkan validation layer is not installed (vulkan-validationlayers)"
else
  echo "SKIPPED (everything else passed): the Vulkan validation layer is not installed (vulkan-validationlayers)"
  exit 77
fi
echo "vulkan: ok ($ops cases)"
