#!/bin/sh
# guard_study.sh [STUDY_DIR] [LAST_SEED]: the guard's study (issue 85 item 4; its plan:
# docs/results/fmnist-attacks/GUARD-PLAN.md): FLCE alone, the paper's and the guarded
# (--prototype-clip 2), under every arm of the strategic-clients study that FLCE feels, and the
# guarded FLCE on the four honest federations of the ground-truth study's arm k; seed by seed
# from 401 to LAST_SEED (default 403), into STUDY_DIR (default runs/guard)/fmnist-guard-NAME-sSEED.
# Resumable: a finished run is skipped, one under way continues (--resume); nice. FLCE_BIN:
# another flce (a copy kept still while build/ changes).
set -eu
[ $# -le 2 ] || { echo "usage: scripts/guard_study.sh [STUDY_DIR] [LAST_SEED] (got $# arguments)" >&2; exit 2; }
cd "$(dirname "$0")/.."
study=${1:-runs/guard}; last=${2:-403}
case "$last" in 40[1-9]|410) ;; *) echo "guard_study.sh: LAST_SEED '$last': a seed from 401 to 410" >&2; exit 2;; esac
flce=${FLCE_BIN:-./build/flce}
[ -x "$flce" ] || { echo "guard_study.sh: $flce: not built (scripts/setup.sh)" >&2; exit 2; }
fed="--dataset fmnist --clients 6 --rounds 10 --train-subset 900 --test-subset 1000 --val-size 60 --batch 32 --lr 0.05 --per-round 3"
# the strategic-clients study's arms FLCE feels (scripts/attacks_study.sh, less inflate-count)
arms="replicate-3:--attack=replicate:0:3 random:--attack=random-data:0:1 shuffle:--attack=shuffle-labels:0:1
flip:--attack=flip-labels:0:1 free-rider:--attack=free-rider:0
forge-2:--attack=forge-prototypes:0:2 forge-10:--attack=forge-prototypes:0:10
forge-10x3:--attack=forge-prototypes:0:10,--attack=forge-prototypes:1:10,--attack=forge-prototypes:2:10"
# the ground-truth study's federations (scripts/presets/run.sh truth)
honest="qskew:--quantity-skew=1 label:--dirichlet=0.5 noisy:--iid,--label-noise=0.8,--noisy-clients=0.34 dup:--iid,--duplicate=0:1"
mkdir -p "$study"
one() { # one NAME FLAGS...: flce run --algo flce into $study/NAME unless finished
  name=$1; shift
  if [ -f "$study/$name/digests.txt" ]; then echo "$name: done already"; return 0; fi
  how=--force; [ -f "$study/$name/config.json" ] && how=--resume
  echo "guard_study.sh: $name ($(date -u +%H:%M:%S) UTC)"
  # shellcheck disable=SC2086
  nice -n 19 "$flce" run --algo flce $fed "$@" --quiet --out "$study/$name" $how
}
words() { echo "$1" | tr ',' ' ' | sed 's/--\([a-z-]*\)=/--\1 /g'; }
s=401
while [ "$s" -le "$last" ]; do
  for arm in $arms; do
    # shellcheck disable=SC2046
    one "fmnist-guard-${arm%%:*}-paper-s$s" --dirichlet 0.5 $(words "${arm#*:}") --seed "$s"
    # shellcheck disable=SC2046
    one "fmnist-guard-${arm%%:*}-k2-s$s" --dirichlet 0.5 $(words "${arm#*:}") --prototype-clip 2 --seed "$s"
  done
  for h in $honest; do
    # shellcheck disable=SC2046
    one "fmnist-guard-honest-${h%%:*}-k2-s$s" $(words "${h#*:}") --prototype-clip 2 --seed "$s"
  done
  s=$((s + 1))
done
echo "guard_study.sh: seeds 401-$last done ($(date -u +%H:%M:%S) UTC)"
