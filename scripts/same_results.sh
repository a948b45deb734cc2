#!/bin/sh
# same_results.sh OLD NEW [DIR]: do two builds of flce give the same results? For a change that
# must not change any number (a refactoring): FLCE, FedAvg, FedSV on 12 rounds of non-IID data (the main job
# before 2026-11-26), all
# eleven methods on a short run, and `flce check --steps 3` on every backend, with both
# programs; digests compared file by file (for flce check: the training steps' model digests and
# the number of cases, which all must match the reference). Prints one line per comparison and exits 1 on any
# difference. OLD, NEW: paths of two flce programs (e.g. a copy of build/flce made before).
set -u
[ $# -le 3 ] || { echo "usage: scripts/same_results.sh OLD NEW [DIR] (got $# arguments)" >&2; exit 2; }
old=${1:-}; new=${2:-}; dir=${3:-runs/same-results}
[ -x "$old" ] && [ -x "$new" ] || { echo "usage: scripts/same_results.sh OLD_FLCE NEW_FLCE [DIR]" >&2; exit 2; }
mkdir -p "$dir"
fail=0
[ -n "${SAME_RESULTS_COMPARE_ONLY:-}" ] || {
main="--algo flce,fedavg,fedsv --dataset fmnist --clients 20 --per-round 5 --rounds 12 --dirichlet 0.5 --train-subset 8000 --test-subset 2000 --val-size 200 --seed 1 --quiet --force"
short="--algo all --dataset fmnist --clients 10 --per-round 3 --rounds 3 --dirichlet 0.5 --train-subset 2000 --test-subset 500 --val-size 100 --seed 7 --quiet --force"
for which in old new; do
  eval prog=\$$which
  "$prog" run $main --out "$dir/main-$which" > /dev/null 2>&1 || { echo "$which: main job failed"; fail=1; }
  "$prog" run $short --out "$dir/all-$which" > /dev/null 2>&1 || { echo "$which: --algo all failed"; fail=1; }
  for be in cpu vulkan; do
    "$prog" check --backend "$be" --steps 3 > "$dir/check-$be-$which.txt" 2>&1; echo $? > "$dir/check-$be-$which.rc"
  done
done
} # SAME_RESULTS_COMPARE_ONLY=1: compare what an earlier call left in DIR
for m in flce fedavg fedsv; do
  if cmp -s "$dir/main-old/$m/digests.txt" "$dir/main-new/$m/digests.txt"; then echo "same   main job $m: $(tr '\n' ' ' < "$dir/main-new/$m/digests.txt")"
  else echo "DIFFER main job $m"; fail=1; fi
done
# every method `all` ran in the new build (its summary.csv: the registry's list); one missing in the
# old build's run differs
for m in $(awk -F, 'NR > 1 { print $1 }' "$dir/all-new/summary.csv"); do
  if cmp -s "$dir/all-old/$m/digests.txt" "$dir/all-new/$m/digests.txt" && cmp -s "$dir/all-old/$m/contributions.csv" "$dir/all-new/$m/contributions.csv"
  then echo "same   short run $m (digests, contributions.csv)"; else echo "DIFFER short run $m"; fail=1; fi
done
for be in cpu vulkan; do # the training steps' model digests, and every case matched (case names may be renamed)
  o=$(grep 'STEP' "$dir/check-$be-old.txt" | sed 's/  */ /g'); n=$(grep 'STEP' "$dir/check-$be-new.txt" | sed 's/  */ /g')
  co=$(grep -c '^ok' "$dir/check-$be-old.txt"); cn=$(grep -c '^ok' "$dir/check-$be-new.txt")
  if [ -n "$n" ] && [ "$o" = "$n" ] && [ "$co" = "$cn" ] && [ "$(cat "$dir/check-$be-new.rc")" = 0 ] && ! grep -q '^FAIL' "$dir/check-$be-new.txt"
  then echo "same   flce check --backend $be --steps 3: $cn cases ok, step digests $(echo "$n" | sed 's/.* model //' | tr '\n' ' ')"
  else echo "DIFFER flce check --backend $be (status old $(cat "$dir/check-$be-old.rc"), new $(cat "$dir/check-$be-new.rc"); $co/$cn cases)"; fail=1; fi
done
exit $fail
