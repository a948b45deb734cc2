#!/bin/sh
# study_small.sh [OUT]: the whole small-scale study of issue 16 (Fashion-MNIST, 20 clients, 5 per
# round, 30 rounds, 3 seeds: normal, ablation, class weights, heterogeneity, noise), as two
# streams in parallel (two processes use a 2-core machine better than one: flce-bench cluster
# --measure), each resumable: rerun the same command to continue. Then one report over all of
# it into OUT/report. Logs: OUT/stream_a.log, OUT/stream_b.log. About 8-9 hours of a 2-core
# machine; carry finished runs between sessions with scripts/study_pack.sh.
#   stream a: normal (IID, Dirichlet 0.5; all eleven methods), ablation (FLCE itself from the
#             normal runs), class weights
#   stream b: heterogeneity (Dirichlet 0.1, 0.3, 1, 5; 0.5 from the normal runs), noise, main
#             (the main job's configuration: IID, lr 0.05, 15 rounds; FLCE, FedAvg, FedSV), and
#             seeds 4 and 5 of the normal configurations for FLCE, FedAvg and FedSV (moreseeds)
# FLCE_BIN as in run.sh (default build/flce).
set -eu
cd "$(dirname "$0")/../.."
out=${1:-runs/study}
mkdir -p "$out"
run=scripts/presets/run.sh
export FLCE_PRESET_SEEDS=${FLCE_PRESET_SEEDS:-3}
export FLCE_PRESET_REPORT=0  # one report over everything at the end, not one per experiment
( FLCE_PRESET_ABLATION_BASE=0 sh -c "$run normal small '$out' && $run ablation small '$out' && $run classweights small '$out'" \
    > "$out/stream_a.log" 2>&1 ) &
a=$!
( FLCE_PRESET_DIRICHLETS="0.1 0.3 1 5" sh -c "$run heterogeneity small '$out' && $run noise small '$out' && $run main small '$out' && $run moreseeds small '$out'" \
    > "$out/stream_b.log" 2>&1 ) &
b=$!
rc=0
wait $a || rc=1
wait $b || rc=1
[ $rc = 0 ] || { echo "study_small.sh: a stream failed (see $out/stream_a.log, $out/stream_b.log)" >&2; exit 1; }
flce=${FLCE_BIN:-./build/flce}
"$flce" report $(ls -d "$out"/fmnist-*/) --out "$out/report"
echo "results: $out/report/report.html"
