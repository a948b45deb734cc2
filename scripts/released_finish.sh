#!/bin/sh
# released_finish.sh [RUNS_DIR]: when the study under the released code (issue 62;
# docs/decisions.md, "The study under the released code") is complete, its report into
# docs/results/fmnist-released/report/ (Markdown, HTML, figures, gnuplot scripts and the CSVs
# behind them; the run folders travel in runs.tar.xz, scripts/study_pack.sh), with the command,
# the build and its wall time in COMMAND.txt. Every folder the plan names must be finished (the
# arms of scripts/presets/run.sh's `released` case, seeds 301-303): IID, Dirichlet 0.5 and the
# noise configuration. The evaluation-side departures are made first on every FLCE run
# (scripts/released_eval.sh: what is there already is kept). Checks that the report has its
# section "The paper's text and its released code" and that every verdict of
# released_claims.csv follows from its numbers by the study's rule (holds: n >= 2 and the
# interval above 0; fails: below; otherwise inconclusive).
#   FLCE_RELEASED_PARTS="iid": only these configurations (iid noniid noise), for a report of the
#   study so far; FLCE_RELEASED_DEST: another destination (default the one above; with
#   FLCE_RELEASED_PARTS set, a destination must be given, so that a partial report never takes
#   the complete one's place). FLCE_BIN=PATH: another build of flce (default build/flce).
set -eu
[ $# -le 1 ] || { echo "usage: scripts/released_finish.sh [RUNS_DIR] (got $# arguments)" >&2; exit 2; }
cd "$(dirname "$0")/.."
runs_dir=${1:-runs/released}
flce=${FLCE_BIN:-./build/flce}
parts=${FLCE_RELEASED_PARTS:-iid noniid noise}
if [ -n "${FLCE_RELEASED_PARTS:-}" ] && [ -z "${FLCE_RELEASED_DEST:-}" ]; then
  echo "released_finish.sh: FLCE_RELEASED_PARTS makes a partial report: give FLCE_RELEASED_DEST too" >&2; exit 2
fi
dest=${FLCE_RELEASED_DEST:-docs/results/fmnist-released/report}
[ -x "$flce" ] || { echo "released_finish.sh: $flce: not built (scripts/setup.sh)" >&2; exit 2; }
[ -d "$runs_dir" ] || { echo "released_finish.sh: $runs_dir: no such folder (scripts/study_pack.sh unpack)" >&2; exit 2; }
for p in $parts; do
  case "$p" in iid|noniid|noise) ;; *) echo "released_finish.sh: FLCE_RELEASED_PARTS '$p': not one of iid noniid noise" >&2; exit 2;; esac
done
# the arms of each configuration, as scripts/presets/run.sh runs them
missing="" runs=""
for p in $parts; do
  arms="text released first sweep initial fedsvrel localtrain clscale mean"
  [ "$p" = iid ] || arms="$arms balance"
  [ "$p" = noise ] && arms="$arms noisecode"
  for a in $arms; do
    for s in 301 302 303; do
      d=$runs_dir/fmnist-rel-$p-$a-s$s
      runs="$runs $d"
      [ -f "$d/summary.csv" ] || [ -f "$d/digests.txt" ] || missing="$missing ${d##*/}"
    done
  done
done
[ -z "$missing" ] || { echo "released_finish.sh: the study ($parts) is not complete; missing or unfinished:$missing" >&2; exit 1; }
# shellcheck disable=SC2086
FLCE_BIN=$flce sh scripts/released_eval.sh $runs
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
# shellcheck disable=SC2086
"$flce" report $runs --out "$tmp/report" --quiet
t1=$(date +%s)
grep -q "^## The paper's text and its released code" "$tmp/report/report.md" ||
  { echo "released_finish.sh: the report has no section The paper's text and its released code" >&2; exit 1; }
# every comparison's verdict from its numbers (mean_difference, half_width_95, n and verdict, counted
# from the end of the line, as the header places them: the quoted text fields before them may hold
# commas; reports since 2026-12-06 add sd,detectable_difference,seeds_to_decide after the verdict,
# which tools/tquant.py check checks)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) e[$i] = NF - i
    if (!("mean_difference" in e) || !("half_width_95" in e) || !("n" in e) || !("verdict" in e)) { print "released_claims.csv: header " $0; bad = 1; exit } }
  NR > 1 { v = $(NF - e["verdict"]); n = $(NF - e["n"]); h = $(NF - e["half_width_95"]); m = $(NF - e["mean_difference"])
    want = (n >= 2 && m - h > 0) ? "holds" : (n >= 2 && m + h < 0) ? "fails" : "inconclusive"
    if (v != want) { print "released_claims.csv line " NR ": " v ", the rule says " want; bad = 1 } }
  END { exit bad }' "$tmp/report/released_claims.csv" ||
  { echo "released_finish.sh: released_claims.csv breaks its rule" >&2; exit 1; }
rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
find "$tmp/report" -maxdepth 1 -type f \( -name '*.md' -o -name '*.html' -o -name '*.png' -o -name '*.svg' -o -name '*.csv' -o -name '*.gp' \) \
  -exec cp {} "$dest.tmp/" \;
{
  echo "Made by scripts/released_finish.sh on $(date -u '+%Y-%m-%d %H:%M') UTC ($(uname -m), $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)) with $flce of commit $(git describe --always --dirty 2> /dev/null || echo unknown):"
  echo "  $flce report <the $(echo "$runs" | wc -w) folders fmnist-rel-{$(echo $parts | tr ' ' ',')}-ARM-s30{1,2,3} of $runs_dir> --out report"
  echo "(the study under the released code: seeds 301-303; each FLCE run evaluated under the released code's"
  echo "evaluation-side departures first with scripts/released_eval.sh). Wall time of the report: $((t1 - t0)) s."
  echo "Every verdict of released_claims.csv follows from its numbers by the rule (checked by the script)."
  echo "The runs: runs.tar.xz beside this folder (scripts/study_pack.sh unpack runs/released docs/results/fmnist-released/runs.tar.xz)."
} > "$dest.tmp/COMMAND.txt"
rm -rf "$dest" && mv "$dest.tmp" "$dest"
echo "released report: $dest/report.html ($((t1 - t0)) s)"
