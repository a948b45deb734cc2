#!/bin/sh
# attacks_study.sh [STUDY_DIR] [LAST_SEED]: the strategic-clients study (issue 85; its plan:
# docs/results/fmnist-attacks/PLAN.md): every arm of the plan on the ground-truth study's
# label-skew federation (arm k), every method, seed by seed from 401 to LAST_SEED (default 403,
# the pilot), into STUDY_DIR (default runs/attacks)/fmnist-attack-ARM-sSEED. The honest runs are
# the ground-truth study's (runs/truth/fmnist-truth-label-k-runs-sSEED). Resumable: a finished run
# is skipped, one under way continues (--resume); nice. FLCE_BIN: another flce (a copy kept still
# while build/ changes). Past the pilot the forge arms run FLCE alone (PLAN.md's amendment).
set -eu
[ $# -le 2 ] || { echo "usage: scripts/attacks_study.sh [STUDY_DIR] [LAST_SEED] (got $# arguments)" >&2; exit 2; }
cd "$(dirname "$0")/.."
study=${1:-runs/attacks}; last=${2:-403}
case "$last" in 40[1-9]|410) ;; *) echo "attacks_study.sh: LAST_SEED '$last': a seed from 401 to 410" >&2; exit 2;; esac
flce=${FLCE_BIN:-./build/flce}
[ -x "$flce" ] || { echo "attacks_study.sh: $flce: not built (scripts/setup.sh)" >&2; exit 2; }
fed="--dataset fmnist --clients 6 --rounds 10 --train-subset 900 --test-subset 1000 --val-size 60 --batch 32 --lr 0.05 --per-round 3 --dirichlet 0.5"
arms="replicate-3:--attack=replicate:0:3 random:--attack=random-data:0:1 shuffle:--attack=shuffle-labels:0:1
flip:--attack=flip-labels:0:1 free-rider:--attack=free-rider:0 inflate-5:--attack=inflate-count:0:5
forge-2:--attack=forge-prototypes:0:2 forge-10:--attack=forge-prototypes:0:10
forge-10x3:--attack=forge-prototypes:0:10,--attack=forge-prototypes:1:10,--attack=forge-prototypes:2:10"
mkdir -p "$study"
s=401
while [ "$s" -le "$last" ]; do
  for arm in $arms; do
    name=fmnist-attack-${arm%%:*}-s$s
    flags=$(echo "${arm#*:}" | tr ',' ' ' | sed 's/--attack=/--attack /g')
    # forge arms past the pilot: FLCE alone, into the folder --algo all gives it (PLAN.md, amended
    # before those runs); every other run: every method, a summary.csv when all have finished
    algo=all; out=$study/$name; done_file=$out/summary.csv
    case "$arm" in forge-*) [ "$s" -le 403 ] || { algo=flce; out=$out/flce; done_file=$out/digests.txt; };; esac
    if [ -f "$done_file" ]; then echo "$name: done already"; continue; fi
    how=--force; ls "$study/$name"/*/config.json > /dev/null 2>&1 && how=--resume
    echo "attacks_study.sh: $name ($(date -u +%H:%M:%S) UTC)"
    mkdir -p "$study/$name"
    # shellcheck disable=SC2086
    nice -n 19 "$flce" run --algo "$algo" $fed $flags --seed "$s" --out "$out" $how
  done
  s=$((s + 1))
done
echo "attacks_study.sh: seeds 401-$last done ($(date -u +%H:%M:%S) UTC)"
