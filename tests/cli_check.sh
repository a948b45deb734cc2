#!/bin/sh
# cli_check.sh FLCE: `flce check --backend cpu` passes every op case and two training steps,
# one line per case naming the backend and device, and a summary; --op selects cases;
# usage errors are one line and status 2. (The Vulkan backend: tests/vulkan.sh.)
set -u
flce=$1
PROG=$flce
. "$(dirname "$0")/lib.sh"
t=$(mktemp -d /tmp/flce-check-XXXXXX); trap 'rm -rf "$t"' EXIT
"$flce" check --backend cpu --steps 2 > "$t/out" 2> "$t/err" || fail "flce check --backend cpu: $(grep -v '^ok' "$t/out")"
n=$(grep -c '^ok   cpu     host CPU' "$t/out")
[ "$n" -ge 70 ] || fail "only $n ok lines naming the cpu backend and its device"
grep -q '^ok   cpu .* STEP 2/2' "$t/out" || fail "no training step line"
grep -q "^flce check: $n of $n cases matched the reference bit for bit on 1 backend$" "$t/out" || fail "summary: $(tail -1 "$t/out")"
"$flce" check --backend cpu --op conv2d_bwd --steps 0 > "$t/conv" || fail "--op conv2d_bwd"
want=$(grep -c '^ok .* CONV2D_BWD_' "$t/out")
[ "$want" -gt 0 ] && [ "$(grep -c '^ok' "$t/conv")" = "$want" ] || fail "--op conv2d_bwd should select the $want backward convolution cases"
grep '^ok' "$t/conv" | grep -vq 'CONV2D_BWD_' && fail "--op conv2d_bwd selected other cases"
expect 2 "--backend 'gpu'" check --backend gpu
expect 2 "Vulkan" check --backend cpu --device 0 --op ADD --steps 0 # checked the cpu backend, --device ignored
expect 2 "no case matched --op NOPE" check --backend cpu --op NOPE --steps 0
expect 2 "--input 'x'" check --input x
expect 2 "--input '3x32x32x1': expected CxHxW" check --backend cpu --steps 0 --input 3x32x32x1 # was read as 3x32x32
expect 2 "--steps -1" check --steps -1
expect 2 "--denormals 'flush'" check --backend cpu --denormals flush
# the flush-to-zero mode of the contract: reference (ftz) against the CPU backend (ftz), every
# op and two training steps, with the AVX-512 tiles (where the CPU has them) and the AVX2 tiles
for isa in "" avx2; do
  FLCE_CPU_ISA=$isa "$flce" check --backend cpu --denormals ftz --steps 2 > "$t/ftz" 2>&1 || fail "flce check --denormals ftz (${isa:-native}): $(grep -v '^ok' "$t/ftz")"
  grep -q '^# cpu backend on .*(denormals ftz, contract [0-9]*)$' "$t/ftz" || fail "check in ftz mode does not say so"
  grep -q "^flce check: $n of $n cases matched" "$t/ftz" || fail "ftz (${isa:-native}): $(tail -1 "$t/ftz")"
done
# both sets of AVX-512 tiles, whichever this CPU picks by default (one-vector tiles on AMD, wide
# ones elsewhere; where there is no AVX-512 both runs take the AVX2 tiles), every op case and two
# training steps at the study's 1x28x28 as well as the default 3x32x32
for tiles in narrow wide; do
  for in in 3x32x32 1x28x28; do
    FLCE_CPU_TILES=$tiles "$flce" check --backend cpu --steps 2 --input $in > "$t/tiles" 2>&1 || fail "FLCE_CPU_TILES=$tiles flce check --input $in: $(grep -v '^ok' "$t/tiles")"
    grep -q "^flce check: $n of $n cases matched" "$t/tiles" || fail "FLCE_CPU_TILES=$tiles --input $in: $(tail -1 "$t/tiles")"
  done
done
grep -q '(denormals preserve, contract [0-9]*)$' "$t/out" || fail "the default mode on the host is not preserve"
echo "cli_check: ok ($n cases)"
