#!/bin/sh
# make_corpus.sh BUILD_DIR: writes the seed corpora of the fuzz targets into tests/fuzz/corpus
# (committed; run again only to change the seeds). Each seed is a small valid input and a few
# near-misses, made by the project's own programs and test fixtures.
set -eu
b=$1
here=$(cd "$(dirname "$0")" && pwd)
c=$here/corpus
t=$(mktemp -d /tmp/flce-corpus-XXXXXX); trap 'rm -rf "$t"' EXIT
fx=$b/tests/fixtures
rm -rf "$c"; mkdir -p "$c"/npy "$c"/safetensors "$c"/idx "$c"/cifar "$c"/jpeg "$c"/weights "$c"/trace "$c"/run "$c"/state
# npy: float32 [2,1,4,4], int64 [2], float64 weights, uint8
"$fx" batch "$t" 2 1 4 4 3
cp "$t/X.npy" "$c/npy/x_f32.npy"; cp "$t/Y.npy" "$c/npy/y_i64.npy"
"$fx" npy-header "$c/npy/zero_dim.npy" 0 3 4 4
# trace: the hand-worked trace of cli_eval, as records (fuzz.h)
mkdir "$t/tr"; "$fx" trace "$t/tr"
"$fx" pack "$c/trace/handworked" 0:"$t/tr/prototypes.npy" 1:"$t/tr/selected.npy" 2:"$t/tr/data_sizes.npy"
printf '1 1\n' > "$t/rw.txt"; printf '0.25,0.75' > "$t/cw.txt"
"$fx" pack "$c/trace/with_weights" 0:"$t/tr/prototypes.npy" 1:"$t/tr/selected.npy" 2:"$t/tr/data_sizes.npy" 3:"$t/rw.txt" 4:"$t/cw.txt"
cp "$t/tr/data_sizes.npy" "$c/npy/sizes_i64.npy"
# weights: the first byte is the length - 1
printf '\002%s' '1, 2 3' > "$c/weights/text3"
printf '\001%s' '0.5 0.5' > "$c/weights/text2"
printf '\000%s' 'nan' > "$c/weights/nan"
# safetensors: two small tensors; and a ResNet20 checkpoint of 1x8x8 inputs, 2 classes
printf '\160\000\000\000\000\000\000\000{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"I64","shape":[],"data_offsets":[8,16]}}      ' > "$t/h"
head -c 120 "$t/h" > "$c/safetensors/two"; head -c 16 /dev/zero >> "$c/safetensors/two"
printf '\107\000\000\000\000\000\000\000{"conv1.weight":{"dtype":"F32","shape":[1,1,1,1],"data_offsets":[0,4]}}' > "$c/safetensors/conv1_only"; head -c 4 /dev/zero >> "$c/safetensors/conv1_only"
# idx: a 3-image 2x2 file, raw and gzip, and a label file
printf '\000\000\010\003\000\000\000\003\000\000\000\002\000\000\000\002abcdefghijkl' > "$c/idx/images_raw"
gzip -c "$c/idx/images_raw" > "$c/idx/images_gz"
printf '\000\000\010\001\000\000\000\003\001\002\003' > "$c/idx/labels_raw"
gzip -c "$c/idx/labels_raw" > "$c/idx/labels_gz"
# cifar: one CIFAR-10 record (label 3) and one CIFAR-100 record (labels 1, 42)
{ printf '\003'; head -c 3072 /dev/zero | tr '\000' '\177'; } > "$c/cifar/one10"
{ printf '\001\052'; head -c 3072 /dev/zero | tr '\000' '\100'; } > "$c/cifar/one100"
# jpeg: 64x64 (the EuroSAT size) and 32x32
"$fx" jpeg "$c/jpeg/noise64.jpg" 64 64
"$fx" jpeg "$c/jpeg/noise32.jpg" 32 32
# run: a finished two-round run, as records of its files
"$b/flce" run --algo fedavg --clients 4 --per-round 2 --rounds 2 --train-subset 300 --test-subset 60 --val-size 20 \
  --batch 16 --seed 3 --quiet --backend cpu --out "$t/run" > /dev/null 2>&1
r=$t/run
"$fx" pack "$c/run/fedavg" 0:"$r/config.json" 1:"$r/device.txt" 2:"$r/digests.txt" 3:"$r/metrics.csv" \
  4:"$r/contributions.csv" 5:"$r/round_contributions.csv" 6:"$r/clients.csv" 7:"$r/contributions_rules.csv"
ls -R "$c" | head -40
# state: odd first byte, a valid state of the target's engine (second byte: rounds done) with
# edits (offset LE, xor) and the checksum redone; even, the bytes as they are
printf '\001\000' > "$c/state/valid_0"
printf '\001\003' > "$c/state/valid_3"
printf '\001\002\004\000\001' > "$c/state/rounds_edited"
printf '\001\001\030\000\001' > "$c/state/settings_edited"
printf '\001\001\020\000\001' > "$c/state/size_edited"
printf '\000FLS2\001\000\000\000' > "$c/state/old_magic"
printf '\000FLS3\001\000\000\000' > "$c/state/old_magic3"
printf '\000FLS4\001\000\000\000' > "$c/state/old_magic4"
printf '\000' > "$c/state/empty"
"$b/flce" run --algo fedavg --clients 4 --per-round 2 --rounds 1 --train-subset 200 --test-subset 40 --val-size 20 --seed 1 \
  --backend cpu --quiet --out "$t/st" > /dev/null
{ printf '\000'; head -c 3000 "$t/st/state.bin"; } > "$c/state/another_run_cut"
