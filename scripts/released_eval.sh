#!/bin/sh
# released_eval.sh RUN_DIR...: the released code's evaluation-side departures, each alone, on the
# trajectory of the text (docs/decisions.md, "The study under the released code", (c)), for each
# finished FLCE run among RUN_DIR (a folder with digests.txt and trace/prototypes.npy; folders of
# several methods are searched one level down):
#   RUN/released/<departure>/  contributions.csv, completion_eval.json, eval.txt (flce eval's
#   output), for velocity (--velocity distance), absent (--absent-class forget), nocmc
#   (--ablate CMC), first (--proto-samples first), each of the first, second and fourth without
#   completion too (nocmc-velocity, nocmc-absent, nocmc-first: the report's "Without completion"
#   table), velocity-absent-nocmc (the three together: the report's rows "Released evaluation"),
#   and, where the trace holds initial_prototypes.npy, noinitial (--initial-prototypes none).
#   A trace made before 2026-12-01 has no prototypes_first.npy: its run gets every evaluation
#   but first and nocmc-first, and a line says so.
# What is there already is kept (a rerun continues). The trace's prototypes can then be left out
# of an archive (scripts/study_pack.sh): these are what the report reads. FLCE_BIN: the flce to
# use (default build/flce).
set -eu
here=$(pwd) # the folders given are relative to where the command was typed
cd "$(dirname "$0")/.."
flce=${FLCE_BIN:-./build/flce}
case "$flce" in /*) ;; */*) [ -x "$here/$flce" ] && flce="$here/$flce" ;; esac
[ -x "$flce" ] || { echo "released_eval.sh: build first (scripts/setup.sh)" >&2; exit 2; }
[ $# -ge 1 ] || { echo "usage: scripts/released_eval.sh RUN_DIR..." >&2; exit 2; }
done_n=0; new_n=0
for top in "$@"; do
  case "$top" in /*) ;; *) top="$here/$top" ;; esac
  [ -d "$top" ] || { echo "released_eval.sh: $top: no such folder" >&2; exit 2; }
  for run in "$top" "$top"/*/; do
    run=${run%/}
    if [ -f "$run/digests.txt" ] && [ -f "$run/trace/completion.json" ] && [ ! -f "$run/trace/prototypes.npy" ] && [ ! -d "$run/released" ]; then
      echo "released_eval.sh: $run: its trace has no prototypes.npy (an archive's, or Q only) and it has no evaluation: none made (scripts/released_retrace.sh puts a study's traces back)"
      continue
    fi
    [ -f "$run/digests.txt" ] && [ -f "$run/trace/prototypes.npy" ] || continue
    deps="velocity absent nocmc nocmc-velocity nocmc-absent velocity-absent-nocmc"
    if [ -f "$run/trace/prototypes_first.npy" ]; then deps="$deps first nocmc-first"
    else echo "released_eval.sh: $run: its trace has no prototypes_first.npy (made before 2026-12-01): no first-sample evaluations"; fi
    [ -f "$run/trace/initial_prototypes.npy" ] && deps="$deps noinitial"
    for dep in $deps; do
      case $dep in # the flags: constants of this script
        velocity) flags="--velocity distance";;
        absent) flags="--absent-class forget";;
        nocmc) flags="--ablate CMC";;
        first) flags="--proto-samples first";;
        nocmc-velocity) flags="--ablate CMC --velocity distance";;
        nocmc-absent) flags="--ablate CMC --absent-class forget";;
        nocmc-first) flags="--ablate CMC --proto-samples first";;
        velocity-absent-nocmc) flags="--velocity distance --absent-class forget --ablate CMC";;
        noinitial) flags="--initial-prototypes none";;
      esac
      out="$run/released/$dep"
      if [ -f "$out/contributions.csv" ]; then done_n=$((done_n + 1)); continue; fi
      made=""; [ -d "$out" ] || made=1
      mkdir -p "$out"
      # shellcheck disable=SC2086
      if ! "$flce" eval "$run/trace" --out "$out" $flags > "$out/eval.txt.tmp" 2> "$out/eval.err.tmp"; then
        # one line, flce eval's reason in it; nothing left of this evaluation (a folder without its
        # contributions.csv is a damaged one to flce report)
        why=$(tail -1 "$out/eval.err.tmp")
        rm -f "$out/eval.txt.tmp" "$out/eval.err.tmp"
        [ -z "$made" ] || rmdir "$out" 2> /dev/null
        echo "released_eval.sh: flce eval failed on $run ($dep): ${why#flce eval: }" >&2; exit 1
      fi
      rm -f "$out/eval.err.tmp"
      rm -f "$out/Q.npy" "$out/X_completed.npy" # the completion's matrices: large, and made again by the same command
      mv "$out/eval.txt.tmp" "$out/eval.txt"
      new_n=$((new_n + 1))
    done
  done
done
echo "released_eval.sh: $new_n evaluations made, $done_n there already"
