#!/bin/sh
# readings_eval.sh RUN_DIR...: FLCE's evaluation under every reading (docs/decisions.md, the
# readings experiment) for each finished FLCE run among RUN_DIR (a folder with digests.txt and
# trace/prototypes_alt.npy; folders of several methods are searched one level down):
#   RUN/readings/<correct|all>-<zero|unobserved>-r<R>/  contributions.csv, completion_eval.json,
#   eval.txt (flce eval's output), for R = 30, 100, 200 where the run has that many rounds, and
#   R = its rounds. What is there already is kept (a rerun continues). The trace's prototypes can
#   then be left out of an archive (scripts/study_pack.sh): these are what the report reads.
# Two at once on one folder: the second waits for the first (a lock per folder in $TMPDIR).
# FLCE_BIN: the flce to use (default build/flce). FLCE_READINGS_ROUNDS: the rounds R besides the
# run's own (default "30 100 200"; spaces or commas; the report's horizon section reads the same,
# FLCE_REPORT_HORIZON).
set -eu
here=$(pwd) # the folders given are relative to where the command was typed
cd "$(dirname "$0")/.."
flce=${FLCE_BIN:-./build/flce}
case "$flce" in /*) ;; */*) [ -x "$here/$flce" ] && flce="$here/$flce" ;; esac
[ -x "$flce" ] || { echo "readings_eval.sh: build first (scripts/setup.sh)" >&2; exit 2; }
[ $# -ge 1 ] || { echo "usage: scripts/readings_eval.sh RUN_DIR..." >&2; exit 2; }
# the rounds besides the run's own: whole numbers >= 1, separated by spaces or commas (as
# FLCE_REPORT_HORIZON), anything else refused (a "2,3" was once read as no round at all)
rounds=$(printf '%s' "${FLCE_READINGS_ROUNDS:-30 100 200}" | tr ',' ' ')
for R in $rounds; do
  case "$R" in ''|*[!0-9]*|0*) echo "readings_eval.sh: FLCE_READINGS_ROUNDS '$FLCE_READINGS_ROUNDS': whole numbers from 1, separated by spaces or commas" >&2; exit 2;; esac
done
done_n=0; new_n=0
for top in "$@"; do
  case "$top" in /*) ;; *) top="$here/$top" ;; esac
  [ -d "$top" ] || { echo "readings_eval.sh: $top: no such folder" >&2; exit 2; }
  for run in "$top" "$top"/*/; do
    run=${run%/}
    [ -f "$run/digests.txt" ] && [ -f "$run/trace/prototypes_alt.npy" ] || continue
    T=$(sed -n 's/.*"rounds":[[:space:]]*\([0-9]*\).*/\1/p' "$run/config.json" | head -1)
    case "$T" in ''|*[!0-9]*) echo "readings_eval.sh: $run/config.json: no rounds" >&2; exit 1;; esac
    rs=""; for R in $rounds; do [ "$R" -lt "$T" ] && rs="$rs $R"; done; rs="$rs $T"
    # one evaluation of a run folder at a time: a second readings_eval.sh on the same folder (the
    # readings study runs one when its streams end) waits here for the first, then finds what it
    # made; flock lets go when its holder exits, however it ends
    lock="${TMPDIR:-/tmp}/flce-readings-$(cd "$run" && pwd -P | cksum | cut -d' ' -f1).lock"
    exec 9> "$lock" || { echo "readings_eval.sh: cannot open the lock $lock" >&2; exit 1; }
    flock 9
    for ps in correct all; do for m in zero unobserved; do for R in $rs; do
      out="$run/readings/$ps-$m-r$R"
      if [ -f "$out/contributions.csv" ]; then done_n=$((done_n + 1)); continue; fi
      mkdir -p "$out"
      "$flce" eval "$run/trace" --out "$out" --proto-samples "$ps" --missing "$m" --rounds "$R" > "$out/eval.txt.tmp" ||
        { echo "readings_eval.sh: flce eval failed on $run ($ps, $m, $R rounds): $(tail -1 "$out/eval.txt.tmp")" >&2; exit 1; }
      rm -f "$out/Q.npy" "$out/X_completed.npy" # the completion's matrices: large, and made again by the same command
      mv "$out/eval.txt.tmp" "$out/eval.txt"
      new_n=$((new_n + 1))
    done; done; done
    exec 9>&-
  done
done
echo "readings_eval.sh: $new_n evaluations made, $done_n there already"
