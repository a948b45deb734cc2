#!/bin/sh
# study_recomplete.sh STUDY_DIR: the completion of every FLCE run in an unpacked study redone
# with today's flce eval (no retraining; issue 29): its contributions must come out byte for
# byte as the run recorded them (completion version 1, the same bits since the speed-up), and
# its costs.txt is re-timed: final_server_seconds (the run's own cross-validated completion,
# today's code) and final_server_seconds_paper (the completion the paper describes: one fit a
# class at the rule's rank, mu 0.01), with a line saying so. The report's server-cost claim
# reads both. FLCE_BIN: the flce to use (default build/flce). Exit 1 if any run's
# contributions differ.
set -eu
[ $# -le 1 ] || { echo "usage: scripts/study_recomplete.sh STUDY_DIR (got $# arguments)" >&2; exit 2; }
cd "$(dirname "$0")/.."
flce=${FLCE_BIN:-./build/flce}
study=${1:-}
[ -n "$study" ] && [ -d "$study" ] || { echo "usage: scripts/study_recomplete.sh STUDY_DIR" >&2; exit 2; }
[ -x "$flce" ] || { echo "study_recomplete.sh: build first (scripts/setup.sh)" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0; bad=0
for run in "$study"/*/flce "$study"/*/; do
  run=${run%/}
  [ -f "$run/trace/Q.npy" ] && [ -f "$run/contributions.csv" ] && [ -f "$run/costs.txt" ] || continue
  grep -q '"algo":[[:space:]]*"flce"' "$run/config.json" || continue
  rm -rf "$tmp/a" "$tmp/p"
  "$flce" eval "$run/trace" --out "$tmp/a" > "$tmp/a.log" || { echo "study_recomplete.sh: $run: $(tail -1 "$tmp/a.log")" >&2; exit 1; }
  if ! cmp -s "$tmp/a/contributions.csv" "$run/contributions.csv"; then
    echo "study_recomplete.sh: $run: contributions differ from the run's" >&2; bad=$((bad + 1)); continue
  fi
  "$flce" eval "$run/trace" --out "$tmp/p" --rank rule --mu 0.01 > "$tmp/p.log" || { echo "study_recomplete.sh: $run: $(tail -1 "$tmp/p.log")" >&2; exit 1; }
  sa=$(sed -n 's/.*"seconds":[[:space:]]*\([0-9.eE+-]*\).*/\1/p' "$tmp/a/completion_eval.json" | head -1)
  sp=$(sed -n 's/.*"seconds":[[:space:]]*\([0-9.eE+-]*\).*/\1/p' "$tmp/p/completion_eval.json" | head -1)
  if grep -q '"ablate":[[:space:]]*"[^"]*CMC' "$run/trace/completion.json" 2>/dev/null; then sp=$sa; fi # no completion: nothing else to time
  printf 'final_server_seconds %.6f\nfinal_server_seconds_paper %.6f\n# re-timed %s by scripts/study_recomplete.sh (flce eval, %s CPUs; the rounds as the run recorded them)\n' \
    "$sa" "$sp" "$(date -u +%Y-%m-%d)" "$(nproc)" > "$run/costs.txt.tmp"
  mv "$run/costs.txt.tmp" "$run/costs.txt"
  n=$((n + 1))
done
echo "study_recomplete.sh: $n FLCE runs re-timed, $bad with other contributions"
# a folder without a finished FLCE run (a typo, the wrong level) once ended here with status 0
[ $((n + bad)) -gt 0 ] || { echo "study_recomplete.sh: no finished FLCE run with its trace under $study" >&2; exit 1; }
[ "$bad" = 0 ]
