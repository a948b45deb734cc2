#!/bin/sh
# released_retrace.sh RUNS_DIR PART...: the traces' prototypes of the study under the released
# code's arm (a) put back where an archive left them out (scripts/study_pack.sh keeps only what
# the report reads), so that an evaluation added later (docs/decisions.md, "Without completion")
# is made on the very trajectories judged. For each PART (iid noniid noise) and seed 301-303 the
# text's FLCE run is trained again with the preset's flags (scripts/presets/run.sh, `released`)
# into FLCE_RETRACE_DIR (default a fresh folder under /tmp; a run finished there is reused), and
# its trace files are copied into RUNS_DIR/fmnist-rel-PART-text-sSEED/flce/trace only where its
# digests.txt (partition, initial and final model, trace, contributions) equals the archived
# run's; otherwise nothing is copied and the script fails naming the run. Then
# scripts/released_eval.sh RUNS_DIR/fmnist-rel-PART-text-s* makes what is missing. About 4 min a
# run on a free 2-core machine. FLCE_BIN: the flce to use (default build/flce).
# digests.txt covers the trace's prototypes.npy and selected.npy; prototypes_alt.npy and
# prototypes_first.npy come from the same feature passes of that trajectory. RUNS_DIR,
# FLCE_RETRACE_DIR and FLCE_BIN are read from where the command was typed.
set -eu
[ $# -ge 2 ] || { echo "usage: scripts/released_retrace.sh RUNS_DIR PART... (PART: iid noniid noise)" >&2; exit 2; }
here=$(pwd)
abs() { case "$1" in /*) echo "$1";; *) echo "$here/$1";; esac; }
cd "$(dirname "$0")/.."
runs=$(abs "$1"); shift
flce=./build/flce
[ -n "${FLCE_BIN:-}" ] && flce=$(abs "$FLCE_BIN")
[ -x "$flce" ] || { echo "released_retrace.sh: $flce: not built (scripts/setup.sh)" >&2; exit 2; }
[ -d "$runs" ] || { echo "released_retrace.sh: $runs: no such folder" >&2; exit 2; }
for p in "$@"; do
  case "$p" in iid|noniid|noise) ;; *) echo "released_retrace.sh: PART '$p': not one of iid noniid noise" >&2; exit 2;; esac
done
if [ -n "${FLCE_RETRACE_DIR:-}" ]; then work=$(abs "$FLCE_RETRACE_DIR"); else work=$(mktemp -d /tmp/flce-retrace-XXXXXX); fi
mkdir -p "$work"
# the preset's flags (scripts/presets/run.sh: `small`'s common flags and the configuration's own)
common="--clients 20 --per-round 5 --rounds 30 --train-subset 8000 --test-subset 2000 --val-size 200"
for p in "$@"; do
  case "$p" in iid) flags="--iid";; noniid) flags="--dirichlet 0.5";; noise) flags="--dirichlet 0.5 --label-noise 0.3 --noisy-clients 0.4";; esac
  for s in 301 302 303; do
    dst=$runs/fmnist-rel-$p-text-s$s/flce
    [ -f "$dst/digests.txt" ] || { echo "released_retrace.sh: $dst: not a finished run" >&2; exit 1; }
    if [ -f "$dst/trace/prototypes_first.npy" ]; then echo "$dst: its trace is whole"; continue; fi
    o=$work/$p-s$s
    if [ ! -f "$o/digests.txt" ]; then
      # shellcheck disable=SC2086
      "$flce" run --algo flce --dataset fmnist $flags $common --seed "$s" --out "$o" --force --quiet ||
        { echo "released_retrace.sh: training $o failed" >&2; exit 1; }
    fi
    cmp -s "$o/digests.txt" "$dst/digests.txt" ||
      { echo "released_retrace.sh: $o's digests differ from $dst's: not the archived trajectory; nothing copied" >&2; exit 1; }
    for f in prototypes.npy prototypes_alt.npy prototypes_first.npy selected.npy; do
      [ -f "$o/trace/$f" ] || { echo "released_retrace.sh: $o/trace/$f: missing; nothing more copied" >&2; exit 1; }
    done
    for f in prototypes.npy prototypes_alt.npy prototypes_first.npy selected.npy; do
      cp "$o/trace/$f" "$dst/trace/$f.tmp" && mv "$dst/trace/$f.tmp" "$dst/trace/$f" ||
        { echo "released_retrace.sh: copying $f into $dst/trace failed" >&2; exit 1; }
    done
    echo "$dst: trace put back (digests equal)"
  done
done
