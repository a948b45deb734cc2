#!/bin/sh
# cli_step.sh FLCE FIXTURES: `flce step` gives byte-identical outputs on the reference and
# CPU backends, from a checkpoint and from --init-seed alike; the checkpoint made from
# seed 7 gives the same outputs as --init-seed 7; bad arguments are one line, status 2.
set -u
flce=$1; fixtures=$2
PROG=$flce
. "$(dirname "$0")/lib.sh"
t=$(mktemp -d /tmp/flce-step-XXXXXX); trap 'rm -rf "$t"' EXIT
"$fixtures" batch "$t" 6 3 16 16 4 || fail "fixtures batch"
"$fixtures" checkpoint "$t/w.safetensors" 3 16 4 7 || fail "fixtures checkpoint"
"$flce" step --weights "$t/w.safetensors" --input "$t/X.npy" --labels "$t/Y.npy" --backend reference --out "$t/ref.st" || fail "reference step"
"$flce" step --weights "$t/w.safetensors" --input "$t/X.npy" --labels "$t/Y.npy" --backend cpu --out "$t/cpu.st" || fail "cpu step"
cmp -s "$t/ref.st" "$t/cpu.st" || fail "reference and cpu outputs differ"
"$flce" step --init-seed 7 --classes 4 --input "$t/X.npy" --labels "$t/Y.npy" --out "$t/init.st" > /dev/null || fail "init step"
cmp -s "$t/ref.st" "$t/init.st" || fail "--init-seed 7 differs from the checkpoint of seed 7"
grep -q "grad.layer3.2.conv2.weight" "$t/cpu.st" || fail "gradient tensor missing"
grep -q '"features":{"dtype":"F32","shape":\[6,64\]' "$t/cpu.st" || fail "features tensor missing"

expect 2 "exactly one of --weights and --init-seed" step --input "$t/X.npy" --labels "$t/Y.npy" --out "$t/o"
expect 2 "Vulkan" step --init-seed 1 --classes 4 --input "$t/X.npy" --labels "$t/Y.npy" --out "$t/o" --backend cpu --device 0
expect 2 "--backend 'gpu'" step --init-seed 1 --classes 4 --input "$t/X.npy" --labels "$t/Y.npy" --out "$t/o" --backend gpu
# FLCE_BACKEND, the default of --backend: a bad value names the variable, before --device; --backend wins
FLCE_BACKEND=gpu expect 2 "FLCE_BACKEND='gpu': unknown" step --init-seed 1 --classes 4 --input "$t/X.npy" --labels "$t/Y.npy" --out "$t/o" --device 0
FLCE_BACKEND=gpu "$flce" step --weights "$t/w.safetensors" --input "$t/X.npy" --labels "$t/Y.npy" --backend cpu --out "$t/cpu-env.st" ||
  fail "--backend cpu over FLCE_BACKEND=gpu"
cmp -s "$t/cpu.st" "$t/cpu-env.st" || fail "--backend cpu over FLCE_BACKEND=gpu: another step"
expect 2 "no such file" step --weights "$t/none" --input "$t/X.npy" --labels "$t/Y.npy" --out "$t/o"
# --classes beside --weights was ignored (the checkpoint's classes used, status 0)
expect 2 "--classes goes with --init-seed" step --weights "$t/none" --classes 5 --input "$t/X.npy" --labels "$t/Y.npy" --out "$t/o"
expect 1 "label 3 of sample 3 out of range" step --init-seed 1 --classes 3 --input "$t/X.npy" --labels "$t/Y.npy" --out "$t/o"
expect 1 "X.npy: dtype float32, expected int64" step --init-seed 1 --classes 4 --input "$t/X.npy" --labels "$t/X.npy" --out "$t/o"
# sizes that do not fit an int, or no sample at all (issue 20, item 7: N = INT_MIN was accepted)
"$fixtures" npy-header "$t/Xbig.npy" 2147483648 0 16 16 || fail "fixtures npy-header"
expect 1 "one step takes N 1..65536" step --init-seed 1 --classes 4 --input "$t/Xbig.npy" --labels "$t/Y.npy" --out "$t/o"
"$fixtures" npy-header "$t/X0.npy" 0 3 16 16 || fail "fixtures npy-header"
expect 1 "one step takes N 1..65536" step --init-seed 1 --classes 4 --input "$t/X0.npy" --labels "$t/Y.npy" --out "$t/o"
[ -e "$t/o" ] && fail "output left behind after a failure"
# a NaN in the batch gave a finite loss (BatchNorm spreads it, ReLU takes it to 0), status 0
cp "$t/X.npy" "$t/Xnan.npy"
off=$(( 10 + $(od -An -tu2 -j8 -N2 "$t/X.npy" | tr -d ' ') + 4 * 5 )) # sample 0, element 5
printf '\000\000\300\177' | dd of="$t/Xnan.npy" bs=1 seek=$off conv=notrunc 2> /dev/null
expect 1 "Xnan.npy: value nan in sample 0 (element 5 of it)" step --init-seed 1 --classes 4 --input "$t/Xnan.npy" --labels "$t/Y.npy" --out "$t/o"
[ -e "$t/o" ] && fail "output left behind after a NaN input"
# --out naming an input replaced it with the step's results
cp "$t/X.npy" "$t/Xcopy.npy"
expect 2 "--out $t/Xcopy.npy is the file of --input" step --init-seed 1 --classes 4 --input "$t/Xcopy.npy" --labels "$t/Y.npy" --out "$t/Xcopy.npy"
cmp -s "$t/X.npy" "$t/Xcopy.npy" || fail "--out over --input changed the input"
# outputs go where asked, whole or not at all (issue 35): the atomic writer replaces only regular
# files (flce step --out /dev/full once exited 0 and, as root, replaced the device with a file),
# and a FIFO or a link in the way is refused the same way, each left as it was
mkfifo "$t/fifo"; ln -s "$t/init.st" "$t/link"
for o in /dev/full "$t/fifo" "$t/link"; do
  expect 1 "not a regular file" step --init-seed 7 --classes 4 --input "$t/X.npy" --labels "$t/Y.npy" --backend cpu --out "$o"
done
[ -c /dev/full ] || fail "/dev/full is no longer a device"
[ -p "$t/fifo" ] && [ -L "$t/link" ] || fail "a FIFO or link in the way was replaced"
echo "cli_step: all checks passed"
