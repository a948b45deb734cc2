#!/bin/sh
# readings_study.sh [OUT]: issue 30's experiments at the study's scale, as planned in
# docs/decisions.md (the readings experiment, seeds 101-105; the horizon, 200 rounds, seeds
# 201-203), in two streams (a: IID and Dirichlet 0.5 readings, then the IID horizon; b: Dirichlet
# 0.1 and quantity-skew readings, then the Dirichlet 0.5 horizon), each resumable: rerun the same
# command to continue. Then every FLCE run evaluated under every reading
# (scripts/readings_eval.sh). Logs: OUT/stream_a.log, OUT/stream_b.log. About ten hours of a
# 2-core machine; carry finished runs between sessions with
#   scripts/study_pack.sh pack OUT docs/results/fmnist-readings/runs.tar.xz   (and unpack).
# FLCE_BIN as in run.sh (default build/flce; a copy kept still while build/ changes);
# FLCE_HORIZON_BIN: the flce of the horizon's runs (default FLCE_BIN): they start fresh, so they
# may use a later build with the same bits (docs/decisions.md says which and how it was checked).
set -eu
cd "$(dirname "$0")/../.."
out=${1:-runs/readings}
mkdir -p "$out"
run=scripts/presets/run.sh
export FLCE_PRESET_REPORT=0
hbin=${FLCE_HORIZON_BIN:-${FLCE_BIN:-./build/flce}}
[ -x "$hbin" ] || { echo "readings_study.sh: FLCE_HORIZON_BIN $hbin: not an executable" >&2; exit 2; }
( FLCE_PRESET_PARTS="iid noniid" sh -c "$run readings small '$out'" && FLCE_BIN=$hbin FLCE_PRESET_PARTS="iid" sh -c "$run horizon small '$out'" ) \
    > "$out/stream_a.log" 2>&1 &
a=$!
( FLCE_PRESET_PARTS="dir0.1 qskew" sh -c "$run readings small '$out'" && FLCE_BIN=$hbin FLCE_PRESET_PARTS="noniid" sh -c "$run horizon small '$out'" ) \
    > "$out/stream_b.log" 2>&1 &
b=$!
rc=0
wait $a || rc=1
wait $b || rc=1
[ $rc = 0 ] || { echo "readings_study.sh: a stream failed (see $out/stream_a.log, $out/stream_b.log)" >&2; exit 1; }
./scripts/readings_eval.sh "$out"/fmnist-*/
echo "results: $out (report: flce report over its folders)"
