#!/bin/sh
# truth_extend.sh [STUDY_DIR] [LAST_SEED]: the ground-truth study's ten-seed extension (issue 80;
# its plan: docs/results/fmnist-truth/PLAN.md): arm k of the four configurations, seed by seed
# from 404 to LAST_SEED (default 410), each seed in every configuration (truth with two truth
# seeds, then every method) before the next seed, into STUDY_DIR (default runs/truth). Resumable:
# what is finished is skipped, a truth under way continues (--resume). Runs nice; FLCE_BIN as for
# scripts/presets/run.sh (a copy of flce kept still while build/ changes). Before a session ends:
# scripts/truth_pack.sh pack STUDY_DIR; at the next: scripts/truth_pack.sh unpack STUDY_DIR.
set -eu
[ $# -le 2 ] || { echo "usage: scripts/truth_extend.sh [STUDY_DIR] [LAST_SEED] (got $# arguments)" >&2; exit 2; }
cd "$(dirname "$0")/.."
study=${1:-runs/truth}; last=${2:-410}
case "$last" in 40[4-9]|410) ;; *) echo "truth_extend.sh: LAST_SEED '$last': a seed from 404 to 410" >&2; exit 2;; esac
s=404
while [ "$s" -le "$last" ]; do
  echo "truth_extend.sh: seed $s ($(date -u +%H:%M:%S) UTC)"
  FLCE_PRESET_SEEDS=$((s - 400)) FLCE_PRESET_TRUTH_FULL=0 FLCE_PRESET_REPORT=0 \
    nice -n 19 scripts/presets/run.sh truth small "$study"
  s=$((s + 1))
done
echo "truth_extend.sh: seeds 404-$last done ($(date -u +%H:%M:%S) UTC)"
