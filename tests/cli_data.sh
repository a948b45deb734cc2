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
echo "cli_data: all checks passed"
