#!/bin/sh
# study_finish.sh [STUDY_DIR]: when the small-scale study (scripts/presets/study_small.sh) is
# complete, its report into docs/results/fmnist-small/report/ (Markdown, HTML, PNG and SVG
# figures, gnuplot scripts and the CSVs behind them; not the run folders, which
# scripts/study_pack.sh carries), with the command that made it and its wall time in
# docs/results/fmnist-small/report/COMMAND.txt, and a screenshot of the report's first screen
# in headless Chromium at 1280 x 800 (docs/results/fmnist-small/report-screenshot.png; the
# browser check of tests/report_browser.sh on report.html and runs.html: it fails when a figure
# does not load, a link or anchor is broken, a per-round figure has more than 12 legend entries,
# or the first screen holds no verdict figure).
# First FLCE's runs are evaluated as the released code would (scripts/released_eval.sh: the traces
# of the normal experiment keep their prototypes). Checks the claims table's verdicts against
# their numbers (scripts/check_claims.sh).
# Refuses while a configuration of the study lacks a seed (the presets' folder names say which).
# FLCE_BIN=PATH: another build of flce.
set -eu
cd "$(dirname "$0")/.."
study=${1:-runs/study}
flce=${FLCE_BIN:-./build/flce}
dest=docs/results/fmnist-small
[ -x "$flce" ] || { echo "study_finish.sh: $flce: not built (scripts/setup.sh)" >&2; exit 2; }
[ -d "$study" ] || { echo "study_finish.sh: $study: no such folder (scripts/study_pack.sh unpack)" >&2; exit 2; }
# every folder the study makes, finished (names from scripts/presets/run.sh: 3 seeds, and seeds 4
# and 5 of the normal configurations from moreseeds)
missing=""
for c in noniid iid noniid-flce-noM noniid-flce-noV noniid-flce-noQ noniid-flce-noCL noniid-flce-noCMC \
         iid-flce-noM iid-flce-noV iid-flce-noQ iid-flce-noCL iid-flce-noCMC classweights \
         dir0.1 dir0.3 dir1 dir5 noniid-feature noniid-label noniid-both main; do
  for s in 1 2 3; do
    d=$study/fmnist-$c-s$s
    [ -f "$d/summary.csv" ] || [ -f "$d/digests.txt" ] || missing="$missing fmnist-$c-s$s"
  done
done
for d in noniid-s4 noniid-s5 iid-s4 iid-s5; do # moreseeds: FLCE, FedAvg and FedSV only
  [ -f "$study/fmnist-$d/summary.csv" ] || missing="$missing fmnist-$d"
done
[ -z "$missing" ] || { echo "study_finish.sh: the study is not complete; missing:$missing" >&2; exit 1; }
runs=$(ls -d "$study"/fmnist-*/ | sed 's#/$##')
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# FLCE's trajectories evaluated as the released code would (the claims' rows "Released evaluation":
# RUN/released/, from the traces' prototypes; what is there already is kept)
# shellcheck disable=SC2086
FLCE_BIN=$flce sh scripts/released_eval.sh $runs > "$tmp/eval.log" || { tail -n 3 "$tmp/eval.log" >&2; exit 1; }
tail -n 1 "$tmp/eval.log"
t0=$(date +%s)
"$flce" report $runs --out "$tmp/report"
t1=$(date +%s)
# every verdict of the claims table follows from its numbers by the rule (scripts/check_claims.sh)
sh scripts/check_claims.sh "$tmp/report/claims.csv" || { echo "study_finish.sh: the claims table breaks its rule" >&2; exit 1; }
rm -rf "$dest/report.tmp" && mkdir -p "$dest/report.tmp"
find "$tmp/report" -maxdepth 1 -type f \( -name '*.md' -o -name '*.html' -o -name '*.png' -o -name '*.svg' -o -name '*.csv' -o -name '*.gp' \) \
  -exec cp {} "$dest/report.tmp/" \;
{
  echo "Made by scripts/study_finish.sh on $(date -u +%Y-%m-%d) ($(uname -m), $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)):"
  echo "  $flce report <the $(echo "$runs" | wc -l) run folders of $study> --out report"
  echo "Wall time of the report: $((t1 - t0)) s. The runs: scripts/presets/study_small.sh (see ../README.md)."
} > "$dest/report.tmp/COMMAND.txt"
rm -rf "$dest/report" && mv "$dest/report.tmp" "$dest/report"
if [ -d tests/browser/node_modules ] && [ -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  FIRST_SCREEN_VERDICT=1 SHOT_MAX_HEIGHT=800 NODE_PATH=tests/browser/node_modules node tests/browser/check_report.js "$dest/report/report.html" "$dest/report-screenshot.png"
  NODE_PATH=tests/browser/node_modules node tests/browser/check_report.js "$dest/report/runs.html" "$tmp/runs.png"
else
  echo "study_finish.sh: no Chromium or playwright-core here (scripts/test.sh installs them): no screenshot" >&2
fi
echo "study report: $dest/report/report.html ($((t1 - t0)) s)"
