#!/bin/sh
# cli_data.sh FLCE: `flce data` prints the same digest twice, another for another seed,
# and rejects bad arguments with one line and exit status 2 (missing data: non-zero).
set -u
flce=$1
PROG=$flce
. "$(dirname "$0")/lib.sh"
digest() { "$flce" data --dataset fmnist --clients 50 --dirichlet 0.5 --seed "$1" | sed -n 's/^partition digest (xxh3-64): //p'; }
d1=$(digest 1); d1b=$(digest 1); d2=$(digest 2)
echo "seed 1: $d1 / $d1b, seed 2: $d2"
echo "$d1" | grep -Eq '^[0-9a-f]{16}$' || fail "no 16-hex-digit digest"
[ "$d1" = "$d1b" ] || fail "same seed, different digests"
[ "$d1" != "$d2" ] || fail "seeds 1 and 2 give the same digest"
rows=$("$flce" data --clients 50 --seed 1 | grep -cE '^ +[0-9]+ +[0-9]+( +[0-9]+){10}$')
[ "$rows" = 50 ] || fail "expected 50 client rows, got $rows"

expect 2 "unknown option '--bogus'" data --bogus
expect 2 "--clients 'x'" data --clients x
expect 2 "--dirichlet 0" data --dirichlet 0
expect 2 "--noisy-clients 0.5: says which clients" data --clients 4 --train-subset 400 --noisy-clients 0.5 # printed a partition without noise
expect 2 "--dirichlet -1" data --dirichlet -1
expect 2 "exclude" data --iid --dirichlet 0.3
# a noisy fraction that rounds to no client gave an experiment without noise, status 0 (by hand:
# 0.1 x 4 = 0.4 rounds to 0; 0.125 x 4 = 0.5 rounds to 1)
expect 2 "--noisy-clients 0.1 of 4 clients rounds to none" data --clients 4 --train-subset 400 --label-noise 0.3 --noisy-clients 0.1
noisy=$("$flce" data --clients 4 --train-subset 400 --label-noise 0.3 --noisy-clients 0.125 | grep -c ' yes$')
[ "$noisy" = 1 ] || fail "--noisy-clients 0.125 of 4: $noisy noisy clients, expected 1"
expect 2 "--dataset 'svhn'" data --dataset svhn
expect 2 "--train-subset 70000" data --train-subset 70000
expect 2 "exceeds" data --clients 100 --train-subset 500
expect 2 "needs a value" data --seed
expect 2 "unknown command" frobnicate
expect 1 "/nonexistent" data --dataset cifar10 --data /nonexistent
expect 2 "--data" data --dataset cifar10
# Fashion-MNIST's folder: FLCE_FMNIST_DIR where set and not empty (the suites set it to a decompressed
# copy, tests/fmnist_raw.sh), else Debian's .gz files; the same bits from both (a trained model's
# digest reads every pixel of its subsets), --data before either, and a missing folder named
t=$(mktemp -d /tmp/flce-data-XXXXXX); trap 'rm -rf "$t"' EXIT
deb=/usr/share/datasets/fashion-mnist
raw=${FLCE_FMNIST_DIR:-}
if [ -z "$raw" ] || [ "$raw" = "$deb" ]; then
  raw=$t/raw; mkdir "$raw"
  for f in "$deb"/*-ubyte.gz; do gzip -dc "$f" > "$raw/$(basename "$f" .gz)" || fail "cannot decompress $f"; done
fi
[ -f "$raw/train-images-idx3-ubyte" ] || fail "$raw: no decompressed train-images-idx3-ubyte"
tiny="--algo fedavg --clients 2 --per-round 2 --rounds 1 --train-subset 40 --test-subset 10 --val-size 4 --batch 16 --seed 3 --backend cpu --quiet"
FLCE_FMNIST_DIR= "$flce" run $tiny --out "$t/gz" > /dev/null 2>&1 || fail "a run on $deb's .gz files"
FLCE_FMNIST_DIR=$raw "$flce" run $tiny --out "$t/raw" > /dev/null 2>&1 || fail "a run with FLCE_FMNIST_DIR=$raw"
FLCE_FMNIST_DIR=/nonexistent "$flce" run $tiny --data "$raw" --out "$t/arg" > /dev/null 2>&1 || fail "--data $raw with FLCE_FMNIST_DIR=/nonexistent"
for r in raw arg; do cmp -s "$t/gz/digests.txt" "$t/$r/digests.txt" || fail "$r: other digests than the .gz files': $(cat "$t/$r/digests.txt")"; done
(FLCE_FMNIST_DIR=/nonexistent; export FLCE_FMNIST_DIR; expect 1 "FLCE_FMNIST_DIR=/nonexistent: no such directory (dataset fmnist)" data --clients 5) || exit 1
echo "cli_data: all checks passed"
